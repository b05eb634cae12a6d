// Routes on every path: a client using only a gateway key (or a virtual key) and a model name reaches a
// route's target from Chat Completions, Messages and Responses; /v1/models lists the route names; a
// virtual key's default model and model map.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic.js';
import { FAKE_MODELS, startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { startGeminiFake, type GeminiFake } from '../fakes/gemini.js';

let gateway: TestGateway;
let openai: OpenAIFake;
let anthropic: AnthropicFake;
let gemini: GeminiFake;
let localKey: string;

async function createKey(body: Record<string, unknown>): Promise<string> {
  const response = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify(body) });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { key: string }).key;
}

beforeAll(async () => {
  [gateway, openai, anthropic, gemini] = await Promise.all([startGateway(), startOpenAIFake(), startAnthropicFake(), startGeminiFake()]);
  await createKey({ name: 'gemini', provider: 'google', secret: 'AIza-routes-0123456789', customHost: gemini.baseUrl });
  localKey = await createKey({ name: 'local-box', provider: 'openai', secret: 'sk-local-0123456789abcdef', customHost: openai.baseUrl, defaultModel: 'qwen3-coder:30b', modelMap: { 'gpt-4o': 'llama3.1:8b' } });
  await createKey({ name: 'anthropic-main', provider: 'anthropic', secret: 'sk-ant-routes-0123456789', customHost: anthropic.baseUrl });
  const file = {
    routes: [
      { name: 'background', match: 'claude-haiku-*', strategy: 'fallback', targets: [{ key: 'local-box', model: 'qwen3-coder:30b' }, { key: 'anthropic-main' }] },
      { name: 'sonnet', match: 'claude-sonnet-*', strategy: 'fallback', targets: [{ key: 'anthropic-main', model: 'claude-sonnet-4-5-20250929' }] },
      { name: 'pro', match: 'pro', strategy: 'fallback', targets: [{ key: 'gemini', model: 'gemini-2.5-pro' }] },
    ],
  };
  const response = await gateway.admin('/routes', { method: 'PUT', body: JSON.stringify(file) });
  expect(response.status, await response.clone().text()).toBe(200);
});
afterAll(async () => {
  await Promise.all([gateway.close(), openai.close(), anthropic.close(), gemini.close()]);
});

