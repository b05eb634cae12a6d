// Team mode's limits: three gateways on one Redis act as one, on each store an instance can share — one
// SQLite data dir, or one PostgreSQL (the team deployment: three gateways, one PostgreSQL, one Redis). 60
// calls at once spread over the three against rpm 20 let exactly 20 through; 200 at once against a $0.05
// daily budget are not served past it; a key revoked on one is refused on the others within 1 s; with Redis
// stopped a key with limits gets a 503 naming Redis within 3 s while a key without limits is served, and
// once Redis is back (empty) the key is served again within 5 s, with its spend restored from the store; a
// FLUSHALL loses no spend either.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { backends, type SharedGateways } from '../helpers/backends.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { startOpenAIFake, type OpenAIFake, type RecordedRequest } from '../fakes/openai.js';
import { sendJson } from '../fakes/recording-server.js';
import { priceCall } from '../../src-main/catalog/pricing.js';

async function json<T>(response: Response): Promise<T> {
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as T;
}

interface LimitsView {
  limits: { rpm: number | null; dailyUsd: number | null };
  spentTodayUsd: number;
  reservedUsd: number;
  callsInFlight: number;
}

const PROMPT_TOKENS = 30;
/** A provider that bills every call the most it may: the reservation's worst case, less the prompt's lean-high estimate. */
function answerAtMaxTokens(request: RecordedRequest, res: ServerResponse): Promise<void> {
  const output = Number(request.json.max_tokens);
  return new Promise((resolve) =>
    setTimeout(() => {
      sendJson(res, 200, {
        id: 'chatcmpl-team',
        object: 'chat.completion',
        created: 1700000000,
        model: request.json.model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, logprobs: null, finish_reason: 'length' }],
        usage: { prompt_tokens: PROMPT_TOKENS, completion_tokens: output, total_tokens: PROMPT_TOKENS + output },
      });
      resolve();
    }, 30),
  );
}

