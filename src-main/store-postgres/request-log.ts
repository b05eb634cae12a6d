// The request log in PostgreSQL. Rows are queued in memory by the shared RequestLog (store/request-log.ts:
// bounded queue, retry of refused batches, listeners) and handed to the bridge's thread, which writes
// each batch as one transaction (log-batch.ts: its mark, so a batch sent again is written once; ids from the log's sequence, the rows by COPY, the batch's
// usage added to the daily and monthly totals, and the instance that served each call). While PostgreSQL
// is away, batches are refused and wait in that queue, then are written when it is back.
import { randomBytes } from 'node:crypto';
import type { AttemptRecord } from '../core/call-record.js';
import { EMBEDDINGS_DIALECT, type LogEntry, type LogEntryDetail, type LogQuery } from '../core/log-store.js';
import { LIST_COLUMNS, toEntry, type Row, type RowValues } from '../store/log-row.js';
import type { BatchOutcome, LogBatchWriter } from '../store/log-writer.js';
import type { LogReader } from '../store/request-log.js';
import { BATCH_IDS, isWrittenBefore } from './log-batch.js';
import type { PgBridge } from './pg-bridge.js';
import { searchQuery, searchWords } from './search-vector.js';

/** How long a flush (an admin read after writes, a stop) waits for PostgreSQL before it gives up waiting. */
const FLUSH_WAIT_MS = 5_000;
/** How many of the newest rows a filter picks are searched for a text one by one before the text index is used. */
const FILTERED_SCAN = 5_000;

export class PgLogWriter implements LogBatchWriter {
  private inFlight = 0;
  /** This writer's marks in log_batches (log-batch.ts): no other writer, of any instance, has the same. */
  readonly batchWriterId: string;
  /** Batches answered whose marks are still there: the next batch's statement removes them. */
  private forget = new Set<number>();
  /** Batches handed over and not answered as written: their marks must stay. */
  private readonly unsettled = new Set<number>();

  constructor(
    private readonly bridge: PgBridge,
    private readonly instanceId: string,
  ) {
    this.batchWriterId = `${instanceId}/${randomBytes(12).toString('hex')}`;
  }

  get rowsInFlight(): number {
    return this.inFlight;
  }

  write(rows: RowValues[], done: (outcome: BatchOutcome) => void, batch: number): void {
    this.inFlight += rows.length;
    this.unsettled.add(batch);
    const forgotten = [...this.forget];
    this.bridge.writeLogBatch(rows, this.instanceId, { writer: this.batchWriterId, seq: batch, forget: forgotten }, (outcome) => {
      this.inFlight -= rows.length;
      if ('error' in outcome) {
        // Sent before and committed then, though its answer was lost: written, with the ids it got then.
        if (isWrittenBefore(outcome.error)) this.idsWrittenBefore(batch, done);
        else done(outcome);
        return;
      }
      for (const seq of forgotten) this.forget.delete(seq);
      this.written(batch);
      done({ ids: outcome.results[0].map((row) => Number(row.id)) });
    });
  }

  private idsWrittenBefore(batch: number, done: (outcome: BatchOutcome) => void): void {
    this.bridge.query<{ id: number }>(BATCH_IDS, [this.batchWriterId, batch]).then(
      (found) => {
        this.written(batch);
        done({ ids: found.map((row) => Number(row.id)) });
      },
      (error: Error) => done({ error }),
    );
  }

  private written(batch: number): void {
    this.unsettled.delete(batch);
    this.forget.add(batch);
  }

  async whenWritten(): Promise<void> {
    await this.bridge.whenOrderedDone(FLUSH_WAIT_MS);
  }

  /** The marks of the batches answered go; those of batches that may be spilled stay for the replay. */
  async close(): Promise<void> {
    if (this.forget.size === 0) return;
    try {
      await this.bridge.query('DELETE FROM log_batches WHERE writer = $1 AND NOT (seq = ANY($2::bigint[]))', [this.batchWriterId, [...this.unsettled]]);
    } catch {
      // Kept (PostgreSQL away): a short row each, harmless.
    }
  }
}

