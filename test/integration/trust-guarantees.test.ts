// Issue 21, item 8: behaviours users rely on that had no test of their own. A cut passthrough stream ends
// with the dialect's error event; a client error from the provider is never retried; the context check
// reads each dialect's output budget field; max_completion_tokens has the bounds of max_tokens, and one above
// 2^53 is refused by that bound.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { openAIError, startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { anthropicError, startAnthropicFake, type AnthropicFake } from '../fakes/anthropic.js';

let gateway: TestGateway;
let openai: OpenAIFake;
let anthropic: AnthropicFake;

beforeAll(async () => {
  [gateway, openai, anthropic] = await Promise.all([startGateway(), startOpenAIFake(), startAnthropicFake()]);
});
afterAll(async () => {
  await Promise.all([gateway.close(), openai.close(), anthropic.close()]);
});
afterEach(() => {
  openai.requests.length = 0;
  anthropic.requests.length = 0;
});

const openaiHeaders = (extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  'x-gateway-api-key': gateway.apiKey,
  'x-gateway-provider': 'openai',
  'x-gateway-custom-host': openai.baseUrl,
  authorization: 'Bearer sk-provider-token-0123456789',
  ...extra,
});
const anthropicHeaders = (extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  'anthropic-version': '2023-06-01',
  'x-gateway-api-key': gateway.apiKey,
  'x-gateway-provider': 'anthropic',
  'x-gateway-custom-host': anthropic.baseUrl,
  authorization: 'Bearer sk-ant-provider-token-0123456789',
  ...extra,
});

