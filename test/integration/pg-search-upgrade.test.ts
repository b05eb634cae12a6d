// A team database written by an older Gatehouse (schema version 7, whose search words PostgreSQL computed
// in a generated column) moves to the words the gateway writes: the rows already there are still found,
// the new ones too, and a row can be written with words of its own again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { masterKeyProtector } from '../../src-main/store/key-protection.js';
import { openPostgresStore } from '../../src-main/store-postgres/open.js';
import { TEST_MASTER_KEY } from '../helpers/gateway.js';
import { migrateUpTo, startPostgres, withClient, type TestPostgres } from '../helpers/postgres.js';

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);
afterAll(async () => {
  await postgres?.close();
}, 30_000);

describe('the search words of a team log upgraded from schema version 7', () => {
  it('finds the rows written before and after the upgrade by the same searches', async () => {
    const url = await postgres.newDatabase();
    await withClient(url, async (client) => {
      await migrateUpTo(client, 7);
      await client.query(
        `INSERT INTO request_log (created_at, trace_id, metadata, provider, model, path, status, latency_ms, stream, attempts, day)
         VALUES ($1, 'before-upgrade-7f3a', '{"team":"payments"}', 'openai', 'gpt-4o-mini', '/v1/completions', 200, 1, 0, 1, '2026-11-26')`,
        [Date.now() - 1_000],
      );
    });
    const store = await openPostgresStore({ url, protector: masterKeyProtector(TEST_MASTER_KEY), sharedLimits: true });
    try {
      store.requestLog.append({
        createdAt: Date.now(), traceId: 'after-upgrade-91bc', metadata: { team: 'payments' }, keyId: null, provider: 'openai', model: 'gpt-4o-mini',
        path: '/v1/completions', status: 200, latencyMs: 1, ttfbMs: 1, stream: false, error: null, attempts: 1, requestHeaders: {}, requestBody: null, responseBody: null,
      });
      await store.requestLog.flush();
      const traces = async (q: string) => (await store.requestLog.list({ q })).items.map((item) => item.traceId);
      expect(await traces('payments')).toEqual(['after-upgrade-91bc', 'before-upgrade-7f3a']);
      expect(await traces('gpt-4o-m')).toEqual(['after-upgrade-91bc', 'before-upgrade-7f3a']);
      expect(await traces('7f3a')).toEqual(['before-upgrade-7f3a']);
      expect(await traces('upgrade 91')).toEqual(['after-upgrade-91bc']);
      const column = await withClient(url, (client) => client.query("SELECT is_generated FROM information_schema.columns WHERE table_name = 'request_log' AND column_name = 'search'"));
      expect(column.rows[0].is_generated).toBe('NEVER');
    } finally {
      await store.close();
    }
  }, 60_000);
});
