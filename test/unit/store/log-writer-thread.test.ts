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
import { RequestLog, type LogEntry, type LogEntryInput } from '../../../src-main/store/request-log.js';

const entry = (traceId: string, overrides: Partial<LogEntryInput> = {}): LogEntryInput => ({
  createdAt: Date.now(), traceId, metadata: { team: 'core' }, keyId: null, provider: 'openai', model: 'gpt-4o-mini', path: '/v1/completions',
  status: 200, latencyMs: 1.5, ttfbMs: 1, stream: false, error: null, attempts: 1, requestHeaders: { 'content-type': 'application/json' },
  requestBody: '{"prompt":"hi"}', responseBody: '{"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}', ...overrides,
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let dir: string;
let db: SqliteDatabase;
let log: RequestLog | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-log-thread-'));
  db = openDatabase(dir);
});
afterEach(() => {
  vi.restoreAllMocks();
  log?.close();
  log = undefined;
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the request log on a writer thread', () => {
  it('stores rows in order, searchable, and a flush returns once they can be read', () => {
    log = new RequestLog(db, { writer: new ThreadLogWriter(db, { file: db.name }) });
    for (let i = 0; i < 150; i++) log.append(entry(`trace-${i}`));
    log.flush();
    const { items } = log.list({ limit: 500 });
    expect(items).toHaveLength(150);
    expect(items[0]).toMatchObject({ traceId: 'trace-149', metadata: { team: 'core' }, promptTokens: 3, completionTokens: 4 });
    expect(items.at(-1)?.traceId).toBe('trace-0');
    expect(log.list({ q: 'trace-42' }).items.map((item) => item.traceId)).toEqual(['trace-42']);
    expect(log.get(items[0].id)?.requestBody).toBe('{"prompt":"hi"}');
  });

  it('tells listeners about each row with the id it was stored under, without a flush', async () => {
    log = new RequestLog(db, { writer: new ThreadLogWriter(db, { file: db.name }), flushIntervalMs: 5 });
    const heard: LogEntry[] = [];
    log.subscribe((stored) => heard.push(stored));
    log.append(entry('heard-1'));
    log.append(entry('heard-2'));
    await vi.waitFor(() => expect(heard).toHaveLength(2), { timeout: 5_000 });
    expect(heard.map((stored) => stored.traceId)).toEqual(['heard-1', 'heard-2']);
    expect(log.get(heard[1].id)?.traceId).toBe('heard-2');
  });

  it('keeps the rows while another program locks the database, and writes them once it is free', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const locker = new Database(db.name);
    try {
      locker.exec('BEGIN EXCLUSIVE');
      // The thread waits out a lock shorter than its busy timeout (5 s); readers are not blocked meanwhile.
      log = new RequestLog(db, { writer: new ThreadLogWriter(db, { file: db.name }), flushIntervalMs: 5 });
      log.append(entry('while-locked'));
      await sleep(200);
      expect(log.list().items).toEqual([]);
      locker.exec('COMMIT');
      log.flush();
      expect(log.list().items.map((item) => item.traceId)).toEqual(['while-locked']);
    } finally {
      if (locker.inTransaction) locker.exec('ROLLBACK');
      locker.close();
    }
  });

  it('writes on the caller thread, losing nothing, when the thread cannot open the database', async () => {
    const reported: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void reported.push(args.map(String).join(' ')));
    log = new RequestLog(db, { writer: new ThreadLogWriter(db, { file: join(dir, 'no-such-dir', 'gatehouse.db') }), flushIntervalMs: 5 });
    log.append(entry('first'));
    await vi.waitFor(() => expect(reported.join('\n')).toMatch(/written on the main thread/), { timeout: 5_000 });
    log.append(entry('second'));
    log.flush();
    expect(log.list().items.map((item) => item.traceId).sort()).toEqual(['first', 'second']);
  });
});
