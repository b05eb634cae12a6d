// The request log written on a worker thread. Inserting a row with its indexes and search entry costs
// some 15 µs of SQLite work; on the gateway's thread that came out of every request's budget, so the
// server only queues rows and hands each batch here (a structured clone, under 1 µs a row). The worker
// has its own connection to the same WAL database: readers on the gateway's connection never wait for it.
import { createRequire } from 'node:module';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { INSERT_ROW, type RowValues } from './log-row.js';
import { INDEX_FOR_SEARCH, SameThreadLogWriter, type BatchOutcome, type LogBatchWriter } from './log-writer.js';
import { sumBatchUsage, USAGE_COLUMNS, USAGE_UPSERT, type UsageColumns } from './log-usage-rollup.js';
import type { SqliteDatabase } from './database.js';

interface WorkerInput {
  driver: string;
  file: string;
  nativeBinding: string | null;
  insertSql: string;
  indexSql: string;
  /** Add a batch's usage to the daily and monthly totals (migration 8), a row at a time. */
  usageSql: { daily: string; monthly: string };
  /** Where a row's usage figures are, for summing each batch there (sumBatchUsage). */
  usageColumns: UsageColumns;
  replies: MessagePort;
}

interface BatchReply {
  seq: number;
  ids?: number[];
  error?: string;
  code?: string;
}

