// What is refused on save, naming the field: shadowed routes, revoked or unknown keys, chains of routes,
// empty target lists, duplicate names, bad weights and timeouts. And what a route's glob overlap means.
import { describe, expect, it } from 'vitest';
import { parseRoutesFile, validateRouteTable, type KeyNameLookup } from '../../../src-main/core/routes/validate.js';
import { covers } from '../../../src-main/core/routes/match.js';
import fc from 'fast-check';
import { withModelField } from '../../../src-main/gateway/routing/model-field.js';
import { estimatePromptTokens } from '../../../src-main/gateway/routing/conditions.js';
import { GatewayError } from '../../../src-main/core/errors.js';

const keys: KeyNameLookup = (name) => (name === 'old' ? 'revoked' : name === 'twin' ? 'ambiguous' : ['a', 'b'].includes(name) ? 'active' : 'unknown');

function refusal(file: unknown): { param: string | null; message: string } {
  try {
    validateRouteTable(parseRoutesFile(file), keys);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return { param: (error as GatewayError).param, message: (error as GatewayError).message };
  }
  throw new Error('expected a refusal');
}

const route = (extra: Record<string, unknown> = {}) => ({ name: 'r', match: 'm', strategy: 'fallback', targets: [{ key: 'a' }], ...extra });

describe('refused on save', () => {
  it('a route an earlier glob shadows', () => {
    const result = refusal({ routes: [route({ name: 'all', match: 'claude-*' }), route({ name: 'haiku', match: 'claude-haiku-*' })] });
    expect(result.param).toBe('routes[1].match');
    expect(result.message).toContain("route 'haiku' can never match");
    expect(result.message).toContain("'all'");
  });

  it('an exact name an earlier glob or the same exact name catches', () => {
    expect(refusal({ routes: [route({ name: 'all', match: 'gpt-*' }), route({ name: 'five', match: 'gpt-5' })] }).param).toBe('routes[1].match');
    expect(refusal({ routes: [route({ name: 'one', match: 'gpt-5' }), route({ name: 'two', match: 'gpt-5' })] }).param).toBe('routes[1].match');
  });

  it('a target whose key is revoked, unknown or shared by two keys', () => {
    expect(refusal({ routes: [route({ targets: [{ key: 'a' }, { key: 'old' }] })] })).toEqual({ param: 'routes[0].targets[1].key', message: "Route 'r', target 2, key: the virtual key 'old' is revoked" });
    expect(refusal({ routes: [route({ targets: [{ key: 'ghost' }] })] }).message).toContain("no virtual key is named 'ghost'");
    expect(refusal({ routes: [route({ targets: [{ key: 'twin' }] })] }).message).toContain('more than one');
  });

  it('a target model another route would catch (a chain or cycle)', () => {
    const result = refusal({
      routes: [route({ name: 'fast', match: 'fast', targets: [{ key: 'a', model: 'smart' }] }), route({ name: 'smart', match: 'smart', targets: [{ key: 'b', model: 'fast' }] })],
    });
    expect(result.param).toBe('routes[0].targets[0].model');
    expect(result.message).toContain("route 'smart'");
  });

  it('but not a pinned version its own route catches', () => {
    expect(() => validateRouteTable(parseRoutesFile({ routes: [route({ match: 'claude-sonnet-*', targets: [{ key: 'a', model: 'claude-sonnet-4-5-20250929' }] })] }), keys)).not.toThrow();
  });

  it('an empty target list, duplicate names, bad weights and timeouts, unknown fields', () => {
    expect(refusal({ routes: [route({ targets: [] })] })).toMatchObject({ param: 'routes[0].targets' });
    expect(refusal({ routes: [route({ match: 'x' }), route({ match: 'y' })] })).toMatchObject({ param: 'routes[1].name' });
    expect(refusal({ routes: [route({ targets: [{ key: 'a', weight: 0 }] })] })).toMatchObject({ param: 'routes[0].targets[0].weight' });
    expect(refusal({ routes: [route({ targets: [{ key: 'a', weight: 'heavy' }] })] })).toMatchObject({ param: 'routes[0].targets[0].weight' });
    expect(refusal({ routes: [route({ targets: [{ key: 'a', timeout_ms: -5 }] })] })).toMatchObject({ param: 'routes[0].targets[0].timeout_ms' });
    expect(refusal({ routes: [route({ targets: [{ key: 'a', timeout_ms: 1.5 }] })] })).toMatchObject({ param: 'routes[0].targets[0].timeout_ms' });
    expect(refusal({ routes: [route({ targets: [{ key: 'a', when: { min_prompt_tokens: -1 } }] })] })).toMatchObject({ param: 'routes[0].targets[0].when.min_prompt_tokens' });
    expect(refusal({ routes: [route({ targets: [{ key: 'a', timeout: 5 }] })] })).toMatchObject({ param: 'routes[0].targets[0].timeout' });
    expect(refusal({ routes: [route({ strategy: 'random' })] })).toMatchObject({ param: 'routes[0].strategy' });
    expect(refusal({ rules: [] })).toMatchObject({ param: '$.rules' });
  });
});

