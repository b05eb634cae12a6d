// Limits per key in SQLite (migration 9) and the running limiter kept in step with them: limits read at
// start and whenever any process (this server's admin API, the CLI) changes them; spend restored at
// start from key_spend and written back in one transaction about once a second, never per request.
// The minute windows live in memory; at start they are refilled from the last minute of the request
// log, so a restart does not hand a key a fresh minute.
import type { SqliteDatabase } from './database.js';
import { invalidRequest, GatewayError } from '../core/errors.js';
import { InMemoryKeyLimiter, MAX_RPM, MAX_TPM, MAX_USD, type KeyLimits, type KeyUsage, type SpendDelta } from '../gateway/limits/limiter.js';

interface LimitsRow {
  key_id: string;
  rpm: number | null;
  tpm: number | null;
  daily_usd: number | null;
  monthly_usd: number | null;
}

export interface LimitedKey {
  id: string;
  name: string;
  kind: 'virtual' | 'gateway';
}

/** A key's limits and how close it is to each, as the admin API and the Keys page show them. */
export interface KeyLimitsView extends KeyUsage {
  keyName: string;
  kind: 'virtual' | 'gateway';
}

/** Checks limits from any caller (admin API, CLI): whole numbers for rates, non-negative amounts, null = none. */
export function validLimits(input: Partial<Record<keyof KeyLimits, unknown>>): KeyLimits {
  const whole = (name: 'rpm' | 'tpm', max: number): number | null => {
    const value = input[name];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
      throw invalidRequest(`'${name}' must be a whole number from 1 to ${max}, or null for no limit`, name);
    }
    return value;
  };
  const amount = (name: 'dailyUsd' | 'monthlyUsd'): number | null => {
    const value = input[name];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_USD) {
      throw invalidRequest(`'${name}' must be an amount in USD from 0 to ${MAX_USD}, or null for no limit`, name);
    }
    return value;
  };
  return { rpm: whole('rpm', MAX_RPM), tpm: whole('tpm', MAX_TPM), dailyUsd: amount('dailyUsd'), monthlyUsd: amount('monthlyUsd') };
}

const hasAny = (limits: KeyLimits) => limits.rpm !== null || limits.tpm !== null || limits.dailyUsd !== null || limits.monthlyUsd !== null;

/** Reading and writing key_limits: what the CLI uses on its own, and the service below builds on. */
export class KeyLimitsTable {
  constructor(private readonly db: SqliteDatabase) {}

  /** The active (unrevoked) key of that id, with its name and kind; 404 if none. */
  key(id: string): LimitedKey {
    const found = this.activeKeys().find((key) => key.id === id);
    if (!found) throw new GatewayError(404, 'not_found_error', `No active virtual key or gateway API key with id '${id}'`, 'id');
    return found;
  }

  /** Keys by name: a name can be shared by a virtual and a gateway key (or two of a kind). */
  keysNamed(name: string): LimitedKey[] {
    return this.activeKeys().filter((key) => key.name === name);
  }

  activeKeys(): LimitedKey[] {
    const rows = this.db
      .prepare(
        `SELECT id, name, 'virtual' AS kind, created_at FROM virtual_keys WHERE revoked_at IS NULL
         UNION ALL SELECT id, name, 'gateway' AS kind, created_at FROM gateway_keys WHERE revoked_at IS NULL
         ORDER BY created_at DESC, id`,
      )
      .all() as (LimitedKey & { created_at: number })[];
    return rows.map(({ id, name, kind }) => ({ id, name, kind }));
  }

  get(keyId: string): KeyLimits | null {
    const row = this.db.prepare('SELECT * FROM key_limits WHERE key_id = ?').get(keyId) as LimitsRow | undefined;
    return row ? fromRow(row) : null;
  }

  all(): Map<string, KeyLimits> {
    const rows = this.db.prepare('SELECT * FROM key_limits').all() as LimitsRow[];
    return new Map(rows.map((row) => [row.key_id, fromRow(row)]));
  }

