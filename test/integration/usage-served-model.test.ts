// The Usage page's model breakdown counts calls by the model that served them: a call to the route 'fast'
// served by gpt-4o-mini is gpt-4o-mini there (priced as it), while the log keeps both the name asked for
// and the served model; a deleted row leaves the served model's totals. On each storage backend.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { backends } from '../helpers/backends.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

interface Group {
  name: string;
  requests: number;
  costUsd: number;
  unpricedRequests: number;
}

describe.each(backends())('on $name', (backend) => {
  let gateway: TestGateway;
  let fake: OpenAIFake;
  let botKey: string;

  beforeAll(async () => {
    [gateway, fake] = await Promise.all([backend.gateway(), startOpenAIFake()]);
    const created = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'cloud', provider: 'openai', secret: 'sk-cloud-0123456789', customHost: fake.baseUrl }) });
    expect(created.status).toBe(201);
    const route = await gateway.admin('/routes', { method: 'POST', body: JSON.stringify({ name: 'fast', match: 'fast', strategy: 'fallback', targets: [{ key: 'cloud', model: 'gpt-4o-mini' }] }) });
    expect(route.status).toBe(201);
    botKey = ((await (await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'bot' }) })).json()) as { key: string }).key;
  }, 60_000);
  afterAll(async () => {
    await Promise.all([gateway?.close(), fake?.close()]);
    await backend.close();
  }, 30_000);

  const chat = (model: string) =>
    fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': botKey },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });

  const breakdownBy = async (by: 'model' | 'route') => {
    const response = await gateway.admin(`/usage?range=day&by=${by}`);
    expect(response.status).toBe(200);
    return ((await response.json()) as { breakdown: (Group & { label: string })[] }).breakdown;
  };
  const byModel = () => breakdownBy('model');

  it('lists a routed call under the model that served it, priced as that model, and under its route in the route breakdown and the log', async () => {
    for (let index = 0; index < 2; index++) {
      const response = await chat('fast');
      expect(response.status).toBe(200);
      await response.text();
    }
    await gateway.flushLog();
    // The double was sent the route target's model, not the route's name.
    expect(fake.requests.at(-1)?.json).toMatchObject({ model: 'gpt-4o-mini' });

    const breakdown = await byModel();
    expect(breakdown.map((group) => group.name)).toEqual(['gpt-4o-mini']);
    // 5 prompt and 3 completion tokens a call at gpt-4o-mini's $0.15 / $0.60 per million: priced, not unknown.
    expect(breakdown[0]).toMatchObject({ requests: 2, unpricedRequests: 0 });
    expect(breakdown[0].costUsd).toBeCloseTo(2 * (5 * 0.15 + 3 * 0.6) / 1e6, 12);

    // The route's name is where a route is asked about: its own breakdown.
    const byRoute = await breakdownBy('route');
    expect(byRoute.map(({ name, label, requests }) => ({ name, label, requests }))).toEqual([{ name: 'fast', label: 'fast', requests: 2 }]);

    const logs = (await (await gateway.admin('/logs?limit=1')).json()) as { items: { model: string; servedModel: string; route: string }[] };
    expect(logs.items[0]).toMatchObject({ model: 'fast', servedModel: 'gpt-4o-mini', route: 'fast' });
    const exported = await fetch(`${gateway.baseUrl}/admin/api/logs/export?format=jsonl`, { headers: { authorization: `Bearer ${gateway.adminToken}` } });
    const lines = (await exported.text()).trim().split('\n').map((line) => JSON.parse(line) as { model: string; servedModel: string });
    expect(lines.map(({ model, servedModel }) => ({ model, servedModel }))).toEqual([{ model: 'fast', servedModel: 'gpt-4o-mini' }, { model: 'fast', servedModel: 'gpt-4o-mini' }]);
  });

  it('takes a deleted call back out of the served model, not of the name asked for', async () => {
    await backend.sql(gateway, 'DELETE FROM request_log WHERE id = (SELECT max(id) FROM request_log)');
    expect((await byModel()).find((group) => group.name === 'gpt-4o-mini')?.requests).toBe(1);
    expect((await breakdownBy('route')).find((group) => group.name === 'fast')?.requests).toBe(1);
  });
});
