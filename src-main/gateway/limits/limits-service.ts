// The running limiter of a server, kept in step with where limits and spend are stored: limits loaded at
// start and whenever any process (this server's admin API, the CLI, another instance) changes them;
// spend restored at start and written back in one batch about twice a second, never per request; the
// minute windows refilled from the last minute's calls, so a restart does not hand a key a fresh minute.
// It knows the store only as a KeyLimitsRepository.
import { hasAnyLimit, type KeyLimits, type KeyLimitsRepository, type KeyLimitsView, type LimitedKey } from '../../core/limits.js';
import { InMemoryKeyLimiter } from './limiter.js';
import type { KeyLimitCounters } from './limit-counters.js';

/**
 * A flush does not wait for another writer (the log writer thread's transaction): it tries, and leaves
 * the amounts pending when the store is busy (a wait would stall every request on this thread). After
 * this many tries in a row it waits its turn, so a long busy spell cannot put off writing for long.
 */
const MAX_SKIPPED_FLUSHES = 10;

export interface KeyLimitsServiceOptions {
  /** The clock for budget periods and minute windows; tests pass a fake one. */
  now?: () => number;
  /** How often spend is written and other processes' changes are looked for. */
  intervalMs?: number;
}

export class KeyLimitsService<C extends KeyLimitCounters = InMemoryKeyLimiter> {
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  private skippedFlushes = 0;
  private reading = false;
  private readAgain = false;
  private readFailed = false;

  /**
   * The limiter loaded from the store (limits, this month's spend, the last minute's calls) before it
   * serves: a call is never decided against an empty limiter. Every read is a promise, so a store across
   * a network is read without holding the serving thread.
   */
  static async start<C extends KeyLimitCounters = InMemoryKeyLimiter>(
    store: KeyLimitsRepository,
    options: KeyLimitsServiceOptions & {
      /** Where the counts live; by default in this process (InMemoryKeyLimiter). Team mode passes Redis's. */
      counters?: C;
    } = {},
  ): Promise<KeyLimitsService<C>> {
    const now = options.now ?? Date.now;
    const limiter = options.counters ?? (new InMemoryKeyLimiter({ now }) as KeyLimitCounters as C);
    const snapshot = await store.snapshot();
    limiter.replaceLimits(snapshot.limits, namesOf(snapshot.keys));
    await limiter.startFrom(
      () => store.spendSince(limiter.currentPeriod().monthFirstDay),
      (keyId, since) => store.recentCalls(keyId, since),
      snapshot.limits,
    );
    return new KeyLimitsService(store, limiter, snapshot.version, options.intervalMs ?? 500);
  }

  private constructor(
    readonly store: KeyLimitsRepository,
    readonly limiter: C,
    private loadedVersion: string,
    intervalMs: number,
  ) {
    this.timer = setInterval(() => this.tick(), intervalMs);
    this.timer.unref();
  }

  /** Sets (or with all null, clears) a key's limits and applies them at once to this server. */
  async set(keyId: string, limits: KeyLimits): Promise<KeyLimitsView> {
    const key = await this.store.key(keyId);
    await this.store.set(keyId, limits);
    this.limiter.setLimits(keyId, hasAnyLimit(limits) ? limits : null, key.name);
    // A reload read before this write may land after it: read again, so the last word is the store's.
    this.reload();
    return this.view(key);
  }

  clear(keyId: string): Promise<KeyLimitsView> {
    return this.set(keyId, { rpm: null, tpm: null, dailyUsd: null, monthlyUsd: null });
  }

  async get(keyId: string): Promise<KeyLimitsView> {
    return this.view(await this.store.key(keyId));
  }

  async list(): Promise<KeyLimitsView[]> {
    return Promise.all((await this.store.activeKeys()).map((key) => this.view(key)));
  }

  /** Writes the spend recorded since the last flush, in one transaction, waiting for the store if need be. */
  flush(): void {
    this.write(true);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.limiter.close();
    if (!this.store.isOpen) return;
    try {
      this.flush();
    } catch (error) {
      // The stop goes on (the database still has to close); at most the last second's spend is lost.
      console.error(`Gatehouse: could not write the last key spend: ${(error as Error).message}`);
    }
  }

  /** Hands the pending spend to the store; false when it was busy and not waited for (the amounts stay pending). */
  private write(wait: boolean): boolean {
    const deltas = this.limiter.takePending();
    if (deltas.length === 0) return true;
    let written = false;
    try {
      written = this.store.addSpend(deltas, { wait });
    } finally {
      // A busy or failing store: the amounts stay pending for the next try.
      if (!written) this.limiter.restorePending(deltas);
    }
    return written;
  }

  /** How close a key is to its limits: at once from this process's counters, from Redis as it answers. */
  private async view(key: LimitedKey): Promise<KeyLimitsView> {
    return { ...(await this.limiter.usage(key.id)), keyName: key.name, kind: key.kind };
  }

  private tick(): void {
    if (this.closed || !this.store.isOpen) return;
    try {
      const waits = this.skippedFlushes >= MAX_SKIPPED_FLUSHES;
      this.skippedFlushes = this.write(waits) ? 0 : this.skippedFlushes + 1;
      // mayHaveChanged() first: it also resets the store's flag.
      if (this.store.mayHaveChanged() || this.readFailed) this.reload();
    } catch {
      // Busy or closing: the next tick tries again rather than stop a running server.
    }
  }

  /**
   * Reads the limits again without holding this thread: the calls in flight go on meanwhile. One read at a
   * time; a change heard during it is read again after it.
   */
  private reload(): void {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    this.store
      .snapshot()
      .then((snapshot) => {
        this.readFailed = false;
        if (!this.closed && snapshot.version !== this.loadedVersion) {
          this.limiter.replaceLimits(snapshot.limits, namesOf(snapshot.keys));
          this.loadedVersion = snapshot.version;
        }
      })
      .catch(() => {
        // Unreachable for now: the next tick reads again, so the change is not lost.
        this.readFailed = true;
      })
      .finally(() => {
        this.reading = false;
        if (this.readAgain && !this.closed) {
          this.readAgain = false;
          this.reload();
        }
      });
  }
}

const namesOf = (keys: readonly LimitedKey[]): Map<string, string> => new Map(keys.map((key) => [key.id, key.name]));
