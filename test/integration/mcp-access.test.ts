// Who may use which MCP server, and secrets at rest: a key limited to one server sees and calls only
// that one (through /mcp and /mcp/{server}), one limited to two tools of a server only those, one set to
// deny by default none until allowed; a server switched off is gone for everyone; the secret env
// values and headers of servers are sealed in the data dir and blanked in the log.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, TEST_GATEWAY_KEY, type TestGateway } from '../helpers/gateway.js';
import { startMcpHttpServer, type McpHttpTestServer } from '../fakes/mcp-tools.js';
import { addMcpServer, connectMcp, patchMcpServer, stdioServerCommand, textOf } from '../helpers/mcp.js';

const ENV_SECRET = 'mcp-env-secret-4f1c2b9e7d';
const HEADER_SECRET = 'mcp-header-secret-8a7b6c5d4e';

let gateway: TestGateway;
let remote: McpHttpTestServer;
let limitedKey: string;
let limitedKeyId: string;

beforeAll(async () => {
  gateway = await startGateway();
  remote = await startMcpHttpServer('remote');
  await addMcpServer(gateway, { name: 'local', ...stdioServerCommand('local'), env: { PLAIN_SETTING: 'visible' }, secretEnv: { SERVICE_TOKEN: ENV_SECRET } });
  await addMcpServer(gateway, { name: 'remote', transport: 'http', url: remote.url, secretHeaders: { 'x-service-token': HEADER_SECRET } });
  const created = (await (await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'only remote' }) })).json()) as { key: string; id: string };
  limitedKey = created.key;
  limitedKeyId = created.id;
  const limited = await gateway.admin(`/gateway-keys/${limitedKeyId}`, { method: 'PATCH', body: JSON.stringify({ mcpServers: ['remote'] }) });
  expect(((await limited.json()) as { mcpServers: string[] }).mcpServers).toEqual(['remote']);
});

afterAll(async () => {
  await gateway?.close();
  await remote?.close();
});

