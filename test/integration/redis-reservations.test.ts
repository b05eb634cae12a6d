// Budget reservations in Redis as two instances see them: what calls in flight hold is summed across
// instances, taken back exactly when they finish or move to another target, let go when the instance
// holding them died (stopped renewing), and kept for as long as a call runs on a live one, however much
// longer than their TTL. A fake clock is the scripts' clock, so lapsing is exact.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ServerResponse } from 'node:http';
import type { Redis } from 'ioredis';
import { RedisKeyLimiter } from '../../src-main/gateway/limits/redis/redis-limiter.js';
import { RedisHealth } from '../../src-main/gateway/limits/redis/redis-connection.js';
import { LimitExceeded } from '../../src-main/gateway/limits/limit-refusals.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { startGateway } from '../helpers/gateway.js';
import { defaultAnswer, startOpenAIFake, type RecordedRequest } from '../fakes/openai.js';
import { priceCall } from '../../src-main/catalog/pricing.js';

let redis: TestRedis;
let clock = Date.UTC(2026, 10, 26, 12, 0, 0);
const TTL_MS = 60_000;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.close();
});

function instance(client: Redis, prefix: string): RedisKeyLimiter {
  const limiter = new RedisKeyLimiter({ redis: client, health: new RedisHealth(), where: redis.url, now: () => clock, prefix, reservationTtlMs: TTL_MS });
  limiter.setLimits('key-1', { rpm: null, tpm: null, dailyUsd: 1, monthlyUsd: 5 }, 'team');
  void limiter.startFrom(async () => []);
  return limiter;
}

