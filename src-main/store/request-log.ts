// The request log: rows are queued by the gateway and written in one transaction per batch, off the
// request path; listeners (the admin event stream) hear about each row once it is stored.
import type { SqliteDatabase } from './database.js';
import { redactSecrets } from '../core/redact.js';
import type { AttemptRecord, CallFacts, CallRecord } from '../core/call-record.js';
import { dialectOfPath } from '../codecs/usage-from-body.js';
import { clientOf } from './usage-client.js';
import { priceCall } from '../catalog/pricing.js';
import { USAGE_DIMENSION_COLUMNS, USAGE_ON_CONFLICT, usageUpsert } from './migrations.js';
import { localDay } from './usage.js';

export { CLIENT_DIALECTS, PROVIDER_FORMATS, type ClientDialect, type ProviderFormat } from '../codecs/usage-from-body.js';

export interface LogEntry extends CallFacts {
  id: string;
  createdAt: string;
  promptTokens: number | null;
  completionTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  reasoningTokens: number | null;
  /** USD; null when unknown (a model the catalog does not price, or no usage). */
  costUsd: number | null;
  /** The client tool (usage-client.ts): claude-cli, codex, openai-js, curl …, or the dialect. */
  client: string | null;
}

export interface LogEntryDetail extends LogEntry {
  keyId: string | null;
  /** On a routed call: the virtual key whose credentials served it (or were tried last); null otherwise. */
  targetKeyId: string | null;
  attemptLog: AttemptRecord[];
  requestHeaders: Record<string, string>;
  requestBody: string | null;
  responseBody: string | null;
}

export interface LogQuery {
  limit?: number;
  /** An entry id: list entries older than it (the `next` cursor). */
  before?: string;
  provider?: string;
  model?: string;
  /** A client dialect (CLIENT_DIALECTS). */
  dialect?: string;
  status?: number | 'error';
  /** A route's name: only calls that matched it. */
  route?: string;
  q?: string;
}

export interface RequestLogOptions {
  batchSize?: number;
  flushIntervalMs?: number;
  /** Body text kept per row; longer bodies are cut with a marker. */
  maxStoredBodyChars?: number;
  storeBodies?: () => boolean;
  /** Where batches are written; by default on this thread, as soon as they are handed over. */
  writer?: LogBatchWriter;
}

interface Row {
  id: number;
  created_at: number;
  trace_id: string;
  metadata: string;
  key_id: string | null;
  provider: string | null;
  model: string | null;
  path: string;
  status: number;
  latency_ms: number;
  ttfb_ms: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  stream: number;
  error: string | null;
  attempts: number;
  /** What the row was written with. */
  dialect_given: string | null;
  /** dialect_given, or for rows older than migration 6 the dialect their path names (a generated column). */
  dialect?: string | null;
  provider_format: string | null;
  /** JSON array of field names; NULL when nothing was dropped. */
  dropped: string | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
  route: string | null;
  route_target: string | null;
  target_key_id?: string | null;
  /** NULL = 1 (migration 12). */
  request_count: number | null;
  cost_usd: number | null;
  client: string | null;
  attempt_log: string | null;
  request_headers: string | null;
  request_body: string | null;
  response_body: string | null;
}

// Qualified: a text search joins the search index, whose columns share some of these names.
const LIST_COLUMNS = ['id', 'created_at', 'trace_id', 'metadata', 'provider', 'model', 'path', 'status', 'latency_ms', 'ttfb_ms', 'prompt_tokens', 'completion_tokens', 'stream', 'error', 'attempts',
  'dialect', 'provider_format', 'dropped', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'cost_usd', 'client', 'route', 'route_target', 'request_count']
  .map((column) => `request_log.${column}`)
  .join(', ');

/** Text with a letter or digit has words for the index (migration 5); text of punctuation only is scanned for. */
function hasWords(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(text);
}

/**
 * An FTS5 phrase of the text's words, the last one a prefix: "gpt-4o-m" finds gpt-4o-mini. Quotes and
 * operators in the text are taken as plain text.
 */
function searchPhrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"*`;
}

