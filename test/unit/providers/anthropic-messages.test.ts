import { describe, expect, it } from 'vitest';
import {
  buildMessagesBody,
  createMessagesStreamTranslator,
  mapMessagesError,
  mapMessagesResponse,
  mapStopReason,
} from '../../../src-main/gateway/providers/anthropic-messages.js';
import { ProviderStreamError } from '../../../src-main/gateway/providers/types.js';
import { GatewayError } from '../../../src-main/gateway/errors.js';
import { chatCall, completionCall } from './call.js';

const sse = (data: object) => ({ kind: 'sse' as const, event: (data as { type: string }).type, data: JSON.stringify(data) });

describe('buildMessagesBody', () => {
  it('defaults max_tokens to 16 for a completion and 4096 for a chat', () => {
    expect(buildMessagesBody(completionCall({ model: 'm', prompt: 'p' }), 'anthropic').max_tokens).toBe(16);
    expect(buildMessagesBody(chatCall({ model: 'm', messages: [{ role: 'user', content: 'x' }] }), 'anthropic').max_tokens).toBe(4096);
  });

  it('keeps an explicit max_tokens of 0 rather than replacing it', () => {
    expect(buildMessagesBody(completionCall({ model: 'm', prompt: 'p', max_tokens: 0 }), 'anthropic').max_tokens).toBe(0);
  });

  it('accepts a temperature of exactly 1 and refuses anything above', () => {
    expect(buildMessagesBody(completionCall({ model: 'm', prompt: 'p', temperature: 1 }), 'anthropic').temperature).toBe(1);
    expect(() => buildMessagesBody(completionCall({ model: 'm', prompt: 'p', temperature: 1.01 }), 'anthropic')).toThrow(GatewayError);
  });

  it('names the refused field and the provider in param, message and error.provider', () => {
    try {
      buildMessagesBody(completionCall({ model: 'm', prompt: 'p', logprobs: 0 }), 'anthropic');
      expect.unreachable();
    } catch (error) {
      const body = (error as GatewayError).toBody();
      expect((error as GatewayError).status).toBe(400);
      expect(body.error).toMatchObject({ type: 'invalid_request_error', param: 'logprobs', code: 'unsupported_parameter', provider: 'anthropic' });
      expect(body.error.message).toMatch(/'logprobs'.*'anthropic'/);
    }
  });

  it('refuses a chat field sent to /v1/completions rather than leaving it unread', () => {
    expect(() => buildMessagesBody(completionCall({ model: 'm', prompt: 'p', max_completion_tokens: 5 }), 'anthropic')).toThrow(/'max_completion_tokens'/);
    expect(() => buildMessagesBody(completionCall({ model: 'm', prompt: 'p', messages: [] }), 'anthropic')).toThrow(/'messages'/);
  });

  it('takes a one-element prompt array as the prompt', () => {
    expect(buildMessagesBody(completionCall({ model: 'm', prompt: ['only one'] }), 'anthropic').messages).toEqual([{ role: 'user', content: 'only one' }]);
  });

  it('refuses a null prompt, which a chat API cannot express', () => {
    expect(() => buildMessagesBody(completionCall({ model: 'm', prompt: null }), 'anthropic')).toThrow(/'prompt'/);
  });

  it('refuses tool messages and messages with a name', () => {
    expect(() => buildMessagesBody(chatCall({ model: 'm', messages: [{ role: 'tool', content: 'x', tool_call_id: '1' }] }), 'anthropic')).toThrow(/messages\[0\]/);
    expect(() => buildMessagesBody(chatCall({ model: 'm', messages: [{ role: 'user', content: 'x', name: 'bob' }] }), 'anthropic')).toThrow(/messages\[0\]\.name/);
  });
});

describe('mapStopReason', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    [null, null],
  ])('maps %s to %s', (stopReason, finishReason) => {
    expect(mapStopReason(stopReason)).toBe(finishReason);
  });
});

