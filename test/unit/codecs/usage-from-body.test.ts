// Usage read out of an answer as the client received it, in each client dialect's own shape, into
// canonical Usage: input tokens count every prompt token (cached ones included).
import { describe, expect, it } from 'vitest';
import { answeredModel, dialectOfPath, StreamUsage, usageFromBody } from '../../../src-main/codecs/usage-from-body.js';
import type { Usage } from '../../../src-main/codecs/canonical.js';

/** The answer reported no usage. */
const NO_USAGE = undefined;

const sse = (...events: Array<[string | null, unknown]>) =>
  events.map(([name, data]) => `${name ? `event: ${name}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`).join('');

/** Canonical usage with the counts an answer reported (null: not reported, so absent). */
const usage = (promptTokens: number, completionTokens: number, cacheReadTokens: number | null = null, cacheWriteTokens: number | null = null, reasoningTokens: number | null = null): Usage => ({
  inputTokens: promptTokens,
  outputTokens: completionTokens,
  ...(cacheReadTokens === null ? {} : { cacheReadTokens }),
  ...(cacheWriteTokens === null ? {} : { cacheWriteTokens }),
  ...(reasoningTokens === null ? {} : { reasoningTokens }),
});

const anthropicStream = sse(
  ['message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude', usage: { input_tokens: 11, cache_creation_input_tokens: 2, cache_read_input_tokens: 5, output_tokens: 1 } } }],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  ['ping', { type: 'ping' }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'the word "usage": {"output_tokens": 999}' } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 4 } }],
  ['message_stop', { type: 'message_stop' }],
);

const responsesUsage = { input_tokens: 30, output_tokens: 12, total_tokens: 42, input_tokens_details: { cached_tokens: 20 }, output_tokens_details: { reasoning_tokens: 8 } };
const responsesStream = sse(
  ['response.created', { type: 'response.created', sequence_number: 0, response: { id: 'resp_1', status: 'in_progress', usage: null } }],
  ['response.output_text.delta', { type: 'response.output_text.delta', sequence_number: 1, delta: '"usage": {"input_tokens": 999}' }],
  ['response.completed', { type: 'response.completed', sequence_number: 2, response: { id: 'resp_1', status: 'completed', usage: responsesUsage } }],
);

const cases: Array<{ name: string; dialect: string | null; stream: boolean; body: string; expected: Usage | undefined }> = [
  {
    name: 'Anthropic JSON message: input adds the cache writes and reads',
    dialect: 'anthropic-messages',
    stream: false,
    body: JSON.stringify({ type: 'message', content: [{ type: 'text', text: 'hi' }], usage: { input_tokens: 11, cache_creation_input_tokens: 2, cache_read_input_tokens: 5, output_tokens: 4 } }),
    expected: usage(18, 4, 5, 2),
  },
  {
    name: 'Anthropic JSON message without cache fields',
    dialect: 'anthropic-messages',
    stream: false,
    body: JSON.stringify({ type: 'message', usage: { input_tokens: 7, output_tokens: 3 } }),
    expected: usage(7, 3),
  },
  { name: 'Anthropic stream: message_start input, last message_delta output, text ignored', dialect: 'anthropic-messages', stream: true, body: anthropicStream, expected: usage(18, 4, 5, 2) },
  {
    name: 'Anthropic stream whose message_delta repeats the input side',
    dialect: 'anthropic-messages',
    stream: true,
    body: sse(
      ['message_start', { type: 'message_start', message: { usage: { input_tokens: 3, output_tokens: 1 } } }],
      ['message_delta', { type: 'message_delta', delta: {}, usage: { input_tokens: 9, cache_read_input_tokens: 1, output_tokens: 6 } }],
    ),
    expected: usage(10, 6, 1, null),
  },
  { name: 'Anthropic error body', dialect: 'anthropic-messages', stream: false, body: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'busy' } }), expected: NO_USAGE },
  { name: 'Responses JSON: cached and reasoning details', dialect: 'openai-responses', stream: false, body: JSON.stringify({ object: 'response', usage: responsesUsage }), expected: usage(30, 12, 20, null, 8) },
  {
    // The field Gatehouse writes in the Responses answers it translates (Codex reads it): read back, not lost.
    name: 'Responses JSON: cache writes',
    dialect: 'openai-responses',
    stream: false,
    body: JSON.stringify({ object: 'response', usage: { ...responsesUsage, input_tokens_details: { cached_tokens: 20, cache_write_tokens: 6 } } }),
    expected: usage(30, 12, 20, 6, 8),
  },
  { name: 'Responses stream: the response.completed usage', dialect: 'openai-responses', stream: true, body: responsesStream, expected: usage(30, 12, 20, null, 8) },
  {
    name: 'Responses stream cut before response.completed',
    dialect: 'openai-responses',
    stream: true,
    body: sse(['response.created', { type: 'response.created', response: { id: 'r', usage: null } }]),
    expected: NO_USAGE,
  },
  {
    name: 'Chat JSON with cached and reasoning details',
    dialect: 'openai-chat',
    stream: false,
    body: JSON.stringify({ choices: [], usage: { prompt_tokens: 50, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 32 }, completion_tokens_details: { reasoning_tokens: 4 } } }),
    expected: usage(50, 9, 32, null, 4),
  },
  {
    name: 'Chat stream: the last chunk with usage; a nested provider usage is not it',
    dialect: 'openai-chat',
    stream: true,
    body: sse(
      [null, { choices: [{ delta: { content: 'hi' } }], x_groq: { usage: { prompt_tokens: 999 } } }],
      [null, { choices: [], usage: { prompt_tokens: 5, completion_tokens: 3 } }],
      [null, '[DONE]'],
    ),
    expected: usage(5, 3),
  },
  {
    name: 'Chat stream with "usage": null in every chunk, a running count, then the final one, then a null again: the final one',
    dialect: 'openai-chat',
    stream: true,
    body: sse(
      [null, { choices: [{ delta: { content: 'a' } }], usage: null }],
      [null, { choices: [{ delta: { content: 'b' } }], usage: { prompt_tokens: 5, completion_tokens: 1 } }],
      [null, { choices: [{ delta: { content: 'c' } }], usage: null }],
      [null, { choices: [], usage: { prompt_tokens: 5, completion_tokens: 3 } }],
      [null, { choices: [{ delta: {}, finish_reason: 'stop' }], usage: null }],
      [null, '[DONE]'],
    ),
    expected: usage(5, 3),
  },
  {
    name: 'OpenAI stream of 5,000 chunks ending without a newline; "usage" in a comment and an event name is not data',
    dialect: 'openai-chat',
    stream: true,
    body:
      ': the "usage" comes last\n\n' +
      'event: "usage"\ndata: {"choices":[{"delta":{"content":"a"}}]}\n\n'.repeat(5_000) +
      'data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":5000}}',
    expected: usage(9, 5000),
  },
  { name: 'Completions JSON, no dialect known: read as OpenAI', dialect: null, stream: false, body: JSON.stringify({ usage: { prompt_tokens: 2, completion_tokens: 1 } }), expected: usage(2, 1) },
  { name: 'A body that is not JSON', dialect: 'openai-completions', stream: false, body: '{"usage": {"prompt_tok', expected: NO_USAGE },
  { name: 'Anthropic body read as the wrong dialect finds nothing', dialect: 'openai-chat', stream: false, body: JSON.stringify({ usage: { input_tokens: 7, output_tokens: 3 } }), expected: NO_USAGE },
];

describe('usageFromBody', () => {
  it.each(cases)('$name', ({ body, stream, dialect, expected }) => {
    expect(usageFromBody(body, stream, dialect)).toEqual(expected);
  });
});

// The passthrough relay reads an SSE stream's usage as it passes (relay/passthrough.ts): the same figures as
// the whole text read at the end, however the stream is cut into pieces.
describe('StreamUsage', () => {
  const streamed = cases.filter(({ stream, body }) => stream && !body.trimStart().startsWith('['));
  const read = (body: string, dialect: string | null, size: number) => {
    const reader = new StreamUsage(dialect, 16 * 1024 * 1024);
    for (let at = 0; at < body.length; at += size) reader.feed(body.slice(at, at + size));
    return reader.end();
  };
  it.each(streamed)('$name', ({ body, dialect, expected }) => {
    for (const size of [1, 7, 64, body.length]) expect(read(body, dialect, size), `in pieces of ${size}`).toEqual(expected);
  });
  it('gives up, with no usage, on an event over its bound rather than holding it', () => {
    const reader = new StreamUsage('openai-chat', 1024);
    reader.feed(`data: {"usage":{"prompt_tokens":1,"completion_tokens":1},"x":"${'a'.repeat(2048)}`);
    reader.feed('"}\n\n');
    expect(reader.end()).toBeUndefined();
  });
});

