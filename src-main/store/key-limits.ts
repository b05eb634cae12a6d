// Limits per key and their spend in SQLite (migration 9): the KeyLimitsRepository the running limiter
// (gateway/limits/limits-service.ts) is loaded from and writes spend to, and what the CLI uses on its own.
// Spend is written in one transaction per batch; the last minute's calls are read back from the request
// log (its key indexes), so a restart does not hand a key a fresh minute.
import type { SqliteDatabase } from './database.js';
import { invalidRequest, GatewayError } from '../core/errors.js';
import { hasAnyLimit, type KeyLimits, type KeyLimitsRepository, type LimitedKey, type LimitsSnapshot, type SpendDelta, type SpentDay } from '../core/limits.js';

interface LimitsRow {
  key_id: string;
  rpm: number | null;
  tpm: number | null;
  daily_usd: number | null;
  monthly_usd: number | null;
}


/** key_limits and key_spend in SQLite, with the request log's last minute per key. */
export class KeyLimitsTable implements KeyLimitsRepository {
  /** SQLite's data_version as last seen: it moves only when another connection committed. */
  private dataVersion: number;

  constructor(private readonly db: SqliteDatabase) {
    this.dataVersion = db.pragma('data_version', { simple: true }) as number;
  }

  get isOpen(): boolean {
    return this.db.open;
  }

  /** The active (unrevoked) key of that id, with its name and kind; 404 if none. */
  async key(id: string): Promise<LimitedKey> {
    const found = this.readActiveKeys().find((key) => key.id === id);
    if (!found) throw new GatewayError(404, 'not_found_error', `No active virtual key or gateway API key with id '${id}'`, 'id');
    return found;
  }

  /** Keys by name: a name can be shared by a virtual and a gateway key (or two of a kind). */
  async keysNamed(name: string): Promise<LimitedKey[]> {
    return this.readActiveKeys().filter((key) => key.name === name);
  }

  async activeKeys(): Promise<LimitedKey[]> {
    return this.readActiveKeys();
  }

  async get(keyId: string): Promise<KeyLimits | null> {
    const row = this.db.prepare('SELECT * FROM key_limits WHERE key_id = ?').get(keyId) as LimitsRow | undefined;
    return row ? fromRow(row) : null;
  }

  /** Sets a key's limits; all null removes its row. */
  async set(keyId: string, limits: KeyLimits): Promise<void> {
    if (!hasAnyLimit(limits)) {
      await this.clear(keyId);
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

  async clear(keyId: string): Promise<void> {
    this.db.prepare('DELETE FROM key_limits WHERE key_id = ?').run(keyId);
  }

  /** The limits generation and the keys generation together: either moves when limits or keys change. */
  async snapshot(): Promise<LimitsSnapshot> {
    return this.db.transaction(() => {
      const limits = this.db.prepare('SELECT * FROM key_limits').all() as LimitsRow[];
      return { version: `${this.generation('key_limits_generation')}/${this.generation('key_generation')}`, limits: new Map(limits.map((row) => [row.key_id, fromRow(row)])), keys: this.readActiveKeys() };
    })();
  }

  mayHaveChanged(): boolean {
    // data_version moves only when another connection committed (the CLI, the log writer thread).
    const current = this.db.pragma('data_version', { simple: true }) as number;
    if (current === this.dataVersion) return false;
    this.dataVersion = current;
    return true;
  }

  async spendSince(firstDay: string): Promise<SpentDay[]> {
    const rows = this.db.prepare('SELECT key_id, day, cost_usd, tokens, requests FROM key_spend WHERE day >= ?').all(firstDay) as {
      key_id: string;
      day: string;
      cost_usd: number;
      tokens: number;
      requests: number;
    }[];
    return rows.map((row) => ({ keyId: row.key_id, day: row.day, costUsd: row.cost_usd, tokens: row.tokens, requests: row.requests }));
  }

  /**
   * The key's own calls and the routed calls its credentials served. Calls the limiter refused (429
   * before any provider was chosen) were never admitted and are left out.
   */
  async recentCalls(keyId: string, since: number): Promise<[number, number][]> {
    return this.db
      .prepare(
        `SELECT created_at, coalesce(prompt_tokens, 0) + coalesce(completion_tokens, 0) AS tokens FROM request_log
         WHERE (key_id = @key OR target_key_id = @key) AND created_at > @since AND NOT (status = 429 AND provider IS NULL) ORDER BY created_at`,
      )
      .raw()
      .all({ key: keyId, since }) as [number, number][];
  }

  addSpend(deltas: readonly SpendDelta[], options: { wait: boolean }): boolean {
    if (options.wait) {
      writeSpend(this.db, deltas);
      return true;
    }
    // Not waiting for the log writer thread's transaction: a wait would stall every request on this thread.
    const busyTimeout = this.db.pragma('busy_timeout', { simple: true }) as number;
    this.db.pragma('busy_timeout = 0');
    try {
      writeSpend(this.db, deltas);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_BUSY') return false;
      throw error;
    } finally {
      this.db.pragma(`busy_timeout = ${busyTimeout}`);
    }
  }

  private readActiveKeys(): LimitedKey[] {
    const rows = this.db
      .prepare(
        `SELECT id, name, 'virtual' AS kind, created_at FROM virtual_keys WHERE revoked_at IS NULL
         UNION ALL SELECT id, name, 'gateway' AS kind, created_at FROM gateway_keys WHERE revoked_at IS NULL
         ORDER BY created_at DESC, id`,
      )
      .all() as (LimitedKey & { created_at: number })[];
    return rows.map(({ id, name, kind }) => ({ id, name, kind }));
  }

  private generation(table: 'key_limits_generation' | 'key_generation'): number {
    return (this.db.prepare(`SELECT value FROM ${table} WHERE id = 1`).get() as { value: number }).value;
  }
}

function fromRow(row: LimitsRow): KeyLimits {
  return { rpm: row.rpm, tpm: row.tpm, dailyUsd: row.daily_usd, monthlyUsd: row.monthly_usd };
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
