import pg from 'pg';
import { startPostgres } from '../test/helpers/postgres.js';
import { migrate } from '../src-main/store-postgres/schema.js';

const N = 100_000;
const COLS = ['created_at', 'trace_id', 'metadata', 'key_id', 'provider', 'model', 'path', 'status', 'latency_ms', 'prompt_tokens', 'completion_tokens', 'stream', 'attempts', 'dialect', 'cost_usd', 'client', 'day'];
const TYPES: Record<string, string> = { created_at: 'bigint', status: 'int', latency_ms: 'float8', prompt_tokens: 'bigint', completion_tokens: 'bigint', stream: 'int', attempts: 'int', cost_usd: 'float8' };
const now = Date.now();
const row = (i: number) => [now - i, `trace-${i}`, '{}', 'vk_x', 'openai', 'gpt-4o-mini', '/v1/chat/completions', i % 50 ? 200 : 500, 12.5, 10, 5, 0, 1, 'openai-chat', 0.000001, 'curl', '2026-11-26'];

async function copyUnnest(client: pg.Client, batch = 5000) {
  const sql = `INSERT INTO request_log (${COLS.join(', ')}) SELECT * FROM unnest(${COLS.map((c, i) => `$${i + 1}::${TYPES[c] ?? 'text'}[]`).join(', ')})`;
  for (let start = 0; start < N; start += batch) {
    const cols: unknown[][] = COLS.map(() => []);
    for (let i = start; i < Math.min(N, start + batch); i++) row(i).forEach((v, k) => cols[k].push(v));
    await client.query(sql, cols);
  }
}

const pgsql = await startPostgres();
try {
  for (const variant of ['as-is', 'no-indexes', 'no-indexes-no-search']) {
    const url = await pgsql.newDatabase();
    await migrate(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('BEGIN');
    let t = Date.now();
    const idx = (await client.query("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'request_log' AND indexname <> 'request_log_pkey'")).rows;
    if (variant !== 'as-is') for (const i of idx) await client.query(`DROP INDEX ${i.indexname}`);
    if (variant === 'no-indexes-no-search') await client.query('ALTER TABLE request_log DROP COLUMN search');
    await copyUnnest(client);
    const copied = Date.now() - t;
    t = Date.now();
    if (variant === 'no-indexes-no-search') await client.query(`ALTER TABLE request_log ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('simple', lower(regexp_replace(coalesce(model, '') || ' ' || trace_id || ' ' || coalesce(error, '') || ' ' || metadata || ' ' || path, '[^[:alnum:]]+', ' ', 'g')))) STORED`);
    const gen = Date.now() - t;
    t = Date.now();
    if (variant !== 'as-is') for (const i of idx) await client.query(i.indexdef);
    const rebuilt = Date.now() - t;
    t = Date.now();
    await client.query('COMMIT');
    console.log(variant, { copied, gen, rebuilt, commit: Date.now() - t });
    await client.end();
  }
} finally {
  await pgsql.close();
}
