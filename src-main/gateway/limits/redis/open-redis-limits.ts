// What the composition root calls in team mode: given a Redis URL, the limiter whose counts live there,
// and what /metrics reports of the connection.
import type { ExtraFamily } from '../../metrics.js';
import { connectLimitsRedis } from './redis-connection.js';
import { RedisKeyLimiter, type RedisDownPolicy } from './redis-limiter.js';

export interface RedisLimits {
  counters: RedisKeyLimiter;
  /** gatehouse_redis_up and gatehouse_redis_errors_total. */
  metrics: ExtraFamily[];
  /** Where Redis is, without a password (for the start line). */
  where: string;
  close(): void;
}

export async function openRedisLimits(
  url: string,
  options: { log?: (line: string) => void; whenDown?: () => RedisDownPolicy; now?: () => number; prefix?: string; reservationTtlMs?: number } = {},
): Promise<RedisLimits> {
  const connection = await connectLimitsRedis(url, options.log);
  const { health } = connection;
  const counters = new RedisKeyLimiter({
    redis: connection.redis,
    health,
    where: connection.where,
    whenDown: options.whenDown,
    now: options.now,
    prefix: options.prefix,
    reservationTtlMs: options.reservationTtlMs,
  });
  return {
    counters,
    where: connection.where,
    metrics: [
      { name: 'gatehouse_redis_up', help: 'Whether the Redis that decides limits (team mode) is connected: 1 or 0.', type: 'gauge', values: () => [{ labels: {}, value: health.up ? 1 : 0 }] },
      {
        name: 'gatehouse_redis_errors_total',
        help: 'Redis commands and connection attempts of the limits that failed (team mode); a key with limits is refused with 503 meanwhile.',
        type: 'counter',
        values: () => [{ labels: {}, value: health.errors }],
      },
    ],
    close: () => {
      counters.close();
      connection.close();
    },
  };
}
