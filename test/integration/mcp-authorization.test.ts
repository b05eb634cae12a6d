// Authorization on every message of /mcp: an open session is held to its key and the servers as they are
// NOW, not as they were at initialize. One table of the messages the endpoint serves (a new message type is
// one row) against one table of changes (a key narrowed or revoked, a server switched off or deleted, a tool
// switched off): after each change, every row it concerns is refused or hidden in the session that was open
// before it, the client is told its lists changed within a second, and the rows it does not concern still
// work. The HTTP messages themselves (a request, a notification, a response, the GET stream, DELETE) are a
// second table, refused with 401 / 403 once the key may not use the endpoint, the open stream closed. And
// each call counts against the key's rpm as a model call does, in this process and in Redis alike.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startMcpHttpServer, type McpHttpTestServer } from '../fakes/mcp-tools.js';
import { addMcpServer, connectMcp, patchMcpServer, textOf } from '../helpers/mcp.js';
import { LIMIT_BACKENDS, startLimitsBackend, type LimitsBackendRun } from '../helpers/limit-backends.js';

const PROTOCOL = '2025-06-18';

async function newGatewayKey(gateway: TestGateway, name: string): Promise<{ id: string; key: string }> {
  const response = await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name }) });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; key: string };
}

async function mcpRows(gateway: TestGateway, query: string): Promise<{ status: number; error: string | null }[]> {
  await gateway.flushLog();
  return ((await (await gateway.admin(`/logs?kind=mcp${query}`)).json()) as { items: { status: number; error: string | null }[] }).items;
}

// ---- the messages, each a probe: does it reach `server` in this session? ----

/** 'reached', 'hidden' (a list without the server's entry), or the refusal the client read. */
type Outcome = string;

interface MessageRow {
  message: string;
  /** A message about one tool (the 'echo' tool): a tool switched off concerns it. */
  aboutTool?: boolean;
  probe(client: Client, server: string): Promise<Outcome>;
}

const listed = (found: boolean): Outcome => (found ? 'reached' : 'hidden');

const MESSAGES: MessageRow[] = [
  { message: 'tools/list', aboutTool: true, probe: async (c, s) => listed((await c.listTools()).tools.some((tool) => tool.name === `${s}__echo`)) },
  {
    message: 'tools/call',
    aboutTool: true,
    probe: async (c, s) => (textOf(await c.callTool({ name: `${s}__echo`, arguments: { text: 'hi' } })) === `${s} says hi` ? 'reached' : 'wrong answer'),
  },
  { message: 'prompts/list', probe: async (c, s) => listed((await c.listPrompts()).prompts.some((prompt) => prompt.name === `${s}__greet`)) },
  {
    message: 'prompts/get',
    probe: async (c, s) => (JSON.stringify(await c.getPrompt({ name: `${s}__greet`, arguments: { who: 'you' } })).includes('Hello you') ? 'reached' : 'wrong answer'),
  },
  { message: 'resources/list', probe: async (c, s) => listed((await c.listResources()).resources.some((resource) => resource.uri === `memo://${s}/readme`)) },
  {
    // Read by a URI the session learnt from a listing made while the server was still the key's.
    message: 'resources/read',
    probe: async (c, s) => {
      await c.listResources();
      return JSON.stringify(await c.readResource({ uri: `memo://${s}/readme` })).includes(`the readme of ${s}`) ? 'reached' : 'wrong answer';
    },
  },
  // The test servers have no handler for these two: their own "Method not found" shows the message reached them.
  { message: 'resources/subscribe', probe: async (c, s) => reachedServer(c.subscribeResource({ uri: `memo://${s}/readme` })) },
  {
    message: 'completion/complete',
    probe: async (c, s) => reachedServer(c.complete({ ref: { type: 'ref/prompt', name: `${s}__greet` }, argument: { name: 'who', value: 'y' } })),
  },
];

/** 'reached' when the server answered, even with its own error that it has no such method. */
async function reachedServer(sent: Promise<unknown>): Promise<Outcome> {
  try {
    await sent;
    return 'reached';
  } catch (error) {
    if (/MCP error -32601: Method not found/.test((error as Error).message)) return 'reached';
    throw error;
  }
}

