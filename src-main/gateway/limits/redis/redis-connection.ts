// The one Redis connection an instance decides limits on, set up so that nothing waits on a Redis that
// is gone: short connect and command timeouts, no offline queue (a command while disconnected fails at
// once instead of queueing), no retries per command, and a reconnect every half second or so, so that
// limited keys are admitted again within a second or two of Redis coming back. Its health (up or not,
// errors so far) is what /metrics reports.
// Loaded when an instance is given a Redis URL: ioredis costs a fresh process about 10 MB.
import type { Redis } from 'ioredis';

/** Longest a limit decision may wait on Redis before the call is refused (well inside the 3 s promised). */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 1_000;
/** Between reconnect attempts: at most this, so a Redis that is back is found within about a second. */
const MAX_RECONNECT_DELAY_MS = 500;
/** How long start waits for Redis before serving anyway (limited keys get 503 until it answers). */
const START_WAIT_MS = 3_000;

export class RedisHealth {
  up = false;
  /** Commands that failed and connection errors, since start. */
  errors = 0;
  lastError: string | null = null;
  /** Told when a command went unanswered for REDIS_COMMAND_TIMEOUT_MS. */
  onCommandTimeout: (() => void) | undefined;

  failed(error: unknown): void {
    this.errors++;
    this.lastError = error instanceof Error ? error.message : String(error);
    if (this.lastError === COMMAND_TIMED_OUT) this.onCommandTimeout?.();
  }
}

/** ioredis's rejection of a command not answered within commandTimeout. */
const COMMAND_TIMED_OUT = 'Command timed out';

export interface LimitsRedis {
  redis: Redis;
  health: RedisHealth;
  /** The URL without its password, for messages and logs. */
  where: string;
  close(): void;
}

/** `redis://user:secret@host:6379/0` → `redis://host:6379/0`: a password never reaches a log line. */
export function redisLocation(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return 'redis (unparsable URL)';
  }
}

/** Connects, waiting up to 3 s for Redis to answer; serves on without it (it keeps reconnecting). */
export async function connectLimitsRedis(url: string, log: (line: string) => void = () => undefined): Promise<LimitsRedis> {
  const where = redisLocation(url);
  if (!/^rediss?:\/\//.test(url)) throw new Error(`The Redis URL must start with redis:// or rediss:// (got ${where})`);
  const health = new RedisHealth();
  const ioredis = await import('ioredis');
  const redis: Redis = new ioredis.Redis(url, {
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => Math.min(100 * times, MAX_RECONNECT_DELAY_MS),
    lazyConnect: true,
  });
  let reportedDown = false;
  redis.on('ready', () => {
    health.up = true;
    if (reportedDown) log(`Redis at ${where} answers again: limits are decided there again.`);
    reportedDown = false;
  });
  redis.on('close', () => {
    health.up = false;
  });
  // A command left unanswered may mean the connection died without closing (a Redis that vanished behind
  // its address, a failover to a new one): ioredis would keep it, and every later command would time out
  // until TCP gives up, about 15 minutes. So it is dropped and made again (on a Redis that was only slow,
  // that costs one reconnect).
  health.onCommandTimeout = () => {
    if (redis.status === 'ready') redis.stream.destroy();
  };
  redis.on('error', (error: Error) => {
    health.failed(error);
    if (!reportedDown) log(`Redis at ${where} cannot be reached (${error.message}); keys with limits get 503 until it answers.`);
    reportedDown = true;
  });
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    redis.connect().catch(() => undefined),
    new Promise((resolve) => (timer = setTimeout(resolve, START_WAIT_MS))),
  ]);
  clearTimeout(timer);
  return { redis, health, where, close: () => redis.disconnect() };
}
