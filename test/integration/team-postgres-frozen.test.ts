// PostgreSQL frozen (SIGSTOP): the admin API's reads and writes of keys, routes, settings, saved prompts,
// MCP servers, key limits and model allow-lists wait for it off the serving thread, so `/v1` calls with a known (and limited)
// key keep their pace the whole time and are decided by their limits as usual (what they read is in
// memory); each admin request is then answered 503 naming PostgreSQL, and once PostgreSQL goes on
// (SIGCONT) every one of them works again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

let postgres: TestPostgres;
let fake: OpenAIFake;
let gateway: TestGateway;

beforeAll(async () => {
  postgres = await startPostgres();
  fake = await startOpenAIFake();
  gateway = await startGateway({ databaseUrl: await postgres.newDatabase() });
}, 60_000);
afterAll(async () => {
  await gateway?.close().catch(() => undefined);
  await fake?.close();
  await postgres?.close();
}, 30_000);

function complete(key: string) {
  return fetch(`${gateway.baseUrl}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say hi', max_tokens: 5 }),
  });
}

/** The admin requests that go to PostgreSQL, each a fresh one per call (names differ, so writes never clash). */
function adminWork(keyId: string, round: number): [string, () => Promise<Response>][] {
  const post = (path: string, body: unknown) => () => gateway.admin(path, { method: 'POST', body: JSON.stringify(body) });
  return [
    ['routes list', () => gateway.admin('/routes')],
    ['route write', post('/routes', { name: `frozen-${round}`, match: `frozen-${round}-*`, targets: [{ key: 'frozen' }] })],
    ['saved prompts', () => gateway.admin('/saved-prompts')],
    ['saved prompt write', post('/saved-prompts', { name: `frozen-${round}`, endpoint: '/v1/completions', body: { model: 'm', prompt: 'hi' } })],
    ['MCP servers', () => gateway.admin('/mcp-servers')],
    ['MCP server write', post('/mcp-servers', { name: `frozen-${round}`, transport: 'http', url: 'http://127.0.0.1:9/mcp' })],
    ['key read', () => gateway.admin(`/virtual-keys/${keyId}`)],
    ['key write', post('/gateway-keys', { name: `frozen-${round}` })],
    ['settings write', () => gateway.admin('/settings', { method: 'PATCH', body: JSON.stringify({ retentionDays: 30 + round }) })],
    ['limits list', () => gateway.admin('/limits')],
    ['key limits read', () => gateway.admin(`/keys/${keyId}/limits`)],
    ['key limits write', () => gateway.admin(`/keys/${keyId}/limits`, { method: 'PUT', body: JSON.stringify({ rpm: 100_000 + round, dailyUsd: 1000 }) })],
    ['allowed models read', () => gateway.admin(`/keys/${keyId}/allowed-models`)],
    ['allowed models write', () => gateway.admin(`/keys/${keyId}/allowed-models`, { method: 'PUT', body: JSON.stringify({ allowedModels: ['gpt-3.5-turbo-instruct', `frozen-${round}`] }) })],
  ];
}

describe('team mode: PostgreSQL frozen', () => {
  it('calls with a known key keep their pace while admin reads and writes wait and fail with a 503 naming PostgreSQL; all work again after SIGCONT', async () => {
    const created = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'frozen', provider: 'openai', secret: 'sk-frozen', customHost: fake.baseUrl }) });
    expect(created.status).toBe(201);
    const { id, key } = (await created.json()) as { id: string; key: string };
    // A second key allowed one call a minute: while PostgreSQL is frozen its limit is still decided, at once.
    const tight = (await (await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'tight', provider: 'openai', secret: 'sk-tight', customHost: fake.baseUrl }) })).json()) as { id: string; key: string };
    expect((await gateway.admin(`/keys/${tight.id}/limits`, { method: 'PUT', body: JSON.stringify({ rpm: 1 }) })).status).toBe(200);
    for (const [, work] of adminWork(id, 0)) expect((await work()).status).toBeLessThan(300);
    expect((await complete(key)).status).toBe(200);

    postgres.pauseServer();
    try {
      // Every admin request at once, each waiting for PostgreSQL; calls made meanwhile are timed.
      let answered = false;
      const waiting = Promise.all(adminWork(id, 1).map(async ([what, work]) => ({ what, response: await work() }))).finally(() => (answered = true));
      // A round is a call and a short pause, timed whole: the gateway runs in this process, so a wait on
      // its thread at any moment (not only during a call) makes some round slow.
      let slowest = 0;
      let calls = 0;
      for (const expected of [200, 429]) {
        const started = performance.now();
        expect((await complete(tight.key)).status).toBe(expected);
        slowest = Math.max(slowest, performance.now() - started);
      }
      while (!answered) {
        const started = performance.now();
        expect((await complete(key)).status).toBe(200);
        calls += 1;
        await new Promise((resolve) => setTimeout(resolve, 50));
        slowest = Math.max(slowest, performance.now() - started);
      }
      for (const { what, response } of await waiting) {
        expect(response.status, what).toBe(503);
        expect(((await response.json()) as { error: { message: string } }).error.message, what).toMatch(/PostgreSQL/);
      }
      // The admin requests waited (up to the bound of a wait, 5 s), and calls went on at their pace meanwhile.
      expect(calls).toBeGreaterThan(10);
      expect(slowest).toBeLessThan(550);
    } finally {
      postgres.resumeServer();
    }

    // Back: every admin request works again within moments.
    const back = Date.now();
    for (const [what, work] of adminWork(id, 2)) {
      for (;;) {
        const response = await work();
        if (response.status < 300) break;
        expect(Date.now() - back, what).toBeLessThan(10_000);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    expect((await complete(key)).status).toBe(200);
  }, 90_000);
});