describe.each(backends())('limits across three gateways on one Redis and one $name store', (backend) => {
  let redis: TestRedis;
  let openai: OpenAIFake;
  let shared: SharedGateways;
  let gateways: TestGateway[];

  beforeAll(async () => {
    redis = await startRedis();
    openai = await startOpenAIFake();
    shared = await backend.sharedGateways(3, { redisUrl: redis.url });
    gateways = shared.gateways;
  }, 60_000);
  afterAll(async () => {
    await shared?.close();
    await openai?.close();
    await redis?.close();
    await backend.close();
  }, 30_000);

  const admin = (i: number, path: string, init?: RequestInit) => gateways[i].admin(path, init);
  const gatewayKey = (name: string) => admin(0, '/gateway-keys', { method: 'POST', body: JSON.stringify({ name }) }).then((r) => json<{ id: string; key: string }>(r));
  const setLimits = (id: string, limits: Record<string, number | null>) => admin(0, `/keys/${id}/limits`, { method: 'PUT', body: JSON.stringify(limits) });

  /** Until every gateway has the key's limits (the others read the change from the shared store within a second). */
  async function everywhere(id: string, check: (view: LimitsView) => boolean): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (let i = 0; i < gateways.length; i++) {
      for (;;) {
        const response = await admin(i, `/keys/${id}/limits`);
        if (response.status === 200 && check((await response.json()) as LimitsView)) break;
        if (Date.now() > deadline) throw new Error(`gateway ${i} did not see the limits of ${id}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  function chat(i: number, key: string, maxTokens = 3): Promise<{ status: number; body: { error?: { code: string | null; message: string; type: string } } }> {
    return fetch(`${gateways[i].baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': openai.baseUrl, authorization: 'Bearer sk-test' },
      body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: maxTokens, messages: [{ role: 'user', content: 'hi' }] }),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as { error?: { code: string | null; message: string; type: string } } }));
  }

  /** Until every gateway's hot path knows the key (a gateway key's model list asks no provider): a refusal
   *  after this is the limit's, never an unknown key's. */
  async function knownEverywhere(key: string): Promise<void> {
    for (let i = 0; i < gateways.length; i++) {
      await vi.waitFor(async () => expect((await fetch(`${gateways[i].baseUrl}/v1/models`, { headers: { 'x-gateway-api-key': key } })).status).toBe(200), { timeout: 5_000, interval: 50 });
    }
  }

  /** Writes every gateway's recorded spend to the shared store now (they do so twice a second anyway). */
  const flushSpend = () => gateways.forEach((gateway) => gateway.running.services.limits.flush());

  it('60 calls at once spread over three gateways against rpm 20: exactly 20 are served', async () => {
    const created = await gatewayKey('team-rpm');
    // Known everywhere before the limit: the model lists asked to find out would count against it.
    await knownEverywhere(created.key);
    await json(await setLimits(created.id, { rpm: 20 }));
    await everywhere(created.id, (view) => view.limits.rpm === 20);
    const before = openai.requests.length;
    const answers = await Promise.all(Array.from({ length: 60 }, (_, n) => chat(n % 3, created.key)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(20);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(40);
    expect(openai.requests.length - before).toBe(20);
    for (const refused of answers.filter((a) => a.status === 429)) expect(refused.body.error?.code).toBe('rate_limit_exceeded');
    // Each gateway refused some: none of them counted on its own.
    for (let i = 0; i < 3; i++) expect(answers.filter((a, n) => n % 3 === i && a.status === 200).length).toBeLessThan(20);
  });

  it('a call with limits waits on Redis once before its provider is called (admission and reservation decided together); model lists are counted too', async () => {
    const created = await gatewayKey('team-one-trip');
    await knownEverywhere(created.key);
    await json(await setLimits(created.id, { rpm: 8, dailyUsd: 10 }));
    await everywhere(created.id, (view) => view.limits.rpm === 8);
    const inside = redis.client();
    const scripts = async () => {
      const stats = await inside.info('commandstats');
      return [...stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
    };
    // One call at a time: one decision before the provider call, one settlement after it (which rides
    // with the next decision, or goes alone 10 ms later). Admitting and reserving apart took three.
    const before = await scripts();
    for (let n = 0; n < 4; n++) expect((await chat(0, created.key)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await scripts()) - before).toBeLessThanOrEqual(4 * 2);
    inside.disconnect();
    // Four calls and four model lists fill the minute's 8; the ninth request of either kind is refused.
    for (let n = 0; n < 4; n++) expect((await fetch(`${gateways[1].baseUrl}/v1/models`, { headers: { 'x-gateway-api-key': created.key } })).status).toBe(200);
    const models = await fetch(`${gateways[2].baseUrl}/v1/models`, { headers: { 'x-gateway-api-key': created.key } });
    expect(models.status).toBe(429);
    expect((await chat(0, created.key)).body.error?.code).toBe('rate_limit_exceeded');
  });

  it('200 calls at once over three gateways against a $0.05 daily budget: not served past it by more than one call', async () => {
    const created = await gatewayKey('team-budget');
    const budget = 0.05;
    await json(await setLimits(created.id, { dailyUsd: budget }));
    await everywhere(created.id, (view) => view.limits.dailyUsd === budget);
    await knownEverywhere(created.key);
    const perCall = priceCall('openai', 'gpt-4o-mini', { inputTokens: PROMPT_TOKENS, outputTokens: 1000 })!;
    expect(perCall * 200).toBeGreaterThan(budget * 2);
    openai.enqueue(...Array.from({ length: 200 }, () => answerAtMaxTokens));
    const before = openai.requests.length;
    const answers = await Promise.all(Array.from({ length: 200 }, (_, n) => chat(n % 3, created.key, 1000)));
    const served = openai.requests.length - before;
    expect(answers.filter((a) => a.status === 200)).toHaveLength(served);
    expect(served * perCall).toBeLessThanOrEqual(budget + perCall);
    // The budget is used, not refused wholesale.
    expect(served * perCall).toBeGreaterThan(budget - 2 * perCall);
    for (const refused of answers.filter((a) => a.status !== 200)) expect(refused.body.error?.code, JSON.stringify(refused)).toBe('budget_exceeded');
    // Every gateway reads the same spend, all reservations settled (a call settles just after its answer
    // is sent, so the last few may land a moment after the client has it).
    for (let i = 0; i < 3; i++) {
      await vi.waitFor(async () => {
        const view = await json<LimitsView>(await admin(i, `/keys/${created.id}/limits`));
        expect(view.spentTodayUsd).toBeCloseTo(served * perCall, 9);
        expect(view).toMatchObject({ reservedUsd: 0, callsInFlight: 0 });
      }, { timeout: 5_000, interval: 100 });
    }
  });

  it('a key with limits revoked on one gateway is refused on the other two within 1 s', async () => {
    const created = await gatewayKey('team-revoked');
    await json(await setLimits(created.id, { rpm: 1000 }));
    await everywhere(created.id, (view) => view.limits.rpm === 1000);
    await knownEverywhere(created.key);
    for (let i = 0; i < 3; i++) expect((await chat(i, created.key)).status).toBe(200);
    await json(await admin(1, `/gateway-keys/${created.id}`, { method: 'DELETE' }));
    const revoked = Date.now();
    await Promise.all(
      [0, 2].map(async (i) => {
        for (;;) {
          const answer = await chat(i, created.key);
          if (answer.status === 401) return;
          expect(answer.status).toBe(200);
          expect(Date.now() - revoked).toBeLessThan(1_000);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      }),
    );
  });

  it('a key without limits costs Redis no round trip per call: its spend goes in one batch for many calls, and still adds up', async () => {
    const created = await gatewayKey('team-unlimited');
    await knownEverywhere(created.key);
    const inside = redis.client();
    const scripts = async () => {
      const stats = await inside.info('commandstats');
      return [...stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
    };
    const before = await scripts();
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 90 }, (_, n) => chat(n % 3, created.key)));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const elapsed = Date.now() - started;
    // At most one batch per gateway for each quarter second the calls took (and the one after); one per call would be 90.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const sent = (await scripts()) - before;
    expect(sent).toBeLessThanOrEqual(3 * (Math.ceil(elapsed / 250) + 2));
    expect(sent).toBeLessThan(90);
    inside.disconnect();
    // Counted all the same: every gateway reads the 90 calls' spend from Redis (and the three free model
    // lists that found the key known).
    const spent: number[] = [];
    for (let i = 0; i < 3; i++) {
      await vi.waitFor(async () => {
        const view = await json<LimitsView & { requestsToday: number }>(await admin(i, `/keys/${created.id}/limits`));
        expect(view.requestsToday).toBe(90 + 3);
        expect(view.spentTodayUsd).toBeGreaterThan(0);
        spent.push(view.spentTodayUsd);
      }, { timeout: 5_000, interval: 100 });
    }
    expect(new Set(spent).size).toBe(1);
    // A budget set afterwards counts that spend: below it, the key is refused on every gateway.
    await json(await setLimits(created.id, { dailyUsd: spent[0] / 2 }));
    await everywhere(created.id, (view) => view.limits.dailyUsd === spent[0] / 2);
    for (let i = 0; i < 3; i++) expect((await chat(i, created.key)).body.error?.code).toBe('budget_exceeded');
  });

  it('Redis stopped: a key with limits gets a 503 naming Redis within 3 s, a key without is served; back within 5 s of Redis returning, its spend restored', async () => {
    const limited = await gatewayKey('team-limited');
    const free = await gatewayKey('team-free');
    await json(await setLimits(limited.id, { rpm: 1000, dailyUsd: 10 }));
    await everywhere(limited.id, (view) => view.limits.dailyUsd === 10);
    await knownEverywhere(limited.key);
    await knownEverywhere(free.key);
    for (let i = 0; i < 3; i++) expect((await chat(i, limited.key)).status).toBe(200);
    flushSpend();
    const spentBefore = (await json<LimitsView>(await admin(0, `/keys/${limited.id}/limits`))).spentTodayUsd;
    expect(spentBefore).toBeGreaterThan(0);

    await redis.stop();
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const refused = await chat(i, limited.key);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(refused.status).toBe(503);
      expect(refused.body.error?.code).toBe('limits_unavailable');
      expect(refused.body.error?.message).toContain('Redis');
      expect(refused.body.error?.message).toContain("Key 'team-limited'");
      expect((await chat(i, free.key)).status).toBe(200);
    }
    const metrics = await (await fetch(`${gateways[0].baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/^gatehouse_redis_up 0$/m);
    expect(Number(/^gatehouse_redis_errors_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);

    // Back, empty (nothing saved): each gateway serves the key again within 5 s, from the stored spend.
    await redis.start();
    const back = Date.now();
    for (let i = 0; i < 3; i++) {
      for (;;) {
        const answer = await chat(i, limited.key);
        if (answer.status === 200) break;
        expect(answer.status).toBe(503);
        expect(Date.now() - back).toBeLessThan(5_000);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const view = await json<LimitsView>(await admin(1, `/keys/${limited.id}/limits`));
    expect(view.spentTodayUsd).toBeGreaterThanOrEqual(spentBefore);
    expect((await (await fetch(`${gateways[2].baseUrl}/metrics`)).text())).toMatch(/^gatehouse_redis_up 1$/m);
  });

  it('a FLUSHALL loses no spend: the budget still holds, from the store', async () => {
    const created = await gatewayKey('team-flush');
    const perCall = priceCall('openai', 'gpt-4o-mini', { inputTokens: PROMPT_TOKENS, outputTokens: 5 })!;
    await json(await setLimits(created.id, { dailyUsd: 1 }));
    await everywhere(created.id, (view) => view.limits.dailyUsd === 1);
    await knownEverywhere(created.key);
    openai.enqueue(...Array.from({ length: 6 }, () => answerAtMaxTokens));
    for (let n = 0; n < 6; n++) expect((await chat(n % 3, created.key, 5)).status).toBe(200);
    flushSpend();
    // A finished call's settlement reaches Redis with the next batch, at most 10 ms later.
    let spent = 0;
    await vi.waitFor(async () => {
      spent = (await json<LimitsView>(await admin(0, `/keys/${created.id}/limits`))).spentTodayUsd;
      expect(spent).toBeCloseTo(6 * perCall, 9);
    }, { timeout: 1_000, interval: 20 });

    await redis.flush();
    for (let i = 0; i < 3; i++) expect((await json<LimitsView>(await admin(i, `/keys/${created.id}/limits`))).spentTodayUsd).toBeCloseTo(spent, 9);
    // A budget below what was spent before the flush refuses the key on every gateway.
    await json(await setLimits(created.id, { dailyUsd: spent / 2 }));
    await everywhere(created.id, (view) => view.limits.dailyUsd === spent / 2);
    for (let i = 0; i < 3; i++) expect((await chat(i, created.key)).body.error?.code).toBe('budget_exceeded');
  });
});
