// The MCP gateway driven with the SDK's own Client: stdio and HTTP test servers built with the SDK,
// listed and called through /mcp (prefixed names) and /mcp/{server}, a tool error, notifications and a
// server's own requests relayed, the calls in the request log and /metrics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, TEST_GATEWAY_KEY, type TestGateway } from '../helpers/gateway.js';
import { startMcpHttpServer, type McpHttpTestServer } from '../fakes/mcp-tools.js';
import { addMcpServer, connectMcp, patchMcpServer, stdioServerCommand, textOf } from '../helpers/mcp.js';
import { parseMetrics, total } from '../helpers/prometheus.js';

let gateway: TestGateway;
let remote: McpHttpTestServer;

beforeAll(async () => {
  gateway = await startGateway();
  remote = await startMcpHttpServer('remote');
  await addMcpServer(gateway, { name: 'local', ...stdioServerCommand('local') });
  await addMcpServer(gateway, { name: 'remote', transport: 'http', url: remote.url, headers: { 'x-team': 'a' } });
});

afterAll(async () => {
  await gateway?.close();
  await remote?.close();
});

async function mcpRows(query = ''): Promise<Record<string, unknown>[]> {
  await gateway.flushLog();
  const response = await gateway.admin(`/logs?kind=mcp${query}`);
  return ((await response.json()) as { items: Record<string, unknown>[] }).items;
}

describe('/mcp: every server under prefixed names', () => {
  it('lists the tools of the stdio and the HTTP server, prefixed, and calls each', { timeout: 60_000 }, async () => {
    const client = await connectMcp(gateway, '/mcp', TEST_GATEWAY_KEY);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['local__echo', 'local__fail', 'remote__echo', 'remote__slow']));
    expect(textOf(await client.callTool({ name: 'local__echo', arguments: { text: 'hi' } }))).toBe('local says hi');
    expect(textOf(await client.callTool({ name: 'remote__echo', arguments: { text: 'there' } }))).toBe('remote says there');
    // Prompts and resources too.
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(expect.arrayContaining(['local__greet', 'remote__greet']));
    const prompt = await client.getPrompt({ name: 'remote__greet', arguments: { who: 'Ada' } });
    expect(prompt.messages[0].content).toMatchObject({ text: 'Hello Ada' });
    const resources = (await client.listResources()).resources;
    expect(resources.map((resource) => resource.name)).toEqual(expect.arrayContaining(['local__readme', 'remote__readme']));
    const read = await client.readResource({ uri: 'memo://local/readme' });
    expect(read.contents[0]).toMatchObject({ text: 'the readme of local' });
    await client.close();

    const rows = await mcpRows('&server=local&tool=echo');
    expect(rows[0]).toMatchObject({ kind: 'mcp', server: 'local', tool: 'echo', status: 200, path: '/mcp', client: 'mcp-test-client' });
    const detail = (await (await gateway.admin(`/logs/${String(rows[0].id)}`)).json()) as { requestBody: string; responseBody: string; keyId: string | null };
    expect(JSON.parse(detail.requestBody)).toMatchObject({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } });
    expect(detail.responseBody).toContain('local says hi');
    expect((await mcpRows('&tool=greet'))[0]).toMatchObject({ server: 'remote', tool: 'greet' });
    expect((await mcpRows('&server=local&tool=memo://local/readme')).length).toBe(1);
  });

  it('answers a tool error as the tool sent it, and logs it as an error', async () => {
    const client = await connectMcp(gateway, '/mcp', TEST_GATEWAY_KEY);
    const result = await client.callTool({ name: 'local__fail', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('the tool failed on purpose');
    await client.close();
    const row = (await mcpRows('&tool=fail'))[0];
    expect(row).toMatchObject({ status: 422, server: 'local' });
    expect(String(row.error)).toContain('the tool failed on purpose');
  });

  it('refuses a name with no server part and an unknown server with a JSON-RPC error', async () => {
    const client = await connectMcp(gateway, '/mcp', TEST_GATEWAY_KEY);
    await expect(client.callTool({ name: 'echo', arguments: {} })).rejects.toThrow(/names on \/mcp are <server>__<name>/);
    await expect(client.callTool({ name: 'nowhere__echo', arguments: {} })).rejects.toThrow(/No MCP server named 'nowhere'/);
    await client.close();
  });
});

describe('/mcp/{server}: one server under its own names', () => {
  it('lists and calls with the server’s own names', async () => {
    for (const server of ['local', 'remote']) {
      const client = await connectMcp(gateway, `/mcp/${server}`, TEST_GATEWAY_KEY);
      expect(client.getServerVersion()?.name).toBe(server);
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['echo', 'fail', 'slow']));
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe(`${server} says x`);
      await client.close();
    }
    expect((await mcpRows('&server=remote&tool=echo'))[0]).toMatchObject({ path: '/mcp/remote', status: 200 });
  });
});