async function outcome(row: MessageRow, client: Client, server: string): Promise<Outcome> {
  try {
    return await row.probe(client, server);
  } catch (error) {
    return (error as Error).message;
  }
}

// ---- the changes ----

interface Context {
  gateway: TestGateway;
  key: { id: string; key: string };
}

interface Change {
  change: string;
  apply(ctx: Context): Promise<void>;
  restore?(ctx: Context): Promise<void>;
  /** The rows it concerns (the others must still reach the server). */
  concerns(row: MessageRow): boolean;
  /** What a refused message of those rows reads. */
  refusal: RegExp;
  /** The session stays open and is told its lists changed; false: the session is closed. */
  notifies: boolean;
  /** It takes the other server ('beta') away too (a deny-by-default switch): beta is not probed after it. */
  concernsEveryServer?: true;
}

let remoteUrls: Record<string, string>;

const CHANGES: Change[] = [
  {
    change: 'the key narrowed to another server',
    apply: async ({ gateway, key }) => void expect((await gateway.admin(`/gateway-keys/${key.id}`, { method: 'PATCH', body: JSON.stringify({ mcpServers: ['beta'] }) })).status).toBe(200),
    concerns: () => true,
    refusal: /This key may not use MCP server 'alpha'/,
    notifies: true,
  },
  {
    change: 'the server switched off',
    apply: async ({ gateway }) => void (await patchMcpServer(gateway, 'alpha', { enabled: false })),
    restore: async ({ gateway }) => void (await patchMcpServer(gateway, 'alpha', { enabled: true })),
    concerns: () => true,
    refusal: /MCP server 'alpha' is switched off/,
    notifies: true,
  },
  {
    change: 'the server deleted',
    apply: async ({ gateway }) => void expect((await gateway.admin('/mcp-servers/alpha', { method: 'DELETE' })).status).toBe(204),
    restore: async ({ gateway }) => void (await addMcpServer(gateway, { name: 'alpha', transport: 'http', url: remoteUrls.alpha })),
    concerns: () => true,
    refusal: /No MCP server named 'alpha'/,
    notifies: true,
  },
  {
    change: 'its tool switched off',
    apply: async ({ gateway }) => void (await patchMcpServer(gateway, 'alpha', { disabledTools: ['echo'] })),
    restore: async ({ gateway }) => void (await patchMcpServer(gateway, 'alpha', { disabledTools: [] })),
    concerns: (row) => row.aboutTool === true,
    refusal: /Tool 'echo' of MCP server 'alpha' is switched off/,
    notifies: true,
  },
  {
    change: "the key's tools narrowed to another tool of the server",
    apply: async ({ gateway, key }) => void expect((await gateway.admin(`/gateway-keys/${key.id}`, { method: 'PATCH', body: JSON.stringify({ mcpTools: { alpha: ['slow'] } }) })).status).toBe(200),
    concerns: (row) => row.aboutTool === true,
    refusal: /This key may not use tool 'echo' of MCP server 'alpha'/,
    notifies: true,
  },
  {
    change: 'the key switched to deny by default',
    apply: async ({ gateway, key }) => void expect((await gateway.admin(`/gateway-keys/${key.id}`, { method: 'PATCH', body: JSON.stringify({ mcpDefault: 'deny' }) })).status).toBe(200),
    concerns: () => true,
    refusal: /This key may not use MCP server 'alpha'/,
    notifies: true,
    concernsEveryServer: true,
  },
  {
    change: 'the global default switched to deny',
    apply: async ({ gateway }) => void expect((await gateway.admin('/settings', { method: 'PATCH', body: JSON.stringify({ mcpKeyDefault: 'deny' }) })).status).toBe(200),
    restore: async ({ gateway }) => void expect((await gateway.admin('/settings', { method: 'PATCH', body: JSON.stringify({ mcpKeyDefault: 'allow' }) })).status).toBe(200),
    concerns: () => true,
    refusal: /This key may not use MCP server 'alpha'/,
    notifies: true,
    concernsEveryServer: true,
  },
  {
    change: 'the key revoked',
    apply: async ({ gateway, key }) => void expect((await gateway.admin(`/gateway-keys/${key.id}`, { method: 'DELETE' })).status).toBe(200),
    concerns: () => true,
    refusal: /HTTP error.*not a Gatehouse key \(no such virtual key or gateway API key; revoked keys stop working\)/,
    notifies: false,
  },
];

