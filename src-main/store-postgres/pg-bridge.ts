// PostgreSQL from the gateway's thread. A worker thread holds the connection pool; the gateway's thread
// hands work over and hears back later (admin reads and writes within a bound, log batches, refreshes,
// spend, the stop), and never waits on it: what the hot path reads is kept in memory by the stores.
import { createRequire } from 'node:module';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { GatewayError } from '../core/errors.js';
import { copyText } from './copy-in.js';
import { LOG_BATCH_PLAN, LOG_BATCH_WORKER_SOURCE, type BatchMark } from './log-batch.js';

export interface Statement {
  sql: string;
  params?: unknown[];
  /** Prepared once per connection under this name and run again by it: for a statement sent many times. */
  name?: string;
  /**
   * For a `COPY … FROM STDIN`: its rows, each in the COPY's column order, encoded to COPY's text format on
   * the bridge's thread. With `idsFrom`, each row is sent after the `id` of the same row of that earlier
   * statement's answer (ids taken from a sequence first, since a COPY returns none).
   */
  copyRows?: unknown[][];
  idsFrom?: number;
}

/** Rows of each statement, in order. */
export type Results = Record<string, unknown>[][];

interface Reply {
  id: number;
  results?: Results;
  error?: string;
  code?: string;
  unreachable?: boolean;
}

/** Raised when PostgreSQL cannot be reached (or answered too late): a 503 to the admin API. */
export class DatabaseUnavailableError extends GatewayError {
  constructor(detail: string) {
    super(503, 'api_error', `PostgreSQL is unreachable (${detail}); try again when it is back.`);
  }
}