describe('a key limited to one server', () => {
  it('lists and calls only that server through /mcp', { timeout: 60_000 }, async () => {
    const client = await connectMcp(gateway, '/mcp', limitedKey);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('remote__echo');
    expect(names.some((name) => name.startsWith('local__'))).toBe(false);
    expect(textOf(await client.callTool({ name: 'remote__echo', arguments: { text: 'ok' } }))).toBe('remote says ok');
    await expect(client.callTool({ name: 'local__echo', arguments: { text: 'no' } })).rejects.toThrow(/This key may not use MCP server 'local'/);
    await client.close();
    await gateway.flushLog();
    const rows = ((await (await gateway.admin('/logs?kind=mcp&server=local')).json()) as { items: { status: number; error: string }[] }).items;
    expect(rows[0]).toMatchObject({ status: 403 });
  });

  it('is refused on the other server’s own endpoint', async () => {
    const response = await fetch(`${gateway.baseUrl}/mcp/local`, {
      method: 'POST',
      headers: { authorization: `Bearer ${limitedKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/may not use MCP server 'local'/);
  });

  it('gets every server again once its limit is lifted, and a virtual key can be limited too', { timeout: 60_000 }, async () => {
    await gateway.admin(`/gateway-keys/${limitedKeyId}`, { method: 'PATCH', body: JSON.stringify({ mcpServers: null }) });
    const client = await connectMcp(gateway, '/mcp', limitedKey);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('local__echo');
    await client.close();

    const virtual = (await (await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'tool key', provider: 'openai', secret: 'sk-provider-secret-000000001' }) })).json()) as { key: string; id: string };
    const patched = await gateway.admin(`/virtual-keys/${virtual.id}`, { method: 'PATCH', body: JSON.stringify({ mcpServers: ['local'] }) });
    expect(((await patched.json()) as { mcpServers: string[] }).mcpServers).toEqual(['local']);
    const withVirtual = await connectMcp(gateway, '/mcp', virtual.key);
    const names = (await withVirtual.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('local__echo');
    expect(names.some((name) => name.startsWith('remote__'))).toBe(false);
    await withVirtual.close();
    const bad = await gateway.admin(`/virtual-keys/${virtual.id}`, { method: 'PATCH', body: JSON.stringify({ mcpServers: ['Not A Name'] }) });
    expect(bad.status).toBe(400);
  });

  it('refuses a request without a valid key', async () => {
    for (const headers of [{}, { authorization: 'Bearer gh-gk-not-a-real-key' }] as Record<string, string>[]) {
      const response = await fetch(`${gateway.baseUrl}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
      expect(response.status).toBe(401);
      expect(((await response.json()) as { jsonrpc: string }).jsonrpc).toBe('2.0');
    }
  });
});

describe('a key limited to two tools of a server', () => {
  it('lists and calls only those two there, through /mcp and /mcp/{server}, and keeps every tool of its other servers', { timeout: 60_000 }, async () => {
    const created = (await (await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'two remote tools' }) })).json()) as { key: string; id: string };
    const patched = await gateway.admin(`/gateway-keys/${created.id}`, { method: 'PATCH', body: JSON.stringify({ mcpTools: { remote: ['echo', 'fail'] } }) });
    expect(await patched.json()).toMatchObject({ mcpServers: null, mcpTools: { remote: ['echo', 'fail'] }, mcpDefault: null });

    const combined = await connectMcp(gateway, '/mcp', created.key);
    const names = (await combined.listTools()).tools.map((tool) => tool.name);
    expect(names.filter((name) => name.startsWith('remote__')).sort()).toEqual(['remote__echo', 'remote__fail']);
    expect(names).toContain('local__env');
    expect(textOf(await combined.callTool({ name: 'remote__echo', arguments: { text: 'ok' } }))).toBe('remote says ok');
    await expect(combined.callTool({ name: 'remote__log', arguments: {} })).rejects.toThrow(/This key may not use tool 'log' of MCP server 'remote'/);
    await combined.close();

    const own = await connectMcp(gateway, '/mcp/remote', created.key);
    expect((await own.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['echo', 'fail']);
    expect((await own.callTool({ name: 'fail', arguments: {} })).isError).toBe(true);
    await expect(own.callTool({ name: 'slow', arguments: { ms: 1 } })).rejects.toThrow(/This key may not use tool 'slow' of MCP server 'remote'/);
    await own.close();

    await gateway.flushLog();
    const refused = ((await (await gateway.admin('/logs?kind=mcp&server=remote&tool=slow')).json()) as { items: { status: number }[] }).items;
    expect(refused[0]).toMatchObject({ status: 403 });
    // A server named like an Object member is a server like any other, not a lookup into the grant's prototype.
    const odd = await gateway.admin(`/gateway-keys/${created.id}`, { method: 'PATCH', body: JSON.stringify({ mcpTools: { constructor: ['x'] } }) });
    expect(odd.status).toBe(200);
    const after = await connectMcp(gateway, '/mcp', created.key);
    expect((await after.listTools()).tools.map((tool) => tool.name)).toContain('remote__env');
    await after.close();
    const bad = await gateway.admin(`/gateway-keys/${created.id}`, { method: 'PATCH', body: JSON.stringify({ mcpTools: { remote: [''] } }) });
    expect(bad.status).toBe(400);
  });
});

describe('a key set to deny by default', () => {
  it('sees no server until one is allowed, and the global default applies to keys without their own', { timeout: 60_000 }, async () => {
    const created = (await (await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'denied at first' }) })).json()) as { key: string; id: string };
    const toolsOf = async () => {
      const client = await connectMcp(gateway, '/mcp', created.key);
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      await client.close();
      return names;
    };
    expect(await toolsOf()).toContain('local__echo');
    await gateway.admin(`/gateway-keys/${created.id}`, { method: 'PATCH', body: JSON.stringify({ mcpDefault: 'deny' }) });
    expect(await toolsOf()).toEqual([]);
    await gateway.admin(`/gateway-keys/${created.id}`, { method: 'PATCH', body: JSON.stringify({ mcpServers: ['local'] }) });
    expect((await toolsOf()).every((name) => name.startsWith('local__'))).toBe(true);

    // The global default: a key that says nothing follows it; one that says 'allow' keeps every server.
    await gateway.admin(`/gateway-keys/${created.id}`, { method: 'PATCH', body: JSON.stringify({ mcpServers: null, mcpDefault: null }) });
    expect((await gateway.admin('/settings', { method: 'PATCH', body: JSON.stringify({ mcpKeyDefault: 'deny' }) })).status).toBe(200);
    try {
      expect(await toolsOf()).toEqual([]);
      await gateway.admin(`/gateway-keys/${created.id}`, { method: 'PATCH', body: JSON.stringify({ mcpDefault: 'allow' }) });
      expect(await toolsOf()).toContain('remote__echo');
    } finally {
      await gateway.admin('/settings', { method: 'PATCH', body: JSON.stringify({ mcpKeyDefault: 'allow' }) });
    }
  });
});

