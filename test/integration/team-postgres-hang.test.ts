// PostgreSQL that hangs rather than refuses (frozen, or the network to it dropping packets): connections
// stay open and nothing answers. The gateway's thread must not wait on it again and again: calls with
// known keys keep being answered at their pace while the admin API is asked (the log's reads do not wait
// on that thread at all), the admin API answers 503 naming PostgreSQL, and works again as soon as
// PostgreSQL answers.
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

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}

describe('team mode: PostgreSQL hangs', () => {
  it('calls keep being answered at once; admin reads answer 503 without holding them, and work again once PostgreSQL is back', async () => {
    const created = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'hang', provider: 'openai', secret: 'sk-hang', customHost: fake.baseUrl }) });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };
    expect((await complete(key)).status).toBe(200);

    postgres.pauseServer();
    try {
      // The first reads of the log and of the Keys page's limits wait for PostgreSQL (up to its timeout),
      // but off the gateway's thread: calls made meanwhile are answered at their pace. Then each is
      // answered 503, naming PostgreSQL.
      let firstAnswered = false;
      const firstReads = Promise.all(['/logs?limit=5', '/limits'].map((path) => gateway.admin(path))).finally(() => (firstAnswered = true));
      let slowestMeanwhile = 0;
      let callsMeanwhile = 0;
      while (!firstAnswered) {
        const call = await timed(() => complete(key));
        expect(call.result.status).toBe(200);
        slowestMeanwhile = Math.max(slowestMeanwhile, call.ms);
        callsMeanwhile += 1;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      for (const first of await firstReads) {
        expect(first.status).toBe(503);
        expect(((await first.json()) as { error: { message: string } }).error.message).toMatch(/PostgreSQL is unreachable/);
      }
      expect(callsMeanwhile).toBeGreaterThan(10);
      expect(slowestMeanwhile).toBeLessThan(500);
      // From then on the gateway's thread waits for nothing: a call made while the admin API is asked is
      // answered at its usual pace, and each admin read is refused with a 503 (async reads after at most
      // one connection attempt, 3 s, plus a margin for a loaded machine).
      const slowest = { admin: 0, call: 0 };
      const started = Date.now();
      while (Date.now() - started < 4_000) {
        for (const path of ['/logs?limit=5', '/usage?range=day&by=key', '/gateway-keys', '/limits']) {
          const [admin, call] = await Promise.all([timed(() => gateway.admin(path)), timed(() => complete(key))]);
          expect(admin.result.status, path).toBe(503);
          expect(call.result.status).toBe(200);
          slowest.admin = Math.max(slowest.admin, admin.ms);
          slowest.call = Math.max(slowest.call, call.ms);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(slowest.call).toBeLessThan(500);
      expect(slowest.admin).toBeLessThan(4_500);
    } finally {
      postgres.resumeServer();
    }
    // Back: the admin API answers again within moments (the first read after may still be refused).
    const back = Date.now();
    while ((await gateway.admin('/logs?limit=5')).status !== 200) {
      expect(Date.now() - back).toBeLessThan(5_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 60_000);
});
