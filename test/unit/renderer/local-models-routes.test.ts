// "Add to a route" on the Local models page: the server's own key is reused (found by provider and
// host, not by name) or made once and handed to the route dialog instead of the page's key dialog;
// the route sent is the one the person asked for; a refusal lands beside the field it names.
import { beforeEach, describe, expect, it } from 'vitest';
import { AdminClient } from '../../../src-renderer/api/admin-client';
import type { Route, VirtualKey } from '../../../src-renderer/api/types';
import { fieldOfRefusal, findServerKey, newRouteForModel, routeWithTarget } from '../../../src-renderer/pages/local/add-to-route';
import { useKeysStore } from '../../../src-renderer/stores/keys-store';
import { useLocalServersStore, type LocalServer } from '../../../src-renderer/stores/local-servers-store';
import { useSessionStore } from '../../../src-renderer/stores/session-store';

const server: LocalServer = {
  kind: 'ollama',
  url: 'http://127.0.0.1:11434/v1',
  host: '127.0.0.1',
  port: 11434,
  version: '0.6.5',
  models: [{ id: 'llama3.2:latest' }],
  connection: { provider: 'ollama', customHost: 'http://127.0.0.1:11434' },
  online: true,
  lastSeen: '2026-01-01T10:00:00.000Z',
};

function key(name: string, patch: Partial<VirtualKey> = {}): VirtualKey {
  return {
    id: `vk_${name}`,
    name,
    provider: 'ollama',
    customHost: 'http://127.0.0.1:11434',
    keyPrefix: 'gh-vk-abcd',
    settings: {},
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    revokedAt: null,
    lastUsedAt: null,
    defaultModel: null,
    modelMap: {},
    allowRouting: false,
    chatOnly: false,
    ...patch,
  };
}

function route(patch: Partial<Route> = {}): Route {
  return {
    id: 'rt_1',
    position: 0,
    name: 'chat',
    match: 'chat-*',
    strategy: 'fallback',
    targets: [{ key: 'cloud', model: 'gpt-5-mini', timeout_ms: 20000 }],
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    lastServed: { key: 'cloud', model: 'gpt-5-mini', at: '2026-01-01T00:00:00.000Z' },
    ...patch,
  };
}

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('add a local model to a route: the rules', () => {
  it("finds the server's key by provider and host (not by name), skipping revoked keys and other servers", () => {
    const keys = [
      key('old', { revokedAt: '2026-01-02T00:00:00.000Z' }),
      key('elsewhere', { customHost: 'http://127.0.0.1:1234/v1' }),
      key('openai-same-host', { provider: 'openai' }),
      key('my ollama', { customHost: 'http://127.0.0.1:11434/' }),
    ];
    expect(findServerKey(keys, server, 'Ollama on 127.0.0.1:11434')?.name).toBe('my ollama');
    // Several reach it: the one named as the page names it.
    expect(findServerKey([...keys, key('Ollama on 127.0.0.1:11434')], server, 'Ollama on 127.0.0.1:11434')?.name).toBe('Ollama on 127.0.0.1:11434');
    expect(findServerKey(keys.slice(0, 3), server, 'Ollama on 127.0.0.1:11434')).toBeNull();
  });

  it('makes a new route whose name and match are what was typed, with key → model as its one target', () => {
    expect(newRouteForModel('  local-llama ', 'Ollama on 127.0.0.1:11434', 'llama3.2:latest')).toEqual({
      name: 'local-llama',
      match: 'local-llama',
      strategy: 'fallback',
      targets: [{ key: 'Ollama on 127.0.0.1:11434', model: 'llama3.2:latest' }],
    });
  });

  it("appends key → model as the last target, keeping the route's other targets as they were, and refuses a pair already there", () => {
    const result = routeWithTarget(route(), 'Ollama on 127.0.0.1:11434', 'llama3.2:latest');
    expect(result).toEqual({
      input: {
        name: 'chat',
        match: 'chat-*',
        strategy: 'fallback',
        targets: [
          { key: 'cloud', model: 'gpt-5-mini', timeout_ms: 20000 },
          { key: 'Ollama on 127.0.0.1:11434', model: 'llama3.2:latest' },
        ],
      },
    });
    expect(routeWithTarget(route({ targets: [{ key: 'k', model: 'm' }] }), 'k', 'm')).toEqual({ error: '“chat” already sends to k → m.' });
  });

  it("puts the server's refusal beside the field it names", () => {
    expect(fieldOfRefusal('new', 'match')).toBe('name');
    expect(fieldOfRefusal('new', 'name')).toBe('name');
    expect(fieldOfRefusal('new', 'targets[0].key')).toBeNull();
    expect(fieldOfRefusal('existing', 'targets[1].model')).toBe('route');
    expect(fieldOfRefusal('existing', 'targets')).toBe('route');
    expect(fieldOfRefusal('existing', null)).toBeNull();
  });
});

describe("the local servers store: the key a route uses", () => {
  let calls: Array<{ method: string; url: string; body: unknown }>;
  let virtualKeys: VirtualKey[];

  beforeEach(() => {
    calls = [];
    virtualKeys = [];
    const fetchImpl: typeof fetch = async (input, init) => {
      const method = init?.method ?? 'GET';
      const url = String(input);
      const body = init?.body ? JSON.parse(String(init.body)) : undefined;
      calls.push({ method, url, body });
      if (url.endsWith('/virtual-keys') && method === 'POST') {
        const made = key(body.name);
        virtualKeys.push(made);
        return json({ ...made, key: 'gh-vk-secret-once' }, 201);
      }
      if (url.endsWith('/virtual-keys')) return json({ items: virtualKeys });
      return json({ items: [] });
    };
    useSessionStore.setState({ client: new AdminClient('admin-token', fetchImpl), connection: 'connected' });
    useKeysStore.setState({ virtualKeys: [], status: 'idle', revealed: null });
  });

  it('makes a key with no secret the first time, hands it over once (not to the page dialog), and reuses it the next time', async () => {
    const first = await useLocalServersStore.getState().keyForServer(server, 'llama3.2:latest');
    expect(first).toEqual({ name: 'Ollama on 127.0.0.1:11434', made: { kind: 'virtual', id: 'vk_Ollama on 127.0.0.1:11434', name: 'Ollama on 127.0.0.1:11434', key: 'gh-vk-secret-once', provider: 'ollama' } });
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({ name: 'Ollama on 127.0.0.1:11434', provider: 'ollama', customHost: 'http://127.0.0.1:11434' });
    // The route dialog shows it; the page's own key dialog must not open on top.
    expect(useKeysStore.getState().revealed).toBeNull();
    expect(useLocalServersStore.getState().preparingRouteFor).toBeNull();

    calls = [];
    const second = await useLocalServersStore.getState().keyForServer(server, 'llama3.2:latest');
    expect(second).toEqual({ name: 'Ollama on 127.0.0.1:11434', made: null });
    expect(calls.some((call) => call.method === 'POST')).toBe(false);
  });

  it('uses a key made elsewhere for the same server, whatever its name', async () => {
    virtualKeys = [key('home ollama')];
    expect(await useLocalServersStore.getState().keyForServer(server, 'llama3.2:latest')).toEqual({ name: 'home ollama', made: null });
  });
});