// Kept as source text so the same worker runs from the TypeScript sources (tests), the esbuild bundle
// of the benchmark and electron-vite's bundle, none of which then needs a second entry file.
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {});
// Per-connection settings, as the gateway's connection has them (database.ts).
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
db.pragma('secure_delete = ON');
db.pragma('cache_size = -2000');
const insert = db.prepare(workerData.insertSql);
const indexForSearch = db.prepare(workerData.indexSql);
const addDaily = db.prepare(workerData.usageSql.daily);
const addMonthly = db.prepare(workerData.usageSql.monthly);
// The same summing as the same-thread writer: log-usage-rollup.ts's own function, from its source text.
// (__name is what a bundler that keeps function names may wrap inner functions in.)
const __name = (target) => target;
const sumBatchUsage = ${sumBatchUsage.toString()};
const usageOfBatch = (rows) => sumBatchUsage(rows, workerData.usageColumns);
const writeBatch = db.transaction((rows) => {
  const usage = usageOfBatch(rows);
  const ids = rows.map((row) => Number(insert.run(row).lastInsertRowid));
  if (ids.length) indexForSearch.run(ids[0]);
  for (const values of usage.daily) addDaily.run(values);
  for (const values of usage.monthly) addMonthly.run(values);
  return ids;
});
const replies = workerData.replies;
parentPort.on('message', (message) => {
  if (message === 'close') {
    // Closing the ports ends the thread once its connection is closed (the 'exit' close() waits for).
    db.close();
    parentPort.close();
    replies.close();
    return;
  }
  let reply;
  try {
    reply = { seq: message.seq, ids: writeBatch(message.rows) };
  } catch (error) {
    reply = { seq: message.seq, error: String(error && error.message), code: error && error.code };
  }
  replies.postMessage(reply);
});
`;

/** How long closing may wait for the thread to close its connection. */
const CLOSE_WAIT_MS = 2_000;

/** How long a wait for the thread (a flush, a stop) may take before the thread counts as stuck. */
const WAIT_LIMIT_MS = 15_000;

export interface ThreadLogWriterOptions {
  /** The database file the gateway opened (and migrated) already. */
  file: string;
  /** A better-sqlite3 addon built for Electron's ABI, as the gateway's own connection uses. */
  nativeBinding?: string;
}

export class ThreadLogWriter implements LogBatchWriter {
  private readonly worker: Worker;
  private readonly replies: MessagePort;
  private readonly waiting = new Map<number, { done: (outcome: BatchOutcome) => void; rows: number }>();
  private rowsWaiting = 0;
  private lastSeq = 0;
  /** whenWritten()'s callers, each waiting for every batch up to its sequence number to be answered. */
  private drainWaiters: { upTo: number; resolve: () => void }[] = [];
  /** Set once the thread is gone: from then on batches are written on this thread. */
  private fallback: SameThreadLogWriter | null = null;

  constructor(private readonly db: SqliteDatabase, options: ThreadLogWriterOptions) {
    const channel = new MessageChannel();
    this.replies = channel.port1;
    const workerData: WorkerInput = {
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      file: options.file,
      nativeBinding: options.nativeBinding ?? null,
      insertSql: INSERT_ROW,
      indexSql: INDEX_FOR_SEARCH,
      usageSql: USAGE_UPSERT,
      usageColumns: USAGE_COLUMNS,
      replies: channel.port2,
    };
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData,
      transferList: [channel.port2],
      // It holds one batch at a time: a small young generation keeps its memory to a few MB.
      resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 64 },
    });
    // Neither keeps the process alive: close() ends them, and a crash must not hang the exit.
    this.worker.unref();
    this.replies.unref();
    this.replies.on('message', (reply: BatchReply) => this.settle(reply));
    this.worker.on('error', (error) => this.giveUp(error));
    this.worker.on('exit', (code) => {
      if (!this.fallback && code !== 0) this.giveUp(new Error(`the log writer thread exited with code ${code}`));
    });
  }

  write(rows: RowValues[], done: (outcome: BatchOutcome) => void): void {
    if (this.fallback) return this.fallback.write(rows, done);
    const seq = ++this.lastSeq;
    this.waiting.set(seq, { done, rows: rows.length });
    this.rowsWaiting += rows.length;
    this.worker.postMessage({ seq, rows });
  }

  get rowsInFlight(): number {
    return this.rowsWaiting;
  }

  whenWritten(): Promise<void> {
    if (this.fallback || this.waiting.size === 0) return Promise.resolve();
    const upTo = this.lastSeq;
    return new Promise<void>((resolve) => {
      // A thread that answers nothing for this long counts as stuck, as a synchronous wait does.
      const stuck = setTimeout(() => this.giveUp(new Error(`the log writer thread did not answer within ${WAIT_LIMIT_MS / 1000} s`)), WAIT_LIMIT_MS);
      stuck.unref();
      this.drainWaiters.push({
        upTo,
        resolve: () => {
          clearTimeout(stuck);
          resolve();
        },
      });
    });
  }

  /** Tells whenWritten()'s callers whose batches are all answered (the thread answers in order). */
  private tellDrained(): void {
    if (this.drainWaiters.length === 0) return;
    const oldestWaiting = this.fallback ? Infinity : (this.waiting.keys().next().value ?? Infinity);
    const ready = this.drainWaiters.filter((waiter) => waiter.upTo < oldestWaiting);
    if (ready.length === 0) return;
    this.drainWaiters = this.drainWaiters.filter((waiter) => waiter.upTo >= oldestWaiting);
    for (const waiter of ready) waiter.resolve();
  }

  /**
   * Waits (briefly) for the thread to close its connection, so the gateway's connection closes last and
   * SQLite folds the WAL back into the database file as it would with one connection.
   */
  async close(): Promise<void> {
    if (this.fallback) return;
    this.fallback = new SameThreadLogWriter(this.db);
    let timer: NodeJS.Timeout | undefined;
    const exited = new Promise<void>((resolve) => {
      this.worker.once('exit', () => resolve());
      timer = setTimeout(resolve, CLOSE_WAIT_MS);
    });
    this.worker.postMessage('close');
    await exited;
    clearTimeout(timer);
  }

  private settle(reply: BatchReply): void {
    const batch = this.waiting.get(reply.seq);
    if (!batch) return;
    this.waiting.delete(reply.seq);
    this.rowsWaiting -= batch.rows;
    const { done } = batch;
    if (reply.ids) done({ ids: reply.ids });
    else done({ error: Object.assign(new Error(reply.error ?? 'unknown error'), { code: reply.code }) });
    this.tellDrained();
  }

  /** The thread failed: its unanswered batches go back for another try, and writing moves to this thread. */
  private giveUp(error: Error): void {
    if (this.fallback) return;
    console.error(`Gatehouse: ${error.message}; the request log is written on the main thread from now on.`);
    this.fallback = new SameThreadLogWriter(this.db);
    void this.worker.terminate();
    const unanswered = [...this.waiting.values()];
    this.waiting.clear();
    this.rowsWaiting = 0;
    for (const { done } of unanswered) done({ error });
    this.tellDrained();
  }
}
