// The limiter on its own, with a fake clock and given costs: what a key over a limit is told, exact counts
// under many admits at once, and when each limit lets requests through again.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { InMemoryKeyLimiter, LimitExceeded } from '../../../src-main/gateway/limits/limiter.js';
import type { KeyLimits } from '../../../src-main/core/limits.js';
import { localIsoTime, periodAt } from '../../../src-main/gateway/limits/calendar.js';

const none: KeyLimits = { rpm: null, tpm: null, dailyUsd: null, monthlyUsd: null };

function clock(start: number) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms), set: (ms: number) => (now = ms) };
}

function refusal(run: () => unknown): LimitExceeded {
  try {
    run();
  } catch (error) {
    if (error instanceof LimitExceeded) return error;
    throw error;
  }
  throw new Error('expected the limiter to refuse');
}

describe('key limiter', () => {
  it('admits exactly rpm requests of 200 at once, and one more once the oldest is a minute old', () => {
    const time = clock(new Date(2026, 2, 10, 12, 0, 0).getTime());
    const limiter = new InMemoryKeyLimiter({ now: time.now });
    limiter.setLimits('gk_1', { ...none, rpm: 50 }, 'ci-bot');
    let admitted = 0;
    let refused = 0;
    for (let i = 0; i < 200; i++) {
      try {
        limiter.admit('gk_1');
        admitted++;
      } catch (error) {
        expect(error).toBeInstanceOf(LimitExceeded);
        refused++;
      }
    }
    expect([admitted, refused]).toEqual([50, 150]);

    time.advance(20_000);
    const early = refusal(() => limiter.admit('gk_1'));
    expect(early.status).toBe(429);
    expect(early.type).toBe('rate_limit_error');
    expect(early.code).toBe('rate_limit_exceeded');
    expect(early.limit).toBe('rpm');
    expect(early.retryAfterSeconds).toBe(40);
    expect(early.message).toContain("Key 'ci-bot' is over its limit of 50 requests per minute");
    expect(early.message).toContain(localIsoTime(new Date(2026, 2, 10, 12, 1, 0).getTime()));

    // All 50 were admitted at the same instant: a minute later, the window holds 50 again.
    time.advance(40_000);
    for (let i = 0; i < 50; i++) limiter.admit('gk_1');
    expect(() => limiter.admit('gk_1')).toThrow(LimitExceeded);
  });

  it('counts tokens per minute as calls finish, and says when enough have left the window', () => {
    const time = clock(new Date(2026, 2, 10, 12, 0, 0).getTime());
    const limiter = new InMemoryKeyLimiter({ now: time.now });
    limiter.setLimits('vk_1', { ...none, tpm: 100 });
    limiter.admit('vk_1').release({ tokens: 60, costUsd: null });
    time.advance(10_000);
    // Two in flight at once are both admitted: their tokens are not known yet.
    const a = limiter.admit('vk_1');
    const b = limiter.admit('vk_1');
    a.release({ tokens: 30, costUsd: null });
    b.release({ tokens: 30, costUsd: null });
    const over = refusal(() => limiter.admit('vk_1'));
    expect(over.limit).toBe('tpm');
    expect(over.message).toContain('limit of 100 tokens per minute (120 used in the last minute)');
    // Once the first call's 60 tokens are a minute old, 60 remain: under the limit.
    expect(over.retryAfterSeconds).toBe(50);
    time.advance(50_000);
    expect(() => limiter.admit('vk_1')).not.toThrow();
    expect(limiter.usage('vk_1').tokensLastMinute).toBe(60);
  });

  it('stops a key at its daily budget once the calls in flight have finished, until local midnight', () => {
    const time = clock(new Date(2026, 2, 10, 23, 0, 0).getTime());
    const limiter = new InMemoryKeyLimiter({ now: time.now });
    limiter.setLimits('gk_2', { ...none, dailyUsd: 1 }, 'agent');
    const inFlight = [limiter.admit('gk_2'), limiter.admit('gk_2'), limiter.admit('gk_2')];
    for (const ticket of inFlight) ticket.release({ tokens: 10, costUsd: 0.4 });
    expect(limiter.usage('gk_2').spentTodayUsd).toBeCloseTo(1.2, 10);

    const over = refusal(() => limiter.admit('gk_2'));
    const midnight = new Date(2026, 2, 11, 0, 0, 0).getTime();
    expect(over.code).toBe('budget_exceeded');
    expect(over.limit).toBe('dailyUsd');
    expect(over.retryAfterSeconds).toBe(3600);
    expect(over.message).toBe(`Key 'agent' has used its daily budget of $1.00 ($1.20 spent today); it resets at local midnight, ${localIsoTime(midnight)}`);
    expect(limiter.usage('gk_2').blocked?.limit).toBe('dailyUsd');

    time.set(midnight - 1);
    expect(() => limiter.admit('gk_2')).toThrow(LimitExceeded);
    time.set(midnight);
    expect(() => limiter.admit('gk_2')).not.toThrow();
    const usage = limiter.usage('gk_2');
    expect(usage.spentTodayUsd).toBe(0);
    expect(usage.spentThisMonthUsd).toBeCloseTo(1.2, 10);
    expect(usage.dayResetsAt).toBe(localIsoTime(new Date(2026, 2, 12).getTime()));
  });

  it('holds a monthly budget across days and lets the key through on the 1st', () => {
    const time = clock(new Date(2026, 0, 30, 12, 0, 0).getTime());
    const limiter = new InMemoryKeyLimiter({ now: time.now });
    limiter.setLimits('vk_m', { ...none, monthlyUsd: 5, dailyUsd: 10 });
    limiter.admit('vk_m').release({ tokens: 1, costUsd: 3 });
    time.set(new Date(2026, 0, 31, 9, 0, 0).getTime());
    limiter.admit('vk_m').release({ tokens: 1, costUsd: 2.5 });
    const over = refusal(() => limiter.admit('vk_m'));
    expect(over.limit).toBe('monthlyUsd');
    expect(over.message).toContain('monthly budget of $5.00 ($5.50 spent this month); it resets on the 1st');
    expect(over.resetsAt).toBe(new Date(2026, 1, 1).getTime());
    time.set(new Date(2026, 1, 1, 0, 0, 1).getTime());
    expect(() => limiter.admit('vk_m')).not.toThrow();
  });

  it('a monthly budget is exact at its boundary, like the daily one: refused in the last millisecond of the month, admitted at its end', () => {
    const firstOfMonth = new Date(2026, 2, 1, 0, 0, 0).getTime();
    const time = clock(firstOfMonth - 60_000);
    const limiter = new InMemoryKeyLimiter({ now: time.now });
    limiter.setLimits('vk_edge', { ...none, monthlyUsd: 1 });
    limiter.admit('vk_edge').release({ tokens: 1, costUsd: 1 });
    time.set(firstOfMonth - 1);
    const over = refusal(() => limiter.admit('vk_edge'));
    expect(over.limit).toBe('monthlyUsd');
    expect(over.retryAfterSeconds).toBe(1);
    time.set(firstOfMonth);
    expect(() => limiter.admit('vk_edge')).not.toThrow();
    expect(limiter.usage('vk_edge').spentThisMonthUsd).toBe(0);
  });

  it('a reservation holds its worst case against the budget until release, which counts the real cost instead', () => {
    const time = clock(new Date(2026, 2, 10, 12, 0, 0).getTime());
    const limiter = new InMemoryKeyLimiter({ now: time.now });
    limiter.setLimits('gk_res', { ...none, dailyUsd: 1, monthlyUsd: 10 }, 'burst');
    const a = limiter.admit('gk_res');
    expect(a.hasBudget).toBe(true);
    a.reserve(0.4);
    const b = limiter.admit('gk_res');
    b.reserve(0.4);
    const c = limiter.admit('gk_res');
    const over = refusal(() => c.reserve(0.4));
    expect(over.code).toBe('budget_exceeded');
    expect(over.headers()).toMatchObject({ 'x-should-retry': 'false' });
    expect(over.message).toContain("Key 'burst' has $0.20 left of its daily budget of $1.00 ($0.80 of it held by 2 calls in flight until they finish)");
    expect(limiter.usage('gk_res')).toMatchObject({ reservedUsd: 0.8, callsInFlight: 2 });
    // A smaller worst case fits; reserving again replaces a ticket's amount (a route's next target).
    c.reserve(0.1);
    c.reserve(0.2);
    expect(limiter.usage('gk_res').reservedUsd).toBeCloseTo(1, 10);
    a.release({ tokens: 10, costUsd: 0.05 });
    b.release({ tokens: 10, costUsd: 0.05 });
    c.release({ tokens: 10, costUsd: 0.05 });
    expect(limiter.usage('gk_res')).toMatchObject({ reservedUsd: 0, callsInFlight: 0 });
    expect(limiter.usage('gk_res').spentTodayUsd).toBeCloseTo(0.15, 10);
    // A call without a price holds nothing; a key without a budget is not asked to work one out.
    const unpriced = limiter.admit('gk_res');
    unpriced.reserve(null);
    expect(limiter.usage('gk_res').callsInFlight).toBe(0);
    expect(limiter.admit('gk_nobudget').hasBudget).toBe(false);
  });

  it('counts each further provider call of a request against rpm, and says a rate limit admits within 60 s', () => {
    const time = clock(new Date(2026, 2, 10, 12, 0, 0).getTime());
    const limiter = new InMemoryKeyLimiter({ now: time.now });
    limiter.setLimits('gk_fan', { ...none, rpm: 5 });
    const ticket = limiter.admit('gk_fan');
    for (let i = 0; i < 3; i++) ticket.countCall();
    expect(limiter.usage('gk_fan').requestsLastMinute).toBe(4);
    limiter.admit('gk_fan');
    const over = refusal(() => limiter.admit('gk_fan'));
    expect(over.retryAfterSeconds).toBe(60);
    expect(over.headers()).toEqual({ 'retry-after': '60' });
  });

  it('counts no budget for a call whose cost is unknown, and limits nothing for a key without limits', () => {
    const time = clock(Date.now());
    const limiter = new InMemoryKeyLimiter({ now: time.now });
    limiter.setLimits('vk_u', { ...none, dailyUsd: 0.01 });
    for (let i = 0; i < 10; i++) limiter.admit('vk_u').release({ tokens: 1000, costUsd: null });
    expect(() => limiter.admit('vk_u')).not.toThrow();
    for (let i = 0; i < 1000; i++) limiter.admit('vk_free').release({ tokens: 5, costUsd: 0.5 });
    expect(limiter.usage('vk_free').spentTodayUsd).toBe(500);
    expect(limiter.usage('vk_free').blocked).toBeNull();
    // The environment key (no id) is never limited or counted.
    expect(() => limiter.admit(null).release({ tokens: 1, costUsd: 1 })).not.toThrow();
  });

  it('a budget of 0 blocks at once; clearing the limits lets the key through', () => {
    const limiter = new InMemoryKeyLimiter();
    limiter.setLimits('gk_0', { ...none, dailyUsd: 0 });
    expect(refusal(() => limiter.admit('gk_0')).code).toBe('budget_exceeded');
    limiter.setLimits('gk_0', null);
    expect(() => limiter.admit('gk_0')).not.toThrow();
  });

  it('hands over spend per key and local day for the store, once, split at midnight', () => {
    const time = clock(new Date(2026, 4, 31, 23, 59, 59).getTime());
    const limiter = new InMemoryKeyLimiter({ now: time.now });
    limiter.admit('vk_a').release({ tokens: 10, costUsd: 0.25 });
    limiter.admit('vk_a').release({ tokens: 5, costUsd: 0.5 });
    time.advance(2_000);
    limiter.admit('vk_a').release({ tokens: 1, costUsd: 1 });
    const deltas = limiter.takePending();
    expect(deltas).toEqual([
      { keyId: 'vk_a', day: '2026-05-31', costUsd: 0.75, tokens: 15, requests: 2 },
      { keyId: 'vk_a', day: '2026-06-01', costUsd: 1, tokens: 1, requests: 1 },
    ]);
    expect(limiter.takePending()).toEqual([]);
    limiter.restorePending(deltas.slice(0, 1));
    expect(limiter.takePending()).toEqual(deltas.slice(0, 1));
    expect(periodAt(time.now()).day).toBe('2026-06-01');
  });

  it('a ticket counts once, however often it is released', () => {
    const limiter = new InMemoryKeyLimiter();
    const ticket = limiter.admit('vk_t');
    ticket.release({ tokens: 1, costUsd: 1 });
    ticket.release({ tokens: 1, costUsd: 1 });
    expect(limiter.usage('vk_t').spentTodayUsd).toBe(1);
  });

  it('lowering rpm keeps the requests already in the window', () => {
    const time = clock(new Date(2026, 2, 10, 12, 0, 0).getTime());
    const limiter = new InMemoryKeyLimiter({ now: time.now });
    limiter.setLimits('gk_r', { ...none, rpm: 10 });
    for (let i = 0; i < 6; i++) {
      limiter.admit('gk_r');
      time.advance(1_000);
    }
    limiter.setLimits('gk_r', { ...none, rpm: 3 });
    const over = refusal(() => limiter.admit('gk_r'));
    // Six in the window: below three only once those of 0, 1, 2 and 3 s have left it, at 63 s.
    expect(over.retryAfterSeconds).toBe(57);
    expect(limiter.usage('gk_r').requestsLastMinute).toBe(6);
  });

  it('over any run of calls, admits exactly while fewer than rpm were admitted in the last 60 seconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 300 }), (rpm, gaps) => {
        let now = new Date(2026, 2, 10, 12, 0, 0).getTime();
        const limiter = new InMemoryKeyLimiter({ now: () => now });
        limiter.setLimits('gk_p', { ...none, rpm });
        const admitted: number[] = [];
        for (const gap of gaps) {
          now += gap;
          const second = Math.floor(now / 1000);
          const inWindow = admitted.filter((at) => Math.floor(at / 1000) > second - 60).length;
          let ok = true;
          try {
            limiter.admit('gk_p');
          } catch (error) {
            if (!(error instanceof LimitExceeded)) throw error;
            ok = false;
            // Refused only when the window is full, and told to come back when its oldest second leaves.
            const oldest = Math.min(...admitted.filter((at) => Math.floor(at / 1000) > second - 60).map((at) => Math.floor(at / 1000)));
            expect(error.resetsAt).toBeGreaterThanOrEqual((oldest + 60) * 1000);
          }
          expect(ok).toBe(inWindow < rpm);
          if (ok) admitted.push(now);
        }
      }),
      { numRuns: 200 },
    );
  });
});
