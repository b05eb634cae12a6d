// The Playground's admin endpoints: a virtual key picked by its id (as the page picks it by name) runs
// through the real gateway pipeline, streamed or not, logged like any call; the key's models come from
// the provider through /v1/models; neither the gh-vk key nor the provider secret ever reaches the page.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

const SECRET = 'sk-playground-secret-0042';
let gateway: TestGateway;
let fake: OpenAIFake;
let key: { id: string; name: string; key: string };

beforeAll(async () => {
  gateway = await startGateway();
  fake = await startOpenAIFake();
  const created = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'Local fake', provider: 'openai', secret: SECRET, customHost: fake.baseUrl }) });
  key = (await created.json()) as typeof key;
});
afterAll(async () => {
  await gateway.close();
  await fake.close();
});
afterEach(() => {
  fake.requests.length = 0;
});

/** What the page would pick: the key listed by name (the list has no key and no secret). */
async function keyIdByName(name: string): Promise<string> {
  const list = (await (await gateway.admin('/virtual-keys')).json()) as { items: { id: string; name: string }[] };
  const found = list.items.find((item) => item.name === name);
  expect(found).toBeDefined();
  return found!.id;
}

function expectNoSecrets(text: string) {
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(key.key);
  expect(text).not.toContain(gateway.adminToken);
}

