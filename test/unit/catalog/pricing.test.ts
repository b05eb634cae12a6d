// What a call costs: the catalog's price × tokens, with cached input at the cache prices, tiers by prompt
// size, null (unknown) for a model the catalog lacks, and the user's overrides winning over the catalog.
import { afterEach, describe, expect, it } from 'vitest';
import { catalogModel, setModelOverrides } from '../../../src-main/catalog/catalog.js';
import { priceCall } from '../../../src-main/catalog/pricing.js';

afterEach(() => setModelOverrides([]));

describe('priceCall', () => {
  it('prices OpenAI input, cached input and output at their own rates', () => {
    // gpt-4o: $2.50 input, $1.25 cached input, $10 output per million tokens.
    const cost = priceCall('openai', 'gpt-4o', { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 400 });
    expect(cost).toBeCloseTo((600 * 2.5 + 400 * 1.25 + 200 * 10) / 1e6, 12);
  });

  it('prices Anthropic cache writes and reads, and matches a dated model id', () => {
    // claude-sonnet-4: $3 input, $3.75 cache write, $0.30 cache read, $15 output.
    const cost = priceCall('anthropic', 'claude-sonnet-4-20250514', { inputTokens: 10_000, outputTokens: 1_000, cacheReadTokens: 6_000, cacheWriteTokens: 2_000 });
    expect(cost).toBeCloseTo((2_000 * 3 + 2_000 * 3.75 + 6_000 * 0.3 + 1_000 * 15) / 1e6, 12);
  });

  it("applies Gemini's price tier for prompts over 200k tokens to every token", () => {
    const small = priceCall('google', 'gemini-2.5-pro', { inputTokens: 100_000, outputTokens: 1_000 });
    const large = priceCall('google', 'gemini-2.5-pro', { inputTokens: 250_000, outputTokens: 1_000 });
    expect(small).toBeCloseTo((100_000 * 1.25 + 1_000 * 10) / 1e6, 12);
    expect(large).toBeCloseTo((250_000 * 2.5 + 1_000 * 15) / 1e6, 12);
  });

  it("knows Azure's dotless GPT-3.5 names, with or without Azure's version number", () => {
    // gpt-3.5-turbo-instruct: $1.50 input, $2 output per million tokens.
    const usage = { inputTokens: 1000, outputTokens: 100 };
    const expected = (1000 * 1.5 + 100 * 2) / 1e6;
    expect(priceCall('azure-openai', 'gpt-35-turbo-instruct', usage)).toBeCloseTo(expected, 12);
    expect(priceCall('azure-openai', 'gpt-35-turbo-instruct-0914', usage)).toBeCloseTo(expected, 12);
    expect(catalogModel('azure-openai', 'gpt-35-turbo')?.catalogId).toBe('gpt-3.5-turbo');
    // The row keeps the name it was asked by.
    expect(catalogModel('azure-openai', 'gpt-35-turbo')?.model).toBe('gpt-35-turbo');
  });

  it('is unknown (null), never 0, for a model the catalog lacks, a local model, or a call without usage', () => {
    expect(priceCall('openai', 'no-such-model-xyz', { inputTokens: 10, outputTokens: 10 })).toBeNull();
    expect(priceCall('ollama', 'llama3.2', { inputTokens: 10, outputTokens: 10 })).toBeNull();
    expect(priceCall('openai', 'gpt-4o', undefined)).toBeNull();
    expect(priceCall(null, null, { inputTokens: 10, outputTokens: 10 })).toBeNull();
  });

  it("takes the user's override: 0 for a local model, a negotiated price for a catalog one", () => {
    setModelOverrides([
      { provider: 'ollama', model: 'llama3.2', input: 0, output: 0, contextWindow: 8192 },
      { provider: 'openai', model: 'gpt-4o', input: 1 },
    ]);
    expect(priceCall('ollama', 'llama3.2', { inputTokens: 10, outputTokens: 10 })).toBe(0);
    expect(catalogModel('ollama', 'llama3.2')?.contextWindow).toBe(8192);
    // Input overridden, output still the catalog's $10.
    expect(priceCall('openai', 'gpt-4o', { inputTokens: 1_000_000, outputTokens: 1_000_000 })).toBeCloseTo(11, 9);
  });
});

describe('catalog', () => {
  it('knows context windows and output limits for the providers Gatehouse serves', () => {
    expect(catalogModel('anthropic', 'claude-sonnet-4-20250514')).toMatchObject({ contextWindow: 200_000, maxOutputTokens: 64_000 });
    expect(catalogModel('google', 'gemini-2.5-pro')?.contextWindow).toBe(1_048_576);
    expect(catalogModel('openai', 'gpt-4.1')?.contextWindow).toBeGreaterThanOrEqual(1_000_000);
    expect(catalogModel('bedrock', 'anthropic.claude-3-5-sonnet-20241022-v2:0')?.contextWindow).toBe(200_000);
    expect(catalogModel('mistral-ai', 'mistral-large-latest')?.contextWindow).toBe(131_072);
    expect(catalogModel('groq', 'llama-3.3-70b-versatile')?.prices).toMatchObject({ input: 0.59, output: 0.79 });
    expect(catalogModel('ollama', 'llama3.2')).toBeNull();
  });
});
