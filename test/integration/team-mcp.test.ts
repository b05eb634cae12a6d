// The MCP gateway in team mode: two gateways on one PostgreSQL. A server added on one instance is served
// by the other within a second, its secret env value sealed in PostgreSQL (never there in plain text) and
// opened by the other instance with the team's data key; a key limited on one instance is limited on
// both, its tools too; the calls are MCP rows of the shared log (kind, server, tool filters) and Usage counts them.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import pg from 'pg';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { addMcpServer, connectMcp, stdioServerCommand, textOf } from '../helpers/mcp.js';

const ENV_SECRET = 'team-mcp-secret-5e8d1a7c3b';
let postgres: TestPostgres;
let url: string;
const gateways: TestGateway[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
  url = await postgres.newDatabase();
  gateways.push(...(await Promise.all([0, 1].map(() => startGateway({ databaseUrl: url, redisUrl: 'redis://127.0.0.1:1' })))));
}, 60_000);

afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close().catch(() => undefined)));
  await postgres?.close();
}, 30_000);

/** Polls until `check` holds, for at most `ms`. */
async function within(ms: number, check: () => Promise<boolean>): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function gatewayKey(gateway: TestGateway, name: string): Promise<{ id: string; key: string }> {
  const response = await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name }) });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; key: string };
}

