// Limits per key through the real gateway, against local provider doubles: 200 requests at once on a
// key with a rate limit and a budget let exactly the allowed number through, the rest get a 429 in the
// client's own dialect with Retry-After; the limits reset on time (a fake clock); a budget spent to exactly
// its amount admits nothing more; the admin API shows how close the key is. Once with the counters in the gateway's memory, once in Redis (team mode).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { LIMIT_BACKENDS, startLimitsBackend, type LimitsBackendRun } from '../helpers/limit-backends.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { startAnthropicFake, FAKE_USAGE, type AnthropicFake } from '../fakes/anthropic.js';
import { priceCall } from '../../src-main/catalog/pricing.js';
import { localIsoTime } from '../../src-main/gateway/limits/calendar.js';

let now = new Date(2026, 2, 10, 23, 0, 0).getTime();
let gateway: TestGateway;
let openai: OpenAIFake;
let anthropic: AnthropicFake;
let backendRun: LimitsBackendRun;

interface Answer {
  status: number;
  retryAfter: string | null;
  body: Record<string, unknown>;
}

async function answer(response: Response): Promise<Answer> {
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as Record<string, unknown> };
}

async function json<T>(response: Response): Promise<T> {
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as T;
}

interface LimitsView {
  keyId: string;
  keyName: string;
  limits: { rpm: number | null; tpm: number | null; dailyUsd: number | null; monthlyUsd: number | null };
  requestsLastMinute: number;
  spentTodayUsd: number;
  spentThisMonthUsd: number;
  blocked: { limit: string; code: string; retryAfterSeconds: number } | null;
}

const setLimits = (id: string, limits: Record<string, number | null>) => gateway.admin(`/keys/${id}/limits`, { method: 'PUT', body: JSON.stringify(limits) });

function chat(key: string): Promise<Answer> {
  return fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': openai.baseUrl, authorization: 'Bearer sk-test' },
    // A small output maximum: a call's worst case stays a few millionths of a dollar.
    body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 3, messages: [{ role: 'user', content: 'hi' }] }),
  }).then(answer);
}

