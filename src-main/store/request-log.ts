// The request log: rows are queued by the gateway and written in one transaction per batch, off the
// request path; listeners (the admin event stream) hear about each row once it is stored. The rows'
// format, the writers, the usage totals and the queries each have their own file (log-*.ts).
import type { SqliteDatabase } from './database.js';
import type { CallRecord } from '../core/call-record.js';
import { redactRecord, type RedactedCallRecord } from '../core/redacted-record.js';
import type { ExportedLogEntry, LogEntry, LogEntryDetail, LogListener, LogQuery, RequestLogStore } from '../core/log-store.js';
import { rowFromValues, toEntry, type RowValues } from './log-row.js';
import { toRowValues } from './log-row-values.js';
import { SameThreadLogWriter, type BatchOutcome, type LogBatchWriter } from './log-writer.js';
import { LogQueries } from './log-queries.js';

export interface RequestLogOptions {
  batchSize?: number;
  flushIntervalMs?: number;
  /** Body text kept per row; longer bodies are cut with a marker. */
  maxStoredBodyChars?: number;
  storeBodies?: () => boolean;
  /** Where batches are written; by default on this thread, as soon as they are handed over. */
  writer?: LogBatchWriter;
  /** Where entries are read back from; by default the SQLite database's (another backend brings its own, with its writer). */
  queries?: LogReader;
  /**
   * Where the rows still unwritten when the log closes are kept for the next start (a spill file in the
   * data dir: store-postgres/spill.ts, and store/log-spill.ts for SQLite); it throws when it could not keep them. Without it, or when it throws,
   * they are lost, and counted as dropped.
   */
  spill?: (unwritten: UnwrittenRows) => void;
  /** Team mode: the instance writing the rows, which the entries told to listeners name. */
  instance?: { id: string; name: string };
}

/** The rows a closing log could not write. */
export interface UnwrittenRows {
  /** Every row not known to be written: refused, queued, and handed over but never answered; made as they are read. */
  rows: Iterable<RowValues>;
  count: number;
  /**
   * With a writer that names itself (LogBatchWriter.batchWriterId): the batches handed over and not known
   * to be written (refused, or never answered), which may have been committed all the same. Their rows come
   * first in `rows`, batch after batch in this order, each whole; the queued rows (never handed over) follow.
   */
  batches?: { writer: string; seq: number; rows: number }[];
}

/** A batch handed over at least once: handed over again as it is, with its number. */
interface Batch {
  seq: number;
  rows: RowValues[];
}

/**
 * The reading half of the log, one contract for every backend: a page, one entry, the key ids of a page,
 * the purge. Every read is a promise, so a store that waits for another server waits off the serving thread.
 */
export interface LogReader {
  list(query: LogQuery): Promise<{ items: LogEntry[]; next: string | null }>;
  get(id: string): Promise<LogEntryDetail | undefined>;
  /** The key id of each row of a page (by entry id): one lookup per page of an export. */
  keyIds(ids: readonly string[]): Promise<Map<string, string | null>>;
  prune(maxAgeMs: number, maxRows: number, sliceRows?: number): Promise<number>;
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

export class RequestLog implements RequestLogStore {
  private queue: RedactedCallRecord[] = [];
  /** Batches the database refused, oldest first, written again (each whole, with its number) before the queue. */
  private refused: Batch[] = [];
  private refusedRows = 0;
  private timer: NodeJS.Timeout | null = null;
  /** A full batch is handed over on the next turn of the event loop: one such turn at a time. */
  private handOverSoon = false;
  private readonly listeners = new Set<LogListener>();
  private readonly writer: LogBatchWriter;
  private readonly queries: LogReader;
  private readonly batchSize: number;
  private readonly flushIntervalMs: number;
  private readonly maxStoredBodyChars: number;
  private readonly storeBodies: () => boolean;
  private closed = false;
  /** The last flush of a close under way: a second close waits for the same one. */
  private closing: Promise<void> | null = null;
  /** When writes started failing, while they still do. */
  private failingSince: number | null = null;
  /** Rows dropped since the last message about it, and when that message was printed. */
  private droppedUnreported = 0;
  private lastDropReport = -Infinity;
  /** Rows dropped since start (the bounded queue overflowed, or the log closed with rows it could not keep), for /metrics. */
  private droppedTotal = 0;
  /** Batches handed over and not answered yet, by their number. */
  private readonly unanswered = new Map<number, Batch>();
  /** The last batch's number. */
  private handedOver = 0;
  private readonly spill: ((unwritten: UnwrittenRows) => void) | undefined;
  private readonly instance: { id: string; name: string } | undefined;

