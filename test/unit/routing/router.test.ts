// The router on its own: first match in order, balance by weight with a fixed seed, cool-downs on a
// fake clock, and condition rules (Claude Code's long-context / think / tools scenarios).
import { describe, expect, it } from 'vitest';
import { Router } from '../../../src-main/gateway/routing/router.js';
import { fixedTraits } from '../../../src-main/gateway/routing/conditions.js';
import { seededRandom } from '../../../src-main/gateway/routing/random.js';
import type { Caller } from '../../../src-main/core/keys.js';
import type { RouteDefinition } from '../../../src-main/core/routes/types.js';

function key(name: string): Caller {
  return { kind: 'virtual-key', keyId: `vk_${name}`, name, provider: 'openai', loadCredentials: async () => ({ token: `sk-${name}` }) };
}
const KEYS = new Map(['groq', 'together', 'local', 'anthropic', 'gemini', 'a', 'b', 'c'].map((name) => [name, key(name)]));

function router(routes: Omit<RouteDefinition, 'id'>[], options: { seed?: number; now?: () => number } = {}): Router {
  const result = new Router({ keyByName: (name) => KEYS.get(name), random: seededRandom(options.seed ?? 42), now: options.now });
  result.setRoutes(routes.map((route, index) => ({ id: `rt_${index}`, ...route })));
  return result;
}

const none = fixedTraits({});

describe('matching', () => {
  it('checks routes in the user’s order: the first match wins, even when a later one is exact', () => {
    const table = router([
      { name: 'haiku', match: 'claude-haiku-*', strategy: 'fallback', targets: [{ key: 'local' }] },
      { name: 'claude', match: 'claude-*', strategy: 'fallback', targets: [{ key: 'anthropic' }] },
      { name: 'exact', match: 'claude-opus-4', strategy: 'fallback', targets: [{ key: 'a' }] },
    ]);
    expect(table.match('claude-haiku-4-5')?.name).toBe('haiku');
    expect(table.match('claude-opus-4')?.name).toBe('claude');
    expect(table.match('gpt-5')).toBeUndefined();
  });

  it('a glob star crosses slashes (organisation-prefixed names); an exact name matches only itself', () => {
    const table = router([
      { name: 'meta', match: 'meta-llama/*', strategy: 'fallback', targets: [{ key: 'together' }] },
      { name: 'gpt', match: 'gpt-5', strategy: 'fallback', targets: [{ key: 'a' }] },
    ]);
    expect(table.match('meta-llama/Llama-3.3-70B-Instruct-Turbo')?.name).toBe('meta');
    expect(table.match('gpt-5-mini')).toBeUndefined();
    expect(table.match('gpt-5')?.name).toBe('gpt');
  });

  it('a route’s own name selects it', () => {
    const table = router([{ name: 'background', match: 'claude-haiku-*', strategy: 'fallback', targets: [{ key: 'local' }] }]);
    expect(table.match('background')?.name).toBe('background');
  });
});

describe('balance', () => {
  it('over 1,000 requests with a fixed seed, lands within ±5% of the weights', () => {
    const table = router([{ name: 'fast', match: 'fast', strategy: 'balance', targets: [{ key: 'groq', weight: 2 }, { key: 'together', weight: 1 }] }]);
    const route = table.match('fast')!;
    const counts = { groq: 0, together: 0 };
    for (let i = 0; i < 1000; i++) counts[table.plan(route, 'fast', none).attempts[0].key as 'groq' | 'together']++;
    expect(Math.abs(counts.groq / 1000 - 2 / 3)).toBeLessThan(0.05);
    expect(Math.abs(counts.together / 1000 - 1 / 3)).toBeLessThan(0.05);
  });

  it('three targets with uneven weights, any seed', () => {
    for (const seed of [1, 7, 12345]) {
      const table = router([{ name: 'spread', match: 'spread', strategy: 'balance', targets: [{ key: 'a', weight: 5 }, { key: 'b', weight: 3 }, { key: 'c', weight: 2 }] }], { seed });
      const route = table.match('spread')!;
      const counts: Record<string, number> = { a: 0, b: 0, c: 0 };
      for (let i = 0; i < 1000; i++) counts[table.plan(route, 'spread', none).attempts[0].key]++;
      expect(Math.abs(counts.a / 1000 - 0.5)).toBeLessThan(0.05);
      expect(Math.abs(counts.b / 1000 - 0.3)).toBeLessThan(0.05);
      expect(Math.abs(counts.c / 1000 - 0.2)).toBeLessThan(0.05);
    }
  });

  it('the targets not picked follow as fallbacks, each once', () => {
    const table = router([{ name: 'spread', match: 'spread', strategy: 'balance', targets: [{ key: 'a' }, { key: 'b' }, { key: 'c' }] }]);
    const plan = table.plan(table.match('spread')!, 'spread', none);
    expect(plan.attempts.map((target) => target.key).sort()).toEqual(['a', 'b', 'c']);
  });
});

