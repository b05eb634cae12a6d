// Provider answers are read through each format's schema: a field of the wrong type is an error that names
// the field (never its value), a type or field the codec does not know passes untouched.
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest, WireFormat } from '../../../src-main/codecs/canonical.js';
import { providerCodec } from '../../../src-main/codecs/registry.js';
import { ProviderStreamError } from '../../../src-main/core/provider-stream-error.js';

const request: CanonicalRequest = { dialect: 'openai-chat', onUnsupported: 'refuse', model: 'm', system: [], turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], stream: false, extensions: {} };

function thrown(run: () => unknown): ProviderStreamError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderStreamError);
    return error as ProviderStreamError;
  }
  throw new Error('expected a ProviderStreamError');
}

const decodeAnswer = (format: WireFormat, json: unknown) => providerCodec(format).decodeResponse(json, request);
const decodeEvents = (format: WireFormat, events: object[]) => {
  const decoder = providerCodec(format).createStreamDecoder(request);
  return events.flatMap((event) => decoder.onEvent({ kind: 'sse', data: JSON.stringify(event) }));
};

describe('openai-chat schema', () => {
  it('a whole answer with a field of the wrong type: bad_provider_response naming the field, not its value', () => {
    const error = thrown(() => decodeAnswer('openai-chat', { choices: [{ index: 0, message: { content: 'x', tool_calls: [{ id: 'c', function: { name: 7, arguments: '{}' } }] }, finish_reason: 'stop' }] }));
    expect(error.code).toBe('bad_provider_response');
    expect(error.message).toContain("'choices[0].message.tool_calls[0].function.name'");
    expect(error.message).not.toContain('7');
  });

  it('a chunk with a field of the wrong type: the stream error a chunk that is not JSON gives', () => {
    const error = thrown(() => decodeEvents('openai-chat', [{ choices: [{ index: 0, delta: { content: 'ok' } }] }, { choices: [{ index: 0, delta: { tool_calls: [{ index: 'first' }] } }] }]));
    expect(error.code).toBe('bad_provider_stream');
    expect(error.message).toContain("'choices[0].delta.tool_calls[0].index'");
  });

  it('fields no schema names (Groq’s x_groq, Azure’s content_filter_results) pass untouched', () => {
    const answer = decodeAnswer('openai-chat', { id: 'a', x_groq: { id: 1 }, choices: [{ index: 0, content_filter_results: [], message: { content: 'Hi', annotations: 5 }, finish_reason: 'stop' }] });
    expect(answer.content).toEqual([{ type: 'text', text: 'Hi' }]);
  });
});

describe('openai-responses schema', () => {
  it('a Response whose read item has a field of the wrong type: bad_provider_response naming the item', () => {
    const error = thrown(() => decodeAnswer('openai-responses', { id: 'r', status: 'completed', output: [{ type: 'web_search_call', id: 'w' }, { type: 'function_call', call_id: 'c', name: 'f', arguments: { a: 1 } }] }));
    expect(error.code).toBe('bad_provider_response');
    expect(error.message).toContain("'output[1].arguments'");
  });

  it('an event the codec reads with a field of the wrong type: the stream error a non-JSON event gives', () => {
    const error = thrown(() => decodeEvents('openai-responses', [{ type: 'response.created', response: { id: 'r' } }, { type: 'response.output_text.delta', output_index: 0, delta: 42 }]));
    expect(error.code).toBe('invalid_stream');
    expect(error.message).toContain("'delta'");
  });

  it('item types and events the codec does not read pass unchecked', () => {
    const events = decodeEvents('openai-responses', [
      { type: 'response.created', response: { id: 'r', model: 'm' } },
      { type: 'response.web_search_call.searching', output_index: 'any', item_id: 5 },
      { type: 'response.output_item.done', output_index: 0, item: { type: 'mcp_call', arguments: { not: 'a string' } } },
    ]);
    expect(events).toEqual([{ type: 'start', id: 'r', model: 'm' }]);
  });
});