  /** `db` may be null when `writer` and `queries` are given (a store other than SQLite). */
  constructor(db: SqliteDatabase | null, options: RequestLogOptions = {}) {
    // On the same thread a batch holds the event loop while it is written: 64 rows keep that to about a
    // millisecond. Total cost barely depends on the batch size (commits are cheap in WAL mode).
    this.batchSize = options.batchSize ?? 64;
    this.flushIntervalMs = options.flushIntervalMs ?? 100;
    this.maxStoredBodyChars = options.maxStoredBodyChars ?? 256 * 1024;
    this.storeBodies = options.storeBodies ?? (() => true);
    if (!db && (!options.writer || !options.queries)) throw new Error('A request log without a SQLite database needs its own writer and queries');
    this.writer = options.writer ?? new SameThreadLogWriter(db!);
    this.queries = options.queries ?? new LogQueries(db!, () => this.closed);
    this.spill = options.spill;
    this.instance = options.instance;
  }

  /**
   * Queues a row; costs no disk work on the caller's path. Every row of every kind, on every backend,
   * passes the one redaction step here before it is queued: nothing after it holds an unredacted record.
   */
  append(entry: CallRecord): void {
    if (this.closed) {
      // A call that ended after the stop's last flush: nowhere to go.
      this.droppedTotal++;
      return;
    }
    this.queue.push(redactRecord(entry, { keepBodies: this.storeBodies(), maxBodyChars: this.maxStoredBodyChars }));
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
    return this.refusedRows + this.queue.length;
  }

  /**
   * Rows lost since start: the queue was full (the store refused writes for long, or fell behind), or the
   * log closed with rows it could neither write nor spill.
   */
  get droppedCount(): number {
    return this.droppedTotal;
  }

  /** Resolves once every queued row is stored (and the listeners told). */
  async flush(): Promise<void> {
    this.handOver(true);
    await this.writer.whenWritten();
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
    let room = evenIfBehind ? Infinity : MAX_ROWS_IN_WRITER - this.writer.rowsInFlight;
    // Refused batches first, each as it was (its rows may have been committed already: a writer that
    // cannot know recognizes it by its number). Whole, so one may go a little over the room.
    while (room > 0 && this.refused.length > 0) {
      const batch = this.refused.shift()!;
      this.refusedRows -= batch.rows.length;
      room -= batch.rows.length;
      this.send(batch);
    }
    if (room > 0 && this.queue.length > 0) {
      const taken = this.queue.length > room ? this.queue.slice(0, room) : this.queue;
      this.queue = taken === this.queue ? [] : this.queue.slice(room);
      this.send({ seq: ++this.handedOver, rows: taken.map(toRowValues) });
    }
    if (this.pendingCount > 0 && !this.closed && !this.timer) this.timer = setTimeout(() => this.handOver(), this.flushIntervalMs);
  }

  private send(batch: Batch): void {
    this.unanswered.set(batch.seq, batch);
    this.writer.write(
      batch.rows,
      (outcome) => {
        // Answered after the log closed: its rows were already counted or spilled as unanswered.
        if (!this.unanswered.delete(batch.seq)) return;
        this.afterWrite(batch, outcome);
      },
      batch.seq,
    );
  }

  private afterWrite(batch: Batch, outcome: BatchOutcome): void {
    const rows = batch.rows;
    if ('error' in outcome) {
      this.keepForRetry(batch, outcome.error);
      return;
    }
    if (this.failingSince !== null) {
      console.error(`Gatehouse: request log writes work again; ${rows.length} waiting rows written.`);
      this.failingSince = null;
    }
    // Entries for the listeners (the admin event stream) are built only when someone listens.
    if (this.listeners.size === 0) return;
    rows.forEach((values, index) => {
      const entry = toEntry(rowFromValues(outcome.ids[index], values));
      if (this.instance) {
        entry.instance = this.instance.id;
        entry.instanceName = this.instance.name;
      }
      for (const listener of this.listeners) listener(entry);
    });
  }