  /** Sets a key's limits; all null removes its row. */
  set(keyId: string, limits: KeyLimits): void {
    if (!hasAny(limits)) {
      this.clear(keyId);
      return;
    }
    this.db
      .prepare(
        `INSERT INTO key_limits (key_id, rpm, tpm, daily_usd, monthly_usd, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (key_id) DO UPDATE SET rpm = excluded.rpm, tpm = excluded.tpm, daily_usd = excluded.daily_usd,
           monthly_usd = excluded.monthly_usd, updated_at = excluded.updated_at`,
      )
      .run(keyId, limits.rpm, limits.tpm, limits.dailyUsd, limits.monthlyUsd, Date.now());
  }

  clear(keyId: string): void {
    this.db.prepare('DELETE FROM key_limits WHERE key_id = ?').run(keyId);
  }

  generation(): number {
    return (this.db.prepare('SELECT value FROM key_limits_generation WHERE id = 1').get() as { value: number }).value;
  }
}

function fromRow(row: LimitsRow): KeyLimits {
  return { rpm: row.rpm, tpm: row.tpm, dailyUsd: row.daily_usd, monthlyUsd: row.monthly_usd };
}

/**
 * A flush does not wait for the log writer thread's transaction: it tries, and leaves the amounts
 * pending when the database is busy (a wait would stall every request on this thread). After this
 * many tries in a row it waits its turn, so a long busy spell cannot put off writing for long.
 */
const MAX_SKIPPED_FLUSHES = 10;

export interface KeyLimitsServiceOptions {
  /** The clock for budget periods and minute windows; tests pass a fake one. */
  now?: () => number;
  /** How often spend is written and other processes' changes are looked for. */
  intervalMs?: number;
}

/** The limiter of a running server, with its persistence. */
export class KeyLimitsService {
  readonly limiter: InMemoryKeyLimiter;
  readonly table: KeyLimitsTable;
  private readonly timer: NodeJS.Timeout;
  private readonly now: () => number;
  private dataVersion: number;
  private limitsGeneration = -1;
  private keysGeneration = -1;
  private closed = false;
  private skippedFlushes = 0;

  constructor(private readonly db: SqliteDatabase, options: KeyLimitsServiceOptions = {}) {
    this.now = options.now ?? Date.now;
    this.limiter = new InMemoryKeyLimiter({ now: this.now });
    this.table = new KeyLimitsTable(db);
    this.dataVersion = db.pragma('data_version', { simple: true }) as number;
    this.reloadLimits();
    this.restoreSpend();
    this.restoreMinuteWindows();
    this.timer = setInterval(() => this.tick(), options.intervalMs ?? 500);
    this.timer.unref();
  }

  /** Sets (or with all null, clears) a key's limits and applies them at once to this server. */
  set(keyId: string, limits: KeyLimits): KeyLimitsView {
    const key = this.table.key(keyId);
    this.table.set(keyId, limits);
    this.limiter.setLimits(keyId, hasAny(limits) ? limits : null, key.name);
    this.limitsGeneration = this.table.generation();
    return this.view(key);
  }

  clear(keyId: string): KeyLimitsView {
    return this.set(keyId, { rpm: null, tpm: null, dailyUsd: null, monthlyUsd: null });
  }

  get(keyId: string): KeyLimitsView {
    return this.view(this.table.key(keyId));
  }

  list(): KeyLimitsView[] {
    return this.table.activeKeys().map((key) => this.view(key));
  }

