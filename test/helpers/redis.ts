// A private Redis for tests: `redis-server` (Debian's package) on a free loopback port, nothing saved to
// disk, stopped (and started again on the same port, empty) at will. Its data dir is a temp dir of its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export const REDIS_SERVER = process.env.GATEHOUSE_TEST_REDIS_SERVER ?? '/usr/bin/redis-server';

export interface TestRedis {
  url: string;
  port: number;
  /** Stops the server (SIGTERM, waits for it to exit). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty (nothing is saved). */
  start(): Promise<void>;
  /** FLUSHALL: every key gone, as an operator's mistake would leave it. */
  flush(): Promise<void>;
  /** A client of its own, for looking inside; closed by close(). */
  client(): Redis;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once the port accepts a connection and answers PING. */
async function answers(port: number, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.setTimeout(500);
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
      socket.once('error', () => resolve(false));
      socket.once('timeout', () => {
        socket.destroy();
        resolve(false);
      });
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server on port ${port} did not answer`);
}

export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-redis-'));
  let child: ChildProcess | undefined;
  let output = '';
  const clients: Redis[] = [];

  const start = async () => {
    output = '';
    child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'yes'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (data: Buffer) => (output += data.toString()));
    child.stderr?.on('data', (data: Buffer) => (output += data.toString()));
    const exited = new Promise<never>((_, reject) => child!.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output}`))));
    await Promise.race([answers(port, Date.now() + 10_000), exited]);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };
  await start();
  const url = `redis://127.0.0.1:${port}`;
  return {
    url,
    port,
    stop,
    start,
    flush: async () => {
      const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      await redis.flushall();
      redis.disconnect();
    },
    client: () => {
      const redis = new Redis(url, { maxRetriesPerRequest: 1 });
      clients.push(redis);
      return redis;
    },
    close: async () => {
      for (const redis of clients) redis.disconnect();
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
