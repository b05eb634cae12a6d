// Routes and errors that misled a new user (issue 26): a catch-all beside pinned routes, which never
// overrides a virtual key's provider; errors in words with every problem of an import; a provider key sent
// as Bearer; a gateway key's model no route takes; a gateway key's model list without routes; a bad port.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { startGatehouse } from '../../src-main/app.js';

let gateway: TestGateway;
let own: OpenAIFake;
let fallback: OpenAIFake;
let ownKey: string;

type ErrorBody = { error: { message: string; param: string | null; code: string | null; errors?: { message: string; param: string | null }[] } };

beforeAll(async () => {
  [gateway, own, fallback] = await Promise.all([startGateway(), startOpenAIFake(), startOpenAIFake()]);
  const mine = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'mine', provider: 'openai', secret: 'sk-mine-0123456789', customHost: own.baseUrl }) });
  ownKey = ((await mine.json()) as { key: string }).key;
  await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'default-target', provider: 'openai', secret: 'sk-default-0123456789', customHost: fallback.baseUrl, allowRouting: true }) });
});
afterAll(async () => {
  await gateway.close();
  await Promise.all([own.close(), fallback.close()]);
});

function chat(headers: Record<string, string>, model = 'gpt-4o-mini') {
  return fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

describe('a catch-all route', () => {
  afterEach(async () => {
    await gateway.admin('/routes', { method: 'PUT', body: JSON.stringify({ routes: [] }) });
  });

  it('saves beside a route that pins a target model, serves gateway keys, and never overrides a virtual key’s own provider', async () => {
    const pinned = await gateway.admin('/routes', { method: 'POST', body: JSON.stringify({ name: 'fast', match: 'fast', targets: [{ key: 'default-target', model: 'gpt-4o-mini' }] }) });
    expect(pinned.status).toBe(201);
    const catchAll = await gateway.admin('/routes', { method: 'POST', body: JSON.stringify({ name: 'default', match: '*', targets: [{ key: 'default-target' }] }) });
    expect(catchAll.status, await catchAll.clone().text()).toBe(201);

    // A gateway key's model that no specific route takes goes to the default.
    const viaGatewayKey = await chat({ authorization: `Bearer ${gateway.apiKey}` }, 'some-model');
    expect(viaGatewayKey.status).toBe(200);
    expect(fallback.requests.at(-1)!.json.model).toBe('some-model');

    // A virtual key keeps its own provider: the catch-all does not take its calls…
    const before = fallback.requests.length;
    expect((await chat({ authorization: `Bearer ${ownKey}` }, 'some-model')).status).toBe(200);
    expect(fallback.requests.length).toBe(before);
    expect(own.requests.at(-1)!.json.model).toBe('some-model');
    // …while a route with a specific match still applies to it, as before.
    expect((await chat({ authorization: `Bearer ${ownKey}` }, 'fast')).status).toBe(200);
    expect(fallback.requests.at(-1)!.json.model).toBe('gpt-4o-mini');

    // A route after the catch-all could never match: refused, saying why in words.
    const after = await gateway.admin('/routes', { method: 'POST', body: JSON.stringify({ name: 'late', match: 'late-*', targets: [{ key: 'default-target' }] }) });
    const refused = (await after.json()) as ErrorBody;
    expect(after.status).toBe(400);
    expect(refused.error.param).toBe('match');
    expect(refused.error.message).toBe("Route 'late', match: route 'late' can never match: the catch-all route 'default' ('*') before it takes every model; a catch-all is the default and goes last");
  });

  it('an import names every problem, each in words with its path', async () => {
    const file = {
      routes: [
        { name: 'one', match: 'one', targets: [{ key: 'nobody' }] },
        { name: 'two', match: 'two', targets: [{ key: 'default-target', weight: -1 }] },
        { name: 'one', match: 'three', targets: [{ key: 'ghost' }] },
      ],
    };
    const response = await gateway.admin('/routes', { method: 'PUT', body: JSON.stringify(file) });
    const body = (await response.json()) as ErrorBody;
    expect(response.status).toBe(400);
    expect(body.error.param).toBe('routes[1].targets[0].weight');
    expect(body.error.errors!.map((error) => error.param)).toEqual(['routes[1].targets[0].weight', 'routes[0].targets[0].key', 'routes[2].name', 'routes[2].targets[0].key']);
    expect(body.error.errors![1].message).toBe("Route 'one', target 1, key: no virtual key is named 'nobody'");
    expect(body.error.message).toContain('4 problems in the routes file');
    expect(body.error.message).not.toContain('routes[');
  });
});

describe('errors that say what is wrong', () => {
  it('a provider key sent as Bearer is told it is not a Gatehouse key', async () => {
    for (const providerKey of ['sk-proj-abc0123456789', 'sk-ant-api03-abc0123456789']) {
      const response = await chat({ authorization: `Bearer ${providerKey}` });
      const body = (await response.json()) as ErrorBody;
      expect(response.status).toBe(401);
      expect(body.error.message).toContain("The key sent in Authorization: Bearer is a provider's API key, not a Gatehouse key");
      expect(body.error.message).not.toContain(providerKey);
    }
    const unknown = (await (await chat({ authorization: 'Bearer gh-gk-not-a-real-key' })).json()) as ErrorBody;
    expect(unknown.error.message).toContain('is not a Gatehouse key');
  });

  it('a gateway key asking for a model no route matches is told so', async () => {
    const response = await chat({ authorization: `Bearer ${gateway.apiKey}` }, 'llama-9000');
    const body = (await response.json()) as ErrorBody;
    expect(response.status).toBe(400);
    expect(body.error).toMatchObject({ param: 'model', code: 'no_route' });
    expect(body.error.message).toContain("No route matches model 'llama-9000'");
  });

  it('GET /v1/models with a gateway key and no routes is an empty list', async () => {
    const response = await fetch(`${gateway.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${gateway.apiKey}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ object: 'list', data: [] });
  });

  it('GATEHOUSE_PORT=abc says which setting and what a port is', async () => {
    await expect(startGatehouse({ host: '127.0.0.1', dataDir: gateway.dataDir, env: { GATEHOUSE_PORT: 'abc', HOME: gateway.dataDir } })).rejects.toThrow(
      'Invalid port (GATEHOUSE_PORT=abc): a port is a whole number from 0 to 65535, e.g. GATEHOUSE_PORT=8787',
    );
  });
});
