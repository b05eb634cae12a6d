// The running limiter of a server, kept in step with where limits and spend are stored: limits loaded at
// start and whenever any process (this server's admin API, the CLI, another instance) changes them;
// spend restored at start and written back in one batch about twice a second, never per request; the
// minute windows refilled from the last minute's calls, so a restart does not hand a key a fresh minute.
// It knows the store only as a KeyLimitsRepository.
import { hasAnyLimit, type KeyLimits, type KeyLimitsRepository, type KeyLimitsView, type LimitedKey, type LimitsSnapshot } from '../../core/limits.js';
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

/** A view as the counters give it: at once from this process's, as a promise from Redis's. */
type Read<C extends KeyLimitCounters, T> = C extends InMemoryKeyLimiter ? T : T | Promise<T>;

export class KeyLimitsService<C extends KeyLimitCounters = InMemoryKeyLimiter> {
  readonly limiter: C;
  private readonly timer: NodeJS.Timeout;
  private readonly now: () => number;
  private loadedVersion = '';
  private closed = false;
  private skippedFlushes = 0;
  private reading = false;
  private readAgain = false;
  private readFailed = false;

  constructor(
    readonly store: KeyLimitsRepository,
    options: KeyLimitsServiceOptions & {
      /** Where the counts live; by default in this process (InMemoryKeyLimiter). Team mode passes Redis's. */
      counters?: C;
    } = {},
  ) {
    this.now = options.now ?? Date.now;
    this.limiter = options.counters ?? (new InMemoryKeyLimiter({ now: this.now }) as KeyLimitCounters as C);
    this.reloadLimits();
    this.limiter.startFrom(
      () => this.store.spendSince(this.limiter.currentPeriod().monthFirstDay),
      (keyId, since) => this.store.recentCalls(keyId, since),
      this.store.all(),
    );
    this.timer = setInterval(() => this.tick(), options.intervalMs ?? 500);
    this.timer.unref();
  }

  /** Sets (or with all null, clears) a key's limits and applies them at once to this server. */
  set(keyId: string, limits: KeyLimits): Read<C, KeyLimitsView> {
    const key = this.store.key(keyId);
    this.store.set(keyId, limits);
    this.limiter.setLimits(keyId, hasAnyLimit(limits) ? limits : null, key.name);
    this.loadedVersion = this.store.version();
    return this.view(key);
  }

  clear(keyId: string): Read<C, KeyLimitsView> {
    return this.set(keyId, { rpm: null, tpm: null, dailyUsd: null, monthlyUsd: null });
  }

  get(keyId: string): Read<C, KeyLimitsView> {
    return this.view(this.store.key(keyId));
  }

  list(): Read<C, KeyLimitsView[]> {
    const views = this.store.activeKeys().map((key) => this.view(key));
    return (views.some((view) => view instanceof Promise) ? Promise.all(views) : views) as Read<C, KeyLimitsView[]>;
  }

  /** list() for the admin API: a store across a network is read without holding the serving thread. */
  async listLater(): Promise<KeyLimitsView[]> {
    if (!this.store.activeKeysLater) return await this.list();
    return Promise.all((await this.store.activeKeysLater()).map((key) => this.view(key)));
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

  private view(key: LimitedKey): Read<C, KeyLimitsView> {
    const usage = this.limiter.usage(key.id);
    if (usage instanceof Promise) return usage.then((read) => ({ ...read, keyName: key.name, kind: key.kind })) as Read<C, KeyLimitsView>;
    return { ...usage, keyName: key.name, kind: key.kind } as Read<C, KeyLimitsView>;
  }

  private tick(): void {
    if (this.closed || !this.store.isOpen) return;
    try {
      const waits = this.skippedFlushes >= MAX_SKIPPED_FLUSHES;
      this.skippedFlushes = this.write(waits) ? 0 : this.skippedFlushes + 1;
      // mayHaveChanged() first: it also resets the store's flag.
      if (!this.store.mayHaveChanged() && !this.readFailed) return;
      if (this.store.snapshotLater) this.reloadLater();
      else if (this.store.version() !== this.loadedVersion) this.reloadLimits();
    } catch {
      // Busy or closing: the next tick tries again rather than stop a running server.
    }
  }

  /**
   * A store across the network is read off this thread: the calls in flight go on meanwhile. One read at a
   * time; a change heard during it is read again after it.
   */
  private reloadLater(): void {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    this.store.snapshotLater!()
      .then((snapshot) => {
        this.readFailed = false;
        if (!this.closed && snapshot.version !== this.loadedVersion) this.apply(snapshot);
      })
      .catch(() => {
        // Unreachable for now: the next tick reads again, so the change is not lost.
        this.readFailed = true;
      })
      .finally(() => {
        this.reading = false;
        if (this.readAgain && !this.closed) {
          this.readAgain = false;
          this.reloadLater();
        }
      });
  }

  private reloadLimits(): void {
    this.apply(this.store.snapshot());
  }

  private apply({ version, limits, keys }: LimitsSnapshot): void {
    this.limiter.replaceLimits(limits, new Map(keys.map((key) => [key.id, key.name])));
    this.loadedVersion = version;
  }
}