// ---- raw HTTP: the messages that are not a client library's business ----

function rawHeaders(key: string, sessionId?: string): Record<string, string> {
  return {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL,
    ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
  };
}

async function openRawSession(gateway: TestGateway, path: string, key: string): Promise<string> {
  const init = await fetch(`${gateway.baseUrl}${path}`, {
    method: 'POST',
    headers: rawHeaders(key),
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  expect(init.status).toBe(200);
  await init.text();
  const sessionId = init.headers.get('mcp-session-id')!;
  const initialized = await fetch(`${gateway.baseUrl}${path}`, { method: 'POST', headers: rawHeaders(key, sessionId), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  expect(initialized.status).toBe(202);
  return sessionId;
}

interface HttpRow {
  message: string;
  send(gateway: TestGateway, path: string, key: string, sessionId: string): Promise<Response>;
}

const post = (body: unknown) => (gateway: TestGateway, path: string, key: string, sessionId: string) =>
  fetch(`${gateway.baseUrl}${path}`, { method: 'POST', headers: rawHeaders(key, sessionId), body: JSON.stringify(body) });

/** Every kind of HTTP message a session takes; DELETE last (it ends the session when it is let through). */
const HTTP_MESSAGES: HttpRow[] = [
  { message: 'a request (POST tools/list)', send: post({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }) },
  { message: 'a call (POST tools/call)', send: post({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } }) },
  { message: 'a notification (POST)', send: post({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }) },
  { message: 'a response (POST)', send: post({ jsonrpc: '2.0', id: 'server-asked-1', result: {} }) },
  {
    message: 'the stream (GET)',
    send: async (gateway, path, key, sessionId) => {
      const response = await fetch(`${gateway.baseUrl}${path}`, { headers: { ...rawHeaders(key, sessionId), accept: 'text/event-stream' } });
      return response;
    },
  },
  { message: 'the end (DELETE)', send: (gateway, path, key, sessionId) => fetch(`${gateway.baseUrl}${path}`, { method: 'DELETE', headers: rawHeaders(key, sessionId) }) },
];

/** Reads a response to its end, or cancels a stream that would not end. */
async function settle(response: Response): Promise<void> {
  if (response.headers.get('content-type')?.includes('text/event-stream')) await response.body?.cancel();
  else await response.text();
}

// ---- the suites ----

describe('every message is checked against the key and the servers as they are now', () => {
  let gateway: TestGateway;
  const remotes: McpHttpTestServer[] = [];

  beforeAll(async () => {
    gateway = await startGateway();
    remotes.push(await startMcpHttpServer('alpha'), await startMcpHttpServer('beta'));
    remoteUrls = { alpha: remotes[0].url, beta: remotes[1].url };
    await addMcpServer(gateway, { name: 'alpha', transport: 'http', url: remoteUrls.alpha });
    await addMcpServer(gateway, { name: 'beta', transport: 'http', url: remoteUrls.beta });
  }, 30_000);

  afterAll(async () => {
    await gateway?.close();
    await Promise.all(remotes.map((remote) => remote.close()));
  });

  describe.each(CHANGES)('$change while a session is open on /mcp', (change) => {
    it('refuses or hides what it concerns in that session, tells the client within 1 s, and leaves the rest', { timeout: 30_000 }, async () => {
      const key = await newGatewayKey(gateway, `key for ${change.change}`);
      const ctx = { gateway, key };
      const client = await connectMcp(gateway, '/mcp', key.key);
      let listChangedAt: number | undefined;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (listChangedAt ??= Date.now()));
      try {
        for (const row of MESSAGES) {
          expect(await outcome(row, client, 'alpha'), `${row.message} before`).toBe('reached');
          expect(await outcome(row, client, 'beta'), `${row.message} before`).toBe('reached');
        }
        // The stream server notifications come on (GET) opens after initialize; the probes above gave it time.
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(listChangedAt).toBeUndefined();

        await change.apply(ctx);
        const changedAt = Date.now();
        if (change.notifies) {
          await vi.waitFor(() => expect(listChangedAt).toBeDefined(), { timeout: 1_000, interval: 20 });
          expect(listChangedAt! - changedAt).toBeLessThan(1_000);
        }
        for (const row of MESSAGES) {
          const after = await outcome(row, client, 'alpha');
          if (!change.concerns(row)) expect(after, `${row.message} after`).toBe('reached');
          else if (after !== 'hidden' || !change.notifies) expect(after, `${row.message} after`).toMatch(change.refusal);
        }
        if (change.notifies && !change.concernsEveryServer) {
          for (const row of MESSAGES) expect(await outcome(row, client, 'beta'), `${row.message} on the other server`).toBe('reached');
        }
      } finally {
        await client.close().catch(() => undefined);
        await change.restore?.(ctx);
      }
      // A refused call is a log row with its refusal.
      const rows = await mcpRows(gateway, '&server=alpha&tool=echo');
      if (change.notifies) expect(rows[0]).toMatchObject({ status: change.change === 'the server deleted' ? 404 : 403 });
    });
  });

  it('cancels a call in flight to a server the key loses, within 1 s', { timeout: 30_000 }, async () => {
    const key = await newGatewayKey(gateway, 'key with a slow call');
    const client = await connectMcp(gateway, '/mcp', key.key);
    try {
      const started = Date.now();
      const slow = client.callTool({ name: 'alpha__slow', arguments: { ms: 10_000 } }).then(
        () => ({ at: Date.now(), error: undefined }),
        (error: Error) => ({ at: Date.now(), error }),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await gateway.admin(`/gateway-keys/${key.id}`, { method: 'PATCH', body: JSON.stringify({ mcpServers: ['beta'] }) })).status).toBe(200);
      const changedAt = Date.now();
      const { at, error } = await slow;
      expect(error?.message).toMatch(/MCP server 'alpha' is no longer this key's to use/);
      expect(at - changedAt).toBeLessThan(1_000);
      expect(at - started).toBeLessThan(5_000);
    } finally {
      await client.close().catch(() => undefined);
    }
    expect((await mcpRows(gateway, '&server=alpha&tool=slow'))[0]).toMatchObject({ status: 403 });
  });

  describe.each([
    { change: 'the key narrowed to another server', path: '/mcp/alpha', status: 403, refusal: /may not use MCP server 'alpha'/ },
    { change: 'the key revoked', path: '/mcp', status: 401, refusal: /revoked keys stop working/ },
    { change: 'the key revoked', path: '/mcp/alpha', status: 401, refusal: /revoked keys stop working/ },
  ])('$change, with a session open on $path', ({ change: name, path, status, refusal }) => {
    const change = CHANGES.find((candidate) => candidate.change === name)!;

    it(`refuses every kind of HTTP message with ${status} and ends the open stream within 1 s`, { timeout: 30_000 }, async () => {
      const key = await newGatewayKey(gateway, `raw key ${name} ${path}`);
      // Each message answers before the change (on a session of its own: DELETE would end a shared one).
      for (const row of HTTP_MESSAGES) {
        const sessionId = await openRawSession(gateway, path, key.key);
        const before = await row.send(gateway, path, key.key, sessionId);
        expect(before.status, `${row.message} before`).toBeLessThan(300);
        await settle(before);
      }

      const sessionId = await openRawSession(gateway, path, key.key);
      const stream = await fetch(`${gateway.baseUrl}${path}`, { headers: { ...rawHeaders(key.key, sessionId), accept: 'text/event-stream' } });
      expect(stream.status).toBe(200);
      const reader = stream.body!.getReader();
      const ended = (async () => {
        while (!(await reader.read().catch(() => ({ done: true }))).done);
        return Date.now();
      })();

      await change.apply({ gateway, key });
      const changedAt = Date.now();
      const endedAt = await Promise.race([ended, new Promise<number>((resolve) => setTimeout(() => resolve(Infinity), 2_000))]);
      expect(endedAt - changedAt, 'the open stream ends').toBeLessThan(1_000);

      for (const row of HTTP_MESSAGES) {
        const after = await row.send(gateway, path, key.key, sessionId);
        expect(after.status, `${row.message} after`).toBe(status);
        const body = (await after.json()) as { jsonrpc: string; error: { message: string } };
        expect(body.jsonrpc).toBe('2.0');
        expect(body.error.message, `${row.message} after`).toMatch(refusal);
      }
      // A new session is refused the same way.
      const again = await fetch(`${gateway.baseUrl}${path}`, {
        method: 'POST',
        headers: rawHeaders(key.key),
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
      });
      expect(again.status).toBe(status);
      await again.text();
    });
  });
});

describe.each(LIMIT_BACKENDS)('tools/call counts against the key’s rpm (counters: %s)', (backend) => {
  let limitsBackend: LimitsBackendRun;
  let gateway: TestGateway;
  let remote: McpHttpTestServer;

  beforeAll(async () => {
    limitsBackend = await startLimitsBackend(backend);
    gateway = await startGateway({ redisUrl: limitsBackend.redisUrl });
    remote = await startMcpHttpServer('alpha');
    await addMcpServer(gateway, { name: 'alpha', transport: 'http', url: remote.url });
  }, 30_000);

  afterAll(async () => {
    await gateway?.close();
    await remote?.close();
    await limitsBackend?.close();
  });

  it('the third call in the minute is refused with the model path’s 429 and Retry-After; listing is not counted', { timeout: 30_000 }, async () => {
    const key = await newGatewayKey(gateway, 'two a minute');
    expect((await gateway.admin(`/keys/${key.id}/limits`, { method: 'PUT', body: JSON.stringify({ rpm: 2 }) })).status).toBe(200);
    const client = await connectMcp(gateway, '/mcp', key.key);
    try {
      for (let i = 0; i < 3; i++) expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('alpha__echo');
      for (const text of ['one', 'two']) expect(textOf(await client.callTool({ name: 'alpha__echo', arguments: { text } }))).toBe(`alpha says ${text}`);

      const sessionId = (client.transport as { sessionId?: string }).sessionId!;
      const third = await fetch(`${gateway.baseUrl}/mcp`, {
        method: 'POST',
        headers: rawHeaders(key.key, sessionId),
        body: JSON.stringify({ jsonrpc: '2.0', id: 'third', method: 'tools/call', params: { name: 'alpha__echo', arguments: { text: 'three' } } }),
      });
      expect(third.status).toBe(429);
      const retryAfter = Number(third.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      const body = (await third.json()) as { jsonrpc: string; id: unknown; error: { message: string } };
      expect(body).toMatchObject({ jsonrpc: '2.0', id: 'third' });
      expect(body.error.message).toMatch(/Key 'two a minute' is over its limit of 2 requests per minute/);
      // The SDK client reads the same refusal; listing still answers.
      await expect(client.callTool({ name: 'alpha__echo', arguments: { text: 'four' } })).rejects.toThrow(/HTTP error.*over its limit of 2 requests per minute/);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('alpha__echo');
      // A model call of the same key is held to the same minute.
      const model = await fetch(`${gateway.baseUrl}/v1/models`, { headers: { 'x-gateway-api-key': key.key } });
      expect(model.status).toBe(429);
      await model.text();
    } finally {
      await client.close().catch(() => undefined);
    }
    const rows = await mcpRows(gateway, '&tool=echo');
    expect(rows.map((row) => row.status)).toEqual([429, 429, 200, 200]);
    expect(rows[0].error).toMatch(/over its limit of 2 requests per minute/);
  });
});