describe('MCP servers in team mode', () => {
  it('a server added on one instance is served by the other within 1 s, its secret sealed in PostgreSQL', { timeout: 60_000 }, async () => {
    const [a, b] = gateways;
    await addMcpServer(a, { name: 'shared', ...stdioServerCommand('shared'), secretEnv: { SERVICE_TOKEN: ENV_SECRET } });
    await within(1_000, async () => ((await (await b.admin('/mcp-servers')).json()) as { servers: { name: string }[] }).servers.some((server) => server.name === 'shared'));

    const key = await gatewayKey(b, 'team-tools');
    const client = await connectMcp(b, '/mcp', key.key);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('shared__echo');
    // The other instance opened the sealed value with the team's data key and gave it to the process it started.
    expect(textOf(await client.callTool({ name: 'shared__env', arguments: { name: 'SERVICE_TOKEN' } }))).toBe(`SERVICE_TOKEN=${ENV_SECRET}`);
    await client.close();

    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const row = (await db.query('SELECT secret_env_names, secret_env FROM mcp_servers WHERE name = $1', ['shared'])).rows[0] as { secret_env_names: string; secret_env: Buffer };
      expect(JSON.parse(row.secret_env_names)).toEqual(['SERVICE_TOKEN']);
      expect(row.secret_env.includes(Buffer.from(ENV_SECRET))).toBe(false);
      const plain = await db.query("SELECT count(*)::int AS n FROM request_log WHERE request_body LIKE '%' || $1 || '%' OR response_body LIKE '%' || $1 || '%'", [ENV_SECRET]);
      expect(plain.rows[0].n).toBe(0);
    } finally {
      await db.end();
    }

    await b.flushLog();
    const rows = ((await (await a.admin('/logs?kind=mcp&server=shared&tool=echo')).json()) as { items: { kind: string; server: string; tool: string; status: number }[] }).items;
    expect(rows).toHaveLength(0);
    const calls = ((await (await a.admin('/logs?kind=mcp&server=shared')).json()) as { items: { kind: string; server: string; tool: string; status: number }[] }).items;
    expect(calls.map((row) => [row.kind, row.server, row.tool, row.status])).toEqual([['mcp', 'shared', 'env', 200]]);
    const models = ((await (await a.admin('/logs?kind=model')).json()) as { items: { kind: string }[] }).items;
    expect(models.every((row) => row.kind === 'model')).toBe(true);
    const usage = (await (await a.admin('/usage?range=day&by=key')).json()) as { mcpCalls: { server: string; tool: string; calls: number; errors: number }[] };
    expect(usage.mcpCalls).toEqual([{ server: 'shared', tool: 'env', calls: 1, errors: 0 }]);
  });

  it('a session open on one instance loses a server narrowed on the other within 1 s (its client told), and is refused once revoked there', { timeout: 60_000 }, async () => {
    const [a, b] = gateways;
    const key = await gatewayKey(b, 'team-session');
    // The new key reaches the other instance by the change feed.
    await within(2_000, async () => (await fetch(`${a.baseUrl}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' }, body: '{}' })).status !== 401);
    const client = await connectMcp(a, '/mcp', key.key);
    let listChangedAt: number | undefined;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (listChangedAt ??= Date.now()));
    try {
      expect(textOf(await client.callTool({ name: 'shared__echo', arguments: { text: 'before' } }))).toBe('shared says before');
      await new Promise((resolve) => setTimeout(resolve, 200));

      expect((await b.admin(`/gateway-keys/${key.id}`, { method: 'PATCH', body: JSON.stringify({ mcpServers: ['elsewhere'] }) })).status).toBe(200);
      const changedAt = Date.now();
      await vi.waitFor(() => expect(listChangedAt).toBeDefined(), { timeout: 1_000, interval: 20 });
      expect(listChangedAt! - changedAt).toBeLessThan(1_000);
      expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('shared__echo');
      await expect(client.callTool({ name: 'shared__echo', arguments: { text: 'after' } })).rejects.toThrow(/This key may not use MCP server 'shared'/);

      expect((await b.admin(`/gateway-keys/${key.id}`, { method: 'DELETE' })).status).toBe(200);
      await within(1_000, async () => (await client.listTools().then(() => false, (error: Error) => /revoked keys stop working/.test(error.message))));
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  it("a key's tools narrowed on one instance are narrowed in a session open on the other within 1 s, stored in PostgreSQL", { timeout: 60_000 }, async () => {
    const [a, b] = gateways;
    const key = await gatewayKey(b, 'team-two-tools');
    await within(2_000, async () => (await fetch(`${a.baseUrl}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' }, body: '{}' })).status !== 401);
    const client = await connectMcp(a, '/mcp', key.key);
    let listChangedAt: number | undefined;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (listChangedAt ??= Date.now()));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('shared__env');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const change = { mcpServers: ['shared'], mcpTools: { shared: ['echo', 'fail'] }, mcpDefault: 'deny' };
      expect((await b.admin(`/gateway-keys/${key.id}`, { method: 'PATCH', body: JSON.stringify(change) })).status).toBe(200);
      const changedAt = Date.now();
      await vi.waitFor(() => expect(listChangedAt).toBeDefined(), { timeout: 1_000, interval: 20 });
      expect(listChangedAt! - changedAt).toBeLessThan(1_000);
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['shared__echo', 'shared__fail']);
      await expect(client.callTool({ name: 'shared__env', arguments: { name: 'HOME' } })).rejects.toThrow(/This key may not use tool 'env' of MCP server 'shared'/);
      expect(textOf(await client.callTool({ name: 'shared__echo', arguments: { text: 'still' } }))).toBe('shared says still');
      expect(await (await a.admin(`/gateway-keys/${key.id}`)).json()).toMatchObject(change);
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  it('a key limited to other servers on one instance is refused on the other within 1 s; removed servers go everywhere', { timeout: 60_000 }, async () => {
    const [a, b] = gateways;
    const key = await gatewayKey(b, 'team-limited');
    const limited = await b.admin(`/gateway-keys/${key.id}`, { method: 'PATCH', body: JSON.stringify({ mcpServers: ['elsewhere'] }) });
    expect(((await limited.json()) as { mcpServers: string[] }).mcpServers).toEqual(['elsewhere']);
    // The key itself reaches the other instance by the same feed: until it does, it is unknown there.
    await within(1_000, async () => {
      const client = await connectMcp(a, '/mcp', key.key).catch(() => null);
      if (!client) return false;
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      await client.close();
      return names.length > 0 && !names.includes('shared__echo');
    }).catch(() => undefined);
    const client = await connectMcp(a, '/mcp', key.key);
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('shared__echo');
    await expect(client.callTool({ name: 'shared__echo', arguments: { text: 'no' } })).rejects.toThrow(/This key may not use MCP server 'shared'/);
    await client.close();
    expect(((await (await a.admin(`/gateway-keys/${key.id}`)).json()) as { mcpServers: string[] }).mcpServers).toEqual(['elsewhere']);

    expect((await b.admin('/mcp-servers/shared', { method: 'DELETE' })).status).toBe(204);
    expect((await a.admin('/mcp-servers/shared')).status).toBe(404);
    // The other instance's running MCP gateway lets the server go on the change feed's word.
    await within(1_000, async () => !a.running.services.mcp.has('shared'));
  });
});
