// The usage tables against the log itself: for any span of days (whole months, months cut by from/to,
// weeks), the Usage report's totals, series and breakdown equal SQL sums over request_log, also after
// rows are deleted; on each storage backend.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RequestLog } from '../../../src-main/store/request-log.js';
import { USAGE_FOR_BATCH } from '../../../src-main/store/log-usage-rollup.js';
import type { CallRecord } from '../../../src-main/core/call-record.js';
import { backfillCosts } from '../../../src-main/store/usage-backfill.js';
import { priceCall } from '../../../src-main/catalog/pricing.js';
import { localDay } from '../../../src-main/core/usage.js';
import { backends, type BackendStores } from '../../helpers/backends.js';

const NOW = new Date(2026, 2, 20, 15, 0, 0); // 20 March 2026, local time

const entry = (createdAt: number, index: number): CallRecord => ({
  createdAt, traceId: `t${index}`, metadata: {}, keyId: index % 3 === 0 ? null : `key-${index % 3}`, provider: index % 2 ? 'openai' : 'anthropic',
  model: index % 5 === 0 ? 'unknown-model' : index % 2 ? 'gpt-4o' : 'claude-sonnet-4-20250514', path: '/v1/chat/completions', status: index % 7 === 0 ? 500 : 200,
  latencyMs: 1, ttfbMs: 1, stream: false, error: null, attempts: 1, requestHeaders: { 'user-agent': index % 4 ? 'curl/8' : 'claude-cli/1.0' }, requestBody: null, responseBody: null,
  promptTokens: 100 + index, completionTokens: 10 + (index % 13), cacheReadTokens: index % 3 ? 20 : 0,
});

