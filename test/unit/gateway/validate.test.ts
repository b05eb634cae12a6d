// Spec §2.1, §7, §8: every bound, on both sides, for /v1/completions and the fields chat shares.
import { describe, expect, it } from 'vitest';
import { validateChat, validateCompletion } from '../../../src-main/gateway/validate.js';
import { GatewayError } from '../../../src-main/core/errors.js';

const base = { model: 'gpt-3.5-turbo-instruct', prompt: 'Say hi' };
const chatBase = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

function rejection(validate: (json: unknown) => unknown, body: unknown): GatewayError {
  try {
    validate(body);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be refused`);
}

/** [field, lowest allowed, highest allowed, just below, just above] */
const numericBounds: [string, number, number, number, number][] = [
  ['best_of', 0, 20, -1, 21],
  ['frequency_penalty', -2, 2, -2.01, 2.01],
  ['presence_penalty', -2, 2, -2.01, 2.01],
  ['logprobs', 0, 5, -1, 6],
  ['n', 1, 128, 0, 129],
  ['temperature', 0, 2, -0.01, 2.01],
  ['top_p', 0, 1, -0.01, 1.01],
];

describe('completion bounds (spec §2.1)', () => {
  it.each(numericBounds)('accepts %s at both ends and refuses values past them with param naming it', (field, low, high, below, above) => {
    expect(() => validateCompletion({ ...base, [field]: low })).not.toThrow();
    expect(() => validateCompletion({ ...base, [field]: high })).not.toThrow();
    for (const bad of [below, above]) {
      const error = rejection(validateCompletion, { ...base, [field]: bad });
      expect(error.status).toBe(400);
      expect(error.type).toBe('invalid_request_error');
      expect(error.param).toBe(field);
    }
  });

  it('accepts max_tokens 0 and refuses -1', () => {
    expect(() => validateCompletion({ ...base, max_tokens: 0 })).not.toThrow();
    expect(rejection(validateCompletion, { ...base, max_tokens: -1 }).param).toBe('max_tokens');
  });

  it('refuses fractional integers: n 1.5, max_tokens 2.5, logprobs 1.5, best_of 2.5', () => {
    for (const [field, value] of [['n', 1.5], ['max_tokens', 2.5], ['logprobs', 1.5], ['best_of', 2.5]] as const) {
      expect(rejection(validateCompletion, { ...base, [field]: value }).param).toBe(field);
    }
  });

  it('accepts a seed of ±(2^63-1) and refuses one beyond the spec bound', () => {
    expect(() => validateCompletion(JSON.parse('{"model":"m","prompt":"x","seed":9223372036854775807}'))).not.toThrow();
    expect(() => validateCompletion(JSON.parse('{"model":"m","prompt":"x","seed":-9223372036854775808}'))).not.toThrow();
    expect(rejection(validateCompletion, { ...base, seed: 1e19 }).param).toBe('seed');
    expect(rejection(validateCompletion, { ...base, seed: -1e19 }).param).toBe('seed');
    expect(rejection(validateCompletion, { ...base, seed: 1.5 }).param).toBe('seed');
  });

  it('takes logit_bias values from -100 to 100 keyed by token ids', () => {
    expect(() => validateCompletion({ ...base, logit_bias: { '50256': -100, '1': 100 } })).not.toThrow();
    expect(rejection(validateCompletion, { ...base, logit_bias: { '50256': -101 } }).param).toBe('logit_bias');
    expect(rejection(validateCompletion, { ...base, logit_bias: { '50256': 100.5 } }).param).toBe('logit_bias');
    expect(rejection(validateCompletion, { ...base, logit_bias: { hello: 1 } }).param).toBe('logit_bias');
  });

  it('takes up to 4 stop sequences, as a string or an array', () => {
    expect(() => validateCompletion({ ...base, stop: '\n' })).not.toThrow();
    expect(() => validateCompletion({ ...base, stop: ['a', 'b', 'c', 'd'] })).not.toThrow();
    const error = rejection(validateCompletion, { ...base, stop: ['a', 'b', 'c', 'd', 'e'] });
    expect(error.param).toBe('stop');
    expect(error.message).toContain('4');
  });

  it('accepts the four forms of prompt, and null for the default', () => {
    for (const prompt of ['text', ['a', 'b'], [1, 2, 3], [[1, 2], [3]], null]) {
      expect(() => validateCompletion({ model: 'm', prompt })).not.toThrow();
    }
  });

  it('refuses a missing prompt, a missing model and wrong types, naming the field', () => {
    expect(rejection(validateCompletion, { model: 'm' }).param).toBe('prompt');
    expect(rejection(validateCompletion, { prompt: 'x' }).param).toBe('model');
    expect(rejection(validateCompletion, { ...base, prompt: 5 }).param).toBe('prompt');
    expect(rejection(validateCompletion, { ...base, prompt: [1, 'a'] }).param).toBe('prompt');
    expect(rejection(validateCompletion, { ...base, echo: 'yes' }).param).toBe('echo');
    expect(rejection(validateCompletion, { ...base, stream: 1 }).param).toBe('stream');
    expect(rejection(validateCompletion, { ...base, suffix: 3 }).param).toBe('suffix');
    expect(rejection(validateCompletion, { ...base, user: 3 }).param).toBe('user');
    expect(rejection(validateCompletion, { ...base, temperature: '1' }).param).toBe('temperature');
  });

  it('refuses a body that is not an object', () => {
    for (const body of [[], 'text', 3, null]) expect(rejection(validateCompletion, body).status).toBe(400);
  });

  it('accepts null for every nullable field (the default applies)', () => {
    const nulls = Object.fromEntries(
      ['best_of', 'echo', 'frequency_penalty', 'logprobs', 'max_tokens', 'n', 'presence_penalty', 'seed', 'stop', 'stream', 'suffix', 'temperature', 'top_p'].map((f) => [f, null]),
    );
    expect(() => validateCompletion({ ...base, ...nulls })).not.toThrow();
  });

  it('keeps fields the spec does not list, for providers with extras', () => {
    expect(validateCompletion({ ...base, top_k: 40, repetition_penalty: 1.1 })).toMatchObject({ top_k: 40, repetition_penalty: 1.1 });
  });
});

describe('invalid combinations (spec §7, CONTRACT §4)', () => {
  it('refuses best_of with stream', () => {
    expect(rejection(validateCompletion, { ...base, best_of: 2, stream: true }).param).toBe('best_of');
  });

  it('refuses best_of not greater than n, but allows both 1', () => {
    expect(rejection(validateCompletion, { ...base, best_of: 2, n: 2 }).param).toBe('best_of');
    expect(rejection(validateCompletion, { ...base, best_of: 2, n: 3 }).param).toBe('best_of');
    expect(() => validateCompletion({ ...base, best_of: 3, n: 2 })).not.toThrow();
    expect(() => validateCompletion({ ...base, best_of: 1, n: 1 })).not.toThrow();
  });

  it('refuses stream_options without stream true', () => {
    expect(rejection(validateCompletion, { ...base, stream_options: { include_usage: true } }).param).toBe('stream_options');
    expect(rejection(validateCompletion, { ...base, stream: false, stream_options: { include_usage: true } }).param).toBe('stream_options');
    expect(() => validateCompletion({ ...base, stream: true, stream_options: { include_usage: true } })).not.toThrow();
  });
});

describe('chat completions share the bounds of the fields they have in common', () => {
  it.each(numericBounds.filter(([field]) => !['best_of', 'logprobs'].includes(field)))('bounds %s', (field, low, high, below, above) => {
    expect(() => validateChat({ ...chatBase, [field]: low })).not.toThrow();
    expect(() => validateChat({ ...chatBase, [field]: high })).not.toThrow();
    expect(rejection(validateChat, { ...chatBase, [field]: below }).param).toBe(field);
    expect(rejection(validateChat, { ...chatBase, [field]: above }).param).toBe(field);
  });

  it('bounds stop, logit_bias, max_tokens, seed and stream_options like completions', () => {
    expect(rejection(validateChat, { ...chatBase, stop: ['a', 'b', 'c', 'd', 'e'] }).param).toBe('stop');
    expect(rejection(validateChat, { ...chatBase, logit_bias: { '1': 101 } }).param).toBe('logit_bias');
    expect(rejection(validateChat, { ...chatBase, max_tokens: -1 }).param).toBe('max_tokens');
    expect(rejection(validateChat, { ...chatBase, seed: 1e19 }).param).toBe('seed');
    expect(rejection(validateChat, { ...chatBase, stream_options: {} }).param).toBe('stream_options');
  });

  it('needs at least one message with a known role', () => {
    expect(rejection(validateChat, { model: 'm', messages: [] }).param).toBe('messages');
    expect(rejection(validateChat, { model: 'm' }).param).toBe('messages');
    expect(rejection(validateChat, { model: 'm', messages: [{ role: 'wizard', content: 'x' }] }).param).toBe('messages');
  });

  it('takes chat logprobs as a boolean and top_logprobs from 0 to 20', () => {
    expect(() => validateChat({ ...chatBase, logprobs: true, top_logprobs: 20 })).not.toThrow();
    expect(rejection(validateChat, { ...chatBase, top_logprobs: 21 }).param).toBe('top_logprobs');
    expect(rejection(validateChat, { ...chatBase, logprobs: 3 }).param).toBe('logprobs');
  });
});
