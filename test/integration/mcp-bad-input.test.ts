// Bad input on /mcp: malformed JSON, no or an unknown session, a method before initialize (Claude
// Code's server/discover), wrong HTTP methods and paths, a foreign Origin or Host — each a clear HTTP
// status with a JSON-RPC error, never a crash or a hang; and random JSON-RPC bodies, in a session and
// out of one, never answered with a 5xx, the gateway still serving afterwards.
import { Agent, request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, TEST_GATEWAY_KEY, type TestGateway } from '../helpers/gateway.js';
import { startMcpHttpServer, type McpHttpTestServer } from '../fakes/mcp-tools.js';
import { addMcpServer, connectMcp, textOf } from '../helpers/mcp.js';

let gateway: TestGateway;
let remote: McpHttpTestServer;
let port: number;
const agent = new Agent({ keepAlive: true, maxSockets: 4 });

beforeAll(async () => {
  gateway = await startGateway({ maxBodyBytes: 64 * 1024 });
  remote = await startMcpHttpServer('remote');
  // A short call timeout: a random call to the slow tool is cut quickly.
  await addMcpServer(gateway, { name: 'remote', transport: 'http', url: remote.url, timeoutMs: 1_500 });
  port = Number(new URL(gateway.baseUrl).port);
});

afterAll(async () => {
  agent.destroy();
  await gateway?.close();
  await remote?.close();
});

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const BASE_HEADERS = { authorization: `Bearer ${TEST_GATEWAY_KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function send(path: string, body: string | undefined, headers: Record<string, string> = {}, method = 'POST'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { ...BASE_HEADERS, ...headers }, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.setTimeout(15_000, () => req.destroy(new Error(`no answer to ${method} ${path} within 15 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } });

async function newSession(path = '/mcp'): Promise<string> {
  const reply = await send(path, INITIALIZE);
  expect(reply.status).toBe(200);
  const id = reply.headers['mcp-session-id'] as string;
  await send(path, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' });
  return id;
}

function rpcError(reply: Reply): { code: number; message: string } {
  const body = JSON.parse(reply.text) as { jsonrpc: string; error: { code: number; message: string } };
  expect(body.jsonrpc).toBe('2.0');
  return body.error;
}

describe('clear errors', () => {
  it('malformed JSON: 400 with a parse error', async () => {
    for (const body of ['{"jsonrpc":', 'not json', '\u0000\u0001', '']) {
      const reply = await send('/mcp', body);
      expect(reply.status).toBe(400);
      expect(rpcError(reply).code).toBe(-32700);
    }
  });

  it('a method before initialize (server/discover) or without a session: 400, so clients fall back to initialize', async () => {
    const reply = await send('/mcp', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: {} }));
    expect(reply.status).toBe(400);
    expect(rpcError(reply).message).toMatch(/'server\/discover' needs a session; send initialize first/);
    const get = await send('/mcp', undefined, {}, 'GET');
    expect(get.status).toBe(400);
  });

  it('an unknown session: 404, and a session is not usable with another key or on another endpoint', async () => {
    const unknown = await send('/mcp', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { 'mcp-session-id': 'no-such-session' });
    expect(unknown.status).toBe(404);
    expect(rpcError(unknown).code).toBe(-32001);
    const id = await newSession('/mcp');
    const created = (await (await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'other' }) })).json()) as { key: string };
    const otherKey = await send('/mcp', JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), { 'mcp-session-id': id, authorization: `Bearer ${created.key}` });
    expect(otherKey.status).toBe(404);
    const otherPath = await send('/mcp/remote', JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }), { 'mcp-session-id': id });
    expect(otherPath.status).toBe(404);
    // Ended with DELETE, then gone.
    expect((await send('/mcp', undefined, { 'mcp-session-id': id }, 'DELETE')).status).toBe(200);
    expect((await send('/mcp', JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list' }), { 'mcp-session-id': id })).status).toBe(404);
  });

  it('wrong methods and paths, foreign Origin and Host, a body over the cap', async () => {
    expect((await send('/mcp', '{}', {}, 'PUT')).status).toBe(405);
    expect((await send('/mcp/nope', INITIALIZE)).status).toBe(404);
    expect((await send('/mcp/remote/extra', INITIALIZE)).status).toBe(404);
    const foreignOrigin = await send('/mcp', INITIALIZE, { origin: 'https://evil.example' });
    expect(foreignOrigin.status).toBe(403);
    expect(rpcError(foreignOrigin).message).toMatch(/other origin/);
    expect((await send('/mcp', INITIALIZE, { host: 'evil.example' })).status).toBe(403);
    expect((await send('/mcp', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'x', params: { pad: 'x'.repeat(70_000) } }))).status).toBe(413);
  });
});