export type PgRow = Row & { instance_id: string | null; instance_name?: string | null };

export function pgEntry(row: PgRow): LogEntry {
  return { ...toEntry(row), instance: row.instance_id ?? null, instanceName: row.instance_name ?? null };
}

/** Each row with the name its instance ran under (USING: the filters' unqualified instance_id stays one column). */
const WITH_INSTANCE_NAME = 'LEFT JOIN instance_names USING (instance_id)';

type Page = { items: LogEntry[]; next: string | null };
type Read = <Row>(sql: string, params: unknown[]) => Promise<Row[]>;

export class PgLogQueries implements LogReader {
  /** Reads wait off the serving thread, within the admin bound (a 503 naming PostgreSQL after it). */
  private readonly read: Read;

  constructor(
    private readonly bridge: PgBridge,
    private readonly isClosed: () => boolean,
  ) {
    this.read = (sql, params) => bridge.queryForAdmin(sql, params);
  }

  /** The key id of each row of a page (by entry id): one lookup per page of an export. */
  async keyIds(ids: readonly string[]): Promise<Map<string, string | null>> {
    if (ids.length === 0) return new Map();
    const rows = await this.read<{ id: string; key_id: string | null }>('SELECT id::text AS id, key_id FROM request_log WHERE id = ANY($1::bigint[])', [ids.map(Number)]);
    return new Map(rows.map((row) => [row.id, row.key_id]));
  }

  list(query: LogQuery = {}): Promise<Page> {
    return listPage(this.read, query);
  }

  async get(id: string): Promise<LogEntryDetail | undefined> {
    if (!/^\d{1,15}$/.test(id)) return undefined;
    const row = (await this.read<PgRow>(`SELECT * FROM request_log ${WITH_INSTANCE_NAME} WHERE id = $1`, [Number(id)]))[0];
    if (!row) return undefined;
    return {
      ...pgEntry(row),
      keyId: row.key_id,
      targetKeyId: row.target_key_id ?? null,
      attemptLog: row.attempt_log ? (JSON.parse(row.attempt_log) as AttemptRecord[]) : [],
      requestHeaders: row.request_headers ? (JSON.parse(row.request_headers) as Record<string, string>) : {},
      requestBody: row.request_body,
      responseBody: row.response_body,
    };
  }

  /** Deletes in slices off this thread (the usage totals give back what the deleted rows counted, by trigger). */
  async prune(maxAgeMs: number, maxRows: number, sliceRows = 2_000): Promise<number> {
    const cutoff = Date.now() - maxAgeMs;
    let removed = await this.deleteInSlices('DELETE FROM request_log WHERE id IN (SELECT id FROM request_log WHERE created_at < $1 LIMIT $2) RETURNING id', cutoff, sliceRows);
    if (this.isClosed()) return removed;
    const firstBeyondCap = (await this.bridge.query<{ id: number }>('SELECT id FROM request_log ORDER BY id DESC LIMIT 1 OFFSET $1', [maxRows]))[0];
    if (firstBeyondCap) {
      removed += await this.deleteInSlices('DELETE FROM request_log WHERE id IN (SELECT id FROM request_log WHERE id <= $1 ORDER BY id LIMIT $2) RETURNING id', firstBeyondCap.id, sliceRows);
    }
    return removed;
  }

  private async deleteInSlices(sql: string, bound: number, sliceRows: number): Promise<number> {
    let removed = 0;
    while (!this.isClosed()) {
      const changes = (await this.bridge.query(sql, [bound, sliceRows])).length;
      removed += changes;
      if (changes < sliceRows) break;
    }
    return removed;
  }
}

