// Provider answers are read through each format's schema: a type or field the codec does not know passes
// untouched. A field of the wrong type is refused the same way in every format: provider-answer-misfit.test.ts.
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest, WireFormat } from '../../../src-main/codecs/canonical.js';
import { providerCodec } from '../../../src-main/codecs/registry.js';

const request: CanonicalRequest = { dialect: 'openai-chat', onUnsupported: 'refuse', model: 'm', system: [], turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], stream: false, extensions: {} };

const decodeAnswer = (format: WireFormat, json: unknown) => providerCodec(format).decodeResponse(json, request);
const decodeEvents = (format: WireFormat, events: object[]) => {
  const decoder = providerCodec(format).createStreamDecoder(request);
  return events.flatMap((event) => decoder.onEvent({ kind: 'sse', data: JSON.stringify(event) }));
};

describe('openai-chat schema', () => {
  it('fields no schema names (Groq’s x_groq, Azure’s content_filter_results) pass untouched', () => {
    const answer = decodeAnswer('openai-chat', { id: 'a', x_groq: { id: 1 }, choices: [{ index: 0, content_filter_results: [], message: { content: 'Hi', annotations: 5 }, finish_reason: 'stop' }] });
    expect(answer.content).toEqual([{ type: 'text', text: 'Hi' }]);
  });
});

describe('openai-responses schema', () => {
  it('item types and events the codec does not read pass unchecked', () => {
    const events = decodeEvents('openai-responses', [
      { type: 'response.created', response: { id: 'r', model: 'm' } },
      { type: 'response.web_search_call.searching', output_index: 'any', item_id: 5 },
      { type: 'response.output_item.done', output_index: 0, item: { type: 'mcp_call', arguments: { not: 'a string' } } },
    ]);
    expect(events).toEqual([{ type: 'start', id: 'r', model: 'm' }]);
  });
});
