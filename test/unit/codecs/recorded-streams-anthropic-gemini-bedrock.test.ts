// Recorded provider streams (test/fixtures/streams/<format>/<feature>.chunks.txt: one wire event per line, as
// Anthropic, Google and Bedrock sent them) replayed through each format's stream decoder: the canonical answer
// a client would get — its text, tool calls with their arguments, reasoning, usage figures, or the error.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { foldEvents, type CanonicalAnswer, type CanonicalEvent, type CanonicalRequest, type UpstreamEvent, type WireFormat } from '../../../src-main/codecs/canonical.js';
import { providerCodec } from '../../../src-main/codecs/registry.js';

const REQUEST: CanonicalRequest = { dialect: 'openai-chat', onUnsupported: 'drop', model: 'asked-model', system: [], turns: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }], stream: true, extensions: {} };

const lines = (format: string, feature: string): string[] =>
  readFileSync(new URL(`../../fixtures/streams/${format}/${feature}.chunks.txt`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');

/**
 * A line as the upstream event the gateway's readers hand a decoder: SSE data, or for Bedrock one AWS
 * event-stream frame (the fixtures write a frame as `{"<event or exception type>": payload}`, as the AWS SDK does).
 */
function upstreamEvent(format: WireFormat, line: string): UpstreamEvent {
  if (format !== 'bedrock-converse') return { kind: 'sse', data: line };
  const [[type, payload]] = Object.entries(JSON.parse(line) as Record<string, unknown>);
  const kind: Record<string, string> = type.endsWith('Exception') ? { ':message-type': 'exception', ':exception-type': type } : { ':message-type': 'event', ':event-type': type };
  return { kind: 'frame', headers: { ...kind, ':content-type': 'application/json' }, payload: Buffer.from(JSON.stringify(payload)) };
}

/** The answer folded from every event before the stream ended, and the error it ended with, if any. */
function replay(format: WireFormat, feature: string): { answer: CanonicalAnswer; error?: unknown } {
  const decoder = providerCodec(format).createStreamDecoder(REQUEST);
  const events: CanonicalEvent[] = [];
  let error: unknown;
  try {
    for (const line of lines(format, feature)) events.push(...decoder.onEvent(upstreamEvent(format, line)));
    events.push(...decoder.onEnd());
  } catch (thrown) {
    error = thrown;
  }
  return { answer: foldEvents(events, { id: 'none', model: 'none' }), error };
}

const textOf = (answer: CanonicalAnswer): string => answer.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
const reasoningOf = (answer: CanonicalAnswer): string => answer.content.flatMap((part) => (part.type === 'reasoning' ? [part.text] : [])).join('');
const callsOf = (answer: CanonicalAnswer) => answer.content.filter((part) => part.type === 'tool_call');

describe('anthropic-messages: recorded streams', () => {
  it('text: the words in order, the id and model, end_turn, and the final usage', () => {
    const { answer, error } = replay('anthropic-messages', 'text');
    expect(error).toBeUndefined();
    expect(answer).toMatchObject({ id: 'msg_01QC4g3HwBThD4BaNtBckFDJ', model: 'claude-sonnet-4-5-20250929', finishReason: 'stop' });
    expect(textOf(answer)).toBe("Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?");
    expect(answer.usage).toEqual({ inputTokens: 12, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('tools: one call with its input_json_delta pieces joined into JSON arguments', () => {
    const { answer, error } = replay('anthropic-messages', 'tools');
    expect(error).toBeUndefined();
    expect(callsOf(answer)).toEqual([{ type: 'tool_call', id: 'toolu_01KFbKqPYSuAKujiL6mTfzYA', name: 'json', arguments: '{"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]}' }]);
    expect(JSON.parse(callsOf(answer)[0].arguments)).toEqual({ elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] });
    expect(answer).toMatchObject({ finishReason: 'tool_calls', usage: { inputTokens: 849, outputTokens: 47 } });
  });

  it('thinking: the thought, signed, then the answer', () => {
    const { answer, error } = replay('anthropic-messages', 'thinking');
    expect(error).toBeUndefined();
    expect(answer.content.map((part) => part.type)).toEqual(['reasoning', 'text']);
    expect(reasoningOf(answer)).toBe('The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185');
    expect(answer.content[0]).toHaveProperty('signature', expect.stringMatching(/^EvQBCkYICxgCKkAx/));
    expect(textOf(answer)).toBe('925 ÷ 5 = 185');
    expect(answer.usage).toMatchObject({ inputTokens: 69, outputTokens: 53 });
  });

  it('usage: cache reads and writes from message_delta count into the input; server tool blocks are not client tool calls', () => {
    const { answer, error } = replay('anthropic-messages', 'usage');
    expect(error).toBeUndefined();
    expect(answer.usage).toEqual({ inputTokens: 6 + 3337 + 6289, outputTokens: 198, cacheReadTokens: 6289, cacheWriteTokens: 3337 });
    expect(callsOf(answer)).toEqual([]);
    expect(answer.finishReason).toBe('stop');
  });

  it('error: the text before it arrives, then the stream ends with overloaded_error', () => {
    const { answer, error } = replay('anthropic-messages', 'error');
    expect(textOf(answer)).toBe('Hello');
    expect(error).toMatchObject({ message: 'Overloaded', type: 'api_error', code: 'overloaded_error' });
  });
});

describe('gemini: recorded streams', () => {
  it('text: the fragments in order, the response id and model version, STOP, and thinking tokens counted as output', () => {
    const { answer, error } = replay('gemini', 'text');
    expect(error).toBeUndefined();
    expect(answer).toMatchObject({ id: 'bH6LaZW8Fp_3nsEPqtaSwQ4', model: 'gemini-3-pro-preview', finishReason: 'stop' });
    expect(textOf(answer)).toBe('There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y');
    expect(answer.usage).toEqual({ inputTokens: 9, outputTokens: 23 + 185, reasoningTokens: 185 });
  });

  it('tools: a whole functionCall becomes one call with its args as JSON, and STOP after a call reads as tool_calls', () => {
    const { answer, error } = replay('gemini', 'tools');
    expect(error).toBeUndefined();
    expect(callsOf(answer)).toEqual([{ type: 'tool_call', id: expect.any(String), name: 'weather', arguments: '{"location":"San Francisco"}' }]);
    expect(answer.content[0]).toMatchObject({ type: 'reasoning', signature: expect.stringMatching(/^EqUCCqICAb4/) });
    expect(answer).toMatchObject({ finishReason: 'tool_calls', usage: { inputTokens: 29, outputTokens: 15 + 45, reasoningTokens: 45 } });
  });

  it('thinking: the thought summary is reasoning, its signature rides on the call after it, a call without args has {}', () => {
    const { answer, error } = replay('gemini', 'thinking');
    expect(error).toBeUndefined();
    expect(answer.content.map((part) => part.type)).toEqual(['reasoning', 'tool_call']);
    expect(reasoningOf(answer)).toMatch(/^\*\*Processing User Requests\*\*\n\nI've started/);
    expect(answer.content[0]).toHaveProperty('signature', expect.stringMatching(/^AY89a18a8/));
    expect(callsOf(answer)[0]).toMatchObject({ name: 'read_theme', arguments: '{}' });
    expect(answer).toMatchObject({ finishReason: 'tool_calls', usage: { inputTokens: 249, outputTokens: 58 + 183, reasoningTokens: 183 } });
  });

  it('usage: the last usageMetadata wins over the earlier ones', () => {
    const { answer, error } = replay('gemini', 'usage');
    expect(error).toBeUndefined();
    expect(textOf(answer)).toBe('There are **3** "r"s in strawberry.\n\nSt**r**awbe**rr**y');
    expect(answer.usage).toEqual({ inputTokens: 9, outputTokens: 23 + 302, reasoningTokens: 302 });
  });

  it('error: a google.rpc.Status in the stream ends it as a rate limit, keeping the status name', () => {
    const { answer, error } = replay('gemini', 'error');
    expect(textOf(answer)).toBe('There are **3**');
    expect(error).toMatchObject({ message: 'You exceeded your current quota, please check your plan.', type: 'rate_limit_error', code: 'RESOURCE_EXHAUSTED' });
  });
});

describe('bedrock-converse: recorded streams', () => {
  it('text: the deltas in order, end_turn, and the metadata frame’s usage', () => {
    const { answer, error } = replay('bedrock-converse', 'text');
    expect(error).toBeUndefined();
    expect(textOf(answer)).toBe('Let me count the "r"s in "strawberry":\n\ns-t-**r**-a-w-b-e-**r**-**r**-y\n\nThere are **3** r\'s in "strawberry."');
    expect(answer).toMatchObject({ finishReason: 'stop', usage: { inputTokens: 22, outputTokens: 55 } });
  });

  it('tools: three calls between two texts, each with its id, name and input', () => {
    const { answer, error } = replay('bedrock-converse', 'tools');
    expect(error).toBeUndefined();
    expect(callsOf(answer)).toEqual([
      { type: 'tool_call', id: 'tool-1', name: 'tool-a', arguments: '{"a":"1"}' },
      { type: 'tool_call', id: 'tool-2', name: 'tool-b', arguments: '{"b":"2"}' },
      { type: 'tool_call', id: 'json-tool-id', name: 'json', arguments: '{"final":"result"}' },
    ]);
    expect(answer.content.map((part) => part.type)).toEqual(['text', 'tool_call', 'tool_call', 'text', 'tool_call']);
    expect(answer.finishReason).toBe('tool_calls');
  });

  it('thinking: reasoning deltas joined and signed, then the answer text', () => {
    const { answer, error } = replay('bedrock-converse', 'thinking');
    expect(error).toBeUndefined();
    expect(answer.content.map((part) => part.type)).toEqual(['reasoning', 'text']);
    expect(reasoningOf(answer)).toBe('Let me count the r\'s in "strawberry":\n\ns-t-r-a-w-b-e-r-r-y\n\nr appears at positions 3, 8, and 9.\n\nSo there are 3 r\'s.');
    expect(answer.content[0]).toHaveProperty('signature', expect.stringMatching(/^Ep0CCkgICxAB/));
    expect(answer).toMatchObject({ finishReason: 'stop', usage: { inputTokens: 51, outputTokens: 94 } });
  });

  it('usage: a metadata frame before messageStop still gives the usage, and a call with no input has empty arguments', () => {
    const { answer, error } = replay('bedrock-converse', 'usage');
    expect(error).toBeUndefined();
    expect(answer.usage).toEqual({ inputTokens: 100, outputTokens: 25 });
    expect(callsOf(answer)).toEqual([{ type: 'tool_call', id: 'tool-use-id', name: 'updateIssueList', arguments: '' }]);
    expect(answer.finishReason).toBe('tool_calls');
  });

  it('error: an exception frame ends the stream with its message, keeping the exception’s name', () => {
    const { answer, error } = replay('bedrock-converse', 'error');
    expect(textOf(answer)).toBe('Let me count the "');
    expect(error).toMatchObject({ message: 'Internal Server Error', type: 'api_error', code: 'internalServerException' });
  });
});

describe('tool arguments as the provider sent them', () => {
  const args = '{"city":"Paris","__proto__":{"admin":true}}';
  it('keep every key, `__proto__` too (schemas check the object, they do not copy it)', () => {
    const anthropic = providerCodec('anthropic-messages').decodeResponse(JSON.parse(`{"content":[{"type":"tool_use","id":"t1","name":"f","input":${args}}],"stop_reason":"tool_use"}`), REQUEST);
    const gemini = providerCodec('gemini').decodeResponse(JSON.parse(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":${args}}}]},"finishReason":"STOP"}]}`), REQUEST);
    const bedrock = providerCodec('bedrock-converse').decodeResponse(JSON.parse(`{"output":{"message":{"content":[{"toolUse":{"toolUseId":"t1","name":"f","input":${args}}}]}},"stopReason":"tool_use"}`), REQUEST);
    for (const answer of [anthropic, gemini, bedrock]) expect(callsOf(answer)[0].arguments).toBe(args);
  });
});
