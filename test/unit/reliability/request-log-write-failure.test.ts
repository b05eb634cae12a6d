// A database that refuses the log's writes for a while (locked by another program, disk full) must not
// crash the gateway or lose the rows: they wait in memory, within a bound, and are written once it can.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase, type SqliteDatabase } from '../../../src-main/store/database.js';
import { RequestLog } from '../../../src-main/store/request-log.js';
import type { CallRecord } from '../../../src-main/core/call-record.js';

let dir: string;
let db: SqliteDatabase;
let locker: Database.Database;
let log: RequestLog;
let reported: string[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-log-fail-'));
  db = openDatabase(dir);
  db.pragma('busy_timeout = 10');
  log = new RequestLog(db, { flushIntervalMs: 10 });
  locker = new Database(join(dir, 'gatehouse.db'));
  reported = [];
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void reported.push(args.map(String).join(' ')));
});
afterEach(async () => {
  vi.restoreAllMocks();
  if (locker.inTransaction) locker.exec('ROLLBACK');
  locker.close();
  await log.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const entry = (traceId: string): CallRecord => ({
  createdAt: Date.now(), traceId, metadata: {}, keyId: null, provider: 'openai', model: 'm', path: '/v1/completions', status: 200,
  latencyMs: 1, ttfbMs: 1, stream: false, error: null, attempts: 1, requestHeaders: {}, requestBody: null, responseBody: null,
});
const rowCount = () => (db.prepare('SELECT count(*) AS n FROM request_log').get() as { n: number }).n;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('request log writes that fail', () => {
  it('keep the rows while the database is locked, say so once, and write them all once it is free', async () => {
    locker.exec('BEGIN EXCLUSIVE');
    for (let i = 0; i < 3; i++) log.append(entry(`waiting-${i}`));
    await sleep(100);
    log.append(entry('waiting-3'));
    await sleep(100);
    expect(log.pendingCount).toBe(4);
    expect(reported.filter((line) => line.includes('could not write'))).toHaveLength(1);
    expect(reported.join('\n')).toMatch(/database is locked/);

    locker.exec('COMMIT');
    await sleep(1_300);
    expect(log.pendingCount).toBe(0);
    expect(rowCount()).toBe(4);
    expect(reported.some((line) => line.includes('work again'))).toBe(true);
  });

  it('still refused when the log closes: the rows are counted as dropped and said to be lost, as are rows after the close', async () => {
    locker.exec('BEGIN EXCLUSIVE');
    for (let i = 0; i < 5; i++) log.append(entry(`at-stop-${i}`));
    await log.close();
    expect(log.droppedCount).toBe(5);
    expect(reported.join('\n')).toMatch(/5 request log rows could not be written or kept, and are lost/);
    log.append(entry('after-stop'));
    expect(log.droppedCount).toBe(6);
    locker.exec('COMMIT');
    expect(rowCount()).toBe(0);
  });

  it('hold at most 50,000 waiting rows, dropping the oldest', async () => {
    locker.exec('BEGIN EXCLUSIVE');
    for (let i = 0; i < 50_010; i++) log.append(entry(`row-${i}`));
    await log.flush();
    expect(log.pendingCount).toBe(50_000);
    locker.exec('COMMIT');
    await log.flush();
    expect(rowCount()).toBe(50_000);
    const oldest = db.prepare('SELECT trace_id FROM request_log ORDER BY id LIMIT 1').get() as { trace_id: string };
    expect(oldest.trace_id).toBe('row-10');
  });
});