  /** Writes the spend recorded since the last flush, in one transaction. */
  flush(): void {
    const deltas = this.limiter.takePending();
    if (deltas.length === 0) return;
    try {
      writeSpend(this.db, deltas);
    } catch (error) {
      // A busy or closing database: the amounts stay pending for the next try.
      this.limiter.restorePending(deltas);
      throw error;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    if (!this.db.open) return;
    try {
      this.flush();
    } catch (error) {
      // The stop goes on (the database still has to close); at most the last second's spend is lost.
      console.error(`Gatehouse: could not write the last key spend: ${(error as Error).message}`);
    }
  }

  private view(key: { id: string; name: string; kind: 'virtual' | 'gateway' }): KeyLimitsView {
    return { ...this.limiter.usage(key.id), keyName: key.name, kind: key.kind };
  }

  private tick(): void {
    if (this.closed || !this.db.open) return;
    try {
      this.flushWithoutWaiting();
      // data_version moves only when another connection committed (the CLI, the log writer thread).
      const current = this.db.pragma('data_version', { simple: true }) as number;
      if (current !== this.dataVersion) {
        this.dataVersion = current;
        this.reloadIfChanged();
      }
    } catch {
      // Busy or closing: the next tick tries again rather than stop a running server.
    }
  }

  private flushWithoutWaiting(): void {
    if (this.skippedFlushes >= MAX_SKIPPED_FLUSHES) {
      this.flush();
      this.skippedFlushes = 0;
      return;
    }
    const busyTimeout = this.db.pragma('busy_timeout', { simple: true }) as number;
    this.db.pragma('busy_timeout = 0');
    try {
      this.flush();
      this.skippedFlushes = 0;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
      this.skippedFlushes++;
    } finally {
      this.db.pragma(`busy_timeout = ${busyTimeout}`);
    }
  }

  private reloadIfChanged(): void {
    const limits = this.table.generation();
    const keys = (this.db.prepare('SELECT value FROM key_generation WHERE id = 1').get() as { value: number }).value;
    if (limits !== this.limitsGeneration || keys !== this.keysGeneration) this.reloadLimits();
  }

  private reloadLimits(): void {
    const read = this.db.transaction(() => ({
      limitsGeneration: this.table.generation(),
      keysGeneration: (this.db.prepare('SELECT value FROM key_generation WHERE id = 1').get() as { value: number }).value,
      limits: this.table.all(),
      keys: this.table.activeKeys(),
    }));
    const { limitsGeneration, keysGeneration, limits, keys } = read();
    const names = new Map(keys.map((key) => [key.id, key.name]));
    this.limiter.replaceLimits(limits, names);
    this.limitsGeneration = limitsGeneration;
    this.keysGeneration = keysGeneration;
  }

  private restoreSpend(): void {
    const period = this.limiter.currentPeriod();
    const rows = this.db.prepare('SELECT key_id, day, cost_usd, tokens, requests FROM key_spend WHERE day >= ?').all(period.monthFirstDay) as {
      key_id: string;
      day: string;
      cost_usd: number;
      tokens: number;
      requests: number;
    }[];
    for (const row of rows) {
      if (!row.day.startsWith(period.month)) continue;
      const today = row.day === period.day;
      this.limiter.seedSpend(row.key_id, {
        dayUsd: today ? row.cost_usd : 0,
        monthUsd: row.cost_usd,
        dayTokens: today ? row.tokens : 0,
        dayRequests: today ? row.requests : 0,
      });
    }
  }

  /**
   * The last minute's calls of keys with a minute limit, from the request log (its key indexes): the key's
   * own calls and the routed calls its credentials served. Calls the limiter refused (429 before any
   * provider was chosen) were never admitted and are left out.
   */
  private restoreMinuteWindows(): void {
    const since = this.now() - 60_000;
    const rows = this.db
      .prepare(
        `SELECT created_at, coalesce(prompt_tokens, 0) + coalesce(completion_tokens, 0) AS tokens FROM request_log
         WHERE (key_id = @key OR target_key_id = @key) AND created_at > @since AND NOT (status = 429 AND provider IS NULL) ORDER BY created_at`,
      )
      .raw();
    for (const [keyId, limits] of this.table.all()) {
      if (limits.rpm === null && limits.tpm === null) continue;
      for (const [at, tokens] of rows.all({ key: keyId, since }) as [number, number][]) this.limiter.seedCall(keyId, at, tokens);
    }
  }
}

function writeSpend(db: SqliteDatabase, deltas: readonly SpendDelta[]): void {
  const upsert = db.prepare(
    `INSERT INTO key_spend (key_id, day, cost_usd, tokens, requests) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (key_id, day) DO UPDATE SET cost_usd = cost_usd + excluded.cost_usd, tokens = tokens + excluded.tokens,
       requests = requests + excluded.requests`,
  );
  db.transaction(() => {
    for (const delta of deltas) upsert.run(delta.keyId, delta.day, delta.costUsd, delta.tokens, delta.requests);
  })();
}
