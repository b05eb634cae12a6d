import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startPostgres } from '../test/helpers/postgres.js';
import { startGateway, TEST_MASTER_KEY } from '../test/helpers/gateway.js';
import { openDatabase } from '../src-main/store/database.js';
import { USAGE_FOR_BATCH } from '../src-main/store/log-usage-rollup.js';
import { migrateSqliteToPostgres } from '../src-main/store-postgres/migrate-from-sqlite.js';
import { masterKeyProtector } from '../src-main/store/key-protection.js';
import { headlessProtectionUpgrade } from '../src-main/store/keys/data-key.js';

const dataDir = mkdtempSync(join(tmpdir(), 'gh-prof-'));
const gw = await startGateway({ dataDir });
await gw.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'desk', provider: 'openai', secret: 'sk-desk-secret' }) });
await gw.close();
const db0 = openDatabase(dataDir);
const first = (db0.prepare('SELECT coalesce(max(id), 0) + 1 AS id FROM request_log').get() as { id: number }).id;
const now = Date.now();
db0.transaction(() => {
  db0.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO request_log (created_at, trace_id, metadata, key_id, provider, model, path, status, latency_ms, prompt_tokens, completion_tokens, stream, attempts, dialect_given, cost_usd, client, day)
     SELECT ? - i, 'trace-' || i, '{}', 'vk', 'openai', 'gpt-4o-mini', '/v1/chat/completions', CASE WHEN i % 50 = 0 THEN 500 ELSE 200 END, 12.5, 10, 5, 0, 1, 'openai-chat', 0.000001, 'curl', date((? - i) / 1000, 'unixepoch', 'localtime') FROM n`).run(100000, now, now);
  for (const sql of USAGE_FOR_BATCH) db0.prepare(sql).run(first);
})();
db0.close();
const spent = new Map<string, number>();
const original = pg.Client.prototype.query as any;
(pg.Client.prototype as any).query = function (this: any, ...args: any[]) {
  const key = typeof args[0] === 'string' ? args[0].slice(0, 40) : 'submittable';
  const t = Date.now();
  const result = original.apply(this, args);
  if (result && typeof result.then === 'function') result.then(() => spent.set(key, (spent.get(key) ?? 0) + Date.now() - t), () => undefined);
  return result;
};
const pgsql = await startPostgres();
try {
  const url = await pgsql.newDatabase();
  const db = openDatabase(dataDir);
  const t = Date.now();
  const counts = await migrateSqliteToPostgres(db, url, masterKeyProtector(TEST_MASTER_KEY), headlessProtectionUpgrade(dataDir, {}));
  console.log('total', Date.now() - t, counts);
  console.log([...spent].sort((a, b) => b[1] - a[1]).slice(0, 8));
  db.close();
} finally { await pgsql.close(); }
