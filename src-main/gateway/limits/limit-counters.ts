// Where a running limiter keeps its counts, as the limits service drives it. Two implementations:
// InMemoryKeyLimiter (limiter.ts: one process, decided synchronously on the serving thread) and
// RedisKeyLimiter (redis/redis-limiter.ts: every instance on one Redis, decided there atomically by a
// Lua script on Redis's clock). Both answer to the gateway as a KeyLimiter and refuse in the same words
// (limit-refusals.ts); only where the windows, spend and reservations live differs. The spend each
// instance records is handed to the KeyLimitsRepository in batches either way, so the durable copy of
// the day's and month's spend never depends on Redis.
import type { KeyLimits, KeyUsage, SpendDelta, SpentDay } from '../../core/limits.js';
import type { Period } from './calendar.js';
import type { KeyLimiter } from './limiter.js';

export interface KeyLimitCounters extends KeyLimiter {
  /** Where the counts live: this process, or a Redis shared by every instance. */
  readonly backend: 'memory' | 'redis';
  /** Replaces every key's limits (keys absent from the map have none) and their display names. */
  replaceLimits(limits: ReadonlyMap<string, KeyLimits>, names?: ReadonlyMap<string, string>): void;
  setLimits(keyId: string, limits: KeyLimits | null, name?: string): void;
  /** The spend recorded since the last call, for the store to write. */
  takePending(): SpendDelta[];
  /** Amounts whose write failed go back in the batch. */
  restorePending(deltas: readonly SpendDelta[]): void;
  currentPeriod(): Period;
  /** How close a key is to its limits (Redis: read from Redis, so a promise). */
  usage(keyId: string): KeyUsage | Promise<KeyUsage>;
  /**
   * The spend already stored (at start), this month's days from the repository: the in-memory counters
   * add it to their totals (and put the last minute's calls back in their windows) before this resolves;
   * Redis takes it only when it holds nothing yet (empty, or flushed), read again each time, in the background.
   */
  startFrom(spent: () => Promise<SpentDay[]>, recentCalls: (keyId: string, since: number) => Promise<[number, number][]>, limits: ReadonlyMap<string, KeyLimits>): Promise<void>;
  close(): void;
}
