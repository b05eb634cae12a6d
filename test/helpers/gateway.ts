// Starts a real Gatehouse in-process on a free loopback port with a fresh data dir, for integration tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGatehouse, type RunningGatehouse, type StartOptions } from '../../src-main/app.js';
import type { ClientTimeouts } from '../../src-main/gateway/server.js';
import type { ConnectionLimits } from '../../src-main/gateway/connection-guard.js';
import type { PrepareLimits } from '../../src-main/gateway/prepare/prepare-pool.js';

export const TEST_GATEWAY_KEY = 'gh-test-gateway-key-0123456789';
export const TEST_MASTER_KEY = Buffer.alloc(32, 7).toString('base64');

export interface TestGateway {
  /** `http://127.0.0.1:PORT` (no /v1). */
  baseUrl: string;
  apiKey: string;
  adminToken: string;
  dataDir: string;
  running: RunningGatehouse;
  /** Admin API call with the admin token. */
  admin(path: string, init?: RequestInit): Promise<Response>;
  /** Writes queued log rows now instead of waiting for the batch timer. */
  flushLog(): Promise<void>;
  close(): Promise<void>;
}

export interface StartGatewayOptions {
  env?: Record<string, string>;
  dataDir?: string;
  keepDataDir?: boolean;
  maxBodyBytes?: number;
  clientTimeouts?: Partial<ClientTimeouts>;
  connectionLimits?: Partial<ConnectionLimits>;
  /** The preparing threads' limits (threads, queue, time and heap per job). */
  prepareLimits?: Partial<PrepareLimits>;
  /** A fake clock for key limits (budget days and months, minute windows). */
  limitsClock?: () => number;
  /** Team mode: how long Redis keeps a running call's reservation unrenewed (default 60 s). */
  reservationTtlMs?: number;
  /** How long refusals without a valid key are coalesced into one log row. */
  refusalWindowMs?: number;
  /** The admin token guard's bounds and windows (gateway/admin-token-guard.ts). */
  adminTokenGuard?: StartOptions['adminTokenGuard'];
  /** --allow-remote: /v1 answers any Host. */
  allowRemote?: boolean;
  /** Team mode: PostgreSQL (and Redis) instead of SQLite in the data dir. */
  databaseUrl?: string;
  /** Team mode: limits decided in this Redis (test/helpers/redis.ts). */
  redisUrl?: string;
}

export async function startGateway(options: StartGatewayOptions = {}): Promise<TestGateway> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'gatehouse-test-'));
  const running = await startGatehouse({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    env: { GATEWAY_API_KEY: TEST_GATEWAY_KEY, GATEHOUSE_MASTER_KEY: TEST_MASTER_KEY, HOME: dataDir, ...options.env },
    maxBodyBytes: options.maxBodyBytes,
    clientTimeouts: options.clientTimeouts,
    connectionLimits: options.connectionLimits,
    prepareLimits: options.prepareLimits,
    limitsClock: options.limitsClock,
    reservationTtlMs: options.reservationTtlMs,
    refusalWindowMs: options.refusalWindowMs,
    adminTokenGuard: options.adminTokenGuard,
    allowRemote: options.allowRemote,
    databaseUrl: options.databaseUrl,
    redisUrl: options.redisUrl,
  });
  return {
    baseUrl: running.url,
    apiKey: TEST_GATEWAY_KEY,
    adminToken: running.adminToken,
    dataDir,
    running,
    admin: (path, init = {}) =>
      fetch(`${running.url}/admin/api${path}`, {
        ...init,
        headers: { authorization: `Bearer ${running.adminToken}`, 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) },
      }),
    flushLog: () => running.services.requestLog.flush(),
    close: async () => {
      await running.stop();
      if (!options.keepDataDir && !options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