describe('fuzz', () => {
  const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.string({ maxLength: 20 }), fc.integer(), fc.constant(null));
  const method = fc.oneof(
    fc.constantFrom('tools/list', 'tools/call', 'prompts/list', 'prompts/get', 'resources/list', 'resources/read', 'resources/templates/list', 'resources/subscribe', 'completion/complete', 'logging/setLevel', 'ping', 'initialize', 'server/discover', 'notifications/cancelled', 'notifications/initialized'),
    fc.string({ maxLength: 20 }),
  );
  const params = fc.oneof(
    anyValue,
    fc.record(
      {
        name: fc.oneof(fc.constantFrom('remote__echo', 'remote__fail', 'remote__slow', 'remote__greet', 'echo', 'x__'), fc.string({ maxLength: 10 })),
        arguments: fc.oneof(fc.record({ text: anyValue }, { requiredKeys: [] }), anyValue),
        uri: fc.oneof(fc.constant('memo://remote/readme'), fc.string({ maxLength: 15 })),
        ref: anyValue,
        level: fc.oneof(fc.constantFrom('info', 'debug'), anyValue),
        _meta: fc.oneof(fc.record({ progressToken: fc.oneof(fc.integer(), fc.string({ maxLength: 5 })) }), anyValue),
      },
      { requiredKeys: [] },
    ),
  );
  const message = fc.record({ jsonrpc: fc.oneof(fc.constant('2.0'), anyValue), id: fc.oneof(fc.integer({ min: 1, max: 1_000_000 }), fc.string({ maxLength: 8 }), anyValue), method, params }, { requiredKeys: [] });
  const body = fc.oneof(message, fc.array(message, { maxLength: 3 }), anyValue);

  it('random bodies without a session: 4xx with a JSON-RPC error', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (value) => {
        const reply = await send('/mcp', JSON.stringify(value));
        if (reply.status === 200) return; // a valid initialize made by chance
        expect(reply.status).toBeGreaterThanOrEqual(400);
        expect(reply.status).toBeLessThan(500);
        expect(JSON.parse(reply.text).jsonrpc).toBe('2.0');
      }),
      { numRuns: 100 },
    );
  });

  it('random JSON-RPC messages in a session, on both endpoints: never a 5xx, and the gateway serves on', { timeout: 120_000 }, async () => {
    const sessions = { '/mcp': await newSession('/mcp'), '/mcp/remote': await newSession('/mcp/remote') };
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/mcp', '/mcp/remote') as fc.Arbitrary<'/mcp' | '/mcp/remote'>, body, async (path, value) => {
        const reply = await send(path, JSON.stringify(value), { 'mcp-session-id': sessions[path], 'mcp-protocol-version': '2025-06-18' });
        expect(reply.status, reply.text).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
    const client = await connectMcp(gateway, '/mcp', TEST_GATEWAY_KEY);
    expect(textOf(await client.callTool({ name: 'remote__echo', arguments: { text: 'after the fuzz' } }))).toBe('remote says after the fuzz');
    await client.close();
  });
});
