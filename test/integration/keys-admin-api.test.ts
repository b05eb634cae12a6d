// Virtual keys and gateway keys through the admin API, used against a running gateway, on each storage backend.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PgBridge, type Statement } from '../../src-main/store-postgres/pg-bridge.js';
import type { TestGateway } from '../helpers/gateway.js';
import { backends } from '../helpers/backends.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

let gateway: TestGateway;
let fake: OpenAIFake;

describe.each(backends())('on $name', (backend) => {
  beforeAll(async () => {
    gateway = await backend.gateway();
    fake = await startOpenAIFake();
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
    await backend.close();
  }, 30_000);
  afterEach(() => {
    fake.requests.length = 0;
  });

  interface CreatedKey {
    id: string;
    name: string;
    provider: string;
    key: string;
    keyPrefix: string;
    createdAt: string;
  }

  async function createVirtualKey(body: Record<string, unknown>): Promise<CreatedKey> {
    const response = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify(body) });
    expect(response.status).toBe(201);
    return (await response.json()) as CreatedKey;
  }

  function complete(headers: Record<string, string>) {
    return fetch(`${gateway.baseUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say hi', max_tokens: 5 }),
    });
  }

  describe('virtual keys through the admin API', () => {
    it('creates a key that is shown once and listed without secret or full key', async () => {
      const created = await createVirtualKey({ name: 'Shown once', provider: 'openai', secret: 'sk-admin-secret-0001', customHost: fake.baseUrl });
      expect(created).toMatchObject({ name: 'Shown once', provider: 'openai', lastUsedAt: null });
      expect(created.key).toMatch(/^gh-vk-/);
      expect(created.key.startsWith(created.keyPrefix)).toBe(true);
      expect(Date.parse(created.createdAt)).not.toBeNaN();

      const list = await gateway.admin('/virtual-keys');
      const text = await list.text();
      expect(text).toContain(created.id);
      expect(text).not.toContain(created.key);
      expect(text).not.toContain('sk-admin-secret-0001');
    });

    it('routes a request with its stored credentials, in x-gateway-api-key or alone as a bearer token', async () => {
      const created = await createVirtualKey({ name: 'Routes', provider: 'openai', secret: 'sk-stored-0002', customHost: fake.baseUrl });

      const viaHeader = await complete({ 'x-gateway-api-key': created.key });
      expect(viaHeader.status).toBe(200);
      const viaBearer = await complete({ authorization: `Bearer ${created.key}` });
      expect(viaBearer.status).toBe(200);
      expect(fake.requests.map((request) => request.headers.authorization)).toEqual(['Bearer sk-stored-0002', 'Bearer sk-stored-0002']);

      // The list says when each key was last used, from the request log.
      await gateway.flushLog();
      const listed = (await (await gateway.admin('/virtual-keys')).json()) as { items: { id: string; lastUsedAt: string | null }[] };
      const entry = listed.items.find((item) => item.id === created.id);
      expect(Date.parse(entry?.lastUsedAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    });

    it.runIf(backend.name === 'PostgreSQL')('lists the keys with when each was last used in one query, without blocking the serving thread on it', async () => {
      const queries = vi.spyOn(PgBridge.prototype, 'run');
      // The bridge has no way left to block the serving thread: every method hands work over.
      expect(Object.getOwnPropertyNames(PgBridge.prototype).filter((name) => /Sync$|^waitFor/.test(name))).toEqual([]);
      try {
        const listed = (await (await gateway.admin('/virtual-keys')).json()) as { items: { lastUsedAt: string | null }[] };
        expect(listed.items.length).toBeGreaterThan(1);
        expect(listed.items.some((item) => item.lastUsedAt !== null)).toBe(true);
        // Counted by what they read: the instance's own background work (log batches, spend, heartbeat) goes on meanwhile.
        const ofKeys = (calls: [Statement[], ...unknown[]][]) => calls.filter(([statements]) => statements.some((statement) => statement.sql.includes('virtual_keys')));
        expect(ofKeys(queries.mock.calls)).toHaveLength(1);
      } finally {
        queries.mockRestore();
      }
    });

    it('does not let request headers swap in other credentials', async () => {
      const created = await createVirtualKey({ name: 'Fixed', provider: 'openai', secret: 'sk-fixed-0003', customHost: fake.baseUrl });
      const response = await complete({ 'x-gateway-api-key': created.key, authorization: 'Bearer sk-someone-else' });
      expect(response.status).toBe(200);
      expect(fake.requests[0].headers.authorization).toBe('Bearer sk-fixed-0003');
    });

    it('refuses to send the stored secret to a different custom host (400)', async () => {
      const created = await createVirtualKey({ name: 'Bound', provider: 'openai', secret: 'sk-bound-0004', customHost: fake.baseUrl });
      const response = await complete({ 'x-gateway-api-key': created.key, 'x-gateway-custom-host': 'http://127.0.0.1:1/v1' });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { param: string } }).error.param).toBe('x-gateway-custom-host');
      expect(fake.requests).toHaveLength(0);
    });

    it('rotates the secret and renames in one PATCH; the next request uses the new secret', async () => {
      const created = await createVirtualKey({ name: 'Rotate me', provider: 'openai', secret: 'sk-old-0005', customHost: fake.baseUrl });
      const patched = await gateway.admin(`/virtual-keys/${created.id}`, { method: 'PATCH', body: JSON.stringify({ name: 'Rotated', secret: 'sk-new-0005' }) });
      expect(patched.status).toBe(200);
      expect(await patched.json()).toMatchObject({ id: created.id, name: 'Rotated' });
      expect((await complete({ 'x-gateway-api-key': created.key })).status).toBe(200);
      expect(fake.requests[0].headers.authorization).toBe('Bearer sk-new-0005');
    });

    it('reissues the key string on request; the old one stops at once', async () => {
      const created = await createVirtualKey({ name: 'Reissue', provider: 'openai', secret: 'sk-re-0006', customHost: fake.baseUrl });
      const patched = await gateway.admin(`/virtual-keys/${created.id}`, { method: 'PATCH', body: JSON.stringify({ regenerateKey: true }) });
      const { key } = (await patched.json()) as { key: string };
      expect(key).toMatch(/^gh-vk-/);
      expect((await complete({ 'x-gateway-api-key': created.key })).status).toBe(401);
      expect((await complete({ 'x-gateway-api-key': key })).status).toBe(200);
    });

    it('revokes: the key answers 401 at once and leaves the list', async () => {
      const created = await createVirtualKey({ name: 'Revoke me', provider: 'openai', secret: 'sk-rev-0007', customHost: fake.baseUrl });
      const revoked = await gateway.admin(`/virtual-keys/${created.id}`, { method: 'DELETE' });
      expect(revoked.status).toBe(200);
      const response = await complete({ 'x-gateway-api-key': created.key });
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { type: string } }).error.type).toBe('authentication_error');
      expect((await complete({ authorization: `Bearer ${created.key}` })).status).toBe(401);
      const list = (await (await gateway.admin('/virtual-keys')).json()) as { items: { id: string }[] };
      expect(list.items.map((item) => item.id)).not.toContain(created.id);
      expect((await gateway.admin(`/virtual-keys/${created.id}`, { method: 'DELETE' })).status).toBe(200);
      expect((await gateway.admin('/virtual-keys/vk_missing', { method: 'DELETE' })).status).toBe(404);
    });

    it('answers 400 naming the field for a bad body', async () => {
      const noName = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ provider: 'openai', secret: 'x' }) });
      expect(noName.status).toBe(400);
      expect(((await noName.json()) as { error: { param: string } }).error.param).toBe('name');
      const unknownProvider = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'x', provider: 'nope', secret: 'x' }) });
      expect(unknownProvider.status).toBe(400);
      const noSecret = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'x', provider: 'openai' }) });
      expect(noSecret.status).toBe(400);
    });

    it('needs the admin token', async () => {
      const response = await fetch(`${gateway.baseUrl}/admin/api/virtual-keys`);
      expect(response.status).toBe(401);
    });
  });

  describe('gateway API keys through the admin API', () => {
    it('create, authenticate, list without the key, revoke', async () => {
      const created = await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'ci' }) });
      expect(created.status).toBe(201);
      const { id, key } = (await created.json()) as { id: string; key: string };
      const headers = { 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.baseUrl, authorization: 'Bearer sk-client-token' };
      expect((await complete(headers)).status).toBe(200);
      expect(fake.requests[0].headers.authorization).toBe('Bearer sk-client-token');
      expect(await (await gateway.admin('/gateway-keys')).text()).not.toContain(key);
      expect((await gateway.admin(`/gateway-keys/${id}`, { method: 'DELETE' })).status).toBe(200);
      expect((await complete(headers)).status).toBe(401);
    });
  });

  describe('key names are unique among active keys of both kinds, case aside', () => {
    interface Refusal {
      error: { code: string; param: string; message: string };
    }
    const post = (path: string, body: Record<string, unknown>) => gateway.admin(path, { method: 'POST', body: JSON.stringify(body) });
    const patch = (path: string, body: Record<string, unknown>) => gateway.admin(path, { method: 'PATCH', body: JSON.stringify(body) });
    async function expectTaken(response: Response, named: string): Promise<void> {
      expect(response.status).toBe(409);
      const { error } = (await response.json()) as Refusal;
      expect(error).toMatchObject({ code: 'key_name_taken', param: 'name' });
      expect(error.message).toContain(`A key named '${named}' already exists`);
    }

    it('refuses a twin virtual key, gateway key or rename with 409 key_name_taken naming the key; revoking frees the name', async () => {
      const first = await createVirtualKey({ name: 'Team Work', provider: 'openai', secret: 'sk-names-0010', customHost: fake.baseUrl });
      await expectTaken(await post('/virtual-keys', { name: 'team work', provider: 'openai', secret: 'sk-names-0011', customHost: fake.baseUrl }), 'Team Work');
      await expectTaken(await post('/gateway-keys', { name: 'TEAM WORK' }), 'Team Work');

      const other = await createVirtualKey({ name: 'Team Play', provider: 'openai', secret: 'sk-names-0012', customHost: fake.baseUrl });
      await expectTaken(await patch(`/virtual-keys/${other.id}`, { name: 'team WORK' }), 'Team Work');
      const gatewayKey = (await (await post('/gateway-keys', { name: 'team-ci' })).json()) as { id: string };
      await expectTaken(await patch(`/gateway-keys/${gatewayKey.id}`, { name: 'Team Play' }), 'Team Play');
      // A key keeps its own name through a change of case.
      expect((await patch(`/virtual-keys/${other.id}`, { name: 'TEAM PLAY' })).status).toBe(200);

      const names = (await (await gateway.admin('/virtual-keys')).json()) as { items: { name: string }[] };
      expect(names.items.filter((item) => item.name.toLowerCase() === 'team work')).toHaveLength(1);
      expect((await gateway.admin(`/virtual-keys/${first.id}`, { method: 'DELETE' })).status).toBe(200);
      expect((await post('/gateway-keys', { name: 'Team Work' })).status).toBe(201);
    });
  });

  describe('chatOnly on a virtual key', () => {
    const responsesCall = (key: string) =>
      fetch(`${gateway.baseUrl}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'gpt-4o-mini', input: 'Say hi' }),
      });

    it('is stored, shown and changed through the API, and a chatOnly key sends a Responses call to Chat', async () => {
      const created = await createVirtualKey({ name: 'LM Studio', provider: 'openai', secret: 'sk-chat-0020', customHost: fake.baseUrl, chatOnly: true });
      expect(created).toMatchObject({ chatOnly: true });
      expect(await (await gateway.admin(`/virtual-keys/${created.id}`)).json()).toMatchObject({ chatOnly: true });
      const answer = await responsesCall(created.key);
      expect(answer.status).toBe(200);
      expect(fake.requests.map((request) => request.url)).toEqual(['/v1/chat/completions']);

      const off = await gateway.admin(`/virtual-keys/${created.id}`, { method: 'PATCH', body: JSON.stringify({ chatOnly: false }) });
      expect(await off.json()).toMatchObject({ chatOnly: false });
      const listed = (await (await gateway.admin('/virtual-keys')).json()) as { items: { id: string; chatOnly: boolean }[] };
      expect(listed.items.find((item) => item.id === created.id)?.chatOnly).toBe(false);
    });

    it('is learnt from the server: a 404 at /v1/responses is retried as Chat and the key remembers it', async () => {
      const created = await createVirtualKey({ name: 'vLLM learns', provider: 'openai', secret: 'sk-chat-0021', customHost: fake.baseUrl });
      expect(created).toMatchObject({ chatOnly: false });
      expect((await responsesCall(created.key)).status).toBe(200);
      expect(fake.requests.map((request) => request.url)).toEqual(['/v1/responses', '/v1/chat/completions']);
      await vi.waitFor(async () => expect(await (await gateway.admin(`/virtual-keys/${created.id}`)).json()).toMatchObject({ chatOnly: true }), { timeout: 5_000, interval: 50 });
      // The next call goes to Chat at once (the in-memory directory has it too).
      fake.requests.length = 0;
      await vi.waitFor(async () => {
        fake.requests.length = 0;
        expect((await responsesCall(created.key)).status).toBe(200);
        expect(fake.requests.map((request) => request.url)).toEqual(['/v1/chat/completions']);
      }, { timeout: 5_000, interval: 50 });
    });
  });

  describe('GET /admin/api/providers', () => {
    it('lists each slug with the credential fields its form needs', async () => {
      const response = await gateway.admin('/providers');
      expect(response.status).toBe(200);
      const { items } = (await response.json()) as { items: { slug: string; name: string; defaultBaseUrl: string; fields: { name: string; secret: boolean }[] }[] };
      const openai = items.find((item) => item.slug === 'openai');
      expect(openai).toMatchObject({ name: expect.any(String), defaultBaseUrl: expect.stringContaining('https://') });
      expect(openai?.fields).toContainEqual(expect.objectContaining({ name: 'token', secret: true }));
      expect(items.map((item) => item.slug)).toEqual(expect.arrayContaining(['openai', 'ollama', 'groq']));
    });
  });
});