describe('budget reservations in Redis', () => {
  it('sums what every instance holds, replaces a ticket’s hold, and takes it back exactly when the call ends', async () => {
    const a = instance(redis.client(), 'r1:');
    const b = instance(redis.client(), 'r1:');
    const first = await a.admit('key-1');
    const second = await b.admit('key-1');
    await first.reserve(0.3);
    await second.reserve(0.45);
    let usage = await a.usage('key-1');
    expect(usage.reservedUsd).toBeCloseTo(0.75, 12);
    expect(usage.callsInFlight).toBe(2);
    // A fallback target's estimate replaces the first one's: 0.3 → 0.1.
    await first.reserve(0.1);
    usage = await b.usage('key-1');
    expect(usage.reservedUsd).toBeCloseTo(0.55, 12);
    expect(usage.callsInFlight).toBe(2);
    // 0.5 more would pass the $1 day with 0.55 held: refused, naming what is held.
    const third = await a.admit('key-1');
    const refused = await Promise.resolve(third.reserve(0.5)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LimitExceeded);
    expect((refused as LimitExceeded).message).toMatch(/2 calls in flight/);
    // Finished: the holds go, the real cost is spent.
    second.release({ tokens: 100, costUsd: 0.2 });
    first.release({ tokens: 50, costUsd: 0.05 });
    third.release({ tokens: 0, costUsd: 0 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    usage = await a.usage('key-1');
    expect(usage.reservedUsd).toBe(0);
    expect(usage.callsInFlight).toBe(0);
    expect(usage.spentTodayUsd).toBeCloseTo(0.25, 12);
    // Thousands of holds and releases leave no rounding behind: the sum is kept in whole nano-dollars.
    for (let round = 0; round < 20; round++) {
      const tickets = await Promise.all(Array.from({ length: 50 }, () => b.admit('key-1')));
      await Promise.all(tickets.map((ticket, n) => ticket.reserve(0.000_123_457 * (n + 1) / 100)));
      for (const ticket of tickets) ticket.release({ tokens: 0, costUsd: 0 });
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    usage = await b.usage('key-1');
    expect(usage.reservedUsd).toBe(0);
    expect(usage.callsInFlight).toBe(0);
    a.close();
    b.close();
  });

  it('lets go what an instance that died held once it stops renewing it, and the budget is usable again', async () => {
    const dead = instance(redis.client(), 'r2:');
    const alive = instance(redis.client(), 'r2:');
    const held = await dead.admit('key-1');
    await held.reserve(0.9);
    dead.close();
    const blocked = await alive.admit('key-1');
    await expect(Promise.resolve(blocked.reserve(0.5))).rejects.toBeInstanceOf(LimitExceeded);
    clock += TTL_MS + 1;
    const usage = await alive.usage('key-1');
    expect(usage.reservedUsd).toBe(0);
    expect(usage.callsInFlight).toBe(0);
    const admitted = await alive.admit('key-1');
    await admitted.reserve(0.5);
    expect((await alive.usage('key-1')).reservedUsd).toBeCloseTo(0.5, 12);
    admitted.release({ tokens: 0, costUsd: 0 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Decided with its reservation in one step (the gateway's way): the dead instance's hold, found only
    // when the call would not fit beside it, is let go, and the call fits.
    const dying = instance(redis.client(), 'r2:');
    await (await dying.admit('key-1')).reserve(0.9);
    dying.close();
    const undecided = await alive.admit('key-1', undefined, { decideLater: true });
    await expect(Promise.resolve(undecided.reserve(0.5))).rejects.toBeInstanceOf(LimitExceeded);
    clock += TTL_MS + 1;
    const later = await alive.admit('key-1', undefined, { decideLater: true });
    await later.reserve(0.5);
    const after = await alive.usage('key-1');
    expect(after.reservedUsd).toBeCloseTo(0.5, 12);
    expect(after.callsInFlight).toBe(1);
    alive.close();
  });
});

describe('a call that runs longer than its reservation lives', () => {
  it('keeps its hold, renewed while it runs: a call beside it that would pass the budget is refused until it ends', async () => {
    // 3 s of the fake clock to lapse, renewed every (real) second; the clock is moved on 2 s at a time,
    // each time only once Redis shows the renewal made at the clock's new time, to twice the TTL.
    const ttlMs = 3_000;
    let fakeNow = Date.UTC(2026, 10, 27, 12, 0, 0);
    const [gateway, openai] = await Promise.all([startGateway({ redisUrl: redis.url, limitsClock: () => fakeNow, reservationTtlMs: ttlMs }), startOpenAIFake()]);
    const inside = redis.client();
    let finish: () => void = () => undefined;
    try {
      const created = (await (await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'long-call' }) })).json()) as { id: string; key: string };
      // One call's worst case (10,000 output tokens) fits the day, two do not.
      const worstCase = priceCall('openai', 'gpt-4o-mini', { inputTokens: 0, outputTokens: 10_000 })!;
      expect((await gateway.admin(`/keys/${created.id}/limits`, { method: 'PUT', body: JSON.stringify({ dailyUsd: 1.5 * worstCase }) })).status).toBe(200);
      const chat = () =>
        fetch(`${gateway.baseUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-gateway-api-key': created.key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': openai.baseUrl, authorization: 'Bearer sk-test' },
          body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 10_000, messages: [{ role: 'user', content: 'hi' }] }),
        });
      const finished = new Promise<void>((resolve) => (finish = resolve));
      openai.enqueue(async (request: RecordedRequest, res: ServerResponse) => {
        await finished;
        defaultAnswer(request, res);
      });
      const long = chat();
      await vi.waitFor(() => expect(openai.requests).toHaveLength(1), { timeout: 5_000, interval: 10 });
      const heldUntil = async () => Number((await inside.zrange(`gatehouse:limits:${created.id}:heldexp`, '0', '-1', 'WITHSCORES'))[1]);
      expect(await heldUntil()).toBe(fakeNow + ttlMs);
      for (let step = 0; step < 3; step++) {
        fakeNow += 2_000;
        await vi.waitFor(async () => expect(await heldUntil()).toBe(fakeNow + ttlMs), { timeout: 5_000, interval: 50 });
      }
      // 6 s on, twice the 3 s its hold had when the call began: still held, so the second does not fit.
      const view = (await (await gateway.admin(`/keys/${created.id}/limits`)).json()) as { reservedUsd: number; callsInFlight: number };
      expect(view.callsInFlight).toBe(1);
      expect(view.reservedUsd).toBeGreaterThanOrEqual(worstCase);
      const beside = await chat();
      expect(beside.status).toBe(429);
      expect(((await beside.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'budget_exceeded', message: expect.stringContaining('1 call in flight') as unknown });
      expect(openai.requests).toHaveLength(1);
      // Ended, its hold goes: the next call fits.
      finish();
      expect((await long).status).toBe(200);
      await vi.waitFor(async () => expect((await chat()).status).toBe(200), { timeout: 2_000, interval: 50 });
    } finally {
      finish();
      inside.disconnect();
      await Promise.all([gateway.close(), openai.close()]);
    }
  }, 30_000);
});

describe('the minute window in Redis', () => {
  it('counts the last 60 seconds exactly as time moves on, and says when a refused key may call again', async () => {
    const start = clock - (clock % 1000) + 120_000;
    clock = start;
    const limiter = new RedisKeyLimiter({ redis: redis.client(), health: new RedisHealth(), where: redis.url, now: () => clock, prefix: 'w1:', reservationTtlMs: TTL_MS });
    limiter.setLimits('key-w', { rpm: 5, tpm: null, dailyUsd: null, monthlyUsd: null }, 'window');
    void limiter.startFrom(async () => []);
    const admit = () => Promise.resolve(limiter.admit('key-w')).then(() => 'ok', (error: unknown) => error);
    for (let n = 0; n < 3; n++) expect(await admit()).toBe('ok');
    clock = start + 30_000;
    for (let n = 0; n < 2; n++) expect(await admit()).toBe('ok');
    const refused = await admit();
    expect(refused).toBeInstanceOf(LimitExceeded);
    // The three of the first second leave the window as its 60th second ends.
    expect((refused as LimitExceeded).resetsAt).toBe(start + 60_000);
    expect((await limiter.usage('key-w')).requestsLastMinute).toBe(5);
    clock = start + 59_999;
    expect(await admit()).toBeInstanceOf(LimitExceeded);
    clock = start + 60_000;
    expect((await limiter.usage('key-w')).requestsLastMinute).toBe(2);
    for (let n = 0; n < 3; n++) expect(await admit()).toBe('ok');
    expect(await admit()).toBeInstanceOf(LimitExceeded);
    // Quiet for 90 s: the window is empty again and counts from nothing.
    clock = start + 150_000;
    expect((await limiter.usage('key-w')).requestsLastMinute).toBe(0);
    for (let n = 0; n < 5; n++) expect(await admit()).toBe('ok');
    expect(await admit()).toBeInstanceOf(LimitExceeded);
    // Eight asked in one turn (decided as one operation) into an empty window: five fit, and the other
    // three are told when the five counted in this very second leave it.
    clock = start + 240_000;
    const together = await Promise.all(Array.from({ length: 8 }, () => limiter.admit('key-w', undefined, { decideLater: true })));
    const answers = await Promise.all(together.map((ticket) => Promise.resolve(ticket.confirm?.()).then(() => 'ok', (error: LimitExceeded) => error.resetsAt)));
    expect(answers).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', start + 300_000, start + 300_000, start + 300_000]);
    limiter.close();
  });

  it('calls that end together settle as one operation: every hold let go, their spend and requests summed', async () => {
    const a = instance(redis.client(), 'r4:');
    const tickets = await Promise.all(Array.from({ length: 40 }, () => a.admit('key-1')));
    await Promise.all(tickets.map((ticket) => ticket.reserve(0.01)));
    const monitor = await redis.client().monitor();
    const batches: string[] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() === 'evalsha') batches.push(args[3]);
    });
    tickets.forEach((ticket, n) => ticket.release({ tokens: 10, costUsd: 0.001 * (n % 4) }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    monitor.disconnect();
    const settlements = batches.flatMap((batch) => (JSON.parse(batch) as [string][]).filter(([operation]) => operation === 'settle'));
    expect(settlements).toHaveLength(1);
    const usage = await a.usage('key-1');
    expect(usage.reservedUsd).toBe(0);
    expect(usage.callsInFlight).toBe(0);
    expect(usage.requestsToday).toBe(40);
    expect(usage.tokensToday).toBe(400);
    expect(usage.spentTodayUsd).toBeCloseTo(0.06, 12);
    a.close();
  });

  it('calls of a key asked in one turn are decided as one operation, each as if alone and in turn', async () => {
    // Watching from before any instance talks to Redis (a MONITOR begun mid-traffic confuses the client).
    const monitor = await redis.client().monitor();
    const batches: string[] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() === 'evalsha') batches.push(args[3]);
    });
    const dead = instance(redis.client(), 'r6:');
    await (await dead.admit('key-1')).reserve(0.5);
    dead.close();
    clock += TTL_MS + 1;
    const a = instance(redis.client(), 'r6:');
    a.setLimits('key-1', { rpm: 6, tpm: null, dailyUsd: 1, monthlyUsd: 5 }, 'team');
    const tickets = await Promise.all(Array.from({ length: 10 }, () => a.admit('key-1', 'team', { decideLater: true })));
    const answers = await Promise.all(
      tickets.map((ticket) => Promise.resolve(ticket.reserve(0.3)).then(() => 'ok', (error: LimitExceeded) => `${error.limit}: ${error.message} (until ${error.resetsAt})`)),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    monitor.disconnect();
    const decisions = batches.flatMap((batch) => (JSON.parse(batch) as [string][]).filter(([operation]) => operation === 'decide'));
    expect(decisions).toHaveLength(1);
    // The second would not fit beside the dead instance's 0.5: that is let go, and it fits. The fourth
    // would pass $1 beside the three held; the seventh on is past rpm 6, which the refused worst cases counted.
    expect(answers.slice(0, 3)).toEqual(['ok', 'ok', 'ok']);
    for (const answer of answers.slice(3, 6)) expect(answer).toMatch(/^dailyUsd: .*3 calls in flight/);
    const windowEnds = (Math.floor(clock / 1000) + 60) * 1000;
    for (const answer of answers.slice(6)) expect(answer).toMatch(new RegExp(`^rpm: .*\\(until ${windowEnds}\\)$`));
    const usage = await a.usage('key-1');
    expect(usage.reservedUsd).toBeCloseTo(0.9, 12);
    expect(usage.callsInFlight).toBe(3);
    expect(usage.requestsLastMinute).toBe(6);
    a.close();
  });

  it('a call that ends while its hold is still being asked for leaves nothing held', async () => {
    const a = instance(redis.client(), 'r5:');
    const decidedFirst = await a.admit('key-1');
    const pending = Promise.resolve(decidedFirst.reserve(0.4));
    decidedFirst.release({ tokens: 0, costUsd: 0.01 });
    const decidedTogether = await a.admit('key-1', 'team', { decideLater: true });
    const together = Promise.resolve(decidedTogether.reserve(0.3));
    decidedTogether.release({ tokens: 0, costUsd: 0.01 });
    await Promise.all([pending, together]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const usage = await a.usage('key-1');
    expect(usage.reservedUsd).toBe(0);
    expect(usage.callsInFlight).toBe(0);
    expect(usage.spentTodayUsd).toBeCloseTo(0.02, 12);
    a.close();
  });
});
