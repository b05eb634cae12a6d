import pg from 'pg';
import { startPostgres } from '../test/helpers/postgres.js';
import { migrate } from '../src-main/store-postgres/schema.js';

const N = 100_000;
const COLS = ['created_at', 'trace_id', 'metadata', 'key_id', 'provider', 'model', 'path', 'status', 'latency_ms', 'prompt_tokens', 'completion_tokens', 'stream', 'attempts', 'dialect', 'cost_usd', 'client', 'day'];
const now = Date.now();
const row = (i: number) => [now - i, `trace-${i}`, '{}', 'vk_x', 'openai', 'gpt-4o-mini', '/v1/chat/completions', i % 50 ? 200 : 500, 12.5, 10, 5, 0, 1, 'openai-chat', 0.000001, 'curl', '2026-11-26'];
const esc = (v: unknown) => v === null || v === undefined ? '\\N' : String(v).replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');

class CopyIn {
  text: string; chunks: Iterable<Buffer>; callback!: (e: Error | null) => void; error: Error | null = null; done: Promise<void>;
  constructor(text: string, chunks: Iterable<Buffer>) { this.text = text; this.chunks = chunks; this.done = new Promise((res, rej) => (this.callback = (e) => (e ? rej(e) : res()))); }
  submit(connection: any) { connection.query(this.text); }
  handleCopyInResponse(connection: any) { for (const c of this.chunks) connection.sendCopyFromChunk(c); connection.endCopyFrom(); }
  handleCommandComplete() {}
  handleReadyForQuery() { this.callback(this.error); }
  handleError(e: Error) { this.error = e; }
  handleRowDescription() {} handleDataRow() {} handleEmptyQuery() {} handlePortalSuspended() {} handleCopyData() {}
}

const pgsql = await startPostgres();
try {
  for (const variant of ['copy', 'copy-no-idx']) {
    const url = await pgsql.newDatabase();
    await migrate(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('BEGIN');
    const idx = (await client.query("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'request_log' AND indexname <> 'request_log_pkey'")).rows;
    if (variant !== 'copy') for (const i of idx) await client.query(`DROP INDEX ${i.indexname}`);
    let t = Date.now();
    function* chunks() { let lines: string[] = []; for (let i = 0; i < N; i++) { lines.push(row(i).map(esc).join('\t')); if (lines.length === 5000) { yield Buffer.from(lines.join('\n') + '\n'); lines = []; } } if (lines.length) yield Buffer.from(lines.join('\n') + '\n'); }
    const q = new CopyIn(`COPY request_log (${COLS.join(', ')}) FROM STDIN`, chunks());
    client.query(q as any);
    await q.done;
    const copied = Date.now() - t; t = Date.now();
    await client.query("SET LOCAL maintenance_work_mem = '256MB'");
    if (variant !== 'copy') for (const i of idx) await client.query(i.indexdef);
    const rebuilt = Date.now() - t;
    await client.query('COMMIT');
    console.log(variant, { copied, rebuilt, n: (await client.query('SELECT count(*) FROM request_log')).rows[0] });
    await client.end();
  }
} finally { await pgsql.close(); }