  /**
   * A database that refuses the write (locked by another program past the busy timeout, disk full) must
   * neither take the gateway down nor lose the rows: they wait, ahead of newer ones, for a later try.
   */
  private keepForRetry(batch: Batch, error: Error): void {
    // In number order: the oldest rows are written (and dropped, when too many wait) first.
    let at = this.refused.length;
    while (at > 0 && this.refused[at - 1].seq > batch.seq) at--;
    this.refused.splice(at, 0, batch);
    this.refusedRows += batch.rows.length;
    if (this.failingSince === null) {
      this.failingSince = Date.now();
      console.error(`Gatehouse: could not write ${batch.rows.length} request log rows (${error.message}); retrying every ${RETRY_FLUSH_MS / 1000} s.`);
    }
    this.dropOldest();
    if (!this.closed && !this.timer) this.timer = setTimeout(() => this.handOver(), RETRY_FLUSH_MS);
  }

  /**
   * Keeps the waiting rows within MAX_PENDING_ROWS by dropping the oldest, and says so now and then. A
   * refused batch goes whole (a part of it could not be told from the batch again), so a few more may go.
   */
  private dropOldest(): void {
    let excess = this.pendingCount - MAX_PENDING_ROWS;
    if (excess <= 0) return;
    let dropped = 0;
    while (excess > 0 && this.refused.length > 0) {
      const batch = this.refused.shift()!;
      this.refusedRows -= batch.rows.length;
      excess -= batch.rows.length;
      dropped += batch.rows.length;
    }
    if (excess > 0) {
      this.queue.splice(0, excess);
      dropped += excess;
    }
    this.droppedUnreported += dropped;
    this.droppedTotal += dropped;
    const now = Date.now();
    if (now - this.lastDropReport < DROP_REPORT_INTERVAL_MS) return;
    console.error(
      `Gatehouse: the request log cannot keep up (${MAX_PENDING_ROWS} rows waiting); ${this.droppedUnreported} of the oldest were dropped` +
        (this.lastDropReport === -Infinity ? ', and more will be until it catches up.' : ' since the last message.'),
    );
    this.droppedUnreported = 0;
    this.lastDropReport = now;
  }

  subscribe(listener: LogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  list(query: LogQuery = {}): Promise<{ items: LogEntry[]; next: string | null }> {
    return this.queries.list(query);
  }

  get(id: string): Promise<LogEntryDetail | undefined> {
    return this.queries.get(id);
  }

  async exportPage(query: LogQuery): Promise<{ items: ExportedLogEntry[]; next: string | null }> {
    const page = await this.queries.list(query);
    const keyIds = await this.queries.keyIds(page.items.map((item) => item.id));
    return { items: page.items.map((item) => ({ ...item, keyId: keyIds.get(item.id) ?? null })), next: page.next };
  }

  /**
   * Deletes every row older than `maxAgeMs`, then every row beyond the newest `maxRows`, one slice per
   * turn of the event loop, so a request waits on one short slice at most, never on the whole purge.
   */
  prune(maxAgeMs: number, maxRows: number, sliceRows = 2_000): Promise<number> {
    return this.queries.prune(maxAgeMs, maxRows, sliceRows);
  }

  /** Writes what is queued (waiting within the writer's bound), keeps what it could not in the spill, and stops taking rows. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.handOver(true);
    // Rows appended while the last batches are written are kept with the unwritten ones (the spill).
    this.closing ??= this.writer.whenWritten();
    await this.closing;
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.keepUnwritten();
    this.listeners.clear();
    await this.writer.close();
  }

  /**
   * The rows the last flush could not write (refused, or handed over and not answered in time) go to the
   * spill; those it cannot take are lost, and counted.
   */
  private keepUnwritten(): void {
    const handedOver = [...this.refused, ...this.unanswered.values()].sort((a, b) => a.seq - b.seq);
    const waiting = this.queue;
    this.refused = [];
    this.refusedRows = 0;
    this.queue = [];
    this.unanswered.clear();
    const count = waiting.length + handedOver.reduce((sum, batch) => sum + batch.rows.length, 0);
    if (count === 0) return;
    // Each row carries its own time: apart from the batches being kept whole, the order does not matter.
    function* rows(): Generator<RowValues> {
      for (const batch of handedOver) yield* batch.rows;
      for (const input of waiting) yield toRowValues(input);
    }
    const writer = this.writer.batchWriterId;
    try {
      if (!this.spill) throw new Error('the store keeps no rows across a restart');
      this.spill({ rows: rows(), count, batches: writer === undefined ? undefined : handedOver.map((batch) => ({ writer, seq: batch.seq, rows: batch.rows.length })) });
    } catch (error) {
      this.droppedTotal += count;
      console.error(`Gatehouse: ${count} request log rows could not be written or kept, and are lost (${(error as Error).message}).`);
    }
  }
}
