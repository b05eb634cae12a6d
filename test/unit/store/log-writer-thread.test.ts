// The request log written on a worker thread: rows are stored in order with their search entries, a
// flush returns only once they can be read, listeners hear each row with its id, a locked database
// keeps the rows for another try, and a thread that cannot start hands the writing back to the caller.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../src-main/store/database.js';
import { ThreadLogWriter } from '../../../src-main/store/log-writer-thread.js';
import { RequestLog } from '../../../src-main/store/request-log.js';
import type { BatchOutcome, LogBatchWriter } from '../../../src-main/store/log-writer.js';
import type { RowValues } from '../../../src-main/store/log-row.js';
import type { LogEntry } from '../../../src-main/core/log-store.js';
import type { CallRecord } from '../../../src-main/core/call-record.js';

const entry = (traceId: string, overrides: Partial<CallRecord> = {}): CallRecord => ({
  createdAt: Date.now(), traceId, metadata: { team: 'core' }, keyId: null, provider: 'openai', model: 'gpt-4o-mini', path: '/v1/completions',
  status: 200, latencyMs: 1.5, ttfbMs: 1, stream: false, error: null, attempts: 1, requestHeaders: { 'content-type': 'application/json' },
  requestBody: '{"prompt":"hi"}', responseBody: '{"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}',
  // The gateway hands every row the usage it read from the answer (usage-from-body.ts).
  promptTokens: 3, completionTokens: 4, ...overrides,
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let dir: string;
let db: SqliteDatabase;
let log: RequestLog | undefined;
/** What the log printed: a writer thread that failed says so (and writing moved to the main thread). */
let reported: string[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-log-thread-'));
  db = openDatabase(dir);
  reported = [];
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void reported.push(args.map(String).join(' ')));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await log?.close();
  log = undefined;
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the request log on a writer thread', () => {
  it('stores rows in order, searchable, and a flush returns once they can be read', async () => {
    log = new RequestLog(db, { writer: new ThreadLogWriter(db, { file: db.name }) });
    for (let i = 0; i < 150; i++) log.append(entry(`trace-${i}`));
    await log.flush();
    const { items } = await log.list({ limit: 500 });
    expect(items).toHaveLength(150);
    expect(items[0]).toMatchObject({ traceId: 'trace-149', metadata: { team: 'core' }, promptTokens: 3, completionTokens: 4 });
    expect(items.at(-1)?.traceId).toBe('trace-0');
    expect((await log.list({ q: 'trace-42' })).items.map((item) => item.traceId)).toEqual(['trace-42']);
    expect((await log.get(items[0].id))?.requestBody).toBe('{"prompt":"hi"}');
    expect(reported).toEqual([]);
  });

  it('adds each batch to the daily and monthly usage totals exactly as a writer on the caller thread does', async () => {
    // The thread sums its batches itself (its twin of usageOfBatch): every figure must match, to the nano-dollar.
    const day = Date.UTC(2026, 0, 31, 12);
    const mixed = (i: number): CallRecord =>
      entry(`usage-${i}`, {
        createdAt: day + (i % 3) * 86_400_000,
        keyId: i % 4 === 0 ? null : `key-${i % 3}`,
        model: i % 5 === 0 ? 'claude-x' : 'gpt-4o-mini',
        provider: i % 5 === 0 ? 'anthropic' : 'openai',
        status: i % 7 === 0 ? 500 : 200,
        requestHeaders: { 'user-agent': i % 2 ? 'curl/8' : 'OpenAI/Python 1.0' },
        ...(i % 6 === 0 ? { promptTokens: null, completionTokens: null, costUsd: null } : { promptTokens: i * 3, completionTokens: i, cacheReadTokens: i % 2, costUsd: i % 3 === 0 ? null : i * 0.000_001_37 }),
      });
    const totals = (database: SqliteDatabase) => ({
      daily: database.prepare('SELECT * FROM usage_daily ORDER BY day, dim, name').all(),
      monthly: database.prepare('SELECT * FROM usage_monthly ORDER BY month, dim, name').all(),
    });
    log = new RequestLog(db, { writer: new ThreadLogWriter(db, { file: db.name }), batchSize: 16 });
    for (let i = 0; i < 100; i++) log.append(mixed(i));
    await log.flush();
    const otherDir = mkdtempSync(join(tmpdir(), 'gatehouse-log-same-'));
    const other = openDatabase(otherDir);
    const sameThread = new RequestLog(other, { batchSize: 16 });
    for (let i = 0; i < 100; i++) sameThread.append(mixed(i));
    await sameThread.flush();
    try {
      expect(totals(db).daily.length).toBeGreaterThan(10);
      expect(totals(db)).toEqual(totals(other));
    } finally {
      await sameThread.close();
      other.close();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('keeps calls apart in the usage totals whatever characters their names hold', async () => {
    // Joined naively, model 'x\u0000y' at provider 'p' and model 'x' at provider 'y\u0000p' read alike.
    log = new RequestLog(db, { writer: new ThreadLogWriter(db, { file: db.name }) });
    log.append(entry('odd-1', { model: 'x\u0000y', provider: 'p', promptTokens: 1, completionTokens: 1, costUsd: null }));
    log.append(entry('odd-2', { model: 'x', provider: 'y\u0000p', promptTokens: 2, completionTokens: 2, costUsd: null }));
    await log.flush();
    const models = db.prepare("SELECT name, requests, prompt_tokens FROM usage_daily WHERE dim = 'model' ORDER BY name").all();
    const providers = db.prepare("SELECT name, requests, prompt_tokens FROM usage_daily WHERE dim = 'provider' ORDER BY name").all();
    expect(models).toEqual([
      { name: 'x', requests: 1, prompt_tokens: 2 },
      { name: 'x\u0000y', requests: 1, prompt_tokens: 1 },
    ]);
    expect(providers).toEqual([
      { name: 'p', requests: 1, prompt_tokens: 1 },
      { name: 'y\u0000p', requests: 1, prompt_tokens: 2 },
    ]);
  });

  it('tells listeners about each row with the id it was stored under, without a flush', async () => {
    log = new RequestLog(db, { writer: new ThreadLogWriter(db, { file: db.name }), flushIntervalMs: 5 });
    const heard: LogEntry[] = [];
    log.subscribe((stored) => heard.push(stored));
    log.append(entry('heard-1'));
    log.append(entry('heard-2'));
    await vi.waitFor(() => expect(heard).toHaveLength(2), { timeout: 5_000 });
    expect(heard.map((stored) => stored.traceId)).toEqual(['heard-1', 'heard-2']);
    expect((await log.get(heard[1].id))?.traceId).toBe('heard-2');
    expect(reported).toEqual([]);
  });

  it('keeps the rows while another program locks the database, and writes them once it is free', async () => {
    const locker = new Database(db.name);
    try {
      locker.exec('BEGIN EXCLUSIVE');
      // The thread waits out a lock shorter than its busy timeout (5 s). This thread is not held meanwhile:
      // written here, the batch would have blocked it for those 5 s.
      log = new RequestLog(db, { writer: new ThreadLogWriter(db, { file: db.name }), flushIntervalMs: 5 });
      const started = Date.now();
      log.append(entry('while-locked'));
      await sleep(200);
      expect((await log.list()).items).toEqual([]);
      expect(Date.now() - started).toBeLessThan(1_000);
      locker.exec('COMMIT');
      await log.flush();
      expect((await log.list()).items.map((item) => item.traceId)).toEqual(['while-locked']);
      expect(reported).toEqual([]);
    } finally {
      if (locker.inTransaction) locker.exec('ROLLBACK');
      locker.close();
    }
  });

  it('writes on the caller thread, losing nothing, when the thread cannot open the database', async () => {
    log = new RequestLog(db, { writer: new ThreadLogWriter(db, { file: join(dir, 'no-such-dir', 'gatehouse.db') }), flushIntervalMs: 5 });
    log.append(entry('first'));
    await vi.waitFor(() => expect(reported.join('\n')).toMatch(/written on the main thread/), { timeout: 5_000 });
    log.append(entry('second'));
    await log.flush();
    expect((await log.list()).items.map((item) => item.traceId).sort()).toEqual(['first', 'second']);
  });
});

describe('a log writer that falls behind (a disk slower than the traffic)', () => {
  /** A writer that answers only when told: its backlog is what the log sees. */
  class StalledWriter implements LogBatchWriter {
    readonly batches: { rows: RowValues[]; done: (outcome: BatchOutcome) => void }[] = [];
    /** Trace ids of the rows answered (written), in order. */
    readonly written: unknown[] = [];
    get rowsInFlight(): number {
      return this.batches.reduce((sum, batch) => sum + batch.rows.length, 0);
    }
    write(rows: RowValues[], done: (outcome: BatchOutcome) => void): void {
      this.batches.push({ rows, done });
    }
    answerAll(): void {
      for (const batch of this.batches.splice(0)) {
        this.written.push(...batch.rows.map((row) => row[1]));
        batch.done({ ids: batch.rows.map((_, index) => index + 1) });
      }
    }
    async whenWritten(): Promise<void> {
      this.answerAll();
    }
    async close(): Promise<void> {}
  }

  it('stops handing rows over past 20,000 in flight, and keeps at most 50,000 waiting, dropping the oldest', async () => {
    const writer = new StalledWriter();
    log = new RequestLog(db, { writer, batchSize: 1_000, flushIntervalMs: 5 });
    // The clock stands still for the burst: on a loaded machine it can outlast the 10 s between two
    // messages, and this test is about the rows, with one message for one burst.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      for (let i = 0; i < 80_000; i++) {
        log.append(entry(`row-${i}`));
        if (i % 1_000 === 999) await sleep(0);
      }
      await sleep(20);
    } finally {
      vi.useRealTimers();
    }
    expect(writer.rowsInFlight).toBe(20_000);
    expect(log.pendingCount).toBe(50_000);
    expect(reported.join('\n')).toMatch(/request log cannot keep up \(50000 rows waiting\); 1 of the oldest were dropped, and more will be/);
    expect(reported).toHaveLength(1);

    // Once the writer catches up, the waiting rows go on, newest kept: rows 30,000 to 79,999.
    writer.answerAll();
    await vi.waitFor(() => expect(writer.rowsInFlight).toBe(20_000));
    const handedOver = () => writer.batches.flatMap((batch) => batch.rows.map((row) => row[1]));
    expect(handedOver()[0]).toBe('row-30000');
    await log.flush();
    // Rows 0–19,999 went first; 20,000–29,999 were dropped; the rest all arrive, in order.
    expect(writer.written).toHaveLength(70_000);
    expect(writer.written.slice(19_999, 20_001)).toEqual(['row-19999', 'row-30000']);
    expect(writer.written.at(-1)).toBe('row-79999');
  });
});
