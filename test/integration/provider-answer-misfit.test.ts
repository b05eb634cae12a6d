// A provider answer or stream event that does not fit its format's schema (codecs/provider-schema.ts): the
// client gets the gateway's clear error — 502 bad_provider_response naming the field, never its value — in its
// own dialect, whether the answer was held or streamed, for every format read through a schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic.js';
import type { CanonicalRequest, UpstreamEvent, WireFormat } from '../../src-main/codecs/canonical.js';
import { providerCodec } from '../../src-main/codecs/registry.js';

let gateway: TestGateway;
let anthropic: AnthropicFake;

beforeAll(async () => {
  gateway = await startGateway();
  anthropic = await startAnthropicFake();
});
afterAll(async () => {
  await anthropic.close();
  await gateway.close();
});

const chat = (stream: boolean) =>
  fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': gateway.apiKey, 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': anthropic.baseUrl, authorization: 'Bearer sk-ant-test-token-0123456789' },
    body: JSON.stringify({ model: 'claude-test', max_tokens: 20, stream, messages: [{ role: 'user', content: 'hi' }] }),
  });

const SECRET_ECHO = 'sk-ant-echoed-0123456789';

describe('a provider answer that does not fit its format', () => {
  it('held: a Chat client gets 502 bad_provider_response naming the field, without its value', async () => {
    anthropic.enqueue((_request, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [{ type: 'text', text: { leaked: SECRET_ECHO } }], stop_reason: 'end_turn' }));
    });
    const response = await chat(false);
    expect(response.status).toBe(502);
    const { error } = await response.json();
    expect(error).toMatchObject({ type: 'gateway_error', code: 'bad_provider_response' });
    expect(error.message).toContain("'content[0].text'");
    expect(error.message).not.toContain(SECRET_ECHO);
  });

  it('streamed: the stream ends with the error event naming the field', async () => {
    anthropic.enqueue((_request, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = (data: object) => `event: ${(data as { type: string }).type}\ndata: ${JSON.stringify(data)}\n\n`;
      res.end(
        event({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [], usage: { input_tokens: 3, output_tokens: 1 } } }) +
          event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
          event({ type: 'content_block_delta', index: 'zero', delta: { type: 'text_delta', text: 'hi' } }),
      );
    });
    const response = await chat(true);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('bad_provider_response');
    expect(text).toContain("'index'");
  });
});

const REQUEST: CanonicalRequest = { dialect: 'openai-chat', onUnsupported: 'drop', model: 'm', system: [], turns: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }], stream: false, extensions: {} };

describe('every schema-read format refuses a misfit the same way', () => {
  const misfits: { format: WireFormat; answer: unknown; event: UpstreamEvent; field: string; eventField?: string; before?: UpstreamEvent }[] = [
    {
      format: 'openai-chat',
      answer: { choices: [{ index: 0, message: { content: 'x', tool_calls: [{ id: 'c', function: { name: 7, arguments: '{}' } }] }, finish_reason: 'stop' }] },
      before: { kind: 'sse', data: '{"choices":[{"index":0,"delta":{"content":"ok"}}]}' },
      event: { kind: 'sse', data: '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":"first"}]}}]}' },
      field: "'choices[0].message.tool_calls[0].function.name'",
      eventField: "'choices[0].delta.tool_calls[0].index'",
    },
    {
      format: 'openai-responses',
      answer: { id: 'r', status: 'completed', output: [{ type: 'web_search_call', id: 'w' }, { type: 'function_call', call_id: 'c', name: 'f', arguments: { a: 7 } }] },
      before: { kind: 'sse', data: '{"type":"response.created","response":{"id":"r"}}' },
      event: { kind: 'sse', data: '{"type":"response.output_text.delta","output_index":0,"delta":7}' },
      field: "'output[1].arguments'",
      eventField: "'delta'",
    },
    { format: 'anthropic-messages', answer: { content: [{ type: 'tool_use', id: 7 }] }, event: { kind: 'sse', data: '{"type":"message_delta","delta":{"stop_reason":7}}' }, field: "'content[0].id'" },
    { format: 'gemini', answer: { candidates: [{ content: { parts: [{ text: [7] }] } }] }, event: { kind: 'sse', data: '{"candidates":[{"finishReason":7}]}' }, field: "'candidates[0].content.parts[0].text'" },
    {
      format: 'bedrock-converse',
      answer: { output: { message: { content: [{ toolUse: { toolUseId: 'a', name: 7 } }] } } },
      event: { kind: 'frame', headers: { ':message-type': 'event', ':event-type': 'contentBlockDelta' }, payload: Buffer.from('{"contentBlockIndex":0,"delta":{"text":7}}') },
      field: "'output.message.content[0].toolUse.name'",
    },
  ];
  for (const { format, answer, event, field, eventField, before } of misfits) {
    it(`${format}: a held answer is a 502 naming the field (never its value); a stream event, a stream error of the same code`, () => {
      const codec = providerCodec(format);
      expect(() => codec.decodeResponse(answer, REQUEST)).toThrow(expect.objectContaining({ status: 502, code: 'bad_provider_response', message: expect.stringContaining(field) }));
      expect(() => codec.decodeResponse(answer, REQUEST)).toThrow(expect.objectContaining({ message: expect.not.stringContaining('7') }));
      const decoder = codec.createStreamDecoder(REQUEST);
      if (before) decoder.onEvent(before);
      expect(() => decoder.onEvent(event)).toThrow(expect.objectContaining({ type: 'gateway_error', code: 'bad_provider_response', message: expect.stringContaining(eventField ?? '') }));
    });
  }
});