describe('relayed both ways', () => {
  it('carries progress and log notifications of a call to the client', async () => {
    const client = await connectMcp(gateway, '/mcp', TEST_GATEWAY_KEY);
    const progress: number[] = [];
    await client.callTool({ name: 'local__slow', arguments: { ms: 400 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(progress.length).toBeGreaterThan(0);
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(notification.params.data));
    await client.callTool({ name: 'remote__log', arguments: {} });
    await client.callTool({ name: 'local__log', arguments: {} });
    expect(logs).toEqual(['hello from remote', 'hello from local']);
    await client.close();
  });

  it('tells the client its tool list changed when a tool is switched off, and hides and refuses that tool', async () => {
    const client = await connectMcp(gateway, '/mcp/local', TEST_GATEWAY_KEY);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    // The standalone stream (GET) the notification comes on is opened after initialize; give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await patchMcpServer(gateway, 'local', { disabledTools: ['echo'] });
    await expect.poll(() => changed, { timeout: 5_000 }).toBeGreaterThan(0);
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('echo');
    await expect(client.callTool({ name: 'echo', arguments: { text: 'x' } })).rejects.toThrow(/Tool 'echo' of MCP server 'local' is switched off/);
    await patchMcpServer(gateway, 'local', { disabledTools: [] });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echo');
    await client.close();
    expect((await mcpRows('&server=local&tool=echo'))[0]).toMatchObject({ status: 403 });
  });

  it("relays a server's sampling request to the client and its answer back", async () => {
    for (const path of ['/mcp', '/mcp/local']) {
      const client = await connectMcp(gateway, path, TEST_GATEWAY_KEY, { capabilities: { sampling: {} } });
      client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', model: 'double', content: { type: 'text', text: 'hi back' } }));
      const result = await client.callTool({ name: path === '/mcp' ? 'local__ask' : 'ask', arguments: {} });
      expect(textOf(result)).toBe('the client said hi back');
      await client.close();
    }
  });
});

describe('metrics and admin', () => {
  it('counts MCP calls by server, tool and status on /metrics', async () => {
    const response = await fetch(`${gateway.baseUrl}/metrics`, { headers: { authorization: `Bearer ${gateway.adminToken}` } });
    const { samples } = parseMetrics(await response.text());
    expect(total(samples, 'gatehouse_mcp_calls_total', { server: 'local', tool: 'echo', status: '200' })).toBeGreaterThan(0);
    expect(total(samples, 'gatehouse_mcp_calls_total', { server: 'local', tool: 'fail', status: '422' })).toBe(1);
    expect(total(samples, 'gatehouse_mcp_call_duration_seconds_count', { server: 'remote', tool: 'echo' })).toBeGreaterThan(0);
  });

  it('counts tool calls per server and tool in the usage report', async () => {
    await gateway.flushLog();
    const report = (await (await gateway.admin('/usage?range=day')).json()) as { mcpCalls: { server: string; tool: string; calls: number; errors: number }[] };
    expect(report.mcpCalls).toEqual(expect.arrayContaining([{ server: 'local', tool: 'fail', calls: 1, errors: 1 }]));
    const echo = report.mcpCalls.find((row) => row.server === 'local' && row.tool === 'echo');
    expect(echo?.calls).toBeGreaterThanOrEqual(2);
  });

  it('shows each server’s status, tools, a test call and the stderr of a stdio server', async () => {
    const list = (await (await gateway.admin('/mcp-servers')).json()) as { servers: Record<string, unknown>[] };
    expect(list.servers.find((server) => server.name === 'local')).toMatchObject({ transport: 'stdio', status: 'running', enabled: true, lastError: null });
    expect(list.servers.find((server) => server.name === 'remote')).toMatchObject({ transport: 'http', headers: { 'x-team': 'a' }, status: 'running' });
    const tools = (await (await gateway.admin('/mcp-servers/remote/tools')).json()) as { tools: { name: string; description: string; enabled: boolean }[] };
    expect(tools.tools.find((tool) => tool.name === 'echo')).toMatchObject({ description: 'Says back what it is given', enabled: true });
    const call = await gateway.admin('/mcp-servers/remote/tools/echo/call', { method: 'POST', body: JSON.stringify({ arguments: { text: 'try' } }) });
    expect(call.status).toBe(200);
    const answered = (await call.json()) as { result: unknown; durationMs: number };
    expect(textOf(answered.result)).toBe('remote says try');
    expect(typeof answered.durationMs).toBe('number');
    const stderr = (await (await gateway.admin('/mcp-servers/local/stderr')).json()) as { lines: string[] };
    expect(stderr.lines.some((line) => line.startsWith('local started with pid'))).toBe(true);
  });
});
