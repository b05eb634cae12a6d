// Every request field of spec §2.1 as the Playground validates and sends it.
import { describe, expect, it } from 'vitest';
import { buildParameterFields, escapeStopSequence, INITIAL_PARAMETERS, parseJsonPrompt, unescapeStopSequence, type ParameterValues } from '../../../src-renderer/playground/parameters';
import { stringifyJson } from '../../../src-renderer/playground/json-text';

function values(patch: Partial<ParameterValues> = {}, numbers: ParameterValues['numbers'] = {}): ParameterValues {
  return { ...INITIAL_PARAMETERS, stream: false, includeUsage: false, numbers, ...patch };
}

describe('Playground parameters (spec §2.1 bounds)', () => {
  it('sends nothing for fields left empty, so provider defaults apply', () => {
    expect(buildParameterFields('completion', values())).toEqual({ fields: {}, errors: {} });
  });

  it('rejects temperature above 2 and top_p above 1, naming the field', () => {
    const { errors, fields } = buildParameterFields('completion', values({}, { temperature: '2.5', top_p: '1.2' }));
    expect(errors.temperature).toBe('Temperature must be 0 to 2');
    expect(errors.top_p).toBe('Top p must be 0 to 1');
    expect(fields).toEqual({});
  });

  it('accepts every bound at its edge', () => {
    const { errors, fields } = buildParameterFields(
      'completion',
      values({}, { temperature: '2', top_p: '0', frequency_penalty: '-2', presence_penalty: '2', n: '128', logprobs: '5', max_tokens: '0' }),
    );
    expect(errors).toEqual({});
    expect(fields).toMatchObject({ temperature: 2, top_p: 0, frequency_penalty: -2, presence_penalty: 2, n: 128, logprobs: 5, max_tokens: 0 });
    expect(buildParameterFields('completion', values({}, { best_of: '20' })).fields.best_of).toBe(20);
    expect(buildParameterFields('completion', values({}, { best_of: '21' })).errors.best_of).toMatch(/0 to 20/);
  });

  it('rejects n of 0 and 129, logprobs of 6 and fractional integers', () => {
    expect(buildParameterFields('completion', values({}, { n: '0' })).errors.n).toMatch(/1 to 128/);
    expect(buildParameterFields('completion', values({}, { n: '129' })).errors.n).toMatch(/1 to 128/);
    expect(buildParameterFields('completion', values({}, { logprobs: '6' })).errors.logprobs).toMatch(/0 to 5/);
    expect(buildParameterFields('completion', values({}, { max_tokens: '1.5' })).errors.max_tokens).toMatch(/whole number/);
    expect(buildParameterFields('completion', values({}, { max_tokens: '-1' })).errors.max_tokens).toMatch(/at least 0/);
  });

  it('refuses best_of with streaming and best_of not greater than n', () => {
    expect(buildParameterFields('completion', values({ stream: true }, { best_of: '3' })).errors.best_of).toMatch(/streaming/);
    expect(buildParameterFields('completion', values({}, { best_of: '2', n: '2' })).errors.best_of).toMatch(/greater than n/);
    expect(buildParameterFields('completion', values({}, { best_of: '1', n: '1' })).errors.best_of).toBeUndefined();
    expect(buildParameterFields('completion', values({}, { best_of: '3', n: '2' })).errors.best_of).toBeUndefined();
  });

  it('keeps a 64-bit seed exact all the way into the JSON body', () => {
    const { fields, errors } = buildParameterFields('completion', values({}, { seed: '9223372036854775807' }));
    expect(errors).toEqual({});
    expect(stringifyJson(fields)).toBe('{"seed":9223372036854775807}');
    expect(buildParameterFields('completion', values({}, { seed: '9223372036854775808' })).errors.seed).toMatch(/64 bits/);
    expect(buildParameterFields('completion', values({}, { seed: '42' })).fields.seed).toBe(42);
  });

  it('allows at most 4 stop sequences and sends one as a plain string', () => {
    expect(buildParameterFields('completion', values({ stop: ['\n'] })).fields.stop).toBe('\n');
    expect(buildParameterFields('completion', values({ stop: ['a', 'b', 'c', 'd'] })).fields.stop).toEqual(['a', 'b', 'c', 'd']);
    expect(buildParameterFields('completion', values({ stop: ['a', 'b', 'c', 'd', 'e'] })).errors.stop).toBe('At most 4 stop sequences');
  });

  it('reads \\n typed in a stop field as a newline and shows it back escaped', () => {
    expect(unescapeStopSequence('\\n\\nUser:')).toBe('\n\nUser:');
    expect(escapeStopSequence('\n\tx')).toBe('\\n\\tx');
  });

  it('checks logit_bias keys are token ids and values are -100 to 100', () => {
    expect(buildParameterFields('completion', values({ logitBias: '{"50256": -100}' })).fields.logit_bias).toEqual({ '50256': -100 });
    expect(buildParameterFields('completion', values({ logitBias: '{"50256": 101}' })).errors.logit_bias).toMatch(/-100 to 100/);
    expect(buildParameterFields('completion', values({ logitBias: '{"abc": 1}' })).errors.logit_bias).toMatch(/whole number/);
    expect(buildParameterFields('completion', values({ logitBias: '[1]' })).errors.logit_bias).toMatch(/JSON object/);
  });

  it('adds stream_options only together with stream', () => {
    expect(buildParameterFields('completion', values({ stream: true, includeUsage: true })).fields).toEqual({ stream: true, stream_options: { include_usage: true } });
    expect(buildParameterFields('completion', values({ stream: false, includeUsage: true })).fields).toEqual({});
  });

  it('leaves completion-only fields out of chat, and maps chat logprobs to top_logprobs', () => {
    const chat = buildParameterFields('chat', values({ echo: true, suffix: 'x', topLogprobs: '3' }, { best_of: '3', logprobs: '2' }));
    expect(chat.fields).toEqual({ logprobs: true, top_logprobs: 3 });
    expect(buildParameterFields('chat', values({ topLogprobs: '21' })).errors.top_logprobs).toMatch(/0 to 20/);
    const completion = buildParameterFields('completion', values({ echo: true, suffix: 'x' }));
    expect(completion.fields).toEqual({ echo: true, suffix: 'x' });
  });
});

describe('prompt as JSON (spec §2.1 prompt forms)', () => {
  it('accepts a string, strings, tokens and token arrays', () => {
    expect(parseJsonPrompt('"hi"').value).toBe('hi');
    expect(parseJsonPrompt('["a", "b"]').value).toEqual(['a', 'b']);
    expect(parseJsonPrompt('[1212, 318]').value).toEqual([1212, 318]);
    expect(parseJsonPrompt('[[1, 2], [3]]').value).toEqual([[1, 2], [3]]);
  });

  it('refuses mixtures, empty arrays, negative or fractional tokens and broken JSON', () => {
    for (const text of ['["a", 1]', '[]', '[-1]', '[1.5]', '{"a":1}', '[[]]', '[oops']) expect(parseJsonPrompt(text).error).toBeDefined();
  });
});
