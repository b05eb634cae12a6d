// Key limits and spend in PostgreSQL: the KeyLimitsRepository the running limiter is loaded from. Every
// read and admin write is a promise answered off the serving thread (queryForAdmin: a 503 naming
// PostgreSQL after 5 s), so a hung database holds no call, only the admin request that asked. Spend
// is handed over off the gateway's thread (the limiter's tick must never wait on the network); amounts
// PostgreSQL refused are kept and added to the next write, and those it still refuses on close go to the
// spill (spill.ts), written at the next start. Other instances' limit changes are heard through NOTIFY
// 'limits' / 'keys' (mayHaveChanged).
import { GatewayError } from '../core/errors.js';
import { hasAnyLimit, type KeyLimits, type KeyLimitsRepository, type LimitedKey, type LimitsSnapshot, type SpendDelta, type SpentDay } from '../core/limits.js';
import type { PgBridge, Results, Statement } from './pg-bridge.js';

const ACTIVE_KEYS = `SELECT id, name, 'virtual' AS kind, created_at FROM virtual_keys WHERE revoked_at IS NULL
  UNION ALL SELECT id, name, 'gateway' AS kind, created_at FROM gateway_keys WHERE revoked_at IS NULL ORDER BY created_at DESC, id`;
const VERSION = "SELECT string_agg(value::text, '/' ORDER BY name) AS version FROM generations WHERE name IN ('limits', 'keys')";
const ADD_SPEND = `INSERT INTO key_spend (key_id, day, cost_usd, tokens, requests) SELECT * FROM unnest($1::text[], $2::text[], $3::float8[], $4::bigint[], $5::bigint[])
  ON CONFLICT (key_id, day) DO UPDATE SET cost_usd = key_spend.cost_usd + excluded.cost_usd, tokens = key_spend.tokens + excluded.tokens, requests = key_spend.requests + excluded.requests`;

interface LimitsRow {
  key_id: string;
  rpm: number | null;
  tpm: number | null;
  daily_usd: number | null;
  monthly_usd: number | null;
}

const fromRow = (row: LimitsRow): KeyLimits => ({ rpm: row.rpm, tpm: row.tpm, dailyUsd: row.daily_usd, monthlyUsd: row.monthly_usd });
const toKey = (row: Record<string, unknown>): LimitedKey => ({ id: String(row.id), name: String(row.name), kind: row.kind as LimitedKey['kind'] });

/** Deltas of one key and day summed into one (a single upsert may not touch a row twice). */
export function mergedSpend(deltas: readonly SpendDelta[]): SpendDelta[] {
  const byKeyDay = new Map<string, SpendDelta>();
  for (const delta of deltas) {
    const id = `${delta.keyId}\u0000${delta.day}`;
    const known = byKeyDay.get(id);
    if (known) byKeyDay.set(id, { ...known, costUsd: known.costUsd + delta.costUsd, tokens: known.tokens + delta.tokens, requests: known.requests + delta.requests });
    else byKeyDay.set(id, { ...delta });
  }
  return [...byKeyDay.values()];
}

export function spendStatement(deltas: readonly SpendDelta[]): Statement {
  return { sql: ADD_SPEND, params: [deltas.map((d) => d.keyId), deltas.map((d) => d.day), deltas.map((d) => d.costUsd), deltas.map((d) => d.tokens), deltas.map((d) => d.requests)] };
}

/** The version, the limits and the active keys, read in one transaction so they agree. */
const SNAPSHOT: Statement[] = [{ sql: VERSION }, { sql: 'SELECT * FROM key_limits' }, { sql: ACTIVE_KEYS }];

function snapshotOf([version, limits, keys]: Results): LimitsSnapshot {
  return {
    version: String(version[0].version),
    limits: new Map((limits as unknown as LimitsRow[]).map((row) => [row.key_id, fromRow(row)])),
    keys: keys.map(toKey),
  };
}

export class PgKeyLimitsStore implements KeyLimitsRepository {
  private changed = false;
  /** Spend handed over but refused (PostgreSQL away): written with the next amounts. */
  private unwritten: SpendDelta[] = [];
  /** The amounts of the write on its way, until it is answered. */
  private writing: SpendDelta[] | null = null;
  private closed = false;

  /** `spill` keeps what PostgreSQL has not taken when the store closes; it throws when it cannot. */
  constructor(
    private readonly bridge: PgBridge,
    private readonly spill?: (spend: SpendDelta[]) => void,
  ) {}

  get isOpen(): boolean {
    return !this.closed;
  }

  async key(id: string): Promise<LimitedKey> {
    const found = (await this.activeKeys()).find((key) => key.id === id);
    if (!found) throw new GatewayError(404, 'not_found_error', `No active virtual key or gateway API key with id '${id}'`, 'id');
    return found;
  }

  async keysNamed(name: string): Promise<LimitedKey[]> {
    return (await this.activeKeys()).filter((key) => key.name === name);
  }

  async activeKeys(): Promise<LimitedKey[]> {
    return (await this.bridge.queryForAdmin(ACTIVE_KEYS)).map(toKey);
  }