// Kept as source text, as the SQLite log writer's worker is, so it runs from the sources and any bundle.
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const pg = require(workerData.pgPath);
// Times are kept as BIGINT milliseconds and counts as BIGINT: all well within a double.
pg.types.setTypeParser(20, (value) => Number(value));
pg.types.setTypeParser(1700, (value) => Number(value));
// A statement PostgreSQL itself gives up on after statement_timeout; one it has not answered at all a
// little after that means the connection is dead without having been closed (a server that vanished
// behind its address, a failover): without this bound the wait lasts until TCP gives up, about 15 minutes.
const NO_ANSWER_MS = workerData.statementTimeoutMs + workerData.answerMarginMs;
function newPool() {
  const fresh = new pg.Pool({
    connectionString: workerData.url,
    max: workerData.poolSize,
    connectionTimeoutMillis: workerData.connectTimeoutMs,
    idleTimeoutMillis: 30000,
    statement_timeout: workerData.statementTimeoutMs,
    query_timeout: NO_ANSWER_MS,
    keepAlive: true,
    application_name: 'gatehouse',
  });
  // A connection dropped while idle: the next query opens another.
  fresh.on('error', () => {});
  return fresh;
}
let pool = newPool();
// The idle connections went to the same server as the one that did not answer: none is trusted again.
function replacePool() {
  const old = pool;
  pool = newPool();
  old.end().catch(() => {});
}
const replies = workerData.replies;
// After a failed connection, work fails at once for a moment instead of each piece waiting out a timeout.
let downUntil = 0;
let downReason = '';
function unreachable(error) {
  const code = error && error.code;
  if (!code) return true;
  return /^(08|57P|53)/.test(code) || /^E[A-Z]+$/.test(code);
}
const copyText = ${copyText.toString()};
${LOG_BATCH_WORKER_SOURCE}
// Bytes of COPY data sent in one message.
const COPY_CHUNK = 256 * 1024;
// COPY … FROM STDIN of rows, as pg runs a query object it is given (the server's CopyInResponse answered
// with the data); pg sends the statements after it once the server is ready again.
function copyIn(client, sql, rows, ids) {
  const chunks = [];
  let lines = '';
  rows.forEach((row, index) => {
    lines += (ids ? ids[index].id + '\\t' : '') + row.map(copyText).join('\\t') + '\\n';
    if (lines.length >= COPY_CHUNK) {
      chunks.push(Buffer.from(lines));
      lines = '';
    }
  });
  if (lines) chunks.push(Buffer.from(lines));
  return new Promise((resolve, reject) => {
    let failure = null;
    client.query({
      submit(connection) { connection.query(sql); },
      handleCopyInResponse(connection) {
        for (const chunk of chunks) connection.sendCopyFromChunk(chunk);
        connection.endCopyFrom();
      },
      handleError(error) { failure = failure || error; reject(error); },
      handleReadyForQuery() { if (!failure) resolve(); },
      handleCommandComplete() {}, handleRowDescription() {}, handleDataRow() {}, handleEmptyQuery() {}, handlePortalSuspended() {}, handleCopyData() {},
    });
  });
}
async function run(job) {
  if (Date.now() < downUntil) {
    const error = new Error(downReason);
    error.code = 'ECONNREFUSED';
    throw error;
  }
  let client;
  try {
    client = await pool.connect();
  } catch (error) {
    downUntil = Date.now() + workerData.retryAfterFailureMs;
    downReason = String(error && error.message);
    throw error;
  }
  // A connection that ends under a query (cut after its COMMIT) also raises 'error' on the client once the
  // query has failed: unheard, it would end this thread, and every later piece of work would wait forever.
  if (!client.gatehouseHeard) {
    client.gatehouseHeard = true;
    client.on('error', () => {});
  }
  let broken = false;
  try {
    if (job.transaction) await client.query('BEGIN');
    const results = [];
    for (const statement of job.statements) {
      if (statement.copyRows) {
        const ids = statement.idsFrom === undefined ? null : results[statement.idsFrom];
        await copyIn(client, statement.sql, statement.copyRows, ids);
        results.push([]);
        continue;
      }
      const result = statement.name
        ? await client.query({ name: statement.name, text: statement.sql, values: statement.params || [] })
        : await client.query(statement.sql, statement.params || []);
      results.push(result.rows || []);
    }
    if (job.transaction) await client.query('COMMIT');
    return results;
  } catch (error) {
    broken = unreachable(error);
    if (error && error.message === 'Query read timeout') replacePool();
    if (job.transaction && !broken) await client.query('ROLLBACK').catch(() => { broken = true; });
    if (broken) {
      downUntil = Date.now() + workerData.retryAfterFailureMs;
      downReason = String(error && error.message);
    }
    throw error;
  } finally {
    client.release(broken);
  }
}
// Log batches are written one after another, in the order handed over; a barrier waits for them.
let chain = Promise.resolve();
function answer(reply) {
  replies.postMessage(reply);
}
parentPort.on('message', (message) => {
  if (message.close) {
    pool.end().finally(() => { answer({ id: message.id, results: [] }); replies.close(); parentPort.close(); });
    return;
  }
  // A log batch comes as its rows: its statements are built here, off the gateway's thread.
  const job = async () => run(message.logBatch ? { statements: buildLogBatch(message.logBatch.rows, message.logBatch.instanceId, message.logBatch.mark), transaction: true } : message.job);
  const work = message.barrier ? () => chain.then(() => []) : job;
  const done = work().then(
    (results) => answer({ id: message.id, results }),
    (error) => answer({ id: message.id, error: String(error && error.message), code: error && error.code, unreachable: unreachable(error) }),
  );
  if (message.ordered) chain = done;
});
`;

export interface PgBridgeOptions {
  url: string;
  /** How long an admin read or write (and each step of a stop) may wait for PostgreSQL before it is answered with a 503. */
  syncTimeoutMs?: number;
  poolSize?: number;
  /** PostgreSQL cancels a statement that runs longer; one not answered 5 s after it counts the connection dead. */
  statementTimeoutMs?: number;
}

/** How long a close waits for the pool to end its connections. */
const CLOSE_WAIT_MS = 2_000;

export class PgBridge {
  private readonly worker: Worker;
  private readonly replies: MessagePort;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (results: Results) => void; reject: (error: Error) => void }>();
  private readonly syncTimeoutMs: number;
  private closed = false;
  /**
   * Since when a wait for PostgreSQL went unanswered or found it unreachable (it hangs, the network to it
   * drops packets, it refuses). Until it answers again a wait fails at once: otherwise each admin read
   * would hold this thread, and every call on it, for a whole connection timeout again. Each such refusal
   * sends a probe (one at a time); its answer, or any other work answered, ends it.
   */
  private silentSince: number | null = null;
  private probing = false;

  constructor(options: PgBridgeOptions) {
    this.syncTimeoutMs = options.syncTimeoutMs ?? 5_000;
    const channel = new MessageChannel();
    this.replies = channel.port1;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        pgPath: createRequire(import.meta.url).resolve('pg'),
        url: options.url,
        poolSize: options.poolSize ?? 4,
        connectTimeoutMs: Math.min(3_000, this.syncTimeoutMs),
        statementTimeoutMs: options.statementTimeoutMs ?? 30_000,
        answerMarginMs: 5_000,
        retryAfterFailureMs: 500,
        replies: channel.port2,
        logBatchPlan: LOG_BATCH_PLAN,
      },
      transferList: [channel.port2],
    });
    this.worker.unref();
    this.replies.unref();
    this.replies.on('message', (reply: Reply) => this.settle(reply));
    this.worker.on('error', (error) => this.failAll(error));
  }

  /** Runs statements off this thread; `ordered` work (log batches) is done one after another, in order. */
  run(statements: Statement[], options: { transaction?: boolean; ordered?: boolean } = {}): Promise<Results> {
    if (this.closed) return Promise.reject(new DatabaseUnavailableError('the store is closed'));
    const id = ++this.nextId;
    return new Promise<Results>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ordered: options.ordered ?? false, job: { statements, transaction: options.transaction ?? statements.length > 1 } });
    });
  }

  /**
   * Writes a batch of log rows (log-batch.ts) in one transaction, after the ordered work before it; the
   * statements are built on the bridge's thread. The first result holds the rows' ids, in order. `done`
   * is told as soon as the answer is taken, before any promise waiting for the same answer goes on.
   */
  writeLogBatch(rows: unknown[][], instanceId: string | null, mark: BatchMark, done: (outcome: { results: Results } | { error: Error }) => void): void {
    if (this.closed) {
      done({ error: new DatabaseUnavailableError('the store is closed') });
      return;
    }
    const id = ++this.nextId;
    this.pending.set(id, { resolve: (results) => done({ results }), reject: (error) => done({ error }) });
    this.worker.postMessage({ id, ordered: true, logBatch: { rows, instanceId, mark } });
  }

  /** run(), its outcome told to `done` as soon as the answer is taken, before any promise waiting for the same answer goes on. */
  runThen(statements: Statement[], options: { transaction?: boolean }, done: (outcome: { results: Results } | { error: Error }) => void): void {
    if (this.closed) {
      done({ error: new DatabaseUnavailableError('the store is closed') });
      return;
    }
    const id = ++this.nextId;
    this.pending.set(id, { resolve: (results) => done({ results }), reject: (error) => done({ error }) });
    this.worker.postMessage({ id, ordered: false, job: { statements, transaction: options.transaction ?? statements.length > 1 } });
  }

  query<Row = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<Row[]> {
    return this.run([{ sql, params }]).then((results) => results[0] as Row[]);
  }

  /**
   * One statement's rows for the admin API, without holding this thread: the same bound as a wait (a 503
   * naming PostgreSQL after syncTimeoutMs, at once while it is silent), but calls go on meanwhile.
   */
  queryForAdmin<Row = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<Row[]> {
    return this.runForAdmin([{ sql, params }]).then((results) => results[0] as Row[]);
  }

  /**
   * Statements (in one transaction when more than one) for the admin API and the CLI, off this thread:
   * queryForAdmin's bound and 503.
   */
  runForAdmin(statements: Statement[], options: { transaction?: boolean } = {}): Promise<Results> {
    if (this.closed) return Promise.reject(new DatabaseUnavailableError('the store is closed'));
    if (this.isSilent()) return Promise.reject(new DatabaseUnavailableError(`it has not answered for ${Math.ceil((Date.now() - this.silentSince!) / 1000)} s`));
    return this.bounded(this.run(statements, options), this.syncTimeoutMs).then((answer) => {
      if (answer === null) throw new DatabaseUnavailableError(`no answer within ${this.syncTimeoutMs / 1000} s`);
      return answer;
    });
  }

  /** Resolves once every ordered piece of work handed over so far is answered, to false when that took longer than `timeoutMs`. */
  whenOrderedDone(timeoutMs: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(true);
    if (this.isSilent()) return Promise.resolve(false);
    const id = ++this.nextId;
    const answered = new Promise<true>((resolve) => this.pending.set(id, { resolve: () => resolve(true), reject: () => resolve(true) }));
    this.worker.postMessage({ id, barrier: true });
    return this.bounded(answered, timeoutMs).then((answer) => {
      if (answer === null) this.pending.delete(id);
      return answer !== null;
    });
  }

  /** The work's answer, or null when none came within `timeoutMs` (PostgreSQL is then silent since it was asked). */
  private bounded<T>(work: Promise<T>, timeoutMs: number): Promise<T | null> {
    const asked = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => {
        this.silentSince ??= asked;
        resolve(null);
      }, timeoutMs);
    });
    return Promise.race([
      work.catch((error: unknown) => {
        // Unreachable (refused, or a connection attempt that timed out): the next wait would be as long.
        if (error instanceof DatabaseUnavailableError) this.silentSince ??= asked;
        throw error;
      }),
      late,
    ]).finally(() => clearTimeout(timer));
  }

  /** Whether PostgreSQL has not answered a wait since; if so, a probe is on its way (one at a time). */
  private isSilent(): boolean {
    if (this.silentSince === null) return false;
    if (!this.probing) {
      this.probing = true;
      this.run([{ sql: 'SELECT 1' }])
        .catch(() => undefined)
        .finally(() => (this.probing = false));
    }
    return true;
  }

  /**
   * Ends the pool and the thread, waiting at most CLOSE_WAIT_MS for the pool to end (a PostgreSQL that
   * hangs answers nothing); work still waiting is refused with a 503.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    const id = ++this.nextId;
    const ended = new Promise<void>((resolve) => this.pending.set(id, { resolve: () => resolve(), reject: () => resolve() }));
    this.worker.postMessage({ id, close: true });
    this.closed = true;
    await this.bounded(ended, CLOSE_WAIT_MS);
    this.failAll(new DatabaseUnavailableError('the store is closed'));
    await this.worker.terminate();
  }

  private settle(reply: Reply): void {
    // PostgreSQL answered some work: waits are worth making again.
    if (reply.error === undefined) this.silentSince = null;
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (reply.error !== undefined) waiting.reject(this.errorOf(reply));
    else waiting.resolve(reply.results ?? []);
  }

  private errorOf(reply: Reply): Error {
    if (reply.unreachable) return Object.assign(new DatabaseUnavailableError(reply.error ?? 'unknown error'), { code: reply.code });
    return Object.assign(new Error(reply.error), { code: reply.code });
  }

  private failAll(error: Error): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const { reject } of waiting) reject(error);
  }
}

/** Whether an error from the bridge is a unique-constraint violation (two writers raced for a name). */
export const isUniqueViolation = (error: unknown): boolean => (error as { code?: string }).code === '23505';

/** A bytea value as read through the bridge (a structured clone turns Buffers into Uint8Arrays). */
export function bytes(value: unknown): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(value as Uint8Array);
}
