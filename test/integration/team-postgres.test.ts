// Team mode on PostgreSQL: several gateways on one database act as one. A key made or revoked on one
// answers (or stops) on the others within a second; "store bodies" changed on one holds for the next call on
// each instance that has heard of it; any instance's admin API shows every instance's calls,
// each saying which instance served it; PostgreSQL away for 10 s costs no call with a known key and no row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, TEST_MASTER_KEY, type TestGateway } from '../helpers/gateway.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

let postgres: TestPostgres;
let fake: OpenAIFake;
let url: string;
const gateways: TestGateway[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
  fake = await startOpenAIFake();
  url = await postgres.newDatabase();
  // Three instances started at once: the migration runs once, under its lock. Redis stands for shared limits.
  gateways.push(...(await Promise.all([0, 1, 2].map(() => startGateway({ databaseUrl: url, redisUrl: 'redis://127.0.0.1:1' })))));
}, 60_000);
afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close().catch(() => undefined)));
  await fake?.close();
  await postgres?.close();
}, 30_000);

function complete(gateway: TestGateway, key: string, prompt = 'Say hi') {
  return fetch(`${gateway.baseUrl}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'gpt-3.5-turbo-instruct', prompt, max_tokens: 5 }),
  });
}

/** Polls until `check` holds, for at most `ms`; returns how long it took. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Date.now() - started;
}

async function createKey(gateway: TestGateway, name: string): Promise<{ id: string; key: string }> {
  const response = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name, provider: 'openai', secret: `sk-${name}`, customHost: fake.baseUrl }) });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; key: string };
}

/** The key's calls as the Usage page counts them today (totals kept with the rows as they are written). */
async function requestsOf(gateway: TestGateway, keyId: string): Promise<number> {
  const response = await gateway.admin('/usage?range=day&by=key');
  if (response.status !== 200) throw new Error(`usage answered ${response.status}`);
  const usage = (await response.json()) as { breakdown: { name: string; requests: number }[] };
  return usage.breakdown.find((group) => group.name === keyId)?.requests ?? 0;
}

describe('team mode: three gateways on one PostgreSQL', () => {
  it('says it runs on PostgreSQL, with an instance id of its own each', () => {
    for (const gateway of gateways) expect(gateway.running.storage).toMatch(/^PostgreSQL \(postgres:\/\/gatehouse:\*\*\*@127\.0\.0\.1:\d+\/gatehouse_\d+\), instance /);
    expect(new Set(gateways.map((gateway) => gateway.running.storage)).size).toBe(3);
  });

  it('a key created on one instance answers on the others within 1 s; revoked on one, it stops on all within 1 s', async () => {
    const [a, b, c] = gateways;
    const created = await createKey(a, 'across');
    expect((await complete(a, created.key)).status).toBe(200);
    for (const other of [b, c]) await within(1_000, async () => (await complete(other, created.key)).status === 200);
    expect((await b.admin(`/virtual-keys/${created.id}`, { method: 'DELETE' })).status).toBe(200);
    for (const other of [a, c]) await within(1_000, async () => (await complete(other, created.key)).status === 401);
  });

  it('routes and settings changed on one instance hold on the others within 1 s', async () => {
    const [a, b] = gateways;
    expect((await a.admin('/settings', { method: 'PATCH', body: JSON.stringify({ retentionDays: 12 }) })).status).toBe(200);
    await within(1_000, async () => b.running.services.settings.get().retentionDays === 12);
    await createKey(a, 'route-target');
    const route = await a.admin('/routes', { method: 'POST', body: JSON.stringify({ name: 'team-route', match: 'team-*', targets: [{ key: 'route-target' }] }) });
    expect(route.status).toBe(201);
    await within(1_000, async () => b.running.services.routes.definitions().some((definition) => definition.name === 'team-route'));
  });

  it('"store bodies" switched on one instance holds for the next call there, and on the others once the change reaches them', async () => {
    const [a, b] = gateways;
    const key = await createKey(a, 'bodies');
    await within(1_000, async () => (await complete(b, key.key)).status === 200);
    let calls = 0;
    /** A call on `gateway` with a prompt of its own, and the request body its log row keeps. */
    const storedBody = async (gateway: TestGateway): Promise<{ prompt: string; body: string | null }> => {
      const trace = `bodies${++calls}x${Date.now()}`;
      const prompt = `prompt of ${trace}`;
      const response = await fetch(`${gateway.baseUrl}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key.key}`, 'x-gateway-trace-id': trace },
        body: JSON.stringify({ model: 'gpt-3.5-turbo-instruct', prompt, max_tokens: 5 }),
      });
      expect(response.status).toBe(200);
      await gateway.flushLog();
      let id: string | undefined;
      await within(5_000, async () => {
        const listed = (await (await gateway.admin(`/logs?q=${trace}`)).json()) as { items: { id: string }[] };
        id = listed.items[0]?.id;
        return id !== undefined;
      });
      const row = (await (await gateway.admin(`/logs/${id}`)).json()) as { requestBody: string | null };
      return { prompt, body: row.requestBody };
    };
    const kept = await storedBody(a);
    expect(kept.body).toContain(kept.prompt);
    try {
      expect((await a.admin('/settings', { method: 'PATCH', body: JSON.stringify({ storeBodies: false }) })).status).toBe(200);
      // The very next call on the instance that changed it.
      expect((await storedBody(a)).body).toBeNull();
      // Another instance, as soon as it has heard of the change.
      await within(1_000, async () => b.running.services.settings.get().storeBodies === false);
      expect((await storedBody(b)).body).toBeNull();
      // And back on, from the other side.
      expect((await b.admin('/settings', { method: 'PATCH', body: JSON.stringify({ storeBodies: true }) })).status).toBe(200);
      const again = await storedBody(b);
      expect(again.body).toContain(again.prompt);
      await within(1_000, async () => a.running.services.settings.get().storeBodies === true);
      const onA = await storedBody(a);
      expect(onA.body).toContain(onA.prompt);
    } finally {
      await a.admin('/settings', { method: 'PATCH', body: JSON.stringify({ storeBodies: true }) });
    }
  });

  it('one log: any instance lists every instance\'s calls, each row naming its instance, and usage equals the rows', async () => {
    const key = await createKey(gateways[0], 'one-log');
    for (const gateway of gateways) await within(1_000, async () => (await complete(gateway, key.key)).status === 200);
    for (const gateway of gateways) expect((await complete(gateway, key.key)).status).toBe(200);
    for (const gateway of gateways) await gateway.flushLog();
    const instances = new Set(gateways.map((gateway) => gateway.running.instanceId));
    expect(instances.size).toBe(3);
    for (const gateway of gateways) {
      const listed = (await (await gateway.admin('/logs?limit=500')).json()) as { items: { instance: string }[] };
      expect(new Set(listed.items.map((item) => item.instance))).toEqual(instances);
    }
    expect(await requestsOf(gateways[2], key.id)).toBe(6);
  });

  it('PostgreSQL stopped for 10 s: calls with known keys are served, rows wait in memory (counted in /metrics) and none is lost', async () => {
    const key = await createKey(gateways[0], 'outage');
    for (const gateway of gateways) await within(1_000, async () => (await complete(gateway, key.key)).status === 200);
    for (const gateway of gateways) await gateway.flushLog();
    const before = await requestsOf(gateways[0], key.id);
    postgres.stopServer();
    let served = 0;
    const started = Date.now();
    try {
      while (Date.now() - started < 10_000) {
        const results = await Promise.all(gateways.map((gateway) => complete(gateway, key.key, `outage call ${served}`)));
        for (const result of results) expect(result.status).toBe(200);
        served += results.length;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const metrics = await (await fetch(`${gateways[0].baseUrl}/metrics`)).text();
      expect(Number(/^gatehouse_log_queue_rows (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
    } finally {
      postgres.startServer();
    }
    // Written once it is back: every call made during the outage is in the one log.
    await within(15_000, async () => (await requestsOf(gateways[1], key.id).catch(() => 0)) === before + served);
    expect(served).toBeGreaterThan(30);
    const rows = (await (await gateways[2].admin('/logs?limit=500')).json()) as { items: { instance: string }[] };
    expect(rows.items.length).toBeGreaterThanOrEqual(before + served);
    const metrics = await (await fetch(`${gateways[0].baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/^gatehouse_log_dropped_rows_total 0$/m);
  }, 60_000);
});

describe('team mode: starting', () => {
  it('refuses without GATEHOUSE_MASTER_KEY, saying so', async () => {
    await expect(startGateway({ databaseUrl: url, env: { GATEHOUSE_MASTER_KEY: '' } })).rejects.toThrow(/Team mode \(--database-url\) needs GATEHOUSE_MASTER_KEY/);
  });

  it('refuses a second instance without Redis while another is live, naming Redis; a lone instance may run on PostgreSQL alone', async () => {
    await expect(startGateway({ databaseUrl: url })).rejects.toThrow(/Limits across instances need Redis/);
    const alone = await startGateway({ databaseUrl: await postgres.newDatabase() });
    try {
      expect(alone.running.storage).toMatch(/^PostgreSQL/);
    } finally {
      await alone.close();
    }
  });

  it('refuses another master key: the sealed secrets would not open', async () => {
    await expect(startGateway({ databaseUrl: url, redisUrl: 'redis://127.0.0.1:1', env: { GATEHOUSE_MASTER_KEY: Buffer.alloc(32, 9).toString('base64') } })).rejects.toThrow(/GATEHOUSE_MASTER_KEY/);
    expect(TEST_MASTER_KEY).not.toBe(Buffer.alloc(32, 9).toString('base64'));
  });
});