  async get(keyId: string): Promise<KeyLimits | null> {
    const row = (await this.bridge.queryForAdmin<LimitsRow>('SELECT * FROM key_limits WHERE key_id = $1', [keyId]))[0];
    return row ? fromRow(row) : null;
  }

  async set(keyId: string, limits: KeyLimits): Promise<void> {
    if (!hasAnyLimit(limits)) return this.clear(keyId);
    await this.bridge.queryForAdmin(
      `INSERT INTO key_limits (key_id, rpm, tpm, daily_usd, monthly_usd, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (key_id) DO UPDATE SET rpm = excluded.rpm, tpm = excluded.tpm, daily_usd = excluded.daily_usd, monthly_usd = excluded.monthly_usd, updated_at = excluded.updated_at`,
      [keyId, limits.rpm, limits.tpm, limits.dailyUsd, limits.monthlyUsd, Date.now()],
    );
  }

  async clear(keyId: string): Promise<void> {
    await this.bridge.queryForAdmin('DELETE FROM key_limits WHERE key_id = $1', [keyId]);
  }

  snapshot(): Promise<LimitsSnapshot> {
    return this.bridge.runForAdmin(SNAPSHOT, { transaction: true }).then(snapshotOf);
  }

  /** Set by the change feed when any instance changed limits or keys; read (and reset) by the limiter's tick. */
  markChanged(): void {
    this.changed = true;
  }

  mayHaveChanged(): boolean {
    const changed = this.changed;
    this.changed = false;
    return changed;
  }

  async spendSince(firstDay: string): Promise<SpentDay[]> {
    return (
      await this.bridge.queryForAdmin<{ key_id: string; day: string; cost_usd: number; tokens: number; requests: number }>(
        'SELECT key_id, day, cost_usd, tokens, requests FROM key_spend WHERE day >= $1',
        [firstDay],
      )
    ).map((row) => ({ keyId: row.key_id, day: row.day, costUsd: row.cost_usd, tokens: row.tokens, requests: row.requests }));
  }

  async recentCalls(keyId: string, since: number): Promise<[number, number][]> {
    return (
      await this.bridge.queryForAdmin<{ created_at: number; tokens: number }>(
        `SELECT created_at, coalesce(prompt_tokens, 0) + coalesce(completion_tokens, 0) AS tokens FROM request_log
         WHERE (key_id = $1 OR target_key_id = $1) AND created_at > $2 AND NOT (status = 429 AND provider IS NULL) ORDER BY created_at`,
        [keyId, since],
      )
    ).map((row) => [row.created_at, row.tokens]);
  }

  /**
   * The amounts are the store's from then on: handed over at once (the limiter's tick runs on the serving
   * thread, which never waits on the network, so `wait` changes nothing here), kept and retried while
   * PostgreSQL is away; what is still unwritten on close is written then or spilled.
   */
  addSpend(deltas: readonly SpendDelta[]): boolean {
    if (this.closed) return false;
    this.unwritten.push(...deltas);
    this.writeKept();
    return true;
  }

  close(): void {
    if (this.closed) return;
    this.writeKeptNow();
    this.closed = true;
    // A write never answered is taken as not done: PostgreSQL away, its transaction is not committed.
    const left = mergedSpend([...(this.writing ?? []), ...this.unwritten]);
    this.writing = null;
    this.unwritten = [];
    if (left.length === 0) return;
    try {
      if (!this.spill) throw new Error('nowhere to keep it');
      this.spill(left);
    } catch (error) {
      console.error(`Gatehouse: the last key spend could not be written or kept, and is lost (${(error as Error).message}).`);
    }
  }

  /** On stop: what is kept is written before this returns, when PostgreSQL answers; else it stays kept (close() spills it). */
  private writeKeptNow(): void {
    // Taken out while they are written: a write answered during the wait must not start them again.
    const all = mergedSpend(this.unwritten);
    this.unwritten = [];
    if (all.length === 0) return;
    try {
      this.bridge.runSync([spendStatement(all)], { transaction: true });
    } catch (error) {
      this.unwritten = all.concat(this.unwritten);
      console.error(`Gatehouse: could not write key spend to PostgreSQL: ${(error as Error).message}`);
    }
  }

  private writeKept(): void {
    if (this.writing || this.unwritten.length === 0) return;
    const batch = mergedSpend(this.unwritten);
    this.unwritten = [];
    this.writing = batch;
    // Told as soon as the answer is taken (also inside close's wait), so close knows whether it was written.
    // In a transaction: a server that hangs (or a network that holds the bytes back) and goes on after the
    // stop has at most its BEGIN, never the amounts that close() spills as unwritten.
    this.bridge.runThen([spendStatement(batch)], { transaction: true }, (outcome) => {
      if (this.writing !== batch) return;
      this.writing = null;
      if ('error' in outcome) {
        // Kept for the next write.
        this.unwritten = batch.concat(this.unwritten);
      } else this.writeKept();
    });
  }
}
