// The request log of a Gatehouse on PostgreSQL at scale (issue 23: "the same filters and speeds as on
// SQLite at a million rows"): a fresh database migrated by Gatehouse's own schema, filled on the server
// with rows shaped like the SQLite bench's (createLargeLog's providers, models, statuses, errors and text;
// usage-cost's 12 keys, client tools and prices over a year), its usage totals built from those rows by
// SQL, ANALYZE; then a Gatehouse on that database is asked through its admin API, over HTTP, for the same
// log pages as on SQLite and for every Usage view.
import pg from 'pg';
import { Pool } from 'undici';
import { migrate, SEARCH_TEXT, usageTotalsFromLog } from '../src-main/store-postgres/schema.js';
import { USAGE_DIMENSIONS, USAGE_RANGES } from '../src-main/core/usage.js';
import { logQueries, toSearchParams } from './log-cost.js';
import { median } from './load.js';

export interface AdminTiming {
  label: string;
  coldMs: number;
  medianMs: number;
  /** Rows on the page (log queries). */
  rows?: number;
}

export interface TeamLogCost {
  rows: number;
  /** The rows inserted, the indexes built, the usage totals summed and ANALYZE, all by SQL on the server. */
  fillSeconds: number;
  /** request_log's size on disk (table, TOAST and indexes) per row. */
  bytesPerRow: number;
  /** Rows in usage_daily the Usage views read from. */
  totalsRows: number;
  /** The log's pages through GET /admin/api/logs, labelled as the SQLite rows are. */
  admin: AdminTiming[];
  /** The Usage views through GET /admin/api/usage and /usage/keys, labelled as the SQLite rows are. */
  usage: AdminTiming[];
  /** Whether the Usage page's totals over the whole log equal count(*) and the summed cost of its rows. */
  totalsEqualRows: boolean;
}

/**
 * The rows' INSERT … SELECT over ids $1..$2 of $3 rows, the newest at $4 ($5: the local time's offset in minutes).
 * Their search words by the SQL the schema first used: the same words as the gateway's for these ASCII texts.
 */
const INSERT_ROWS = `INSERT INTO request_log (id, created_at, trace_id, metadata, key_id, provider, model, path, status, latency_ms, ttfb_ms,
     prompt_tokens, completion_tokens, stream, error, attempts, request_headers, request_body, response_body, cost_usd, client, day, search)
   SELECT filled.*, to_tsvector('simple', ${SEARCH_TEXT}) FROM (
   SELECT i, at, gen_random_uuid()::text AS trace_id, '{"user":"user-' || (i % 500) || '","app":"bench"}' AS metadata, 'key-' || (i % 12), provider, model,
     CASE WHEN i % 3 = 0 THEN '/v1/chat/completions' ELSE '/v1/completions' END AS path,
     status, 200 + (i % 1000) / 3.0, 80 + (i % 300) / 7.0, 20 + i % 400, 10 + i % 600, i % 2,
     CASE status WHEN 200 THEN NULL WHEN 429 THEN 'Rate limit reached for requests' WHEN 500 THEN 'The server had an error while processing your request'
                 ELSE 'Invalid value for temperature' END AS error,
     1,
     '{"host":"127.0.0.1:8787","content-type":"application/json","user-agent":"OpenAI/Python 1.50.0","x-gateway-api-key":"[redacted]","x-gateway-provider":"' || provider || '","authorization":"[redacted]"}',
     '{"model":"' || model || '","prompt":"Question ' || i || ': summarise the quarterly report in three sentences.","max_tokens":256,"temperature":0.2}',
     '{"id":"cmpl-' || i || '","object":"text_completion","created":1700000000,"model":"' || model || '","choices":[{"index":0,"text":"The quarter closed with revenue up and costs flat; the new region opened on time.","logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":' || (20 + i % 400) || ',"completion_tokens":' || (10 + i % 600) || ',"total_tokens":0}}',
     CASE WHEN i % 8 = 7 THEN NULL ELSE round(((20 + i % 400) * 2.5e-6 + (10 + i % 600) * 1e-5)::numeric, 9)::float8 END,
     CASE (i / 8) % 6 WHEN 0 THEN 'claude-cli' WHEN 1 THEN 'codex' WHEN 2 THEN 'opencode' WHEN 3 THEN 'openai-js' WHEN 4 THEN 'curl' ELSE 'anthropic-sdk' END,
     to_char(to_timestamp(at / 1000.0) AT TIME ZONE 'UTC' + make_interval(mins => $5::int), 'YYYY-MM-DD')
   FROM (
     SELECT i, $4::bigint - ((($3::bigint - i) * (365.0 * 86400000 / $3::bigint))::bigint) AS at,
       CASE i % 7 WHEN 0 THEN 'openai' WHEN 1 THEN 'anthropic' WHEN 2 THEN 'groq' WHEN 3 THEN 'mistral-ai'
                  WHEN 4 THEN 'bedrock' WHEN 5 THEN 'ollama' ELSE 'openrouter' END AS provider,
       CASE i % 5 WHEN 0 THEN 'gpt-4o-mini' WHEN 1 THEN 'gpt-3.5-turbo-instruct' WHEN 2 THEN 'claude-3-5-haiku'
                  WHEN 3 THEN 'llama-3.1-8b-instant' ELSE 'mistral-small-latest' END AS model,
       CASE WHEN i % 97 = 0 THEN 500 WHEN i % 41 = 0 THEN 429 WHEN i % 53 = 0 THEN 400 ELSE 200 END AS status
     FROM generate_series($1::bigint, $2::bigint) AS i
   ) AS shaped) AS filled`;

