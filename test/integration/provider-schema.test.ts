// A Chat provider whose answer is JSON but not a Chat completion (a field of the wrong type): the gateway
// reads provider answers through the format's schema, so a Messages client gets a 502 that names the field,
// or, mid-stream, an error event naming it — never a half-read answer passed off as complete.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

let gateway: TestGateway;
let fake: OpenAIFake;

beforeAll(async () => {
  [gateway, fake] = await Promise.all([startGateway(), startOpenAIFake()]);
});
afterAll(async () => {
  await Promise.all([gateway?.close(), fake?.close()]);
});

const messagesCall = (stream: boolean) =>
  fetch(`${gateway.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-gateway-api-key': gateway.apiKey,
      'x-gateway-provider': 'openai',
      'x-gateway-custom-host': fake.baseUrl,
      authorization: 'Bearer sk-provider-token-1234567890',
    },
    body: JSON.stringify({ model: 'gpt-test', max_tokens: 20, stream, messages: [{ role: 'user', content: 'hi' }] }),
  });

const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-test', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

describe('a Chat provider answer that does not fit the Chat schema', () => {
  it('held: 502 naming the field (in the Messages error shape), not an empty answer', async () => {
    fake.enqueue((_request, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', model: 'gpt-test', choices: [{ index: 0, message: { role: 'assistant', content: 42 }, finish_reason: 'stop' }] }));
    });
    const response = await messagesCall(false);
    expect(response.status).toBe(502);
    const body = await response.json();
    expect(body).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    expect(body.error.message).toContain("'choices[0].message.content'");
    expect(body.error.message).not.toContain('42');
  });

  it('streamed: the text so far, then an error event naming the field, and no message_stop', async () => {
    fake.enqueue((_request, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: 'Hel' }));
      res.write(chunk({ content: { text: 'lo' } }));
      res.end(chunk({}, 'stop') + 'data: [DONE]\n\n');
    });
    const response = await messagesCall(true);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('"text":"Hel"');
    expect(text).toMatch(/event: error\ndata: .*'choices\[0\]\.delta\.content'/);
    expect(text).not.toContain('message_stop');
  });
});

describe('a Chat provider that reports an error inside a 200 answer (OpenRouter, vLLM)', () => {
  it('held: 502 with the provider’s own message, not a 500 from the gateway', async () => {
    fake.enqueue((_request, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'upstream overloaded', code: 503 } }));
    });
    const response = await messagesCall(false);
    expect(response.status).toBe(502);
    expect((await response.json()).error.message).toBe('upstream overloaded');
  });
});
