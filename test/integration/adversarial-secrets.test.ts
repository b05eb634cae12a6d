// Issue 21, item 7 and the key and log guarantees of item 8, tried as a careless or hostile client would:
// no Gatehouse key ever reaches a provider, the stored log keeps no credential, a model name cannot climb
// out of the key's host, and a virtual key's secret never follows it to a new host.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { startGeminiFake, type GeminiFake } from '../fakes/gemini.js';

const PROVIDER_SECRET = 'sk-provider-secret-abcdef0123456789';
const GOOGLE_SECRET = 'AIzaSyD-google-secret-0123456789abcdef';

let gateway: TestGateway;
let openai: OpenAIFake;
let gemini: GeminiFake;

beforeAll(async () => {
  [gateway, openai, gemini] = await Promise.all([startGateway(), startOpenAIFake(), startGeminiFake()]);
});
afterAll(async () => {
  await Promise.all([gateway.close(), openai.close(), gemini.close()]);
});
afterEach(() => {
  openai.requests.length = 0;
  gemini.requests.length = 0;
});

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

function post(path: string, headers: Record<string, string>, body: unknown = chat): Promise<Response> {
  return fetch(`${gateway.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

async function createVirtualKey(body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const response = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify(body) });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; key: string };
}

/** The stored row of the newest request whose trace id is given. */
async function storedRow(traceId: string): Promise<{ requestHeaders: Record<string, string>; requestBody: string | null; status: number }> {
  await gateway.flushLog();
  const list = (await (await gateway.admin(`/logs?q=${encodeURIComponent(traceId)}`)).json()) as { items: { id: string }[] };
  expect(list.items.length).toBeGreaterThan(0);
  return (await (await gateway.admin(`/logs/${list.items[0].id}`)).json()) as { requestHeaders: Record<string, string>; requestBody: string | null; status: number };
}

describe('x-gateway-forward-headers never forwards a Gatehouse key', () => {
  it('refuses to forward a virtual key sent as Bearer, and the provider receives nothing', async () => {
    const { key } = await createVirtualKey({ name: 'fwd-vk', provider: 'openai', secret: PROVIDER_SECRET, customHost: openai.baseUrl });
    const response = await post('/v1/chat/completions', { authorization: `Bearer ${key}`, 'x-gateway-forward-headers': 'authorization' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe('x-gateway-forward-headers');
    expect(openai.requests).toHaveLength(0);
  });

  it('refuses to forward the gateway key in authorization, x-api-key or x-goog-api-key', async () => {
    const base = { 'x-gateway-provider': 'openai', 'x-gateway-custom-host': openai.baseUrl };
    const cases: Record<string, string>[] = [
      { authorization: `Bearer ${gateway.apiKey}`, 'x-gateway-forward-headers': 'authorization' },
      { 'x-gateway-api-key': gateway.apiKey, authorization: `Bearer ${gateway.apiKey}`, 'x-gateway-forward-headers': 'authorization' },
      { 'x-gateway-api-key': gateway.apiKey, 'x-api-key': gateway.apiKey, 'x-gateway-forward-headers': 'x-api-key' },
      { 'x-gateway-api-key': gateway.apiKey, 'x-goog-api-key': gateway.apiKey, 'x-gateway-forward-headers': '["x-goog-api-key"]' },
    ];
    for (const headers of cases) {
      const response = await post('/v1/chat/completions', { ...base, ...headers });
      expect(response.status, JSON.stringify(headers)).toBe(400);
    }
    expect(openai.requests).toHaveLength(0);
    // A provider's own token in a forwarded header still goes through.
    const fine = await post('/v1/chat/completions', { ...base, 'x-gateway-api-key': gateway.apiKey, 'x-api-key': 'provider-own-token-123', 'x-gateway-forward-headers': 'x-api-key' });
    expect(fine.status).toBe(200);
    expect(openai.requests[0].headers['x-api-key']).toBe('provider-own-token-123');
  });

  it('a gateway key sent as Bearer with x-gateway-provider never reaches the provider', async () => {
    const response = await post('/v1/chat/completions', { authorization: `Bearer ${gateway.apiKey}`, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': openai.baseUrl });
    // Gatehouse's key, not a provider token: the provider is asked without it.
    expect(openai.requests).toHaveLength(1);
    expect(JSON.stringify(openai.requests[0].headers)).not.toContain(gateway.apiKey);
    expect(openai.requests[0].body.toString()).not.toContain(gateway.apiKey);
    expect(response.status).not.toBe(500);
  });
});

describe('a virtual key and its host', () => {
  it('a virtual key without a host of its own refuses a request’s x-gateway-custom-host (400), and the fake receives nothing', async () => {
    const { key } = await createVirtualKey({ name: 'no-host', provider: 'openai', secret: PROVIDER_SECRET });
    const response = await post('/v1/chat/completions', { 'x-gateway-api-key': key, 'x-gateway-custom-host': openai.baseUrl });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe('x-gateway-custom-host');
    expect(openai.requests).toHaveLength(0);
  });

  it('changing a virtual key’s host needs its secret again; the old secret is never sent to the new host', async () => {
    const { id, key } = await createVirtualKey({ name: 'moving', provider: 'openai', secret: PROVIDER_SECRET, customHost: openai.baseUrl });
    const other = await startOpenAIFake();
    try {
      const refused = await gateway.admin(`/virtual-keys/${id}`, { method: 'PATCH', body: JSON.stringify({ customHost: other.baseUrl }) });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { param: string } }).error.param).toBe('secret');
      // Unchanged: still bound to the first host.
      expect((await post('/v1/chat/completions', { 'x-gateway-api-key': key })).status).toBe(200);
      expect(openai.requests.at(-1)!.headers.authorization).toBe(`Bearer ${PROVIDER_SECRET}`);

      const moved = await gateway.admin(`/virtual-keys/${id}`, { method: 'PATCH', body: JSON.stringify({ customHost: other.baseUrl, secret: 'sk-new-host-secret-0123456789' }) });
      expect(moved.status).toBe(200);
      expect((await post('/v1/chat/completions', { 'x-gateway-api-key': key })).status).toBe(200);
      expect(other.requests).toHaveLength(1);
      expect(other.requests[0].headers.authorization).toBe('Bearer sk-new-host-secret-0123456789');
      expect(JSON.stringify(other.requests)).not.toContain(PROVIDER_SECRET);
    } finally {
      await other.close();
    }
  });

  it('refuses a model name with a . or .. path segment (400) before it reaches the key’s host', async () => {
    const { key } = await createVirtualKey({ name: 'gemini-bound', provider: 'google', secret: GOOGLE_SECRET, customHost: gemini.baseUrl });
    for (const model of ['models/../../x', '../x', 'models/./gemini-2.0-flash', 'models/%2e%2e/x', 'models\\..\\x']) {
      const response = await post('/v1/chat/completions', { 'x-gateway-api-key': key }, { ...chat, model });
      expect(response.status, model).toBe(400);
      expect(((await response.json()) as { error: { param: string } }).error.param, model).toBe('model');
    }
    expect(gemini.requests).toHaveLength(0);
    // Dots inside a name are no segment.
    expect((await post('/v1/chat/completions', { 'x-gateway-api-key': key }, { ...chat, model: 'gemini-2.0-flash' })).status).toBe(200);
    expect(gemini.requests[0].url).toContain('/v1beta/models/gemini-2.0-flash:generateContent');
  });
});

describe('what the stored log keeps', () => {
  it('redacts x-api-key, x-goog-api-key, credential-named headers and a custom host’s user-info and query', async () => {
    const traceId = `trace-redact-${Date.now()}`;
    const host = `${openai.origin.replace('http://', 'http://someone:hunter2-password@')}/v1?api_key=sk-query-secret-0123456789&region=eu`;
    const response = await post('/v1/chat/completions', {
      'x-gateway-api-key': gateway.apiKey,
      'x-gateway-provider': 'openai',
      'x-gateway-custom-host': host,
      authorization: `Bearer ${PROVIDER_SECRET}`,
      'x-api-key': 'anthropic-style-secret-0123456789',
      'x-goog-api-key': 'google-style-secret-0123456789',
      'x-custom-auth': 'custom-auth-secret-0123456789',
      'x-session-token': 'session-token-secret-0123456789',
      'x-trace-note': 'kept as it is',
      'x-gateway-trace-id': traceId,
    });
    expect(response.status).toBe(200);
    const row = await storedRow(traceId);
    const stored = JSON.stringify(row);
    for (const secret of ['hunter2-password', 'someone', 'sk-query-secret-0123456789', 'anthropic-style-secret-0123456789', 'google-style-secret-0123456789', 'custom-auth-secret-0123456789', 'session-token-secret-0123456789', PROVIDER_SECRET, gateway.apiKey]) {
      expect(stored, secret).not.toContain(secret);
    }
    expect(row.requestHeaders['x-api-key']).toBe('[redacted]');
    expect(row.requestHeaders['x-goog-api-key']).toBe('[redacted]');
    expect(row.requestHeaders['x-custom-auth']).toBe('[redacted]');
    expect(row.requestHeaders['x-gateway-custom-host']).toBe(`${openai.origin.replace('http://', 'http://[redacted]@')}/v1?api_key=[redacted]&region=[redacted]`);
    expect(row.requestHeaders['x-trace-note']).toBe('kept as it is');
  });

  it('switching "store bodies" off takes effect on the running gateway', async () => {
    const headers = { 'x-gateway-api-key': gateway.apiKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': openai.baseUrl };
    const before = `trace-bodies-on-${Date.now()}`;
    await post('/v1/chat/completions', { ...headers, 'x-gateway-trace-id': before }, { ...chat, messages: [{ role: 'user', content: 'kept body' }] });
    expect((await storedRow(before)).requestBody).toContain('kept body');

    expect((await gateway.admin('/settings', { method: 'PATCH', body: JSON.stringify({ storeBodies: false }) })).status).toBe(200);
    try {
      const after = `trace-bodies-off-${Date.now()}`;
      expect((await post('/v1/chat/completions', { ...headers, 'x-gateway-trace-id': after }, { ...chat, messages: [{ role: 'user', content: 'private body' }] })).status).toBe(200);
      const row = await storedRow(after);
      expect(row.status).toBe(200);
      expect(row.requestBody).toBeNull();
      expect(JSON.stringify(row)).not.toContain('private body');
    } finally {
      await gateway.admin('/settings', { method: 'PATCH', body: JSON.stringify({ storeBodies: true }) });
    }
  });
});
