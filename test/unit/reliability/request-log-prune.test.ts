// Log retention (issue 7, item 11): rows past the age or beyond the row cap go, the rest stay, and the
// purge runs in slices so requests are served between them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openDatabase, type SqliteDatabase } from '../../../src-main/store/database.js';
import { RequestLog } from '../../../src-main/store/request-log.js';
import type { CallRecord } from '../../../src-main/core/call-record.js';

const DAY = 86_400_000;
let dir: string;
let db: SqliteDatabase;
let log: RequestLog;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-prune-'));
  db = openDatabase(dir);
  log = new RequestLog(db, { batchSize: 100_000 });
});
afterEach(async () => {
  await log.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function entry(createdAt: number, traceId: string): CallRecord {
  return {
    createdAt, traceId, metadata: {}, keyId: null, provider: 'openai', model: 'm', path: '/v1/completions', status: 200,
    latencyMs: 1, ttfbMs: 1, stream: false, error: null, attempts: 1, requestHeaders: {}, requestBody: '{"prompt":"x"}', responseBody: null,
  };
}

function traceIds(): string[] {
  return (db.prepare('SELECT trace_id FROM request_log ORDER BY id').all() as { trace_id: string }[]).map((row) => row.trace_id);
}

describe('RequestLog.prune', () => {
  it('removes exactly the rows older than the retention age', async () => {
    const now = Date.now();
    log.append(entry(now - 40 * DAY, 'old-1'));
    log.append(entry(now - 31 * DAY, 'old-2'));
    log.append(entry(now - 29 * DAY, 'young-1'));
    log.append(entry(now - 60 * DAY, 'old-3'));
    log.append(entry(now, 'young-2'));
    await log.flush();
    expect(await log.prune(30 * DAY, 1_000)).toBe(3);
    expect(traceIds()).toEqual(['young-1', 'young-2']);
  });

  it('keeps only the newest rows up to the cap', async () => {
    const now = Date.now();
    for (let i = 0; i < 25; i++) log.append(entry(now, `row-${i}`));
    await log.flush();
    expect(await log.prune(30 * DAY, 10, 4)).toBe(15);
    expect(traceIds()).toEqual(Array.from({ length: 10 }, (_, i) => `row-${i + 15}`));
  });

  it('applies both rules together, and a second run finds nothing more', async () => {
    const now = Date.now();
    for (let i = 0; i < 10; i++) log.append(entry(now - (i % 2 === 0 ? 45 : 1) * DAY, `row-${i}`));
    await log.flush();
    await log.prune(30 * DAY, 3);
    expect(traceIds()).toEqual(['row-5', 'row-7', 'row-9']);
    expect(await log.prune(30 * DAY, 3)).toBe(0);
  });

  it('purges a large backlog completely in one call, in slices, without holding the event loop', async () => {
    const now = Date.now();
    const insert = db.prepare(
      "INSERT INTO request_log (created_at, trace_id, path, status, latency_ms, request_body) VALUES (?, ?, '/v1/completions', 200, 1, ?)",
    );
    const body = 'x'.repeat(500);
    db.transaction(() => {
      for (let i = 0; i < 20_000; i++) insert.run(now - 90 * DAY, `old-${i}`, body);
      for (let i = 0; i < 50; i++) insert.run(now, `new-${i}`, body);
    })();

    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const started = performance.now();
    const removed = await log.prune(30 * DAY, 1_000_000, 1_000);
    const totalMs = performance.now() - started;
    delay.disable();
    clearInterval(ticker);

    expect(removed).toBe(20_000);
    expect(traceIds()).toHaveLength(50);
    // Timers ran while the purge was under way: it yielded between slices.
    expect(ticks).toBeGreaterThan(5);
    // The longest stall is about one slice (a twentieth of the work), not the whole purge; judged relative
    // to the whole, so a busy machine does not matter.
    expect(delay.max / 1e6).toBeLessThan(totalMs / 2);
  }, 30_000);

  it('never removes rows written after the purge started', async () => {
    const now = Date.now();
    for (let i = 0; i < 30; i++) log.append(entry(now, `before-${i}`));
    await log.flush();
    const purge = log.prune(30 * DAY, 20, 2);
    // Let a few slices run, then write a row while the purge is still under way.
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    log.append(entry(now, 'during'));
    await log.flush();
    await purge;
    const kept = traceIds();
    expect(kept).toContain('during');
    expect(kept.filter((id) => id.startsWith('before-'))).toEqual(Array.from({ length: 20 }, (_, i) => `before-${i + 10}`));
  });
});
