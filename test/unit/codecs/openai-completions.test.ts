import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cannotHonour, type CanonicalAnswer, type CanonicalEvent } from '../../../src-main/codecs/canonical.js';
import { openaiChatProvider } from '../../../src-main/codecs/openai-chat/index.js';
import { openaiCompletionsDialect } from '../../../src-main/codecs/openai-completions/index.js';
import { GatewayError } from '../../../src-main/core/errors.js';
import { validateCompletion } from '../../../src-main/gateway/validate.js';

const decode = (body: Record<string, unknown>) => openaiCompletionsDialect.decodeRequest(validateCompletion({ model: 'm', prompt: 'Say hi', ...body }));
const target = { provider: 'anthropic', modelInBody: true };

function refusal(run: () => unknown): { status: number; message: string; param: string | null; provider?: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return { status: (error as GatewayError).status, ...(error as GatewayError).toBody().error };
  }
  throw new Error('expected a refusal');
}

const dataLines = (text: string): unknown[] =>
  text
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => {
      const payload = block.slice('data: '.length);
      return payload === '[DONE]' ? payload : JSON.parse(payload);
    });

describe('openai-completions decodeRequest: a /v1/completions body becomes the canonical request', () => {
  it('makes the prompt one user turn and maps the sampling fields', () => {
    const request = decode({ max_tokens: 20, stop: ['END', 'STOP'], temperature: 1.5, top_p: 0.9, top_k: 5, seed: 42, presence_penalty: 0.5, frequency_penalty: -0.5, user: 'u', n: 2, stream: true, stream_options: { include_usage: true } });
    expect(request).toEqual({
      dialect: 'openai-completions',
      onUnsupported: 'refuse',
      model: 'm',
      system: [],
      turns: [{ role: 'user', parts: [{ type: 'text', text: 'Say hi' }] }],
      maxOutputTokens: 20,
      stop: ['END', 'STOP'],
      temperature: 1.5,
      topP: 0.9,
      topK: 5,
      seed: 42,
      presencePenalty: 0.5,
      frequencyPenalty: -0.5,
      user: 'u',
      n: 2,
      stream: true,
      includeUsage: true,
      extensions: {},
      fieldNames: { turns: 'prompt', system: 'prompt' },
      unsupportedWhy: {},
    });
  });

  it('takes a one-element prompt array as the prompt', () => {
    expect(decode({ prompt: ['only one'] }).turns).toEqual([{ role: 'user', parts: [{ type: 'text', text: 'only one' }] }]);
  });

  it.each([
    ['a null prompt', null, "'prompt' left empty (generate from the start of a new document) is not supported by provider 'anthropic'"],
    ['an empty prompt', '', "'prompt' left empty (generate from the start of a new document) is not supported by provider 'anthropic'"],
    ['several prompts', ['one', 'two'], "'prompt' as an array of several prompts is not supported (send one request per prompt) by provider 'anthropic'"],
    ['token IDs', [1, 2, 3], "'prompt' as token IDs is not supported (send the prompt as text) by provider 'anthropic'"],
    ['arrays of token IDs', [[1, 2], [3]], "'prompt' as token IDs is not supported (send the prompt as text) by provider 'anthropic'"],
  ])('keeps %s for the encoder to refuse, naming the provider, before anything else', (_, prompt, message) => {
    const request = decode({ prompt });
    expect(Object.keys(request.extensions)).toEqual(['prompt']);
    expect(refusal(() => cannotHonour(request, target, [], 'prompt'))).toMatchObject({ status: 400, message, param: 'prompt', provider: 'anthropic' });
    // A Chat encoder refuses the prompt, not the conversation it left empty.
    expect(refusal(() => openaiChatProvider.encodeRequest(request, target))).toMatchObject({ message, param: 'prompt' });
  });

  it.each([
    [{ echo: true }, 'echo', "'echo' is not supported by provider 'anthropic'"],
    [{ best_of: 3 }, 'best_of', "'best_of' greater than 1 is not supported by provider 'anthropic'"],
    [{ suffix: 'after' }, 'suffix', "'suffix' is not supported by provider 'anthropic'"],
    [{ logit_bias: { '50256': -100 } }, 'logit_bias', "'logit_bias' is not supported by provider 'anthropic'"],
    [{ max_completion_tokens: 5 }, 'max_completion_tokens', "'max_completion_tokens' is not supported by provider 'anthropic'"],
    [{ messages: [] }, 'messages', "'messages' is not supported by provider 'anthropic'"],
  ])('keeps %j as an extension that a provider without it refuses with the old wording', (fields, field, message) => {
    const request = decode(fields);
    expect(Object.keys(request.extensions)).toEqual([field]);
    expect(refusal(() => cannotHonour(request, target, [], field))).toMatchObject({ status: 400, message, param: field });
  });

  it('leaves out echo, best_of, suffix and penalties at their defaults', () => {
    const request = decode({ echo: false, best_of: 1, suffix: '', presence_penalty: 0, frequency_penalty: 0, logit_bias: {} });
    expect(request.extensions).toEqual({});
    expect(request).not.toHaveProperty('presencePenalty');
  });

  it('reads logprobs: k as k alternatives per token, refused by a provider without them in the old words', () => {
    expect(decode({ logprobs: 2 }).logprobs).toEqual({ top: 2 });
    expect(decode({ logprobs: 0 }).logprobs).toEqual({ top: 0 });
    expect(decode({})).not.toHaveProperty('logprobs');
    expect(refusal(() => cannotHonour(decode({ logprobs: 0 }), target, [], 'logprobs')).message).toBe("'logprobs' is not supported (the provider returns no log probabilities) by provider 'anthropic'");
  });

  it('refuses a top_k that is not a whole number of at least 0', () => {
    expect(refusal(() => decode({ top_k: -2 }))).toMatchObject({ status: 400, message: "'top_k' must be an integer of at least 0", param: 'top_k' });
  });
});

