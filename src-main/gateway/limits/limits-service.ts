// The running limiter of a server, kept in step with where limits and spend are stored: limits loaded at
// start and whenever any process (this server's admin API, the CLI, another instance) changes them;
// spend restored at start and written back in one batch about twice a second, never per request; the
// minute windows refilled from the last minute's calls, so a restart does not hand a key a fresh minute.
// It knows the store only as a KeyLimitsRepository.
import { hasAnyLimit, type KeyLimits, type KeyLimitsRepository, type KeyLimitsView, type LimitedKey } from '../../core/limits.js';
import { InMemoryKeyLimiter } from './limiter.js';

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

export class KeyLimitsService {
  readonly limiter: InMemoryKeyLimiter;
  private readonly timer: NodeJS.Timeout;
  private readonly now: () => number;
  private loadedVersion = '';
  private closed = false;
  private skippedFlushes = 0;

  constructor(
    readonly store: KeyLimitsRepository,
    options: KeyLimitsServiceOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.limiter = new InMemoryKeyLimiter({ now: this.now });
    this.reloadLimits();
    this.restoreSpend();
    this.restoreMinuteWindows();
    this.timer = setInterval(() => this.tick(), options.intervalMs ?? 500);
    this.timer.unref();
  }

  /** Sets (or with all null, clears) a key's limits and applies them at once to this server. */
  set(keyId: string, limits: KeyLimits): KeyLimitsView {
    const key = this.store.key(keyId);
    this.store.set(keyId, limits);
    this.limiter.setLimits(keyId, hasAnyLimit(limits) ? limits : null, key.name);
    this.loadedVersion = this.store.version();
    return this.view(key);
  }

  clear(keyId: string): KeyLimitsView {
    return this.set(keyId, { rpm: null, tpm: null, dailyUsd: null, monthlyUsd: null });
  }

  get(keyId: string): KeyLimitsView {
    return this.view(this.store.key(keyId));
  }

  list(): KeyLimitsView[] {
    return this.store.activeKeys().map((key) => this.view(key));
  }

  /** Writes the spend recorded since the last flush, in one transaction, waiting for the store if need be. */
  flush(): void {
    this.write(true);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
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

  private view(key: LimitedKey): KeyLimitsView {
    return { ...this.limiter.usage(key.id), keyName: key.name, kind: key.kind };
  }

  private tick(): void {
    if (this.closed || !this.store.isOpen) return;
    try {
      const waits = this.skippedFlushes >= MAX_SKIPPED_FLUSHES;
      this.skippedFlushes = this.write(waits) ? 0 : this.skippedFlushes + 1;
      if (this.store.mayHaveChanged() && this.store.version() !== this.loadedVersion) this.reloadLimits();
    } catch {
      // Busy or closing: the next tick tries again rather than stop a running server.
    }
  }

  private reloadLimits(): void {
    const { version, limits, keys } = this.store.snapshot();
    this.limiter.replaceLimits(limits, new Map(keys.map((key) => [key.id, key.name])));
    this.loadedVersion = version;
  }

  private restoreSpend(): void {
    const period = this.limiter.currentPeriod();
    for (const spent of this.store.spendSince(period.monthFirstDay)) {
      if (!spent.day.startsWith(period.month)) continue;
      const today = spent.day === period.day;
      this.limiter.seedSpend(spent.keyId, {
        dayUsd: today ? spent.costUsd : 0,
        monthUsd: spent.costUsd,
        dayTokens: today ? spent.tokens : 0,
        dayRequests: today ? spent.requests : 0,
      });
    }
  }

  /** The last minute's calls of keys with a minute limit. */
  private restoreMinuteWindows(): void {
    const since = this.now() - 60_000;
    for (const [keyId, limits] of this.store.all()) {
      if (limits.rpm === null && limits.tpm === null) continue;
      for (const [at, tokens] of this.store.recentCalls(keyId, since)) this.limiter.seedCall(keyId, at, tokens);
    }
  }
}