function post(path: string, headers: Record<string, string>, body: unknown): Promise<Response> {
  return fetch(`${gateway.baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
}

/** Sends some SSE events, then drops the connection mid-stream. */
function cutAfter(events: string[]) {
  return (_request: unknown, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const event of events) res.write(event);
    setTimeout(() => res.socket?.destroy(), 50);
  };
}

/** The last SSE event of a stream: its name and its data. */
function lastEvent(text: string): { event: string | null; data: Record<string, unknown> } {
  const blocks = text.trim().split('\n\n');
  const block = blocks[blocks.length - 1];
  const event = /^event: (.+)$/m.exec(block)?.[1] ?? null;
  const data = /^data: (.+)$/m.exec(block)?.[1] ?? '{}';
  return { event, data: JSON.parse(data) as Record<string, unknown> };
}

describe('a passthrough stream cut mid-way', () => {
  it('Messages ends with an Anthropic error event after what arrived', async () => {
    anthropic.enqueue(
      cutAfter([
        `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, usage: { input_tokens: 3, output_tokens: 0 } } })}\n\n`,
        `event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}\n\n`,
        `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'half an ans' } })}\n\n`,
      ]),
    );
    const response = await post('/v1/messages', anthropicHeaders(), { model: 'claude-sonnet-4-5', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('half an ans');
    const last = lastEvent(text);
    expect(last.event).toBe('error');
    expect(last.data).toMatchObject({ type: 'error', error: { type: expect.any(String), message: expect.any(String) } });
    expect(text).not.toContain('message_stop');
  });

  it('Responses ends with a Responses error event after what arrived', async () => {
    openai.enqueue(
      cutAfter([
        `event: response.created\ndata: ${JSON.stringify({ type: 'response.created', sequence_number: 0, response: { id: 'resp_1', object: 'response', status: 'in_progress', model: 'gpt-4o-mini', output: [] } })}\n\n`,
        `event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'half an ans' })}\n\n`,
      ]),
    );
    const response = await post('/v1/responses', openaiHeaders(), { model: 'gpt-4o-mini', input: 'hi', stream: true });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('half an ans');
    const last = lastEvent(text);
    expect(last.event).toBe('error');
    expect(last.data).toMatchObject({ type: 'error', message: expect.any(String) });
    expect(text).not.toContain('response.completed');
  });
});

describe('retries', () => {
  it.each([400, 401, 404])('a %i from the provider is never retried, whatever x-gateway-retry-count says', async (status) => {
    // One scripted failure: a retry would get the double's default answer (200), and the test would see it.
    openai.enqueue(openAIError(status, `provider says ${status}`));
    const response = await post('/v1/chat/completions', openaiHeaders({ 'x-gateway-retry-count': '3' }), { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(status);
    expect(openai.requests).toHaveLength(1);
  });

  it('a 500 is retried as asked (the control for the test above)', async () => {
    openai.enqueue(openAIError(500, 'server error', 'server_error'));
    const response = await post('/v1/chat/completions', openaiHeaders({ 'x-gateway-retry-count': '1' }), { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    expect(openai.requests).toHaveLength(2);
  });
});

describe('output budgets', () => {
  const messages = [{ role: 'user', content: 'hi' }];

  it('the context check reads max_completion_tokens (Chat) and max_output_tokens (Responses)', async () => {
    const chat = await post('/v1/chat/completions', openaiHeaders(), { model: 'gpt-4o', messages, max_tokens: 10, max_completion_tokens: 50_000_000 });
    expect(chat.status).toBe(400);
    expect(((await chat.json()) as { error: { code: string } }).error.code).toBe('context_length_exceeded');
    const responses = await post('/v1/responses', openaiHeaders(), { model: 'gpt-4o', input: 'hi', max_output_tokens: 50_000_000 });
    expect(responses.status).toBe(400);
    expect(JSON.stringify(await responses.json())).toContain('context_length_exceeded');
    expect(openai.requests).toHaveLength(0);
    // Within the window both go through.
    expect((await post('/v1/chat/completions', openaiHeaders(), { model: 'gpt-4o', messages, max_completion_tokens: 100 })).status).toBe(200);
    // (The OpenAI double serves no Responses path: reaching it is what shows the check let the call through;
    // its 404 then has the call retried as Chat, as for any server without the Responses API.)
    await post('/v1/responses', openaiHeaders(), { model: 'gpt-4o', input: 'hi', max_output_tokens: 100 });
    expect(openai.requests.map((request) => request.url)).toEqual(['/v1/chat/completions', '/v1/responses', '/v1/chat/completions']);
  });

  it('max_completion_tokens has the same bounds as max_tokens', async () => {
    for (const value of [-5, -1, 1.5, '5', true, null, 0, 1, 100]) {
      const asMaxTokens = await post('/v1/chat/completions', openaiHeaders(), { model: 'gpt-4o-mini', messages, max_tokens: value });
      const asCompletion = await post('/v1/chat/completions', openaiHeaders(), { model: 'gpt-4o-mini', messages, max_completion_tokens: value });
      expect(asCompletion.status, `max_completion_tokens ${JSON.stringify(value)}`).toBe(asMaxTokens.status);
      if (asCompletion.status === 400) expect(((await asCompletion.json()) as { error: { param: string } }).error.param).toBe('max_completion_tokens');
    }
  });

  it('max_completion_tokens above 2^53 is refused as out of bounds (not an integer a client can mean), before any provider is asked', async () => {
    // Sent as written: 2^53 + 1 is read as 2^53 by any JSON parser, one past the largest safe integer.
    const raw = (value: string) => `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":${value}}`;
    for (const value of ['9007199254740992', '9007199254740993', '1e300']) {
      const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, { method: 'POST', headers: openaiHeaders(), body: raw(value) });
      expect(response.status, value).toBe(400);
      const { error } = (await response.json()) as { error: { type: string; param: string; code: string | null; message: string } };
      // The bound's refusal, not the context check's (which a bound let through would reach).
      expect(error, value).toMatchObject({ type: 'invalid_request_error', param: 'max_completion_tokens' });
      expect(error.code, value).not.toBe('context_length_exceeded');
      expect(error.message, value).toContain(`'max_completion_tokens' must be at most ${Number.MAX_SAFE_INTEGER}`);
    }
    // The largest safe integer itself is within the bound: refused only by the model's window.
    const largest = await fetch(`${gateway.baseUrl}/v1/chat/completions`, { method: 'POST', headers: openaiHeaders(), body: raw(String(Number.MAX_SAFE_INTEGER)) });
    expect(largest.status).toBe(400);
    expect(((await largest.json()) as { error: { code: string } }).error.code).toBe('context_length_exceeded');
    expect(openai.requests).toHaveLength(0);
  });
});