describe('openai-completions encodeResponse and stream encoder: text_completion as the old translators wrote it', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-11-24T00:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());
  const created = Date.parse('2026-11-24T00:00:00Z') / 1000;

  it('writes a whole answer: text, finish reason, usage with cached tokens', () => {
    const answer: CanonicalAnswer = {
      id: 'msg_fake_01',
      model: 'claude-x',
      content: [
        { type: 'reasoning', text: 'hmm' },
        { type: 'text', text: 'Claude heard: Say hi' },
      ],
      finishReason: 'stop',
      usage: { inputTokens: 18, outputTokens: 4, cacheReadTokens: 5 },
    };
    expect(openaiCompletionsDialect.encodeResponse(answer, decode({}))).toEqual({
      id: 'msg_fake_01',
      object: 'text_completion',
      created,
      model: 'claude-x',
      choices: [{ index: 0, text: 'Claude heard: Say hi', logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 18, completion_tokens: 4, total_tokens: 22, prompt_tokens_details: { cached_tokens: 5 } },
    });
  });

  it('writes log probabilities as tokens, token_logprobs, top_logprobs and text_offset', () => {
    const answer: CanonicalAnswer = {
      id: 'g',
      model: 'gemini',
      content: [{ type: 'text', text: 'Gemini heard: Hi' }],
      finishReason: 'length',
      logprobs: [
        { token: 'Gemini', logprob: -0.5, top: [{ token: 'Gemini', logprob: -0.5 }, { token: '?', logprob: -9 }] },
        { token: ' heard:', logprob: -1, top: [{ token: ' heard:', logprob: -1 }] },
        { token: ' Hi', logprob: -1.5 },
      ],
    };
    expect((openaiCompletionsDialect.encodeResponse(answer, decode({ logprobs: 2 })) as { choices: unknown[] }).choices).toEqual([
      {
        index: 0,
        text: 'Gemini heard: Hi',
        logprobs: {
          tokens: ['Gemini', ' heard:', ' Hi'],
          token_logprobs: [-0.5, -1, -1.5],
          top_logprobs: [{ Gemini: -0.5, '?': -9 }, { ' heard:': -1 }, {}],
          text_offset: [0, 6, 13],
        },
        finish_reason: 'length',
      },
    ]);
  });

  const events: CanonicalEvent[] = [
    { type: 'start', id: 'msg_fake_01', model: 'claude-x' },
    { type: 'reasoning', text: 'thinking' },
    { type: 'text', text: 'Claude heard: ' },
    { type: 'text', text: 'Say hi' },
    { type: 'usage', usage: { inputTokens: 18, outputTokens: 4, cacheReadTokens: 5 } },
    { type: 'finish', reason: 'stop' },
  ];
  const frame = { id: 'msg_fake_01', object: 'text_completion', created, model: 'claude-x' };

  it('streams text chunks, a finish chunk with empty text, usage: null on each, the usage chunk and [DONE]', () => {
    const encoder = openaiCompletionsDialect.createStreamEncoder(decode({ stream: true, stream_options: { include_usage: true } }));
    const text = events.map((event) => encoder.onEvent(event)).join('') + encoder.onEnd();
    expect(dataLines(text)).toEqual([
      { ...frame, choices: [{ index: 0, text: 'Claude heard: ', logprobs: null, finish_reason: null }], usage: null },
      { ...frame, choices: [{ index: 0, text: 'Say hi', logprobs: null, finish_reason: null }], usage: null },
      { ...frame, choices: [{ index: 0, text: '', logprobs: null, finish_reason: 'stop' }], usage: null },
      { ...frame, choices: [], usage: { prompt_tokens: 18, completion_tokens: 4, total_tokens: 22, prompt_tokens_details: { cached_tokens: 5 } } },
      '[DONE]',
    ]);
  });

  it('streams log probabilities with text offsets that run on across chunks', () => {
    const encoder = openaiCompletionsDialect.createStreamEncoder(decode({ stream: true, logprobs: 0 }));
    const stream: CanonicalEvent[] = [
      { type: 'start', id: 'g', model: 'gemini' },
      { type: 'text', text: 'Gemini heard:' },
      { type: 'logprobs', tokens: [{ token: 'Gemini', logprob: -0.5 }, { token: ' heard:', logprob: -1 }] },
      { type: 'text', text: ' Hi' },
      { type: 'logprobs', tokens: [{ token: ' Hi', logprob: -1.5 }] },
      { type: 'finish', reason: 'stop' },
    ];
    const chunks = dataLines(stream.map((event) => encoder.onEvent(event)).join('') + encoder.onEnd()) as ({ choices: { text: string; logprobs: { text_offset: number[] } | null }[] } | string)[];
    const offsets = chunks.flatMap((chunk) => (typeof chunk === 'string' ? [] : chunk.choices.flatMap((choice) => choice.logprobs?.text_offset ?? [])));
    expect(offsets).toEqual([0, 6, 13]);
    expect(chunks.flatMap((chunk) => (typeof chunk === 'string' ? [] : chunk.choices.map((choice) => choice.text))).join('')).toBe('Gemini heard: Hi');
    expect(chunks.at(-1)).toBe('[DONE]');
  });

  it('streams a fanned-out part on its own index and sums usage once in the tail', () => {
    const request = decode({ stream: true, n: 2, stream_options: { include_usage: true } });
    const encoder = openaiCompletionsDialect.createStreamEncoder(request, { index: 1, of: 2 });
    const part = dataLines(events.map((event) => encoder.onEvent(event)).join('') + encoder.onEnd()) as { choices: { index: number }[] }[];
    expect(part.map((chunk) => chunk.choices.map((choice) => choice.index))).toEqual([[1], [1], [1]]);
    expect(dataLines(openaiCompletionsDialect.fanOutTail!(request, { inputTokens: 36, outputTokens: 8 }))).toEqual([
      { id: '', object: 'text_completion', created, model: 'm', choices: [], usage: { prompt_tokens: 36, completion_tokens: 8, total_tokens: 44 } },
      '[DONE]',
    ]);
  });

  it('ends a failed stream with the contract’s error event and no [DONE]', () => {
    const encoder = openaiCompletionsDialect.createStreamEncoder(decode({ stream: true }));
    expect(encoder.onError(new GatewayError(502, 'api_error', 'boom', null, 'stream_interrupted', 'bedrock'))).toBe(
      'data: {"error":{"message":"boom","type":"api_error","param":null,"code":"stream_interrupted","provider":"bedrock"}}\n\n',
    );
  });
});
