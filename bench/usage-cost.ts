// The Usage page's queries over a large log: a temp database with the real migrations, `rows` calls
// spread over the last year (12 keys, 8 models at 6 providers, 6 client tools, some of unknown price),
// bulk-inserted in one transaction, then added to the daily totals the way the log writer adds a batch
// (USAGE_FOR_BATCH). Each Usage view is then timed through UsageStore, as the admin API runs it.
// Run alone: `node --import tsx bench/usage-cost.ts [rows]`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src-main/store/database.js';
import { USAGE_FOR_BATCH } from '../src-main/store/log-usage-rollup.js';
import { UsageStore } from '../src-main/store/usage.js';
import { USAGE_DIMENSIONS, USAGE_RANGES } from '../src-main/core/usage.js';

export interface UsageQueryTiming {
  label: string;
  coldMs: number;
  medianMs: number;
}

export interface UsageCost {
  rows: number;
  /** Bulk insert of the rows and building their usage totals. */
  buildSeconds: number;
  /** Of which the insert of the rows alone. */
  insertSeconds: number;
  /** Rows in usage_daily the queries read from. */
  totalsRows: number;
  queries: UsageQueryTiming[];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function measureUsageQueries(rows: number, repeats: number): UsageCost {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-usage-'));
  const db = openDatabase(dataDir);
  try {
    db.pragma('synchronous = OFF');
    // The Usage totals are read from the usage tables: the log's own indexes would just slow the bulk insert.
    // Partial indexes stay: they hold none of these rows, and the report's MCP part reads its rows through
    // one (request_log_kind); without it that part scanned the whole log (about 150 ms of every view).
    for (const { name } of db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'request_log' AND sql IS NOT NULL AND sql NOT LIKE '% WHERE %'").all() as { name: string }[]) {
      db.exec(`DROP INDEX ${name}`);
    }
    const started = performance.now();
    const now = Date.now();
    let inserted = started;
    db.transaction(() => {
      db.prepare(
        `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < @rows)
         INSERT INTO request_log (id, created_at, trace_id, key_id, provider, model, path, status, latency_ms, prompt_tokens, completion_tokens,
           cache_read_tokens, stream, attempts, cost_usd, client, day)
         SELECT i, at, 't' || i, 'key-' || (i % 12),
           CASE i % 8 WHEN 0 THEN 'openai' WHEN 1 THEN 'openai' WHEN 2 THEN 'anthropic' WHEN 3 THEN 'anthropic' WHEN 4 THEN 'google'
                      WHEN 5 THEN 'groq' WHEN 6 THEN 'mistral-ai' ELSE 'ollama' END,
           CASE i % 8 WHEN 0 THEN 'gpt-4o' WHEN 1 THEN 'gpt-4o-mini' WHEN 2 THEN 'claude-sonnet-4-20250514' WHEN 3 THEN 'claude-3-5-haiku-20241022'
                      WHEN 4 THEN 'gemini-2.5-pro' WHEN 5 THEN 'llama-3.3-70b-versatile' WHEN 6 THEN 'mistral-large-latest' ELSE 'llama3.2' END,
           '/v1/chat/completions', CASE WHEN i % 97 = 0 THEN 500 ELSE 200 END, 200, 20 + i % 4000, 10 + i % 600, i % 300, 0, 1,
           CASE WHEN i % 8 = 7 THEN NULL ELSE round((20 + i % 4000) * 2.5e-6 + (10 + i % 600) * 1e-5, 9) END,
           CASE (i / 8) % 6 WHEN 0 THEN 'claude-cli' WHEN 1 THEN 'codex' WHEN 2 THEN 'opencode' WHEN 3 THEN 'openai-js' WHEN 4 THEN 'curl' ELSE 'anthropic-sdk' END,
           date(at / 1000, 'unixepoch', @offset)
         FROM (SELECT i, @now - CAST((@rows - i) * (365.0 * 86400000 / @rows) AS INTEGER) AS at FROM seq)`,
      ).run({ rows, now, offset: `${-new Date(now).getTimezoneOffset()} minutes` });
      inserted = performance.now();
      for (const sql of USAGE_FOR_BATCH) db.prepare(sql).run(1);
    })();
    const buildSeconds = (performance.now() - started) / 1000;
    const insertSeconds = (inserted - started) / 1000;
    db.pragma('synchronous = NORMAL');
    db.pragma('wal_checkpoint(TRUNCATE)');
    const totalsRows = (db.prepare('SELECT count(*) AS n FROM usage_daily').get() as { n: number }).n;
    const usage = new UsageStore(db);
    const views: { label: string; run: () => unknown }[] = [];
    for (const range of USAGE_RANGES) {
      for (const by of USAGE_DIMENSIONS) views.push({ label: `${range} / by ${by}`, run: () => usage.report({ range, by }) });
    }
    views.push({ label: 'keys: spend today and this month', run: () => usage.keySpend() });
    const queries = views.map(({ label, run }) => {
      const times: number[] = [];
      for (let i = 0; i <= repeats; i++) {
        const start = performance.now();
        run();
        times.push(performance.now() - start);
      }
      return { label, coldMs: times[0], medianMs: median(times.slice(1)) };
    });
    return { rows, buildSeconds, insertSeconds, totalsRows, queries };
  } finally {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = Number(process.argv[2] ?? 1_000_000);
  const result = measureUsageQueries(rows, 7);
  process.stdout.write(`${rows.toLocaleString('en')} rows, built in ${result.buildSeconds.toFixed(1)} s (insert ${result.insertSeconds.toFixed(1)} s); ${result.totalsRows.toLocaleString('en')} daily total rows\n`);
  for (const query of result.queries) process.stdout.write(`  ${query.label.padEnd(36)} ${query.medianMs.toFixed(1).padStart(6)} ms (cold ${query.coldMs.toFixed(1)})\n`);
}