describe('running a prompt as a virtual key picked by name', () => {
  it('answers a chat completion with the key’s stored credentials, and logs it as a /v1 call of that key', async () => {
    const id = await keyIdByName('Local fake');
    const response = await gateway.admin(`/playground/${id}/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-trace-id': 'playground-trace-1' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gateway-trace-id')).toBe('playground-trace-1');
    expect(JSON.parse(text).choices[0].message.content).toBe('Hello from the fake');
    expectNoSecrets(text);
    // The provider got the stored secret, and not the admin token.
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0].headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(JSON.stringify(fake.requests[0].headers)).not.toContain(gateway.adminToken);

    await gateway.flushLog();
    const logs = (await (await gateway.admin('/logs?q=playground-trace-1')).json()) as { items: { id: string; path: string; status: number; model: string; promptTokens: number }[] };
    expect(logs.items).toHaveLength(1);
    expect(logs.items[0]).toMatchObject({ path: '/v1/chat/completions', status: 200, model: 'gpt-4o-mini', promptTokens: 5 });
    const detail = await (await gateway.admin(`/logs/${logs.items[0].id}`)).text();
    expect(JSON.parse(detail).keyId).toBe(id);
    expectNoSecrets(detail);
  });

  it('streams a completion event by event', async () => {
    const response = await gateway.admin(`/playground/${key.id}/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt-3.5-turbo-instruct', prompt: 'one two three', stream: true }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const text = await response.text();
    const pieces = text
      .split('\n\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)).choices[0]?.text ?? '');
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.join('')).toBe('echo: one two three');
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    expectNoSecrets(text);
  });

  it('translates a Messages request for an OpenAI-format key, as the gateway would', async () => {
    const response = await gateway.admin(`/playground/${key.id}/messages`, {
      method: 'POST',
      headers: { 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    const body = (await response.json()) as { type: string; content: { text: string }[] };
    expect(response.status).toBe(200);
    expect(body.type).toBe('message');
    expect(body.content[0].text).toBe('Hello from the fake');
  });

  it('lists the key’s models from its provider', async () => {
    const response = await gateway.admin(`/playground/${key.id}/models`);
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(JSON.parse(text)).toEqual({ models: ['gpt-3.5-turbo-instruct', 'gpt-4o-mini'], error: null });
    expect(fake.requests[0].url).toBe('/v1/models');
    expect(fake.requests[0].headers.authorization).toBe(`Bearer ${SECRET}`);
    expectNoSecrets(text);
  });

  it('lists the models for a pasted key, or a provider and token, with the gateway’s own checks', async () => {
    const pasted = await gateway.admin('/playground/models', { method: 'POST', body: JSON.stringify({ virtualKey: key.key }) });
    expect(pasted.status).toBe(200);
    expect(((await pasted.json()) as { models: string[] }).models).toHaveLength(2);
    expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${SECRET}`);

    const direct = await gateway.admin('/playground/models', {
      method: 'POST',
      body: JSON.stringify({ provider: 'openai', providerToken: 'sk-direct-token-77', customHost: fake.baseUrl, gatewayApiKey: gateway.apiKey }),
    });
    expect(direct.status).toBe(200);
    expect(fake.requests.at(-1)?.headers.authorization).toBe('Bearer sk-direct-token-77');
    expect(await direct.text()).not.toContain('sk-direct-token-77');

    // What cannot be listed is an answer for the field (which still takes any name), with the reason.
    const wrongKey = await gateway.admin('/playground/models', { method: 'POST', body: JSON.stringify({ virtualKey: 'gh-vk-not-a-key' }) });
    expect(wrongKey.status).toBe(200);
    expect(await wrongKey.json()).toMatchObject({ models: [], error: { status: 401 } });
    const nothing = (await (await gateway.admin('/playground/models', { method: 'POST', body: '{}' })).json()) as { models: string[]; error: { status: number; message: string } };
    expect(nothing.error.status).toBe(401);
    expect(nothing.error.message).toContain('x-gateway-api-key');
    expect(fake.requests).toHaveLength(2);

    fake.enqueue((_request, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${SECRET}`, type: 'invalid_request_error', code: 'invalid_api_key' } }));
    });
    const refused = (await (await gateway.admin(`/playground/${key.id}/models`)).json()) as { models: string[]; error: { status: number; message: string } };
    expect(refused.models).toEqual([]);
    expect(refused.error.status).toBe(401);
    expect(refused.error.message).toContain('Incorrect API key');
    expect(refused.error.message).not.toContain(SECRET);

    const badBody = await gateway.admin('/playground/models', { method: 'POST', body: JSON.stringify({ virtualKey: 42 }) });
    expect(badBody.status).toBe(400);
  });

  it('keeps the model look-ups out of the Logs (they are the page’s, not the person’s calls)', async () => {
    await (await gateway.admin(`/playground/${key.id}/models`)).text();
    await (await gateway.admin('/playground/models', { method: 'POST', body: JSON.stringify({ virtualKey: key.key }) })).text();
    expect(fake.requests).toHaveLength(2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await gateway.flushLog();
    const logs = (await (await gateway.admin('/logs?limit=500')).json()) as { items: { path: string }[] };
    expect(logs.items.length).toBeGreaterThan(0);
    expect(logs.items.filter((item) => item.path === '/v1/models')).toEqual([]);
  });

  it('reports the gateway’s own validation error for a bad body, in the dialect’s shape', async () => {
    const response = await gateway.admin(`/playground/${key.id}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'gpt-4o-mini' }) });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; param: string } };
    expect(body.error.param).toBe('messages');
    expect(fake.requests).toHaveLength(0);
  });

  it('refuses an unknown or revoked key with a 404, and needs the admin token', async () => {
    const unknown = await gateway.admin('/playground/vk_nope/chat/completions', { method: 'POST', body: '{}' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain('vk_nope');

    const created = (await (await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'Gone', provider: 'openai', secret: 'sk-gone', customHost: fake.baseUrl }) })).json()) as { id: string };
    await gateway.admin(`/virtual-keys/${created.id}`, { method: 'DELETE' });
    const revoked = await gateway.admin(`/playground/${created.id}/models`);
    expect(revoked.status).toBe(404);

    const anonymous = await fetch(`${gateway.baseUrl}/admin/api/playground/${key.id}/models`);
    expect(anonymous.status).toBe(401);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('saved prompts', () => {
  it('saves, lists, replaces by name and deletes', async () => {
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Tell me a joke' }] };
    const first = await gateway.admin('/saved-prompts', { method: 'POST', body: JSON.stringify({ name: 'Joke', endpoint: '/v1/chat/completions', body, keyId: key.id }) });
    expect(first.status).toBe(201);
    const saved = (await first.json()) as { id: string; name: string; endpoint: string; body: string; keyId: string };
    expect(saved).toMatchObject({ name: 'Joke', endpoint: '/v1/chat/completions', keyId: key.id });
    expect(JSON.parse(saved.body)).toEqual(body);

    const again = await gateway.admin('/saved-prompts', { method: 'POST', body: JSON.stringify({ name: 'Joke', endpoint: '/v1/completions', body: { model: 'x', prompt: 'Knock knock' } }) });
    expect(again.status).toBe(200);
    const list = (await (await gateway.admin('/saved-prompts')).json()) as { items: { id: string; endpoint: string; keyId: string | null }[] };
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({ id: saved.id, endpoint: '/v1/completions', keyId: null });

    expect((await gateway.admin(`/saved-prompts/${saved.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await gateway.admin(`/saved-prompts/${saved.id}`, { method: 'DELETE' })).status).toBe(404);
    expect(((await (await gateway.admin('/saved-prompts')).json()) as { items: unknown[] }).items).toEqual([]);
  });

  it('refuses bad input with a clear error', async () => {
    const cases: [unknown, string][] = [
      [{ name: '  ', endpoint: '/v1/completions', body: {} }, 'name'],
      [{ name: 'x', endpoint: '/v1/embeddings', body: {} }, 'endpoint'],
      [{ name: 'x', endpoint: '/v1/completions', body: [1, 2] }, 'body'],
      [{ name: 'x', endpoint: '/v1/completions', body: {}, keyId: 'vk_missing' }, 'keyId'],
    ];
    for (const [input, param] of cases) {
      const response = await gateway.admin('/saved-prompts', { method: 'POST', body: JSON.stringify(input) });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { param: string } }).error.param).toBe(param);
    }
  });
});