describe('routes on every path', () => {
  it('Messages (Claude Code’s background model) → a local OpenAI-format model, translated', async () => {
    const client = new Anthropic({ baseURL: gateway.baseUrl, apiKey: gateway.apiKey });
    const message = await client.messages.create({ model: 'claude-haiku-4-5', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Hello from the fake' });
    expect(openai.requests.at(-1)!.json.model).toBe('qwen3-coder:30b');
  });

  it('Chat Completions → an Anthropic target, translated, with no provider headers', async () => {
    const client = new OpenAI({ baseURL: `${gateway.baseUrl}/v1`, apiKey: gateway.apiKey });
    const before = anthropic.requests.length;
    const completion = await client.chat.completions.create({ model: 'claude-sonnet-4', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0].message.content).toBeTruthy();
    expect(anthropic.requests.length).toBe(before + 1);
    expect(anthropic.requests.at(-1)!.json.model).toBe('claude-sonnet-4-5-20250929');
  });

  it('Responses → an Anthropic target, streamed', async () => {
    const client = new OpenAI({ baseURL: `${gateway.baseUrl}/v1`, apiKey: gateway.apiKey });
    const stream = await client.responses.create({ model: 'claude-sonnet-4', input: 'hi', stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(anthropic.requests.at(-1)!.json.model).toBe('claude-sonnet-4-5-20250929');
  });

  it('Messages passthrough: only the model value of the client’s bytes changes', async () => {
    const raw = '{"model":"claude-sonnet-4","max_tokens":20,"messages":[{"role":"user","content":"hi"}]}';
    const response = await fetch(`${gateway.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': gateway.apiKey, 'anthropic-version': '2023-06-01' },
      body: raw,
    });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(anthropic.requests.at(-1)!.body.toString('utf8')).toBe(raw.replace('claude-sonnet-4', 'claude-sonnet-4-5-20250929'));
  });

  it('a target whose provider names the model in its URL (Gemini) gets the target model there', async () => {
    const client = new OpenAI({ baseURL: `${gateway.baseUrl}/v1`, apiKey: gateway.apiKey });
    const completion = await client.chat.completions.create({ model: 'pro', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0].message.content).toBeTruthy();
    expect(gemini.requests.at(-1)!.url).toContain('/models/gemini-2.5-pro:generateContent');
  });

  it('a route name is a model name too', async () => {
    const client = new Anthropic({ baseURL: gateway.baseUrl, apiKey: gateway.apiKey });
    await client.messages.create({ model: 'sonnet', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] });
    expect(anthropic.requests.at(-1)!.json.model).toBe('claude-sonnet-4-5-20250929');
  });
});

describe('GET /v1/models', () => {
  it('a gateway key without a provider gets the route names', async () => {
    const response = await fetch(`${gateway.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${gateway.apiKey}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      object: 'list',
      data: [
        { id: 'background', object: 'model', created: 0, owned_by: 'gatehouse-route' },
        { id: 'sonnet', object: 'model', created: 0, owned_by: 'gatehouse-route' },
        { id: 'pro', object: 'model', created: 0, owned_by: 'gatehouse-route' },
      ],
    });
  });

  it('in Anthropic’s shape when the client sends anthropic-version', async () => {
    const response = await fetch(`${gateway.baseUrl}/v1/models`, { headers: { 'x-api-key': gateway.apiKey, 'anthropic-version': '2023-06-01' } });
    const body = (await response.json()) as { data: { id: string; type: string }[] };
    expect(body.data.map((model) => [model.type, model.id])).toEqual([
      ['model', 'background'],
      ['model', 'sonnet'],
      ['model', 'pro'],
    ]);
  });

  it('a virtual key gets its provider’s models with the route names beside them', async () => {
    const client = new OpenAI({ baseURL: `${gateway.baseUrl}/v1`, apiKey: localKey });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(`${model.id}:${model.owned_by}`);
    expect(ids).toEqual([...FAKE_MODELS.data.map((model) => `${model.id}:system`), 'background:gatehouse-route', 'sonnet:gatehouse-route', 'pro:gatehouse-route']);
  });
});

describe("a virtual key's default model and model map", () => {
  it('sends the default model when the body names none, and maps names it knows', async () => {
    const noModel = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${localKey}` },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(noModel.status, await noModel.clone().text()).toBe(200);
    expect(openai.requests.at(-1)!.json.model).toBe('qwen3-coder:30b');

    const mapped = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${localKey}` },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(mapped.status).toBe(200);
    expect(openai.requests.at(-1)!.json.model).toBe('llama3.1:8b');
  });

  it('the admin API shows and changes them', async () => {
    const list = (await (await gateway.admin('/virtual-keys')).json()) as { items: { id: string; name: string; defaultModel: string | null; modelMap: Record<string, string> }[] };
    const local = list.items.find((key) => key.name === 'local-box')!;
    expect(local).toMatchObject({ defaultModel: 'qwen3-coder:30b', modelMap: { 'gpt-4o': 'llama3.1:8b' } });
    const changed = await gateway.admin(`/virtual-keys/${local.id}`, { method: 'PATCH', body: JSON.stringify({ defaultModel: null, modelMap: {} }) });
    expect(await changed.json()).toMatchObject({ defaultModel: null, modelMap: {} });
  });
});

describe('what a routed call costs', () => {
  it('is priced on the model the target was sent, not the name the client asked for', async () => {
    const { priceCall } = await import('../../src-main/catalog/pricing.js');
    const client = new OpenAI({ baseURL: `${gateway.baseUrl}/v1`, apiKey: gateway.apiKey });
    await client.chat.completions.create({ model: 'pro', messages: [{ role: 'user', content: 'hi' }] });
    await gateway.flushLog();
    const list = (await (await gateway.admin('/logs?route=pro&limit=1')).json()) as {
      items: { model: string; routeTarget: string; promptTokens: number; completionTokens: number; cacheReadTokens: number | null; reasoningTokens: number | null; costUsd: number | null }[];
    };
    const row = list.items[0];
    expect(row.model).toBe('pro');
    expect(row.routeTarget).toBe('gemini → gemini-2.5-pro');
    const usage = { inputTokens: row.promptTokens, outputTokens: row.completionTokens, cacheReadTokens: row.cacheReadTokens ?? 0, reasoningTokens: row.reasoningTokens ?? 0 };
    const expected = priceCall('google', 'gemini-2.5-pro', usage);
    expect(expected).toBeGreaterThan(0);
    expect(row.costUsd).toBe(expected);
  });
});
