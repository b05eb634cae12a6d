// The served model for calls logged before it was kept (SQLite migration 18, PostgreSQL version 6): a routed
// row's is its route target's model, any other row's the model asked for (read so, the rows left as they are); the Usage model breakdown is summed
// again by it, so old calls to the route 'fast' stop showing as a model named 'fast'; they show under the
// route breakdown instead, summed from the log for the first time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src-main/store/database.js';
import { migrations } from '../../../src-main/store/migrations.js';
import { UsageStore } from '../../../src-main/store/usage.js';
import { toEntry, type Row } from '../../../src-main/store/log-row.js';
import { MIGRATIONS, migrate } from '../../../src-main/store-postgres/schema.js';
import { PgBridge } from '../../../src-main/store-postgres/pg-bridge.js';
import { PgUsageStore } from '../../../src-main/store-postgres/usage.js';
import { startPostgres, type TestPostgres } from '../../helpers/postgres.js';

const NOW = new Date(2026, 2, 20, 15, 0, 0);
const DAY = '2026-03-20';
// [model asked for, route, route target label, cost]: two calls to the route 'fast', one unrouted, one routed
// target without a model of its own (the label then names the model asked for).
const OLD_ROWS: [string, string | null, string | null, number][] = [
  ['fast', 'fast', 'cloud → gpt-4o-mini', 0.001],
  ['fast', 'fast', 'cloud → gpt-4o-mini', 0.002],
  ['gpt-4o', null, null, 0.004],
  ['claude-*', 'claudes', 'anthropic → claude-sonnet-4', 0.008],
];
const EXPECTED_MODELS = [
  { name: 'claude-sonnet-4', requests: 1, costUsd: 0.008 },
  { name: 'gpt-4o', requests: 1, costUsd: 0.004 },
  { name: 'gpt-4o-mini', requests: 2, costUsd: 0.003 },
];
const SERVED = [
  ['fast', 'gpt-4o-mini'],
  ['fast', 'gpt-4o-mini'],
  ['gpt-4o', 'gpt-4o'],
  ['claude-*', 'claude-sonnet-4'],
];
const EXPECTED_ROUTES = [
  { name: '', requests: 1, costUsd: 0.004 },
  { name: 'claudes', requests: 1, costUsd: 0.008 },
  { name: 'fast', requests: 2, costUsd: 0.003 },
];
const breakdownOf = (report: { breakdown: { name: string; requests: number; costUsd: number }[] }) =>
  report.breakdown.map(({ name, requests, costUsd }) => ({ name, requests, costUsd: Math.round(costUsd * 1e6) / 1e6 })).sort((a, b) => (a.name < b.name ? -1 : 1));

describe('SQLite migration 18', () => {
  it('fills in the served model of older rows and sums the model breakdown again by it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-served-'));
    try {
      const before = openDatabase(dir, { migrations: migrations.filter((migration) => migration.version < 18) });
      const insert = before.prepare(
        `INSERT INTO request_log (created_at, trace_id, model, path, status, latency_ms, stream, attempts, cost_usd, prompt_tokens, day, route, route_target)
         VALUES (?, 't', ?, '/v1/chat/completions', 200, 1, 0, 1, ?, 10, ?, ?, ?)`,
      );
      for (const [model, route, target, cost] of OLD_ROWS) insert.run(NOW.getTime(), model, cost, DAY, route, target);
      // The totals as the log writer kept them before: by the name asked for.
      before.exec(`INSERT INTO usage_daily VALUES ('${DAY}', 'model', 'fast', 2, 0, 20, 0, 0, 0, 0, 3000000, 0, 0)`);
      before.close();

      const db = openDatabase(dir);
      // Left NULL in the table (filling it in would rewrite the whole log), read back as the model served.
      const served = (db.prepare('SELECT * FROM request_log ORDER BY id').all() as Row[]).map((row) => [row.model, toEntry(row).servedModel]);
      expect(served).toEqual(SERVED);
      const usage = new UsageStore(db, () => NOW);
      expect(breakdownOf(await usage.report({ range: 'day', by: 'model' }))).toEqual(EXPECTED_MODELS);
      expect(breakdownOf(await usage.report({ range: 'month', by: 'route' }))).toEqual(EXPECTED_ROUTES);
      // The delete trigger now takes a row back out by its served model.
      db.prepare("DELETE FROM request_log WHERE id = (SELECT min(id) FROM request_log WHERE route = 'fast')").run();
      expect((await usage.report({ range: 'day', by: 'model' })).breakdown.find((group) => group.name === 'gpt-4o-mini')?.requests).toBe(1);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const wantPostgres = (process.env.GATEHOUSE_TEST_BACKENDS ?? 'sqlite,postgres').toLowerCase().includes('postgres');

describe.runIf(wantPostgres)('PostgreSQL version 6', () => {
  let cluster: TestPostgres | undefined;
  afterAll(async () => {
    await cluster?.close();
  }, 30_000);

  it('fills in the served model of older rows and sums the model breakdown again by it', async () => {
    cluster = await startPostgres();
    const url = await cluster.newDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // The schema as it stood before version 6, with rows logged then.
      await client.query('CREATE TABLE gatehouse_schema (version int PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
      for (const migration of MIGRATIONS.filter((migration) => migration.version < 6)) {
        await client.query(migration.sql);
        await client.query('INSERT INTO gatehouse_schema (version, description) VALUES ($1, $2)', [migration.version, migration.description]);
      }
      for (const [model, route, target, cost] of OLD_ROWS) {
        await client.query(
          `INSERT INTO request_log (created_at, trace_id, metadata, model, path, status, latency_ms, stream, attempts, cost_usd, prompt_tokens, day, route, route_target)
           VALUES ($1, 't', '{}', $2, '/v1/chat/completions', 200, 1, 0, 1, $3, 10, $4, $5, $6)`,
          [NOW.getTime(), model, cost, DAY, route, target],
        );
      }
      await client.query(`INSERT INTO usage_daily VALUES ('${DAY}', 'model', 'fast', 2, 0, 20, 0, 0, 0, 0, 3000000, 0, 0)`);

      expect((await migrate(url)).applied).toContain(6);
      const served = await client.query<Row>('SELECT *, created_at::float8 AS created_at FROM request_log ORDER BY id');
      expect(served.rows.map((row) => [row.model, toEntry(row).servedModel])).toEqual(SERVED);
      const bridge = new PgBridge({ url });
      try {
        const usage = new PgUsageStore(bridge, () => NOW);
        expect(breakdownOf(await usage.report({ range: 'day', by: 'model' }))).toEqual(EXPECTED_MODELS);
        expect(breakdownOf(await usage.report({ range: 'month', by: 'route' }))).toEqual(EXPECTED_ROUTES);
        await client.query("DELETE FROM request_log WHERE id = (SELECT min(id) FROM request_log WHERE route = 'fast')");
        expect((await usage.report({ range: 'day', by: 'model' })).breakdown.find((group) => group.name === 'gpt-4o-mini')?.requests).toBe(1);
      } finally {
        await bridge.close();
      }
    } finally {
      await client.end();
    }
  }, 60_000);
});