/** Runs the jobs on `clients.length` connections at once, each taking the next job when it is free. */
async function onConnections(clients: pg.Client[], jobs: ((client: pg.Client) => Promise<unknown>)[]): Promise<void> {
  const queue = [...jobs];
  await Promise.all(
    clients.map(async (client) => {
      for (let job = queue.shift(); job; job = queue.shift()) await job(client);
    }),
  );
}

/**
 * Fills `url`'s request_log (migrated, empty) with `rows` rows ids 1..rows, on two connections at once
 * (the halves of the rows, then the indexes and the totals). The log's indexes are dropped for the insert
 * and built again from their own definitions afterwards (as pg_restore does): building an index over a
 * million rows at once takes seconds, growing it row by row minutes.
 */
async function fill(url: string, rows: number): Promise<{ rareTraceId: string; bytesPerRow: number; totalsRows: number; stages: Record<string, number> }> {
  const stages: Record<string, number> = {};
  let stageStarted = performance.now();
  const stage = (name: string) => {
    const now = performance.now();
    stages[name] = (now - stageStarted) / 1000;
    stageStarted = now;
  };
  const clients = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
  const [client] = clients;
  try {
    for (const each of clients) {
      await each.connect();
      await each.query("SET maintenance_work_mem = '256MB'");
    }
    // A year of calls: the Gatehouse that reads them must keep them (retention and row cap raised).
    await client.query(`INSERT INTO settings (key, value) VALUES ('retentionDays', '3650'), ('maxLogRows', $1)`, [String(Math.max(rows * 2, 1_000_000))]);
    const indexes = (
      await client.query<{ name: string; definition: string }>(
        `SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE tablename = 'request_log' AND indexname <> 'request_log_pkey'
         ORDER BY indexdef LIKE '%USING gin%' DESC`,
      )
    ).rows;
    for (const index of indexes) await client.query(`DROP INDEX ${index.name}`);
    const now = Date.now();
    const offsetMinutes = -new Date(now).getTimezoneOffset();
    const half = Math.floor(rows / 2);
    await onConnections(clients, [
      (each) => each.query(INSERT_ROWS, [1, half, rows, now, offsetMinutes]),
      (each) => each.query(INSERT_ROWS, [half + 1, rows, rows, now, offsetMinutes]),
    ]);
    stage('rows');
    // The identity goes on after the bench's ids, as it would after real writes.
    await client.query(`SELECT setval(pg_get_serial_sequence('request_log', 'id'), $1)`, [rows]);
    const [daily, monthly] = usageTotalsFromLog();
    await onConnections(clients, [
      // The search index first: the longest build.
      ...indexes.map((index) => (each: pg.Client) => each.query(index.definition)),
      async (each) => {
        await each.query(daily);
        await each.query(monthly);
      },
    ]);
    stage('indexes and usage totals');
    await onConnections(clients, [(each) => each.query('VACUUM ANALYZE request_log'), (each) => each.query('ANALYZE usage_daily; ANALYZE usage_monthly')]);
    stage('VACUUM ANALYZE');
    const rareTraceId = (await client.query<{ trace_id: string }>('SELECT trace_id FROM request_log WHERE id = 1000')).rows[0].trace_id;
    const size = Number((await client.query<{ bytes: string }>(`SELECT pg_total_relation_size('request_log') AS bytes`)).rows[0].bytes);
    const totalsRows = Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM usage_daily')).rows[0].n);
    return { rareTraceId, bytesPerRow: size / rows, totalsRows, stages };
  } finally {
    for (const each of clients) await each.end().catch(() => undefined);
  }
}

/** The figures the Usage page's totals must equal: over every row of the log. */
async function sumsOfRows(url: string): Promise<{ requests: number; nanos: number; firstDay: string; lastDay: string }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const row = (
      await client.query<{ requests: string; nanos: string; first_day: string; last_day: string }>(
        'SELECT count(*) AS requests, coalesce(sum(round(cost_usd * 1e9)::bigint), 0) AS nanos, min(day) AS first_day, max(day) AS last_day FROM request_log',
      )
    ).rows[0];
    return { requests: Number(row.requests), nanos: Number(row.nanos), firstDay: row.first_day, lastDay: row.last_day };
  } finally {
    await client.end();
  }
}