describe('a server switched off', () => {
  it('is listed by no key and its endpoint refuses', async () => {
    await patchMcpServer(gateway, 'remote', { enabled: false });
    const client = await connectMcp(gateway, '/mcp', TEST_GATEWAY_KEY);
    expect((await client.listTools()).tools.some((tool) => tool.name.startsWith('remote__'))).toBe(false);
    await expect(client.callTool({ name: 'remote__echo', arguments: { text: 'x' } })).rejects.toThrow(/switched off/);
    await client.close();
    const servers = ((await (await gateway.admin('/mcp-servers')).json()) as { servers: { name: string; status: string }[] }).servers;
    expect(servers.find((server) => server.name === 'remote')?.status).toBe('disabled');
    await patchMcpServer(gateway, 'remote', { enabled: true });
  });
});

describe('secrets of servers', () => {
  it('reach the server but never the data dir, the admin API or the log', { timeout: 60_000 }, async () => {
    const client = await connectMcp(gateway, '/mcp/local', TEST_GATEWAY_KEY);
    // The server got its secret env value (the tool tells it), and the plain one.
    const told = textOf(await client.callTool({ name: 'env', arguments: { name: 'SERVICE_TOKEN' } }));
    expect(told).toBe(`SERVICE_TOKEN=${ENV_SECRET}`);
    expect(textOf(await client.callTool({ name: 'env', arguments: { name: 'PLAIN_SETTING' } }))).toBe('PLAIN_SETTING=visible');
    await client.close();
    const remoteClient = await connectMcp(gateway, '/mcp/remote', TEST_GATEWAY_KEY);
    await remoteClient.callTool({ name: 'echo', arguments: { text: 'x' } });
    await remoteClient.close();

    // The admin API names the secrets, never their values.
    const listed = await (await gateway.admin('/mcp-servers')).text();
    expect(listed).toContain('SERVICE_TOKEN');
    expect(listed).toContain('x-service-token');
    expect(listed).not.toContain(ENV_SECRET);
    expect(listed).not.toContain(HEADER_SECRET);

    // The log row of the call that echoed the secret has it blanked.
    await gateway.flushLog();
    const rows = ((await (await gateway.admin('/logs?kind=mcp&tool=env')).json()) as { items: { id: string }[] }).items;
    expect(rows.length).toBe(2);
    for (const row of rows) {
      const detail = await (await gateway.admin(`/logs/${row.id}`)).text();
      expect(detail).not.toContain(ENV_SECRET);
    }
    expect(await (await gateway.admin('/mcp-servers/local/stderr')).text()).not.toContain(ENV_SECRET);

    // Nothing in the data dir holds either secret in plain text (database, WAL, key files).
    await gateway.running.services.requestLog.flush();
    for (const file of readdirSync(gateway.dataDir)) {
      const path = join(gateway.dataDir, file);
      let bytes: Buffer;
      try {
        bytes = readFileSync(path);
      } catch {
        continue;
      }
      expect(bytes.includes(Buffer.from(ENV_SECRET)), file).toBe(false);
      expect(bytes.includes(Buffer.from(HEADER_SECRET)), file).toBe(false);
    }
  });

  it('can be replaced through the admin API, still sealed', { timeout: 60_000 }, async () => {
    const changed = await patchMcpServer(gateway, 'local', { secretEnv: { SERVICE_TOKEN: 'sk-mcp-env-secret-replaced-0001', OTHER_TOKEN: 'sk-mcp-env-other-000000002' } });
    expect(changed.secretEnv).toEqual(['SERVICE_TOKEN', 'OTHER_TOKEN']);
    const client = await connectMcp(gateway, '/mcp/local', TEST_GATEWAY_KEY);
    expect(textOf(await client.callTool({ name: 'env', arguments: { name: 'SERVICE_TOKEN' } }))).toBe('SERVICE_TOKEN=sk-mcp-env-secret-replaced-0001');
    await client.close();
    const removed = await patchMcpServer(gateway, 'local', { secretEnv: { OTHER_TOKEN: '' } });
    expect(removed.secretEnv).toEqual(['SERVICE_TOKEN']);
  });
});