function messages(key: string): Promise<Answer> {
  return fetch(`${gateway.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'claude-3-5-haiku-20241022', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }),
  }).then(answer);
}

const tally = (answers: Answer[]) => ({ passed: answers.filter((a) => a.status === 200).length, refused: answers.filter((a) => a.status === 429).length });

describe.each(LIMIT_BACKENDS)('limits per key (%s counters)', (backend) => {
  beforeAll(async () => {
    now = new Date(2026, 2, 10, 23, 0, 0).getTime();
    // Doubles of their own per run: what one run queued on them never answers the other's calls.
    openai = await startOpenAIFake();
    anthropic = await startAnthropicFake();
    backendRun = await startLimitsBackend(backend);
    gateway = await startGateway({ limitsClock: () => now, redisUrl: backendRun.redisUrl });
  });
  afterAll(async () => {
    await gateway.close();
    await backendRun.close();
    await openai.close();
    await anthropic.close();
  });

  it('200 chat completions at once on a gateway key with 50 rpm and a daily budget: exactly 50 pass, the rest get an OpenAI 429 with Retry-After', async () => {
    const created = await json<{ id: string; key: string }>(await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'ci-bot' }) }));
    const perCall = priceCall('openai', 'gpt-4o-mini', { inputTokens: 5, outputTokens: 3 });
    expect(perCall).toBeGreaterThan(0);
    // A budget that holds the worst case of all 50 at once: the requests per minute decide the burst.
    await json(await setLimits(created.id, { rpm: 50, dailyUsd: 1 }));
    const before = openai.requests.length;

    const first = await Promise.all(Array.from({ length: 200 }, () => chat(created.key)));
    expect(tally(first)).toEqual({ passed: 50, refused: 150 });
    expect(openai.requests.length - before).toBe(50);
    for (const refused of first.filter((a) => a.status === 429)) {
      const error = refused.body.error as Record<string, unknown>;
      expect(error.type).toBe('rate_limit_error');
      expect(error.param).toBeNull();
      expect(error.code).toBe('rate_limit_exceeded');
      expect(refused.retryAfter).toBe('60');
      expect(error.message).toContain("Key 'ci-bot' is over its limit of 50 requests per minute");
    }

    // The budget lowered under what the 50 spent: the key is spent.
    await json(await setLimits(created.id, { rpm: 50, dailyUsd: perCall! * 49.5 }));
    const usage = await json<LimitsView>(await gateway.admin(`/keys/${created.id}/limits`));
    expect(usage.spentTodayUsd).toBeCloseTo(perCall! * 50, 12);
    expect(usage.requestsLastMinute).toBe(50);
    expect(usage.blocked?.limit).toBe('dailyUsd');

    // A minute later the rpm window is empty again, but the budget is spent: all 200 refused, until midnight.
    now += 61_000;
    const second = await Promise.all(Array.from({ length: 200 }, () => chat(created.key)));
    expect(tally(second)).toEqual({ passed: 0, refused: 200 });
    const midnight = new Date(2026, 2, 11).getTime();
    for (const refused of second) {
      expect(refused.retryAfter).toBe(String(Math.ceil((midnight - now) / 1000)));
      const error = refused.body.error as Record<string, unknown>;
      expect(error.code).toBe('budget_exceeded');
      expect(error.message).toContain(`has used its daily budget`);
      expect(error.message).toContain(`it resets at local midnight, ${localIsoTime(midnight)}`);
    }
    expect(openai.requests.length - before).toBe(50);

    now = midnight;
    expect((await chat(created.key)).status).toBe(200);
    const nextDay = await json<LimitsView>(await gateway.admin(`/keys/${created.id}/limits`));
    expect(nextDay.spentTodayUsd).toBeCloseTo(perCall!, 12);
    expect(nextDay.spentThisMonthUsd).toBeCloseTo(perCall! * 51, 12);
    expect(nextDay.blocked).toBeNull();
  });

  it('200 Messages calls at once on an Anthropic virtual key with 20 rpm and a monthly budget: exactly 20 pass, the rest get an Anthropic 429', async () => {
    now = new Date(2026, 2, 31, 12, 0, 0).getTime();
    const created = await json<{ id: string; key: string }>(
      await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'claude-code', provider: 'anthropic', secret: 'sk-ant-test', customHost: anthropic.baseUrl }) }),
    );
    const perCall = priceCall('anthropic', 'claude-3-5-haiku-20241022', {
      inputTokens: FAKE_USAGE.input_tokens + FAKE_USAGE.cache_read_input_tokens + FAKE_USAGE.cache_creation_input_tokens,
      outputTokens: FAKE_USAGE.output_tokens,
      cacheReadTokens: FAKE_USAGE.cache_read_input_tokens,
      cacheWriteTokens: FAKE_USAGE.cache_creation_input_tokens,
    });
    expect(perCall).toBeGreaterThan(0);
    await json(await setLimits(created.id, { rpm: 20, monthlyUsd: 1 }));

    const first = await Promise.all(Array.from({ length: 200 }, () => messages(created.key)));
    expect(tally(first)).toEqual({ passed: 20, refused: 180 });
    for (const refused of first.filter((a) => a.status === 429)) {
      expect(refused.body.type).toBe('error');
      const error = refused.body.error as Record<string, unknown>;
      expect(error.type).toBe('rate_limit_error');
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
      expect(error.message).toMatch(/requests per minute/);
    }
    // The budget lowered under what the 20 spent: the key is spent for the month.
    await json(await setLimits(created.id, { rpm: 20, monthlyUsd: perCall! * 19.5 }));
    const usage = await json<LimitsView>(await gateway.admin(`/keys/${created.id}/limits`));
    expect(usage.spentThisMonthUsd).toBeGreaterThan(perCall! * 19.5);

    // After the minute, the monthly budget holds: refused until the 1st, told so in Anthropic's shape.
    now += 60_000;
    const refused = await messages(created.key);
    const firstOfMonth = new Date(2026, 3, 1).getTime();
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe(String(Math.ceil((firstOfMonth - now) / 1000)));
    expect(refused.body).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: expect.stringContaining(`monthly budget`) as unknown },
    });
    expect((refused.body.error as { message: string }).message).toContain(`it resets on the 1st, ${localIsoTime(firstOfMonth)}`);

    // Exact at its boundary, like the daily budget: the last millisecond of the month is refused, its end admits.
    now = firstOfMonth - 1;
    const lastMoment = await messages(created.key);
    expect(lastMoment.status).toBe(429);
    expect(lastMoment.retryAfter).toBe('1');
    now = firstOfMonth;
    expect((await messages(created.key)).status).toBe(200);
  });

  it('a monthly budget spent to exactly its amount admits nothing more, not even a call with no cost', async () => {
    now = new Date(2026, 6, 15, 12, 0, 0).getTime();
    const created = await json<{ id: string; key: string }>(await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'month-exact' }) }));
    await json(await setLimits(created.id, { monthlyUsd: 1 }));
    expect((await chat(created.key)).status).toBe(200);
    // The spend exactly as the counters hold it: in this process, or in Redis as the script reads it
    // (the admin view shows Redis's figure rounded to 14 digits, which is not the same number).
    let spent = 0;
    await vi.waitFor(async () => {
      if (backendRun.redis) {
        const inside = backendRun.redis.client();
        const [monthKey] = await inside.keys(`gatehouse:limits:${created.id}:month:*`);
        spent = Number(monthKey ? await inside.hget(monthKey, 'usd') : 0);
      } else spent = (await json<LimitsView>(await gateway.admin(`/keys/${created.id}/limits`))).spentThisMonthUsd;
      expect(spent).toBeGreaterThan(0);
    }, { timeout: 2_000, interval: 20 });
    await json(await setLimits(created.id, { monthlyUsd: spent }));
    // A model list costs nothing and holds nothing: only the spent budget can refuse it.
    const models = await fetch(`${gateway.baseUrl}/v1/models`, { headers: { 'x-gateway-api-key': created.key } });
    expect(models.status).toBe(429);
    expect(((await models.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'budget_exceeded', message: expect.stringContaining('has used its monthly budget') as unknown });
    // A call is refused as spent too (not merely because its worst case would not fit).
    const refused = await chat(created.key);
    expect(refused.status).toBe(429);
    expect((refused.body.error as { message: string }).message).toContain('has used its monthly budget');
    expect((await json<LimitsView>(await gateway.admin(`/keys/${created.id}/limits`))).blocked?.limit).toBe('monthlyUsd');
    // The control: with room left, the same model list is served.
    await json(await setLimits(created.id, { monthlyUsd: spent * 2 }));
    expect((await fetch(`${gateway.baseUrl}/v1/models`, { headers: { 'x-gateway-api-key': created.key } })).status).toBe(200);
  });

  it('at a budget set to exactly the spend, or one step above it, the admin view shows the spend the counters decide by and agrees with the decision', async () => {
    now = new Date(2026, 7, 12, 12, 0, 0).getTime();
    const created = await json<{ id: string; key: string }>(await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'month-boundary' }) }));
    await json(await setLimits(created.id, { monthlyUsd: 100 }));
    for (let i = 0; i < 3; i++) expect((await chat(created.key)).status).toBe(200);
    if (backendRun.redis) {
      // What another instance's settlements add: dollars, so that the sum Redis keeps (17 decimals) has
      // more than 14 significant digits (the catalog's prices here add up to round millionths).
      const inside = backendRun.redis.client();
      await vi.waitFor(async () => expect(await inside.keys(`gatehouse:limits:${created.id}:month:*`)).toHaveLength(1), { timeout: 2_000, interval: 20 });
      const [monthKey] = await inside.keys(`gatehouse:limits:${created.id}:month:*`);
      await inside.hincrbyfloat(monthKey, 'usd', 10 / 3);
    }
    let spent = 0;
    await vi.waitFor(async () => {
      const view = await json<LimitsView>(await gateway.admin(`/keys/${created.id}/limits`));
      if (backendRun.redis) {
        const inside = backendRun.redis.client();
        const [monthKey] = await inside.keys(`gatehouse:limits:${created.id}:month:*`);
        spent = Number(monthKey ? await inside.hget(monthKey, 'usd') : 0);
      } else spent = view.spentThisMonthUsd;
      expect(spent).toBeGreaterThan(0);
      expect(view.spentThisMonthUsd).toBe(spent);
    }, { timeout: 2_000, interval: 20 });
    for (const [budget, admitted] of [[spent, false], [nextUp(spent), true]] as const) {
      await json(await setLimits(created.id, { monthlyUsd: budget }));
      // A model list costs nothing and holds nothing: only the spent budget decides it.
      const models = await fetch(`${gateway.baseUrl}/v1/models`, { headers: { 'x-gateway-api-key': created.key } });
      expect(models.status).toBe(admitted ? 200 : 429);
      const view = await json<LimitsView>(await gateway.admin(`/keys/${created.id}/limits`));
      expect(view.spentThisMonthUsd).toBe(spent);
      expect(view.blocked?.limit ?? null).toBe(admitted ? null : 'monthlyUsd');
    }
  });

  it('the admin API checks what it is given and lists every key with its limits and spend', async () => {
    const created = await json<{ id: string; key: string }>(await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'checked' }) }));
    const bad = await setLimits(created.id, { rpm: 1.5 });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string; message: string } }).error).toMatchObject({ param: 'rpm', message: expect.stringContaining('whole number') as unknown });
    const unknownField = await setLimits(created.id, { rps: 3 });
    expect(unknownField.status).toBe(400);
    expect(((await unknownField.json()) as { error: { message: string } }).error.message).toContain("'rps' is not a limit");
    const negative = await setLimits(created.id, { dailyUsd: -1 });
    expect(negative.status).toBe(400);
    expect((await setLimits('gk_0000', { rpm: 3 })).status).toBe(404);

    const set = await json<LimitsView>(await setLimits(created.id, { tpm: 1000, dailyUsd: 2.5 }));
    expect(set.limits).toEqual({ rpm: null, tpm: 1000, dailyUsd: 2.5, monthlyUsd: null });
    const list = await json<{ items: LimitsView[] }>(await gateway.admin('/limits'));
    expect(list.items.find((item) => item.keyId === created.id)).toMatchObject({ keyName: 'checked', limits: { tpm: 1000, dailyUsd: 2.5 } });
    expect(list.items.map((item) => item.keyName)).toEqual(expect.arrayContaining(['ci-bot', 'claude-code', 'checked']));

    const cleared = await json<LimitsView>(await gateway.admin(`/keys/${created.id}/limits`, { method: 'DELETE' }));
    expect(cleared.limits).toEqual({ rpm: null, tpm: null, dailyUsd: null, monthlyUsd: null });
  });

  it('tokens per minute: once the minute holds the limit, the key waits until enough tokens leave it', async () => {
    now = new Date(2026, 4, 5, 10, 0, 0).getTime();
    const created = await json<{ id: string; key: string }>(await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'tokens' }) }));
    // Each fake chat answer uses 8 tokens: three calls use 24 ≥ 20.
    await json(await setLimits(created.id, { tpm: 20 }));
    for (let i = 0; i < 3; i++) expect((await chat(created.key)).status).toBe(200);
    const over = await chat(created.key);
    expect(over.status).toBe(429);
    expect(over.retryAfter).toBe('60');
    expect((over.body.error as { message: string }).message).toContain('limit of 20 tokens per minute (24 used in the last minute)');
    now += 60_000;
    expect((await chat(created.key)).status).toBe(200);
  });

  it('a stream that reports no usage (no stream_options.include_usage) still counts against the budget and the tokens per minute', async () => {
    now = new Date(2026, 5, 1, 9, 0, 0).getTime();
    const created = await json<{ id: string; key: string }>(await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'streamer' }) }));
    await json(await setLimits(created.id, { dailyUsd: 1, tpm: 1_000_000 }));
    const stream = () =>
      fetch(`${gateway.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gateway-api-key': created.key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': openai.baseUrl, authorization: 'Bearer sk-test' },
        body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, max_tokens: 16, messages: [{ role: 'user', content: 'hi '.repeat(400) }] }),
      });
    const first = await stream();
    await first.text();
    expect(first.status).toBe(200);
    // An estimate (about 4 characters a token) of a 1.2 kB prompt at gpt-4o-mini's price is over a millionth
    // of a dollar: with the budget lowered to a millionth, the first stream has spent it, and the next is refused.
    await json(await setLimits(created.id, { dailyUsd: 1e-6, tpm: 1_000_000 }));
    const second = await stream();
    expect(second.status).toBe(429);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe('budget_exceeded');
    const view = await json<LimitsView & { tokensLastMinute: number }>(await gateway.admin(`/keys/${created.id}/limits`));
    expect(view.spentTodayUsd).toBeGreaterThan(1e-6);
    expect(view.tokensLastMinute).toBeGreaterThan(300);
    expect(view.blocked?.limit).toBe('dailyUsd');
  });
});

/** The smallest number above `value` (a positive double). */
function nextUp(value: number): number {
  const bits = new BigInt64Array(new Float64Array([value]).buffer);
  bits[0] += 1n;
  return new Float64Array(bits.buffer)[0];
}
