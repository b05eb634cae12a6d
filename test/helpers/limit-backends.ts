// The limits suites run once per place the limiter's counters can live: this process, and a Redis shared
// by instances (team mode). One suite, parameterised: `describe.each(LIMIT_BACKENDS)`.
import { startRedis, type TestRedis } from './redis.js';

export const LIMIT_BACKENDS = ['memory', 'redis'] as const;
export type LimitBackend = (typeof LIMIT_BACKENDS)[number];

export interface LimitsBackendRun {
  /** For startGateway: undefined with in-memory counters. */
  redisUrl: string | undefined;
  redis: TestRedis | undefined;
  close(): Promise<void>;
}

export async function startLimitsBackend(backend: LimitBackend): Promise<LimitsBackendRun> {
  if (backend === 'memory') return { redisUrl: undefined, redis: undefined, close: async () => undefined };
  const redis = await startRedis();
  return { redisUrl: redis.url, redis, close: () => redis.close() };
}