describe.each(backends())('usage totals on $name', (backend) => {
  let stores: BackendStores;
  let log: RequestLog;

  // One database per backend, emptied and filled again before each test (a fresh PostgreSQL database costs seconds).
  beforeAll(async () => {
    stores = await backend.stores();
    log = stores.requestLog;
  }, 60_000);
  afterAll(async () => {
    await stores?.close();
    await backend.close();
  }, 30_000);

  beforeEach(async () => {
    await stores.sql('DELETE FROM request_log');
    // 400 calls, one every ~5.4 hours, over the 90 days up to NOW.
    for (let index = 0; index < 400; index++) log.append(entry(NOW.getTime() - index * 19_440_000, index));
    await log.flush();
  });

  async function sqlTotals(from: string, to: string) {
    const [totals] = await stores.sql<{ requests: number; prompt: number; nanos: number; unpriced: number }>(
      `SELECT count(*) AS requests, sum(prompt_tokens) AS prompt, coalesce(sum(CAST(round(cost_usd * 1e9) AS BIGINT)), 0) AS nanos,
         sum(CASE WHEN cost_usd IS NULL AND prompt_tokens IS NOT NULL THEN 1 ELSE 0 END) AS unpriced FROM request_log WHERE day BETWEEN ? AND ?`,
      [from, to],
    );
    return totals;
  }

  it('dates each row by its local day', async () => {
    const [row] = await stores.sql<{ created_at: number; day: string }>('SELECT created_at, day FROM request_log ORDER BY id LIMIT 1');
    expect(row.day).toBe(localDay(new Date(row.created_at)));
  });

  it.each([
    ['month', '2025-12-01', '2026-03-20'],
    ['month', '2026-01-15', '2026-03-03'],
    ['month', '2026-01-01', '2026-02-28'],
    ['month', '2026-02-10', '2026-02-11'],
    ['week', '2026-01-07', '2026-03-20'],
    ['day', '2026-03-01', '2026-03-20'],
  ] as const)('%s view from %s to %s equals a SQL sum over the log', async (range, from, to) => {
    const usage = stores.usage(() => NOW);
    const expected = await sqlTotals(from, to);
    for (const by of ['key', 'model', 'provider', 'client'] as const) {
      const report = await usage.report({ range, by, from, to });
      expect(report.totals.requests).toBe(expected.requests);
      expect(report.totals.promptTokens).toBe(expected.prompt);
      expect(Math.round(report.totals.costUsd * 1e9)).toBe(expected.nanos);
      expect(report.totals.unpricedRequests).toBe(expected.unpriced);
      expect(report.series.reduce((sum, period) => sum + period.requests, 0)).toBe(expected.requests);
      expect(report.breakdown.reduce((sum, group) => sum + group.promptTokens, 0)).toBe(expected.prompt);
    }
  });

  it('starts weeks on Monday and months on the 1st', async () => {
    const usage = stores.usage(() => NOW);
    for (const period of (await usage.report({ range: 'week', by: 'model', from: '2026-01-07', to: '2026-03-20' })).series) {
      expect(new Date(`${period.period}T12:00:00`).getDay()).toBe(1);
    }
    expect((await usage.report({ range: 'month', by: 'model', from: '2026-01-15', to: '2026-03-20' })).series.map((period) => period.period)).toEqual(['2026-01-01', '2026-02-01', '2026-03-01']);
  });

  it('stays equal to the log after rows are deleted, and drops groups left without calls', async () => {
    await stores.sql("DELETE FROM request_log WHERE model = 'unknown-model' OR id % 11 = 0");
    const usage = stores.usage(() => NOW);
    const expected = await sqlTotals('2025-01-01', '2026-03-20');
    const report = await usage.report({ range: 'month', by: 'model', from: '2025-01-01' });
    expect(report.totals.requests).toBe(expected.requests);
    expect(Math.round(report.totals.costUsd * 1e9)).toBe(expected.nanos);
    expect(report.breakdown.map((group) => group.name)).not.toContain('unknown-model');
  });

  it("says from which day the log's retention counts, when that cuts into the range asked for", async () => {
    const usage = stores.usage(() => NOW);
    const retainedFrom = (days: number) => {
      const day = new Date(NOW.getTime() - days * 86_400_000);
      return `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
    };
    const months = await usage.report({ range: 'month', by: 'model', logRetentionDays: 30 });
    expect(months.countedFrom).toBe(retainedFrom(30));
    expect(months.logRetentionDays).toBe(30);
    // The default 30 days of the day view start after a 90-day log's first day: nothing is cut.
    expect((await usage.report({ range: 'day', by: 'model', logRetentionDays: 90 })).countedFrom).toBeNull();
    expect((await usage.report({ range: 'day', by: 'model' })).countedFrom).toBeNull();
  });

  // Rows without a cost exist only in data dirs of older desktop versions; `gatehouse migrate` moves them priced or not.
  it.runIf(backend.name === 'SQLite')('prices the rows logged before costs were, once, and moves them out of the unknown count', async () => {
    const db = stores.db!;
    // Rows as an older Gatehouse wrote them: no cost, no local day; counted in the totals as unpriced.
    const firstOld = (db.prepare('SELECT max(id) AS id FROM request_log').get() as { id: number }).id + 1;
    const insert = db.prepare(
      "INSERT INTO request_log (created_at, trace_id, provider, model, path, status, latency_ms, prompt_tokens, completion_tokens) VALUES (?, 'old', ?, ?, '/v1/chat/completions', 200, 1, ?, ?)",
    );
    insert.run(NOW.getTime() - 3_600_000, 'openai', 'gpt-4o', 1000, 100);
    insert.run(NOW.getTime() - 7_200_000, 'openai', 'gpt-4o-mini', 2000, 50);
    insert.run(NOW.getTime() - 7_200_000, 'ollama', 'llama3.2', 300, 30);
    for (const sql of USAGE_FOR_BATCH) db.prepare(sql).run(firstOld);
    const usage = stores.usage(() => NOW);
    const before = await usage.report({ range: 'day', by: 'model' });

    expect(await backfillCosts(db, () => false, 2)).toBe(3);
    const after = await usage.report({ range: 'day', by: 'model' });
    const expected = (priceCall('openai', 'gpt-4o', { inputTokens: 1000, outputTokens: 100 })! + priceCall('openai', 'gpt-4o-mini', { inputTokens: 2000, outputTokens: 50 })!) * 1e9;
    expect(Math.round(after.totals.costUsd * 1e9) - Math.round(before.totals.costUsd * 1e9)).toBe(Math.round(expected));
    // The local model stays unknown; the two OpenAI calls are priced now.
    expect(before.totals.unpricedRequests - after.totals.unpricedRequests).toBe(2);
    expect(after.breakdown.find((group) => group.name === 'llama3.2')?.unpricedRequests).toBe(1);
    const sums = await sqlTotals('2000-01-01', '2100-01-01');
    expect(Math.round((await usage.report({ range: 'month', by: 'key', from: '2025-01-01' })).totals.costUsd * 1e9)).toBe(sums.nanos);
    // Done once: nothing is left to price at the next start.
    expect(await backfillCosts(db, () => false)).toBe(0);
  });
});