/** GETs on the admin API, one connection: the first call and the median of `repeats` more, each. */
async function timeAdminGets(baseUrl: string, token: string, requests: { label: string; path: string }[], repeats: number): Promise<AdminTiming[]> {
  // undici's Pool rather than fetch, as for the SQLite rows: fetch's own overhead would swamp the query.
  const pool = new Pool(baseUrl, { connections: 1 });
  const headers = { authorization: `Bearer ${token}` };
  const timeOne = async (path: string) => {
    const started = performance.now();
    const response = await pool.request({ path, method: 'GET', headers });
    const body = (await response.body.json()) as { items?: unknown[] };
    if (response.statusCode !== 200) throw new Error(`${path} answered ${response.statusCode}`);
    return { ms: performance.now() - started, rows: body.items?.length };
  };
  try {
    for (let i = 0; i < 20; i++) await pool.request({ path: '/admin/api/health', method: 'GET', headers }).then((r) => r.body.dump());
    const results: AdminTiming[] = [];
    for (const { label, path } of requests) {
      const cold = await timeOne(path);
      const times: number[] = [];
      for (let i = 0; i < repeats; i++) times.push((await timeOne(path)).ms);
      results.push({ label, coldMs: cold.ms, medianMs: median(times), ...(cold.rows === undefined ? {} : { rows: cold.rows }) });
    }
    return results;
  } finally {
    await pool.close();
  }
}

export interface TeamLogSetup {
  /** A fresh database on the run's PostgreSQL. */
  databaseUrl: string;
  rows: number;
  repeats: number;
  adminToken: string;
  /** Starts a Gatehouse on that database; returns its port and how to stop it. */
  startGatehouse(databaseUrl: string): Promise<{ port: number; stop(): Promise<unknown> }>;
  say(line: string): void;
}

export async function measureTeamLog(setup: TeamLogSetup): Promise<TeamLogCost> {
  const { rows, say } = setup;
  await migrate(setup.databaseUrl);
  const started = performance.now();
  const filled = await fill(setup.databaseUrl, rows);
  const fillSeconds = (performance.now() - started) / 1000;
  const stages = Object.entries(filled.stages).map(([name, seconds]) => `${name} ${seconds.toFixed(1)} s`).join(', ');
  say(`  filled in ${fillSeconds.toFixed(1)} s (${stages}); ${filled.bytesPerRow.toFixed(0)} bytes per row on disk`);
  const sums = await sumsOfRows(setup.databaseUrl);
  const gatehouse = await setup.startGatehouse(setup.databaseUrl);
  try {
    const baseUrl = `http://127.0.0.1:${gatehouse.port}`;
    const admin = await timeAdminGets(
      baseUrl,
      setup.adminToken,
      logQueries(filled.rareTraceId, rows).map(({ label, query }) => ({ label, path: `/admin/api/logs?${toSearchParams(query)}` })),
      setup.repeats,
    );
    for (const call of admin) say(`  ${call.label.padEnd(40)} admin API ${call.medianMs.toFixed(1).padStart(7)} ms (cold ${call.coldMs.toFixed(1)})  ${call.rows} rows`);
    const views: { label: string; path: string }[] = [];
    for (const range of USAGE_RANGES) for (const by of USAGE_DIMENSIONS) views.push({ label: `${range} / by ${by}`, path: `/admin/api/usage?range=${range}&by=${by}` });
    views.push({ label: 'keys: spend today and this month', path: '/admin/api/usage/keys' });
    const usage = await timeAdminGets(baseUrl, setup.adminToken, views, setup.repeats);
    for (const view of usage) say(`  ${view.label.padEnd(40)} admin API ${view.medianMs.toFixed(1).padStart(7)} ms (cold ${view.coldMs.toFixed(1)})`);
    // The Usage page over the whole log against the rows themselves.
    const response = await fetch(`${baseUrl}/admin/api/usage?range=month&by=key&from=${sums.firstDay}&to=${sums.lastDay}`, { headers: { authorization: `Bearer ${setup.adminToken}` } });
    const report = (await response.json()) as { totals: { requests: number; costUsd: number } };
    const totalsEqualRows = report.totals.requests === sums.requests && Math.round(report.totals.costUsd * 1e9) === sums.nanos;
    say(
      `  Usage totals ${totalsEqualRows ? 'equal' : 'DIFFER FROM'} the sums of the rows: ${report.totals.requests} requests, $${report.totals.costUsd.toFixed(6)} ` +
        `(rows: ${sums.requests}, $${(sums.nanos / 1e9).toFixed(6)})`,
    );
    return { rows, fillSeconds, bytesPerRow: filled.bytesPerRow, totalsRows: filled.totalsRows, admin, usage, totalsEqualRows };
  } finally {
    await gatehouse.stop();
  }
}
