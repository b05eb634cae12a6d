// Redis gone without closing its connection: a server vanished behind its address (a failover to a new
// one), so the connection open to it carries nothing more and nothing says it is dead, while a new
// connection reaches the new server. Keys with limits must be refused for the outage only, not until TCP
// gives up on the old connection (about 15 minutes): a command left unanswered drops the connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

let redis: TestRedis;
let proxy: TcpProxy;
let fake: OpenAIFake;
let gateway: TestGateway;

beforeAll(async () => {
  redis = await startRedis();
  proxy = await startTcpProxy(redis.port);
  fake = await startOpenAIFake();
  gateway = await startGateway({ redisUrl: `redis://127.0.0.1:${proxy.port}` });
}, 60_000);
afterAll(async () => {
  await gateway?.close().catch(() => undefined);
  await proxy?.close();
  await fake?.close();
  await redis?.close();
}, 30_000);

function chat(key: string) {
  return fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.baseUrl, authorization: 'Bearer sk-test' },
    body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 3, messages: [{ role: 'user', content: 'hi' }] }),
  }).then(async (response) => ({ status: response.status, body: (await response.json()) as { error?: { code: string | null } } }));
}

describe('team mode: Redis vanished without closing its connection', () => {
  it('a key with limits is refused with a 503 once, then served again on a new connection within seconds', async () => {
    const created = await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'limited' }) });
    expect(created.status).toBe(201);
    const { id, key } = (await created.json()) as { id: string; key: string };
    expect((await gateway.admin(`/keys/${id}/limits`, { method: 'PUT', body: JSON.stringify({ rpm: 1000, dailyUsd: 10 }) })).status).toBe(200);
    expect((await chat(key)).status).toBe(200);

    await proxy.silenceOpenConnections();
    // Its decision goes unanswered: refused within the promised 3 s, naming Redis as the cause.
    const started = Date.now();
    const refused = await chat(key);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(refused.status).toBe(503);
    expect(refused.body.error?.code).toBe('limits_unavailable');

    // The connection that did not answer was dropped; the new one reaches Redis: served again within 5 s.
    const back = Date.now();
    for (;;) {
      const answer = await chat(key);
      if (answer.status === 200) break;
      expect(answer.status).toBe(503);
      expect(Date.now() - back).toBeLessThan(5_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 60_000);
});