function toEntry(row: Row): LogEntry {
  return {
    id: String(row.id),
    createdAt: new Date(row.created_at).toISOString(),
    traceId: row.trace_id,
    metadata: JSON.parse(row.metadata) as Record<string, string>,
    provider: row.provider,
    model: row.model,
    path: row.path,
    status: row.status,
    latencyMs: row.latency_ms,
    ttfbMs: row.ttfb_ms,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    cacheReadTokens: row.cache_read_tokens ?? null,
    cacheWriteTokens: row.cache_write_tokens ?? null,
    reasoningTokens: row.reasoning_tokens ?? null,
    costUsd: row.cost_usd ?? null,
    client: row.client ?? null,
    stream: row.stream === 1,
    error: row.error,
    attempts: row.attempts,
    // Rows built from written values (for the listeners) have no generated column.
    dialect: row.dialect ?? row.dialect_given ?? null,
    providerFormat: row.provider_format ?? null,
    dropped: row.dropped ? (JSON.parse(row.dropped) as string[]) : [],
    route: row.route ?? null,
    routeTarget: row.route_target ?? null,
    count: row.request_count ?? 1,
  };
}

/** The local day last worked out, and the span of times (ms) it covers: [from, until). */
let knownDay = { from: 0, until: 0, day: '' };

/**
 * localDay of a time, remembered for the rest of that local day: rows come in time order, and the
 * calendar fields of a Date cost a time-zone lookup each. The span is read from the local calendar
 * itself (midnight to midnight), so a DST change is respected.
 */
function dayOf(time: number): string {
  if (time >= knownDay.from && time < knownDay.until) return knownDay.day;
  const date = new Date(time);
  const day = localDay(date);
  const from = new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
  const until = new Date(date.getFullYear(), date.getMonth(), date.getDate() + 1).getTime();
  // An invalid time (NaN) never matches a span: it is worked out each time, as before.
  if (time >= from && time < until) knownDay = { from, until, day };
  return day;
}

