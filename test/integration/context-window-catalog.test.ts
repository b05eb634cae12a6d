// Spec §7 beyond OpenAI: a prompt (estimated with o200k) plus max_tokens over the catalog's context window
// is refused with a 400 context_length_exceeded before any provider call, for an Anthropic model over
// Messages and a Gemini model over Chat Completions; requests that fit reach the provider.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic.js';
import { startGeminiFake, type GeminiFake } from '../fakes/gemini.js';

let gateway: TestGateway;
let anthropic: AnthropicFake;
let gemini: GeminiFake;

beforeAll(async () => {
  gateway = await startGateway();
  anthropic = await startAnthropicFake();
  gemini = await startGeminiFake();
});
afterAll(async () => {
  await gateway?.close();
  await anthropic?.close();
  await gemini?.close();
});
beforeEach(() => {
  anthropic.requests.length = 0;
  gemini.requests.length = 0;
});

function post(path: string, provider: string, host: string, body: unknown): Promise<Response> {
  return fetch(`${gateway.baseUrl}/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': gateway.apiKey, 'x-gateway-provider': provider, 'x-gateway-custom-host': host, authorization: 'Bearer sk-test-token-0123456789' },
    body: JSON.stringify(body),
  });
}

// ' word' is one o200k token: about 140,000 tokens of prompt.
const longPrompt = 'word '.repeat(140_000);

describe('the context-length check from the catalog', () => {
  it('refuses an Anthropic Messages call whose prompt and max_tokens exceed the 200k window, in the Messages error shape', async () => {
    const response = await post('messages', 'anthropic', anthropic.baseUrl, { model: 'claude-sonnet-4-20250514', max_tokens: 64_000, messages: [{ role: 'user', content: longPrompt }] });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toMatch(/maximum context length is 200000 tokens/);
    expect(anthropic.requests).toHaveLength(0);
  });

  it('lets the same prompt through with a max_tokens that fits', async () => {
    const response = await post('messages', 'anthropic', anthropic.baseUrl, { model: 'claude-sonnet-4-20250514', max_tokens: 1_000, messages: [{ role: 'user', content: longPrompt }] });
    expect(response.status).toBe(200);
    expect(anthropic.requests).toHaveLength(1);
  });

  it('refuses a Gemini call over Chat Completions past its window, naming max_tokens and context_length_exceeded', async () => {
    const response = await post('chat/completions', 'google', gemini.baseUrl, { model: 'gemini-2.0-flash', max_tokens: 995_000, messages: [{ role: 'user', content: 'word '.repeat(10_000) }] });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { type: string; param: string; code: string; message: string } };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param: 'max_tokens', code: 'context_length_exceeded' });
    expect(body.error.message).toMatch(/maximum context length is 1000000 tokens, however you requested 10\d{5} tokens/);
    expect(gemini.requests).toHaveLength(0);
  });

  it('sends a Gemini call far below the window on without counting it', async () => {
    const response = await post('chat/completions', 'google', gemini.baseUrl, { model: 'gemini-2.0-flash', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    expect(gemini.requests).toHaveLength(1);
  });

  it("leaves a model the catalog does not know to the provider", async () => {
    const response = await post('messages', 'anthropic', anthropic.baseUrl, { model: 'claude-of-the-future', max_tokens: 64_000, messages: [{ role: 'user', content: longPrompt }] });
    expect(response.status).toBe(200);
  });
});