describe('cool-down', () => {
  it('skips a target that failed for the cool-down, and tries it again after', () => {
    let now = 1_000_000;
    const table = router([{ name: 'fast', match: 'fast', strategy: 'balance', targets: [{ key: 'groq', weight: 1000 }, { key: 'together', weight: 1 }] }], { now: () => now });
    const route = table.match('fast')!;
    const first = table.plan(route, 'fast', none).attempts[0];
    expect(first.key).toBe('groq');
    table.recordFailure(first);

    now += 29_000;
    const during = table.plan(route, 'fast', none);
    expect(during.attempts.map((target) => target.key)).toEqual(['together']);
    expect(during.skipped).toEqual([{ label: 'groq → fast', reason: 'cooling down' }]);

    now += 1_001;
    expect(table.plan(route, 'fast', none).attempts[0].key).toBe('groq');
  });

  it('fallback skips a cooling target too; when every target is cooling, all are tried rather than none', () => {
    let now = 0;
    const table = router([{ name: 'gpt', match: 'gpt-5', strategy: 'fallback', targets: [{ key: 'a' }, { key: 'b' }] }], { now: () => now });
    const route = table.match('gpt-5')!;
    const [a, b] = table.plan(route, 'gpt-5', none).attempts;
    table.recordFailure(a);
    expect(table.plan(route, 'gpt-5', none).attempts.map((target) => target.key)).toEqual(['b']);
    table.recordFailure(b);
    expect(table.plan(route, 'gpt-5', none).attempts.map((target) => target.key)).toEqual(['a', 'b']);
    now += 30_001;
    expect(table.plan(route, 'gpt-5', none).skipped).toEqual([]);
  });

  it('a success ends a cool-down early', () => {
    const table = router([{ name: 'gpt', match: 'gpt-5', strategy: 'fallback', targets: [{ key: 'a' }, { key: 'b' }] }], { now: () => 0 });
    const route = table.match('gpt-5')!;
    const [a] = table.plan(route, 'gpt-5', none).attempts;
    table.recordFailure(a);
    table.recordSuccess(a);
    expect(table.plan(route, 'gpt-5', none).attempts[0].key).toBe('a');
  });
});

describe('conditions', () => {
  const long = router([
    {
      name: 'long',
      match: 'claude-sonnet-*',
      strategy: 'fallback',
      targets: [{ key: 'gemini', model: 'gemini-2.5-pro', when: { min_prompt_tokens: 60000 } }, { key: 'anthropic' }],
    },
  ]);
  const route = long.match('claude-sonnet-4')!;

  it('picks the long-context target above the threshold', () => {
    const plan = long.plan(route, 'claude-sonnet-4', fixedTraits({ promptTokens: 80_000 }));
    expect(plan.attempts.map((target) => target.label)).toEqual(['gemini → gemini-2.5-pro', 'anthropic → claude-sonnet-4']);
  });

  it('and the default below it', () => {
    const plan = long.plan(route, 'claude-sonnet-4', fixedTraits({ promptTokens: 1_000 }));
    expect(plan.attempts.map((target) => target.label)).toEqual(['anthropic → claude-sonnet-4']);
    expect(plan.ineligible[0].reason).toContain('60000');
  });

  it('thinking and tools pick their targets; the rest serve the others', () => {
    const table = router([
      {
        name: 'scenarios',
        match: 'claude-*',
        strategy: 'fallback',
        targets: [
          { key: 'a', model: 'think', when: { thinking: true } },
          { key: 'b', model: 'no-tools', when: { tools: false } },
          { key: 'c', model: 'default' },
        ],
      },
    ]);
    const scenarios = table.match('claude-x')!;
    const first = (traits: Parameters<typeof fixedTraits>[0]) => table.plan(scenarios, 'claude-x', fixedTraits(traits)).attempts[0].model;
    expect(first({ thinking: true, tools: true })).toBe('think');
    expect(first({ thinking: false, tools: false })).toBe('no-tools');
    expect(first({ thinking: false, tools: true })).toBe('default');
  });

  it('explain says which targets are eligible and why not', () => {
    expect(long.explain('claude-sonnet-4', fixedTraits({ promptTokens: 10 }))).toEqual({
      route: 'long',
      strategy: 'fallback',
      targets: [
        { key: 'gemini', model: 'gemini-2.5-pro', eligible: false, reason: 'needs at least 60000 prompt tokens (about 10)' },
        { key: 'anthropic', model: 'claude-sonnet-4', eligible: true, reason: null },
      ],
    });
    expect(long.explain('gpt-5', none)).toEqual({ route: null, strategy: null, targets: [] });
  });
});

describe('keys', () => {
  it('a target whose key is gone at run time is skipped, named in the plan', () => {
    const table = router([{ name: 'r', match: 'm', strategy: 'fallback', targets: [{ key: 'deleted' }, { key: 'a' }] }]);
    const plan = table.plan(table.match('m')!, 'm', none);
    expect(plan.attempts.map((target) => target.key)).toEqual(['a']);
    expect(plan.skipped).toEqual([{ label: 'deleted → m', reason: 'key unavailable' }]);
  });
});