describe('mapMessagesResponse', () => {
  it('joins text blocks, skips thinking blocks and counts cached tokens as prompt tokens', () => {
    const answer = mapMessagesResponse(chatCall({ model: 'alias', messages: [{ role: 'user', content: 'x' }] }), {
      id: 'msg_1',
      model: 'claude-real',
      content: [{ type: 'thinking', thinking: 'hmm' }, { type: 'text', text: 'Hello' }, { type: 'text', text: ' world' }],
      stop_reason: 'max_tokens',
      usage: { input_tokens: 3, cache_creation_input_tokens: 10, cache_read_input_tokens: 20, output_tokens: 7 },
    });
    expect(answer).toMatchObject({
      id: 'msg_1',
      object: 'chat.completion',
      model: 'claude-real',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello world' }, finish_reason: 'length' }],
      usage: { prompt_tokens: 33, completion_tokens: 7, total_tokens: 40, prompt_tokens_details: { cached_tokens: 20 } },
    });
  });
});

describe('createMessagesStreamTranslator', () => {
  const start = sse({ type: 'message_start', message: { id: 'msg_s', model: 'claude-x', usage: { input_tokens: 5, output_tokens: 1 } } });

  it('maps text deltas, ignores pings and thinking, and emits finish then usage', () => {
    const translator = createMessagesStreamTranslator(completionCall({ model: 'm', prompt: 'p', stream: true, stream_options: { include_usage: true } }));
    const out = [
      ...translator.onEvent(start),
      ...translator.onEvent(sse({ type: 'ping' })),
      ...translator.onEvent(sse({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'secret' } })),
      ...translator.onEvent(sse({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hi' } })),
      ...translator.onEvent(sse({ type: 'message_delta', delta: { stop_reason: 'stop_sequence' }, usage: { output_tokens: 9 } })),
      ...translator.onEvent(sse({ type: 'message_stop' })),
      ...translator.onEnd(),
    ];
    expect(out).toEqual([
      { id: 'msg_s', object: 'text_completion', created: expect.any(Number), model: 'claude-x', choices: [{ index: 0, text: 'Hi', logprobs: null, finish_reason: null }], usage: null },
      { id: 'msg_s', object: 'text_completion', created: expect.any(Number), model: 'claude-x', choices: [{ index: 0, text: '', logprobs: null, finish_reason: 'stop' }], usage: null },
      { id: 'msg_s', object: 'text_completion', created: expect.any(Number), model: 'claude-x', choices: [], usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 } },
    ]);
  });

  it('starts a chat stream with the assistant role and ends with an empty delta carrying finish_reason', () => {
    const translator = createMessagesStreamTranslator(chatCall({ model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true }));
    const first = translator.onEvent(start);
    expect(first).toEqual([expect.objectContaining({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] })]);
    expect(first[0]).not.toHaveProperty('usage');
    const last = translator.onEvent(sse({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }));
    expect(last).toEqual([expect.objectContaining({ choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }] })]);
  });

  it('throws a ProviderStreamError for an error event, keeping message and type', () => {
    const translator = createMessagesStreamTranslator(completionCall({ model: 'm', prompt: 'p', stream: true }));
    translator.onEvent(start);
    expect(() => translator.onEvent(sse({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }))).toThrow(
      expect.objectContaining({ message: 'Overloaded', type: 'api_error', code: 'overloaded_error' }),
    );
  });

  it('reports a stream that ended before message_stop', () => {
    const translator = createMessagesStreamTranslator(completionCall({ model: 'm', prompt: 'p', stream: true }));
    translator.onEvent(start);
    expect(() => translator.onEnd()).toThrow(ProviderStreamError);
  });
});

describe('mapMessagesError', () => {
  it('keeps the message and the Anthropic error type as code', () => {
    expect(mapMessagesError(401, JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }))).toEqual({
      message: 'invalid x-api-key',
      type: 'authentication_error',
      code: 'authentication_error',
    });
  });

  it('keeps a body that is not JSON as the message', () => {
    expect(mapMessagesError(502, '<html>Bad gateway</html>')).toMatchObject({ message: '<html>Bad gateway</html>', type: 'gateway_error' });
  });
});
