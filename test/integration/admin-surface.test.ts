// The admin surface when other machines can reach it: a guessable admin token refuses the start, and
// wrong tokens are throttled per client address and logged as coalesced refused rows.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import Database from 'better-sqlite3';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

const open: TestGateway[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const gateway of open.splice(0)) await gateway.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-admin-'));
  dirs.push(dir);
  return dir;
}

describe('a guessable admin token where other machines reach the admin API', () => {
  it('refuses the start with --allow-remote and in team mode, naming where the token came from and what to do', async () => {
    for (const weak of ['x', 'admin', 'a'.repeat(100), 'letmein!'.repeat(10)]) {
      await expect(startGateway({ allowRemote: true, dataDir: tempDir(), env: { GATEHOUSE_ADMIN_TOKEN: weak } })).rejects.toThrow(
        /^Refusing to start with --allow-remote: the admin token in GATEHOUSE_ADMIN_TOKEN is too easy to guess \(about \d+ bits; at least 128 are needed .*openssl rand -base64 32/,
      );
    }
    // Team mode: refused before the database is even tried (nothing listens at port 1).
    await expect(startGateway({ databaseUrl: 'postgres://gatehouse@127.0.0.1:1/gatehouse', dataDir: tempDir(), env: { GATEHOUSE_ADMIN_TOKEN: 'x' } })).rejects.toThrow(
      /^Refusing to start in team mode: the admin token in GATEHOUSE_ADMIN_TOKEN is too easy to guess/,
    );
    const dataDir = tempDir();
    writeFileSync(join(dataDir, 'admin-token'), 'hunter2\n', { mode: 0o600 });
    await expect(startGateway({ allowRemote: true, dataDir })).rejects.toThrow(`the admin token in ${join(dataDir, 'admin-token')} is too easy to guess`);
  });

  it('starts with the token Gatehouse generates, or a random one given; on loopback alone any token still starts', async () => {
    open.push(await startGateway({ allowRemote: true }));
    open.push(await startGateway({ allowRemote: true, env: { GATEHOUSE_ADMIN_TOKEN: 'Zx9-qT4_mW2pLk7vB8nR3cYh6JdF1sGa' } }));
    const local = await startGateway({ env: { GATEHOUSE_ADMIN_TOKEN: 'x' } });
    open.push(local);
    expect((await local.admin('/health')).status).toBe(200);
  });
});

interface Reply {
  status: number;
  retryAfter: string | undefined;
  body: { error?: { message?: string; type?: string; code?: string } };
}

/** A GET from one loopback address of many (127.0.0.0/8 is all loopback on Linux): each is its own client to the guard. */
function getFrom(gateway: TestGateway, localAddress: string, path: string, token: string | undefined, host?: string): Promise<Reply> {
  const url = new URL(gateway.baseUrl);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    if (host) headers.host = host;
    const req = request({ host: url.hostname, port: url.port, path, localAddress, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        let body: Reply['body'] = {};
        try {
          body = JSON.parse(text);
        } catch {
          // /metrics answers Prometheus text.
        }
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('wrong admin tokens', () => {
  it('ten a minute from one address, then that address is refused with 429 and Retry-After, right token or not; others are not', async () => {
    const dataDir = tempDir();
    const gateway = await startGateway({ dataDir });
    open.push(gateway);
    const guesses = Array.from({ length: 10 }, (_, i) => `guess-${i}-0123456789abcdef`);
    for (const guess of guesses) {
      const reply = await getFrom(gateway, '127.0.0.2', '/admin/api/virtual-keys', guess);
      expect(reply.status).toBe(401);
    }
    const blocked = await getFrom(gateway, '127.0.0.2', '/admin/api/virtual-keys', 'guess-10-0123456789abcdef');
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toMatchObject({ type: 'rate_limit_error', code: 'too_many_wrong_tokens' });
    expect(Number(blocked.retryAfter)).toBeGreaterThan(0);
    expect(Number(blocked.retryAfter)).toBeLessThanOrEqual(60);
    // The right token from the blocked address: refused too (no way to test a guess while blocked), also at /metrics.
    expect((await getFrom(gateway, '127.0.0.2', '/admin/api/virtual-keys', gateway.adminToken)).status).toBe(429);
    expect((await getFrom(gateway, '127.0.0.2', '/metrics', gateway.adminToken, 'gatehouse.example')).status).toBe(429);
    // Other addresses are not held up.
    expect((await getFrom(gateway, '127.0.0.3', '/admin/api/virtual-keys', gateway.adminToken)).status).toBe(200);
    expect((await gateway.admin('/health')).status).toBe(200);

    // The log, read from the database once the gateway has stopped (which writes the windows still open):
    // per address, path and kind of refusal one row at once and one with the count of the rest; every
    // attempt counted, and no guess anywhere in a row.
    await gateway.close();
    open.splice(open.indexOf(gateway), 1);
    const db = new Database(join(dataDir, 'gatehouse.db'), { readonly: true });
    const rows = (db.prepare('SELECT * FROM request_log').all() as Array<Record<string, unknown>>).filter((row) => String(row.error).includes('127.0.0.2'));
    db.close();
    const counted = (status: number) => rows.filter((row) => row.status === status).reduce((sum, row) => sum + Number(row.request_count ?? 1), 0);
    expect(counted(401)).toBe(10);
    expect(counted(429)).toBe(3);
    expect(rows.map((row) => [row.path, row.status, row.request_count ?? 1]).sort()).toEqual([
      ['/admin/api', 401, 1],
      ['/admin/api', 401, 9],
      ['/admin/api', 429, 1],
      ['/admin/api', 429, 1],
      ['/metrics', 429, 1],
    ]);
    const stored = JSON.stringify(rows);
    for (const guess of [...guesses, gateway.adminToken]) expect(stored).not.toContain(guess);
  });

  it('the block ends after its time, and the right token works again', async () => {
    const gateway = await startGateway({ adminTokenGuard: { maxFailures: 3, blockMs: 800 } });
    open.push(gateway);
    for (let i = 0; i < 3; i++) expect((await getFrom(gateway, '127.0.0.4', '/admin/api/health', `wrong-${i}`)).status).toBe(401);
    expect((await getFrom(gateway, '127.0.0.4', '/admin/api/health', gateway.adminToken)).status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect((await getFrom(gateway, '127.0.0.4', '/admin/api/health', gateway.adminToken)).status).toBe(200);
  });

  it('/metrics checks a token the same way: wrong ones from a remote name count against the address', async () => {
    const gateway = await startGateway({ adminTokenGuard: { maxFailures: 3 } });
    open.push(gateway);
    for (let i = 0; i < 3; i++) expect((await getFrom(gateway, '127.0.0.5', '/metrics', `wrong-${i}`, 'gatehouse.example')).status).toBe(403);
    expect((await getFrom(gateway, '127.0.0.5', '/admin/api/health', gateway.adminToken)).status).toBe(429);
  });
});