// Moved from the request log's tests (store/request-log-dialects.test.ts), where the log read usage from
// the body itself: the gateway now hands every row the usage this reader finds, in the row's five columns.
describe('usage for the request log', () => {
  const anthropicStream = [
    'event: message_start',
    `data: ${JSON.stringify({ type: 'message_start', message: { usage: { input_tokens: 11, cache_creation_input_tokens: 2, cache_read_input_tokens: 5, output_tokens: 1 } } })}`,
    '',
    'event: message_delta',
    `data: ${JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } })}`,
    '',
  ].join('\n');
  /** A row's usage columns, as the gateway fills them (gateway/call-recording.ts). */
  const row = (read: Usage | undefined, dialect: string | null) => ({
    dialect,
    promptTokens: read?.inputTokens ?? null,
    completionTokens: read?.outputTokens ?? null,
    cacheReadTokens: read?.cacheReadTokens ?? null,
    cacheWriteTokens: read?.cacheWriteTokens ?? null,
    reasoningTokens: read?.reasoningTokens ?? null,
  });
  const read = (body: string, stream: boolean, dialect: string | null) => row(usageFromBody(body, stream, dialect), dialect);

  it('follows the client dialect: an Anthropic stream adds cache reads and writes into the prompt', () => {
    expect(read(anthropicStream, true, 'anthropic-messages')).toMatchObject({ promptTokens: 18, completionTokens: 4, cacheReadTokens: 5, cacheWriteTokens: 2, reasoningTokens: null });
    const responses = JSON.stringify({ object: 'response', usage: { input_tokens: 30, output_tokens: 12, input_tokens_details: { cached_tokens: 20 }, output_tokens_details: { reasoning_tokens: 8 } } });
    expect(read(responses, false, 'openai-responses')).toMatchObject({ promptTokens: 30, completionTokens: 12, cacheReadTokens: 20, cacheWriteTokens: null, reasoningTokens: 8 });
    // No dialect handed over: the path says Messages.
    expect(read(JSON.stringify({ type: 'message', usage: { input_tokens: 7, output_tokens: 3 } }), false, dialectOfPath('/v1/messages'))).toMatchObject({ dialect: 'anthropic-messages', promptTokens: 7, completionTokens: 3 });
  });

  it('reads an OpenAI answer of a caller that names no dialect, by its path', () => {
    const old = { dialect: 'openai-chat', promptTokens: 3, completionTokens: 4, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null };
    expect(read('{"usage":{"prompt_tokens":3,"completion_tokens":4}}', false, dialectOfPath('/v1/chat/completions'))).toMatchObject(old);
  });
});

