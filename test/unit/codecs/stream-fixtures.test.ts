// Recorded provider streams (test/fixtures/streams/<format>/<feature>.chunks.txt, one wire event a line)
// replayed through each format's stream decoder: what a client would see of the answer — its text, reasoning,
// tool calls with their arguments, usage and finish — or the error the provider sent mid-stream.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { foldEvents, type CanonicalAnswer, type CanonicalEvent, type CanonicalRequest, type WireFormat } from '../../../src-main/codecs/canonical.js';
import { providerCodec } from '../../../src-main/codecs/registry.js';
import { ProviderStreamError } from '../../../src-main/core/provider-stream-error.js';

const request: CanonicalRequest = { dialect: 'openai-chat', onUnsupported: 'refuse', model: 'asked-model', system: [], turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], stream: true, extensions: {} };

const wireEvents = (format: WireFormat, feature: string): string[] =>
  readFileSync(new URL(`../../fixtures/streams/${format}/${feature}.chunks.txt`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');

/** Every event of the recording through one decoder, then its end, folded into the answer. */
function replay(format: WireFormat, feature: string): CanonicalAnswer {
  const decoder = providerCodec(format).createStreamDecoder(request);
  const events: CanonicalEvent[] = [];
  for (const data of wireEvents(format, feature)) events.push(...decoder.onEvent({ kind: 'sse', data }));
  events.push(...decoder.onEnd());
  return foldEvents(events, { id: 'fallback', model: request.model });
}

/** The error a recording ends in, as the decoder throws it. */
function replayError(format: WireFormat, feature: string): ProviderStreamError {
  try {
    replay(format, feature);
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderStreamError);
    return error as ProviderStreamError;
  }
  throw new Error('expected the stream to fail');
}

const text = (answer: CanonicalAnswer): string => answer.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
const reasoning = (answer: CanonicalAnswer): string => answer.content.flatMap((part) => (part.type === 'reasoning' ? [part.text] : [])).join('');
const toolCalls = (answer: CanonicalAnswer) => answer.content.flatMap((part) => (part.type === 'tool_call' ? [{ id: part.id, name: part.name, arguments: JSON.parse(part.arguments) as unknown }] : []));

describe('openai-chat recordings', () => {
  it('text (OpenAI): every content piece in order, the usage chunk after the finish', () => {
    const answer = replay('openai-chat', 'text');
    expect(answer).toMatchObject({ id: 'chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0', model: 'gpt-4.1-nano-2025-04-14', finishReason: 'stop' });
    expect(text(answer)).toMatch(/^\*\*Holiday Name:\*\* Harmony Day\n\n\*\*Date:\*\*/);
    expect(text(answer)).toMatch(/xperiences and mutual respect\.$/);
    expect(text(answer)).toHaveLength(1724);
    expect(answer.usage).toEqual({ inputTokens: 16, outputTokens: 300, cacheReadTokens: 0, reasoningTokens: 0 });
  });

  it('tools (DeepSeek): reasoning first, then one call whose arguments arrive in pieces', () => {
    const answer = replay('openai-chat', 'tools');
    expect(reasoning(answer)).toMatch(/^The user is asking for the wea/);
    expect(text(answer)).toBe('');
    expect(toolCalls(answer)).toEqual([{ id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', name: 'weather', arguments: { location: 'San Francisco' } }]);
    expect(answer.finishReason).toBe('tool_calls');
    expect(answer.usage).toEqual({ inputTokens: 339, outputTokens: 83, cacheReadTokens: 320, reasoningTokens: 39 });
  });

  it('reasoning (DeepSeek reasoning_content): the thinking, then the answer, apart', () => {
    const answer = replay('openai-chat', 'reasoning');
    expect(answer.content.map((part) => part.type)).toEqual(['reasoning', 'text']);
    expect(reasoning(answer)).toMatch(/^We need to count the number of/);
    expect(reasoning(answer)).toHaveLength(606);
    expect(text(answer)).toBe('The word "strawberry" contains three "r"s.');
    expect(answer.usage).toEqual({ inputTokens: 18, outputTokens: 219, cacheReadTokens: 0, reasoningTokens: 205 });
  });

  it('usage (Azure): a prompt-filter chunk with no id first, reasoning tokens in the last chunk', () => {
    const answer = replay('openai-chat', 'usage');
    expect(text(answer)).toBe('Capital of Denmark.');
    expect(answer.finishReason).toBe('stop');
    expect(answer.usage).toEqual({ inputTokens: 15, outputTokens: 78, cacheReadTokens: 0, reasoningTokens: 64 });
  });

  it('usage on the finish chunk (Groq): a whole call in one delta, the usage beside the finish', () => {
    const answer = replay('openai-chat', 'usage-on-finish');
    expect(toolCalls(answer)).toEqual([{ id: 'tk85n1k4m', name: 'weather', arguments: {} }]);
    expect(answer).toMatchObject({ model: 'llama-3.3-70b-versatile', finishReason: 'tool_calls', usage: { inputTokens: 210, outputTokens: 15 } });
  });

  it('an error mid-stream (OpenAI): the provider’s message and type, after the text so far', () => {
    const error = replayError('openai-chat', 'error');
    expect(error.message).toBe('The server had an error while processing your request. Sorry about that!');
    expect(error.type).toBe('api_error');
    expect(error.code).toBe('server_error');
  });
});

describe('openai-responses recordings', () => {
  it('text (Azure OpenAI): the text deltas, the id and model of the response, its usage', () => {
    const answer = replay('openai-responses', 'text');
    expect(answer).toMatchObject({ id: 'resp_02ce8deeb6197db200698c5196e9588197a572bbea62d38cd1', model: 'gpt-5.1', finishReason: 'stop' });
    expect(text(answer)).toBe('Hello');
    expect(answer.usage).toEqual({ inputTokens: 11, outputTokens: 11, cacheReadTokens: 0, reasoningTokens: 0 });
  });

  it('tools (Azure OpenAI): one call, its arguments from six deltas', () => {
    const answer = replay('openai-responses', 'tools');
    expect(toolCalls(answer)).toEqual([{ id: 'call_H5DxLSFnsGhiROnUiDHmgyc8', name: 'weather', arguments: { location: 'San Francisco' } }]);
    expect(answer.finishReason).toBe('tool_calls');
    expect(answer.usage).toEqual({ inputTokens: 45, outputTokens: 24, cacheReadTokens: 0, reasoningTokens: 0 });
  });

  it('reasoning (OpenAI): the summary, the encrypted reasoning to send back, then a call', () => {
    const answer = replay('openai-responses', 'reasoning');
    expect(answer.content.map((part) => part.type)).toEqual(['reasoning', 'reasoning', 'tool_call']);
    expect(reasoning(answer)).toMatch(/^\*\*Calculating step-by-step using calcula/);
    expect(reasoning(answer)).toHaveLength(163);
    const encrypted = answer.content[1];
    expect(encrypted.type === 'reasoning' && encrypted.encrypted).toHaveLength(1060);
    expect(toolCalls(answer)).toEqual([{ id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn', name: 'calculator', arguments: { a: 12, b: 7, op: 'add' } }]);
    expect(answer.finishReason).toBe('tool_calls');
  });

  it('an error mid-stream (OpenAI): the error event’s message, type and code', () => {
    const error = replayError('openai-responses', 'error');
    expect(error.message).toMatch(/^You exceeded your current quota/);
    expect(error.type).toBe('insufficient_quota');
    expect(error.code).toBe('insufficient_quota');
  });

  it('usage (OpenAI, two message phases): cached and reasoning tokens', () => {
    const answer = replay('openai-responses', 'usage');
    expect(answer.model).toBe('gpt-5.3-codex');
    expect(text(answer)).toBe('Got itHere are a few **AI');
    expect(answer.usage).toEqual({ inputTokens: 7112, outputTokens: 463, cacheReadTokens: 3072, reasoningTokens: 64 });
  });
});
