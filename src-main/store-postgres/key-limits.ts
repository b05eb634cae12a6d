// Key limits and spend in PostgreSQL: the KeyLimitsRepository the running limiter is loaded from. Every
// read and admin write is a promise answered off the serving thread (queryForAdmin: a 503 naming
// PostgreSQL after 5 s), so a hung database holds no call, only the admin request that asked. Spend
// is handed over off the gateway's thread (the limiter's tick must never wait on the network); amounts
// PostgreSQL refused are kept and added to the next write, and those it still refuses on close go to the
// spill (spill.ts), written at the next start. Other instances' limit changes are heard through NOTIFY
// 'limits' / 'keys' (mayHaveChanged).
//
// Each write of amounts is numbered (a SpendWrite: this store's writer id and a sequence number kept
// across its retries) and applied only when its number is above the writer's mark in `spend_writes`,
// which the same statement moves up. A write whose COMMIT landed but whose answer was lost is then
// applied once however often it is sent again: retried, written by close(), or replayed from the spill.
import { randomBytes } from 'node:crypto';
import { GatewayError } from '../core/errors.js';
import { hasAnyLimit, type KeyLimits, type KeyLimitsRepository, type LimitedKey, type LimitsSnapshot, type SpendDelta, type SpendWrite, type SpentDay } from '../core/limits.js';
import type { PgBridge, Results, Statement } from './pg-bridge.js';

const ACTIVE_KEYS = `SELECT id, name, 'virtual' AS kind, created_at FROM virtual_keys WHERE revoked_at IS NULL
  UNION ALL SELECT id, name, 'gateway' AS kind, created_at FROM gateway_keys WHERE revoked_at IS NULL ORDER BY created_at DESC, id`;
const VERSION = "SELECT string_agg(value::text, '/' ORDER BY name) AS version FROM generations WHERE name IN ('limits', 'keys')";
// The mark moves up only for a number above it (RETURNING then gives a row), and the amounts are added
// only when it did: one statement, so no other writer's transaction can come between the two.
const ADD_SPEND = `WITH mark AS (
    INSERT INTO spend_writes (writer, seq, written_at) VALUES ($6, $7, $8)
    ON CONFLICT (writer) DO UPDATE SET seq = excluded.seq, written_at = excluded.written_at WHERE spend_writes.seq < excluded.seq
    RETURNING 1)
  INSERT INTO key_spend (key_id, day, cost_usd, tokens, requests)
  SELECT * FROM unnest($1::text[], $2::text[], $3::float8[], $4::bigint[], $5::bigint[]) WHERE EXISTS (SELECT 1 FROM mark)
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

export function spendStatement({ writer, seq, spend }: SpendWrite): Statement {
  return { sql: ADD_SPEND, params: [spend.map((d) => d.keyId), spend.map((d) => d.day), spend.map((d) => d.costUsd), spend.map((d) => d.tokens), spend.map((d) => d.requests), writer, seq, Date.now()] };
}

/** A writer id no other store (of this or any instance, now or later) has: a mark is never shared. */
export function newSpendWriter(instanceId: string): string {
  return `${instanceId}/${randomBytes(12).toString('hex')}`;
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
  /** Amounts handed over and not yet numbered: they become the next write. */
  private unwritten: SpendDelta[] = [];
  /** Writes numbered and sent at least once, oldest first, not yet known to be applied. */
  private sent: SpendWrite[] = [];
  /** Whether a write (of every `sent` write at that moment) is on its way. */
  private sending = false;
  /** Inside close's wait: a write answered meanwhile starts no other (the wait sends them all). */
  private waiting = false;
  private seq = 0;
  private readonly writer: string;
  private closed = false;

  /** `spill` keeps what PostgreSQL has not taken when the store closes; it throws when it cannot. */
  constructor(
    private readonly bridge: PgBridge,
    private readonly spill?: (writes: SpendWrite[]) => void,
    instanceId = 'tool',
  ) {
    this.writer = newSpendWriter(instanceId);
  }

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

  async close(): Promise<void> {
    if (this.closed) return;
    await this.writeKeptNow();
    this.closed = true;
    // A write never answered may or may not be committed: it keeps its number in the spill.
    const left = this.numbered();
    this.sent = [];
    if (left.length === 0) {
      await this.forgetMark();
      return;
    }
    try {
      if (!this.spill) throw new Error('nowhere to keep it');
      this.spill(left);
    } catch (error) {
      console.error(`Gatehouse: the last key spend could not be written or kept, and is lost (${(error as Error).message}).`);
    }
  }

  /** On stop: every write not known to be applied is sent before this returns, when PostgreSQL answers; else it stays numbered (close() spills it). */
  private async writeKeptNow(): Promise<void> {
    const writes = this.numbered();
    if (writes.length === 0) return;
    this.waiting = true;
    try {
      // Also those on their way: sent again, each is still applied once. Within the admin bound: a
      // PostgreSQL that hangs costs the stop that long, and the writes are spilled.
      await this.bridge.runForAdmin(writes.map(spendStatement), { transaction: true });
      this.applied(writes);
    } catch (error) {
      console.error(`Gatehouse: could not write key spend to PostgreSQL: ${(error as Error).message}`);
    } finally {
      this.waiting = false;
    }
  }

  /**
   * The writes not known to be applied. The amounts not numbered yet become the newest of them, on a tick
   * only once the older ones are applied: a long outage then retries one write, not one per tick.
   */
  private numbered(evenBehindOthers = true): SpendWrite[] {
    if (evenBehindOthers || this.sent.length === 0) {
      const spend = mergedSpend(this.unwritten);
      this.unwritten = [];
      if (spend.length > 0) this.sent.push({ writer: this.writer, seq: ++this.seq, spend });
    }
    return this.sent.slice();
  }

  private applied(writes: readonly SpendWrite[]): void {
    this.sent = this.sent.filter((write) => !writes.includes(write));
  }

  /**
   * Every write applied and none to come: no spill names this writer, so its mark is no longer needed (a
   * PostgreSQL away keeps it, one short row).
   */
  private async forgetMark(): Promise<void> {
    // A write still on its way could come after the delete and find no mark: then the mark stays.
    if (this.seq === 0 || this.sending) return;
    try {
      await this.bridge.runForAdmin([{ sql: 'DELETE FROM spend_writes WHERE writer = $1', params: [this.writer] }]);
    } catch {
      // Kept: harmless.
    }
  }

  private writeKept(): void {
    if (this.sending) return;
    const writes = this.numbered(false);
    if (writes.length === 0) return;
    this.sending = true;
    // Told as soon as the answer is taken (also while close waits), so close knows what was applied. In a
    // transaction: a server that hangs and goes on after the stop has at most its BEGIN, or the whole write.
    this.bridge.runThen(writes.map(spendStatement), { transaction: true }, (outcome) => {
      this.sending = false;
      if (this.closed) return;
      // Refused: the writes stay numbered for the next tick (an answer lost after a COMMIT is then a no-op).
      if ('error' in outcome) return;
      this.applied(writes);
      if (!this.waiting) this.writeKept();
    });
  }
}