async function listPage(read: Read, query: LogQuery): Promise<Page> {
  const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
  const where: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (query.before) {
    if (!/^\d+$/.test(query.before)) return { items: [], next: null };
    where.push(`id < ${param(Number(query.before))}`);
  }
  if (query.provider) where.push(`provider = ${param(query.provider)}`);
  if (query.model) where.push(`model = ${param(query.model)}`);
  if (query.dialect) where.push(`dialect = ${param(query.dialect)}`);
  if (query.route) where.push(`route = ${param(query.route)}`);
  if (query.since !== undefined) where.push(`created_at >= ${param(query.since)}`);
  if (query.until !== undefined) where.push(`created_at < ${param(query.until)}`);
  if (query.key) where.push(`key_id = ${param(query.key)}`);
  if (query.client) where.push(`client = ${param(query.client)}`);
  if (query.kind === 'mcp') where.push("kind = 'mcp'");
  else if (query.kind === 'embeddings') where.push(`kind IS NULL AND dialect = '${EMBEDDINGS_DIALECT}'`);
  else if (query.kind === 'model') where.push(`kind IS NULL AND dialect IS DISTINCT FROM '${EMBEDDINGS_DIALECT}'`);
  if (query.instance) where.push(`instance_id IN (SELECT instance_id FROM instance_names WHERE instance_name = ${param(query.instance)})`);
  // The expression of the request_log_metadata index (schema version 10), so the index serves it.
  for (const [name, value] of query.metadata ?? []) where.push(`(metadata::jsonb) @> ${param(JSON.stringify({ [name]: value }))}::jsonb`);
  if (query.server) where.push(`mcp_server = ${param(query.server)}`);
  if (query.tool) where.push(`mcp_tool = ${param(query.tool)}`);
  if (query.status === 'error') where.push('status >= 400');
  else if (typeof query.status === 'number') where.push(`status = ${param(query.status)}`);
  const filtered = where.length > (query.before ? 1 : 0);
  // The text's condition comes last, with the last parameter, so the filters alone can be run without it.
  let text: string | undefined;
  if (query.q) {
    const phrase = searchQuery(searchWords(query.q));
    if (phrase) {
      // A phrase of the words, the last one a prefix: "gpt-4o-m" finds gpt-4o-mini, as on SQLite.
      text = `search @@ ${param(phrase)}::tsquery`;
    } else {
      const q = param(query.q);
      text = `(strpos(coalesce(model, ''), ${q}) > 0 OR strpos(trace_id, ${q}) > 0 OR strpos(coalesce(error, ''), ${q}) > 0 OR strpos(metadata, ${q}) > 0 OR strpos(path, ${q}) > 0)`;
    }
  }
  const rows = text && filtered ? await filteredSearch(read, where, text, params, limit + 1) : await select(read, text ? [...where, text] : where, params, limit + 1);
  const items = rows.slice(0, limit).map(pgEntry);
  return { items, next: rows.length > limit ? items[items.length - 1].id : null };
}

function select(read: Read, where: string[], params: unknown[], limit: number, from = 'request_log'): Promise<PgRow[]> {
  const sql = `SELECT ${LIST_COLUMNS}, instance_id, instance_name FROM ${from} ${WITH_INSTANCE_NAME} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ${limit}`;
  return read<PgRow>(sql, params);
}

/**
 * Text and filters together. The planner would AND the text index into the filters' bitmaps, and a
 * phrase with a word on every row ("user-42": 'user') costs the GIN index a walk over all its rows, some
 * 300 ms at a million. First the newest FILTERED_SCAN rows the filters pick (their own indexes, newest
 * first) are searched one by one, which finds a common text at once; only when that leaves the page short
 * is the rest searched with the text index, below the last row looked at.
 */
async function filteredSearch(read: Read, filters: string[], text: string, params: unknown[], limit: number): Promise<PgRow[]> {
  const filterParams = params.slice(0, -1);
  const newest = `(SELECT * FROM request_log WHERE ${filters.join(' AND ')} ORDER BY id DESC LIMIT ${FILTERED_SCAN}) AS request_log`;
  const rows = await select(read, [text], params, limit, newest);
  if (rows.length === limit) return rows;
  const edge = (await read<{ id: string }>(`SELECT id FROM request_log WHERE ${filters.join(' AND ')} ORDER BY id DESC OFFSET ${FILTERED_SCAN - 1} LIMIT 1`, filterParams))[0];
  if (!edge) return rows;
  params.push(Number(edge.id));
  return [...rows, ...(await select(read, [...filters, text, `id < $${params.length}`], params, limit - rows.length))];
}