describe('dialectOfPath', () => {
  it.each([
    ['/v1/chat/completions', 'openai-chat'],
    ['/v1/completions', 'openai-completions'],
    ['/v1/messages', 'anthropic-messages'],
    ['/v1/messages?beta=true', 'anthropic-messages'],
    ['/v1/responses', 'openai-responses'],
    ['/v1/models', null],
    ['/v1/messages/count_tokens', null],
  ])('%s → %s', (path, dialect) => {
    expect(dialectOfPath(path)).toBe(dialect);
  });
});

describe('the model an OpenAI answer says served it', () => {
  it('is the whole answer’s, or in a stream the model of the last chunk that carries usage', () => {
    expect(answeredModel(JSON.stringify({ model: 'gpt-4o-2024-08-06', usage: { prompt_tokens: 1 } }), false)).toBe('gpt-4o-2024-08-06');
    const stream = sse(
      [null, { model: 'router-a', choices: [{ delta: { content: 'a' } }], usage: null }],
      [null, { model: 'router-b', choices: [], usage: { prompt_tokens: 5, completion_tokens: 3 } }],
      [null, { model: 'router-c', choices: [{ delta: {}, finish_reason: 'stop' }], usage: null }],
      [null, '[DONE]'],
    );
    expect(answeredModel(stream, true)).toBe('router-b');
    expect(answeredModel(sse([null, { model: 'x', choices: [] }]), true)).toBeNull();
  });
});