/** An attempt as the row keeps it: whole milliseconds. Field by field, in the order written, rather than a spread (µs a row). */
function storedAttempt(attempt: AttemptRecord): AttemptRecord {
  const stored: AttemptRecord = { status: attempt.status, error: attempt.error, durationMs: Math.round(attempt.durationMs) };
  if (attempt.target !== undefined) stored.target = attempt.target;
  if (attempt.reason !== undefined) stored.reason = attempt.reason;
  return stored;
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… [${text.length - max} more characters not stored]`;
}

export type LogListener = (entry: LogEntry) => void;

/**
 * Adds the rows from an id on to the search index (migration 5). One statement per batch costs about
 * half of what a trigger firing per row did. Also used by whatever writes rows in bulk (the benchmark).
 */
export const INDEX_FOR_SEARCH = `
  INSERT INTO request_log_search (rowid, model, trace_id, error, metadata, path)
    SELECT id, model, trace_id, error, metadata, path FROM request_log WHERE id >= ?`;

/**
 * Add the rows of request_log from an id on to the daily and monthly usage totals (migration 8) in SQL:
 * for rows written in bulk (the benchmark). The log writer adds its batches with USAGE_UPSERT instead.
 */
export const USAGE_FOR_BATCH: readonly string[] = [usageUpsert('usage_daily', '?'), usageUpsert('usage_monthly', '?')];

const usageValues = (table: string, period: string) =>
  `INSERT INTO ${table} (${period}, dim, name, requests, errors, prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens,
     reasoning_tokens, cost_nanos, unpriced_requests, unpriced_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ${USAGE_ON_CONFLICT}`;

/** One usage row's additions, for usage_daily and usage_monthly: the batch's figures summed per day (month), breakdown and name. */
export const USAGE_UPSERT = { daily: usageValues('usage_daily', 'day'), monthly: usageValues('usage_monthly', 'month') } as const;

/** A batch's additions to the usage tables, in the columns of USAGE_UPSERT. */
export interface UsageDeltas {
  daily: RowValues[];
  monthly: RowValues[];
}

/** The columns of a written row, in the order of {@link RowValues}. */
const ROW_COLUMNS = [
  'created_at', 'trace_id', 'metadata', 'key_id', 'provider', 'model', 'path', 'status', 'latency_ms', 'ttfb_ms',
  'prompt_tokens', 'completion_tokens', 'stream', 'error', 'attempts', 'attempt_log', 'request_headers', 'request_body', 'response_body',
  'dialect_given', 'provider_format', 'dropped', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'cost_usd', 'client', 'day', 'route', 'route_target', 'target_key_id',
  'request_count',
] as const;

/** One row's values, positional: cheaper than an object to build, to bind and to hand to another thread. */
export type RowValues = (string | number | null)[];

export const INSERT_ROW = `INSERT INTO request_log (${ROW_COLUMNS.join(', ')}) VALUES (${ROW_COLUMNS.map(() => '?').join(', ')})`;

const COLUMN_INDEX = Object.fromEntries(ROW_COLUMNS.map((column, index) => [column, index])) as Record<(typeof ROW_COLUMNS)[number], number>;
const DIMENSION_INDEXES = Object.entries(USAGE_DIMENSION_COLUMNS).map(([dim, column]) => [dim, COLUMN_INDEX[column]] as const);

/** Where usageOfBatch finds its figures in a row: handed to the writer thread, which sums its batches itself. */
export const USAGE_COLUMNS = {
  day: COLUMN_INDEX.day,
  status: COLUMN_INDEX.status,
  prompt: COLUMN_INDEX.prompt_tokens,
  completion: COLUMN_INDEX.completion_tokens,
  cacheRead: COLUMN_INDEX.cache_read_tokens,
  cacheWrite: COLUMN_INDEX.cache_write_tokens,
  reasoning: COLUMN_INDEX.reasoning_tokens,
  cost: COLUMN_INDEX.cost_usd,
  dimensions: DIMENSION_INDEXES.map(([dim, index]) => [dim, index] as [string, number]),
};
export type UsageColumns = typeof USAGE_COLUMNS;

/**
 * A batch's usage, summed in memory per day and month, breakdown and name, with the same figures as the
 * SQL of migration 8 (usageUpsert): a batch then costs the writer a handful of single-row upserts rather
 * than grouping queries over the rows it just wrote.
 */
export function usageOfBatch(rows: RowValues[]): UsageDeltas {
  // The rows of a batch mostly share their day, key, model, provider and client: summed per distinct
  // such row first, then spread over the breakdowns (a map key per row rather than one per breakdown).
  const groups = new Map<string, { row: RowValues; figures: number[] }>();
  for (const row of rows) {
    let group = row[COLUMN_INDEX.day] as string;
    // Each name with its length: no name (a model may be any string) can run into the next.
    for (const [, index] of DIMENSION_INDEXES) {
      const name = (row[index] as string | null) ?? '';
      group += `\u0000${name.length}:${name}`;
    }
    const prompt = row[COLUMN_INDEX.prompt_tokens] as number | null;
    const completion = row[COLUMN_INDEX.completion_tokens] as number | null;
    const cost = row[COLUMN_INDEX.cost_usd] as number | null;
    const unpriced = cost === null && prompt !== null;
    const figures = [
      1,
      (row[COLUMN_INDEX.status] as number) >= 400 ? 1 : 0,
      prompt ?? 0,
      completion ?? 0,
      (row[COLUMN_INDEX.cache_read_tokens] as number | null) ?? 0,
      (row[COLUMN_INDEX.cache_write_tokens] as number | null) ?? 0,
      (row[COLUMN_INDEX.reasoning_tokens] as number | null) ?? 0,
      cost === null ? 0 : Math.round(cost * 1e9),
      unpriced ? 1 : 0,
      cost === null ? (prompt ?? 0) + (completion ?? 0) : 0,
    ];
    const existing = groups.get(group);
    if (!existing) groups.set(group, { row, figures });
    else for (let index = 0; index < figures.length; index++) existing.figures[index] += figures[index];
  }
  const daily = new Map<string, RowValues>();
  const monthly = new Map<string, RowValues>();
  const addTo = (table: Map<string, RowValues>, period: string, dim: string, name: string, figures: number[]) => {
    const key = `${period}\u0000${dim}\u0000${name}`;
    const existing = table.get(key);
    if (!existing) table.set(key, [period, dim, name, ...figures]);
    else for (let index = 0; index < figures.length; index++) (existing[index + 3] as number) += figures[index];
  };
  for (const { row, figures } of groups.values()) {
    const day = row[COLUMN_INDEX.day] as string;
    const month = `${day.slice(0, 8)}01`;
    for (const [dim, index] of DIMENSION_INDEXES) {
      const name = (row[index] as string | null) ?? '';
      addTo(daily, day, dim, name, figures);
      addTo(monthly, month, dim, name, figures);
    }
  }
  return { daily: [...daily.values()], monthly: [...monthly.values()] };
}

/** What became of a batch: the ids its rows got, in order, or why it could not be written. */
export type BatchOutcome = { ids: number[] } | { error: Error };

/**
 * Where batches of rows are written. Batches are written in the order they are handed over, each in one
 * transaction together with its search index entries.
 */
export interface LogBatchWriter {
  /**
   * Writes the rows, their search entries and their usage (usageOfBatch) in one transaction. The writer
   * sums the usage itself: on the writer thread that work is off the gateway's thread.
   */
  write(rows: RowValues[], done: (outcome: BatchOutcome) => void): void;
  /** Rows handed over whose batch is not answered yet. */
  readonly rowsInFlight: number;
  /** Returns once every batch handed over so far is written and its `done` has run. */
  waitUntilWritten(): void;
  close(): void;
}

/** Writes on the caller's thread, at once: for tests, tools, and when no writer thread can be had. */
export class SameThreadLogWriter implements LogBatchWriter {
  private readonly writeBatch: (rows: RowValues[], usage: UsageDeltas) => number[];
  readonly rowsInFlight = 0;

  constructor(db: SqliteDatabase) {
    const insert = db.prepare(INSERT_ROW);
    const indexForSearch = db.prepare(INDEX_FOR_SEARCH);
    const addDaily = db.prepare(USAGE_UPSERT.daily);
    const addMonthly = db.prepare(USAGE_UPSERT.monthly);
    this.writeBatch = db.transaction((rows: RowValues[], usage: UsageDeltas) => {
      const ids = rows.map((row) => Number(insert.run(row).lastInsertRowid));
      if (ids.length) indexForSearch.run(ids[0]);
      for (const values of usage.daily) addDaily.run(values);
      for (const values of usage.monthly) addMonthly.run(values);
      return ids;
    });
  }

  write(rows: RowValues[], done: (outcome: BatchOutcome) => void): void {
    let outcome: BatchOutcome;
    try {
      outcome = { ids: this.writeBatch(rows, usageOfBatch(rows)) };
    } catch (error) {
      outcome = { error: error as Error };
    }
    done(outcome);
  }

  waitUntilWritten(): void {}

  close(): void {}
}

function rowFromValues(id: number, values: RowValues): Row {
  const row: Record<string, unknown> = { id };
  ROW_COLUMNS.forEach((column, index) => {
    row[column] = values[index];
  });
  return row as unknown as Row;
}

/** Rows held in memory while the database refuses writes or the writer falls behind; past this the oldest are dropped. */
const MAX_PENDING_ROWS = 50_000;
/**
 * Rows a writer may have on its hands at once. A disk slower than the traffic must slow the handing over
 * (rows then wait in the bounded queue) rather than pile up without limit in the writer's inbox.
 */
const MAX_ROWS_IN_WRITER = 20_000;
/** A message about dropped rows is printed at most this often. */
const DROP_REPORT_INTERVAL_MS = 10_000;
const RETRY_FLUSH_MS = 1_000;

export class RequestLog {
  private queue: CallRecord[] = [];
  /** Rows of batches the database refused, oldest first, written again before the queue. */
  private refused: CallRecord[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** A full batch is handed over on the next turn of the event loop: one such turn at a time. */
  private handOverSoon = false;
  private readonly listeners = new Set<LogListener>();
  private readonly writer: LogBatchWriter;
  private readonly batchSize: number;
  private readonly flushIntervalMs: number;
  private readonly maxStoredBodyChars: number;
  private readonly storeBodies: () => boolean;
  private closed = false;
  /** When writes started failing, while they still do. */
  private failingSince: number | null = null;
  /** Rows dropped since the last message about it, and when that message was printed. */
  private droppedUnreported = 0;
  private lastDropReport = -Infinity;

  constructor(private readonly db: SqliteDatabase, options: RequestLogOptions = {}) {
    // On the same thread a batch holds the event loop while it is written: 64 rows keep that to about a
    // millisecond. Total cost barely depends on the batch size (commits are cheap in WAL mode).
    this.batchSize = options.batchSize ?? 64;
    this.flushIntervalMs = options.flushIntervalMs ?? 100;
    this.maxStoredBodyChars = options.maxStoredBodyChars ?? 256 * 1024;
    this.storeBodies = options.storeBodies ?? (() => true);
    this.writer = options.writer ?? new SameThreadLogWriter(db);
  }

  /** Queues a row; costs no disk work on the caller's path. */
  append(entry: CallRecord): void {
    if (this.closed) return;
    this.queue.push(entry);
    if (this.pendingCount > MAX_PENDING_ROWS) this.dropOldest();
    if (this.queue.length >= this.batchSize) {
      if (!this.handOverSoon) {
        this.handOverSoon = true;
        setImmediate(() => {
          this.handOverSoon = false;
          this.handOver();
        });
      }
    } else if (!this.timer) this.timer = setTimeout(() => this.handOver(), this.flushIntervalMs);
  }

  /** Rows not written yet: queued, or refused by the database and waiting for another try. */
  get pendingCount(): number {
    return this.refused.length + this.queue.length;
  }

  /** Writes every queued row and returns once they are stored (and the listeners told). */
  flush(): void {
    this.handOver(true);
    this.writer.waitUntilWritten();
  }

  /**
   * Gives the waiting rows to the writer as one batch, without waiting for them to be stored. A writer with
   * many rows on its hands gets only what fits under MAX_ROWS_IN_WRITER; the rest waits here for a later
   * turn. A flush hands over everything.
   */
  private handOver(evenIfBehind = false): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.pendingCount === 0) return;
    const room = evenIfBehind ? Infinity : MAX_ROWS_IN_WRITER - this.writer.rowsInFlight;
    if (room > 0) {
      const waiting = this.refused.length ? this.refused.concat(this.queue) : this.queue;
      const batch = waiting.length > room ? waiting.slice(0, room) : waiting;
      this.refused = [];
      this.queue = batch === waiting ? [] : waiting.slice(room);
      const keepBodies = this.storeBodies();
      const rows = batch.map((input) => this.toRowValues(input, keepBodies));
      this.writer.write(rows, (outcome) => this.afterWrite(batch, rows, outcome));
    }
    if (this.pendingCount > 0 && !this.closed && !this.timer) this.timer = setTimeout(() => this.handOver(), this.flushIntervalMs);
  }

  private afterWrite(batch: CallRecord[], rows: RowValues[], outcome: BatchOutcome): void {
    if ('error' in outcome) {
      this.keepForRetry(batch, outcome.error);
      return;
    }
    if (this.failingSince !== null) {
      console.error(`Gatehouse: request log writes work again; ${batch.length} waiting rows written.`);
      this.failingSince = null;
    }
    // Entries for the listeners (the admin event stream) are built only when someone listens.
    if (this.listeners.size === 0) return;
    rows.forEach((values, index) => {
      const entry = toEntry(rowFromValues(outcome.ids[index], values));
      for (const listener of this.listeners) listener(entry);
    });
  }

  /**
   * A database that refuses the write (locked by another program past the busy timeout, disk full) must
   * neither take the gateway down nor lose the rows: they wait, ahead of newer ones, for a later try.
   */
  private keepForRetry(batch: CallRecord[], error: Error): void {
    this.refused = this.refused.concat(batch);
    if (this.failingSince === null) {
      this.failingSince = Date.now();
      console.error(`Gatehouse: could not write ${batch.length} request log rows (${error.message}); retrying every ${RETRY_FLUSH_MS / 1000} s.`);
    }
    this.dropOldest();
    if (!this.closed && !this.timer) this.timer = setTimeout(() => this.handOver(), RETRY_FLUSH_MS);
  }

  /** Keeps the waiting rows within MAX_PENDING_ROWS by dropping the oldest, and says so now and then. */
  private dropOldest(): void {
    const excess = this.pendingCount - MAX_PENDING_ROWS;
    if (excess <= 0) return;
    const fromRefused = Math.min(excess, this.refused.length);
    this.refused.splice(0, fromRefused);
    this.queue.splice(0, excess - fromRefused);
    this.droppedUnreported += excess;
    const now = Date.now();
    if (now - this.lastDropReport < DROP_REPORT_INTERVAL_MS) return;
    console.error(
      `Gatehouse: the request log cannot keep up (${MAX_PENDING_ROWS} rows waiting); ${this.droppedUnreported} of the oldest were dropped` +
        (this.lastDropReport === -Infinity ? ', and more will be until it catches up.' : ' since the last message.'),
    );
    this.droppedUnreported = 0;
    this.lastDropReport = now;
  }

  /** Redacted before it is cut, so no part of a secret survives at the cut. */
  private storedBody(text: string | null, secrets: readonly string[] = []): string | null {
    return text === null ? null : cut(redactSecrets(text, secrets), this.maxStoredBodyChars);
  }

  private toRowValues(input: CallRecord, keepBodies: boolean): RowValues {
    // A row the gateway did not name a dialect for is known by its path (a model list has none).
    const dialect = input.dialect ?? dialectOfPath(input.path);
    // The gateway hands every row its usage as it read it from the answer (null when none was reported).
    const promptTokens = input.promptTokens ?? null;
    const completionTokens = input.completionTokens ?? null;
    const cacheReadTokens = input.cacheReadTokens ?? null;
    const cacheWriteTokens = input.cacheWriteTokens ?? null;
    const reasoningTokens = input.reasoningTokens ?? null;
    const costUsd =
      input.costUsd !== undefined
        ? input.costUsd
        : priceCall(
            input.provider,
            input.model,
            promptTokens === null
              ? undefined
              : { inputTokens: promptTokens, outputTokens: completionTokens ?? 0, cacheReadTokens: cacheReadTokens ?? 0, cacheWriteTokens: cacheWriteTokens ?? 0, reasoningTokens: reasoningTokens ?? 0 },
          );
    return [
      input.createdAt,
      input.traceId,
      JSON.stringify(input.metadata),
      input.keyId,
      input.provider,
      input.model,
      input.path,
      input.status,
      Math.round(input.latencyMs * 1000) / 1000,
      input.ttfbMs === null ? null : Math.round(input.ttfbMs * 1000) / 1000,
      promptTokens,
      completionTokens,
      input.stream ? 1 : 0,
      input.error,
      input.attempts,
      input.attemptLog?.length ? JSON.stringify(input.attemptLog.map(storedAttempt)) : null,
      JSON.stringify(input.requestHeaders),
      keepBodies ? this.storedBody(input.requestBody, input.secrets) : null,
      keepBodies ? this.storedBody(input.responseBody, input.secrets) : null,
      dialect,
      input.providerFormat ?? null,
      input.dropped?.length ? JSON.stringify(input.dropped) : null,
      cacheReadTokens,
      cacheWriteTokens,
      reasoningTokens,
      costUsd,
      clientOf(input.requestHeaders['user-agent'], dialect),
      dayOf(input.createdAt),
      input.route ?? null,
      input.routeTarget ?? null,
      input.targetKeyId ?? null,
      input.count !== undefined && input.count !== 1 ? input.count : null,
    ];
  }

  subscribe(listener: LogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  list(query: LogQuery = {}): { items: LogEntry[]; next: string | null } {
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
    // A search walks the index's matches newest first and stops at a full page; the other filters are
    // checked on each match's row.
    const searchesIndex = query.q !== undefined && hasWords(query.q);
    const newestFirst = searchesIndex ? 'request_log_search.rowid' : 'request_log.id';
    const where: string[] = [];
    const params: Record<string, string | number> = {};
    if (query.before) {
      where.push(`${newestFirst} < @before`);
      params.before = Number(query.before);
    }
    if (query.provider) {
      where.push('request_log.provider = @provider');
      params.provider = query.provider;
    }
    if (query.model) {
      where.push('request_log.model = @model');
      params.model = query.model;
    }
    if (query.dialect) {
      where.push('request_log.dialect = @dialect');
      params.dialect = query.dialect;
    }
    if (query.route) {
      where.push('request_log.route = @route');
      params.route = query.route;
    }
    if (query.status === 'error') where.push('request_log.status >= 400');
    else if (typeof query.status === 'number') {
      where.push('request_log.status = @status');
      params.status = query.status;
    }
    if (searchesIndex) {
      where.push('request_log_search MATCH @phrase');
      params.phrase = searchPhrase(query.q!);
    } else if (query.q) {
      where.push(
        "(instr(request_log.model, @q) > 0 OR instr(request_log.trace_id, @q) > 0 OR instr(ifnull(request_log.error, ''), @q) > 0 OR instr(request_log.metadata, @q) > 0 OR instr(request_log.path, @q) > 0)",
      );
      params.q = query.q;
    }
    const from = searchesIndex ? 'request_log_search JOIN request_log ON request_log.id = request_log_search.rowid' : 'request_log';
    const sql = `SELECT ${LIST_COLUMNS} FROM ${from} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${newestFirst} DESC LIMIT ${limit + 1}`;
    const rows = this.db.prepare(sql).all(params) as Row[];
    const items = rows.slice(0, limit).map(toEntry);
    return { items, next: rows.length > limit ? items[items.length - 1].id : null };
  }

  get(id: string): LogEntryDetail | undefined {
    if (!/^\d+$/.test(id)) return undefined;
    const row = this.db.prepare('SELECT * FROM request_log WHERE id = ?').get(Number(id)) as Row | undefined;
    if (!row) return undefined;
    return {
      ...toEntry(row),
      keyId: row.key_id,
      targetKeyId: row.target_key_id ?? null,
      attemptLog: row.attempt_log ? (JSON.parse(row.attempt_log) as AttemptRecord[]) : [],
      requestHeaders: row.request_headers ? (JSON.parse(row.request_headers) as Record<string, string>) : {},
      requestBody: row.request_body,
      responseBody: row.response_body,
    };
  }

  /**
   * Deletes every row older than `maxAgeMs`, then every row beyond the newest `maxRows`, one slice per
   * turn of the event loop, so a request waits on one short slice at most, never on the whole purge.
   */
  async prune(maxAgeMs: number, maxRows: number, sliceRows = 2_000): Promise<number> {
    const cutoff = Date.now() - maxAgeMs;
    let removed = await this.deleteInSlices('DELETE FROM request_log WHERE id IN (SELECT id FROM request_log WHERE created_at < ? LIMIT ?)', cutoff, sliceRows);
    if (this.closed) return removed;
    // The cap is fixed once: rows written while the purge runs are never the ones it removes.
    const firstBeyondCap = this.db.prepare('SELECT id FROM request_log ORDER BY id DESC LIMIT 1 OFFSET ?').get(maxRows) as { id: number } | undefined;
    if (firstBeyondCap) {
      removed += await this.deleteInSlices('DELETE FROM request_log WHERE id IN (SELECT id FROM request_log WHERE id <= ? ORDER BY id LIMIT ?)', firstBeyondCap.id, sliceRows);
    }
    return removed;
  }

  private async deleteInSlices(sql: string, bound: number, sliceRows: number): Promise<number> {
    const statement = this.db.prepare(sql);
    let removed = 0;
    while (!this.closed) {
      const changes = statement.run(bound, sliceRows).changes;
      removed += changes;
      if (changes < sliceRows) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return removed;
  }

  close(): void {
    this.flush();
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.writer.close();
    this.listeners.clear();
  }
}