describe('glob overlap', () => {
  it.each([
    ['*', 'anything-*', true],
    ['claude-*', 'claude-haiku-*', true],
    ['claude-haiku-*', 'claude-*', false],
    ['*-mini', 'gpt-*-mini', true],
    ['gpt-*-mini', '*-mini', false],
    ['a*b*c', 'a-x*y-b-*-c', true],
    ['gpt-*', 'gpt-5', true],
    ['gpt-5', 'gpt-*', false],
    ['*a*', 'a*', true],
  ])('%s covers %s: %s', (outer, inner, expected) => {
    expect(covers(outer, inner)).toBe(expected);
  });
});

describe('the model field', () => {
  it('replaces only the top-level model value, keeping every other byte', () => {
    const text = '{ "model" : "a", "metadata": {"model": "b"}, "x": "\\"model\\": \\"c\\"" }';
    expect(withModelField(text, 'z')).toBe('{ "model" : "z", "metadata": {"model": "b"}, "x": "\\"model\\": \\"c\\"" }');
  });

  it('finds the model past strings that end in backslashes, and under a key spelled with escapes', () => {
    const text = '{"a":"x\\\\","b":"\\"","mod\\u0065l":"old","c":["\\\\\\""]}';
    expect(JSON.parse(withModelField(text, 'new'))).toEqual({ ...JSON.parse(text), model: 'new' });
  });

  it('parses as the body with only its top-level model changed, for any JSON object with a string model', () => {
    // Members in any order, a model (even twice) among them or none: what a validated body can hold.
    const member = fc.oneof(
      fc.tuple(fc.constant('model'), fc.string()),
      fc.tuple(fc.string().filter((key) => key !== 'model'), fc.jsonValue({ maxDepth: 3 })),
    );
    fc.assert(
      fc.property(fc.array(member, { maxLength: 6 }), fc.string(), (members, model) => {
        const text = `{${members.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',')}}`;
        expect(JSON.parse(withModelField(text, model))).toEqual({ ...JSON.parse(text), model });
      }),
      { numRuns: 300 },
    );
  });

  it('adds the model first when the body has none (a default model)', () => {
    expect(withModelField('{"messages":[]}', 'm')).toBe('{"model":"m","messages":[]}');
    expect(withModelField('{ }', 'm')).toBe('{"model":"m" }');
  });
});

describe('prompt size estimate', () => {
  it('about four characters a token, plus turn framing', () => {
    const tokens = estimatePromptTokens({
      dialect: 'openai-chat',
      onUnsupported: 'refuse',
      model: 'm',
      system: [{ type: 'text', text: 'x'.repeat(400) }],
      turns: [{ role: 'user', parts: [{ type: 'text', text: 'y'.repeat(4000) }] }],
      stream: false,
    } as never);
    expect(tokens).toBe(3 + 1100);
  });
});
