// Issue 39, "each row records its session": the requests real agent tools sent (recorded with tap.mjs, under
// test/fixtures/agent-requests/) replayed through a real Gatehouse to a provider double, with an MCP tool
// call between their turns as each tool's MCP client makes it (its own user-agent, no session header),
// and the log rows grouped as the agent ran: one session per run, its MCP tool calls in it.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { addMcpServer } from '../helpers/mcp.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic.js';
import { startMcpHttpServer, type McpHttpTestServer } from '../fakes/mcp-tools.js';

interface Recorded {
  requests: { method: string; path: string; headers: Record<string, string>; body: unknown }[];
  mcpUserAgent?: string;
}
const fixture = (name: string): Recorded => JSON.parse(readFileSync(resolve(import.meta.dirname, '..', 'fixtures', 'agent-requests', name), 'utf8')) as Recorded;
const claude = fixture('claude-code-2.1.197.json');
const codex = fixture('codex-0.171.0.json');
const opencode = fixture('opencode-1.18.33.json');
const gemini = fixture('gemini-cli-0.61.0.json');

let gateway: TestGateway;
let anthropic: AnthropicFake;
let tools: McpHttpTestServer;
let key: string;

beforeAll(async () => {
  [gateway, anthropic, tools] = await Promise.all([startGateway(), startAnthropicFake(), startMcpHttpServer('tools')]);
  const created = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'agents', provider: 'anthropic', secret: 'sk-ant-agents-0001', customHost: anthropic.baseUrl }) });
  key = ((await created.json()) as { key: string }).key;
  await addMcpServer(gateway, { name: 'tools', transport: 'http', url: tools.url });
});
afterAll(async () => {
  await Promise.all([gateway?.close(), anthropic?.close(), tools?.close()]);
});

/** One recorded request as the tool sent it, its credential our key. */
async function replay(request: Recorded['requests'][number]): Promise<void> {
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, value.replace('<key>', key)]));
  const response = await fetch(`${gateway.baseUrl}${request.path}`, { method: request.method, headers, body: JSON.stringify(request.body) });
  expect(response.status, `${request.path}: ${await response.clone().text()}`).toBe(200);
  await response.text();
}

/** A tool call as the tool's MCP client makes it: its user-agent, the key, no session or trace header. */
async function mcpToolCall(userAgent: string, text: string): Promise<void> {
  const client = new Client({ name: userAgent.split('/')[0], version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', gateway.baseUrl), { requestInit: { headers: { authorization: `Bearer ${key}`, 'user-agent': userAgent } } }));
  try {
    await client.callTool({ name: 'tools__echo', arguments: { text } });
  } finally {
    await client.close();
  }
}

interface Row {
  sessionId: string | null;
  kind: string;
  model: string | null;
  tool: string | null;
  client: string | null;
  path: string;
}

it("groups each real tool's recorded requests into the runs they came from, its MCP tool calls with them", async () => {
  // Interleaved as agents running side by side are: each tool's MCP call comes after its own first turn.
  await replay(claude.requests[0]);
  await replay(codex.requests[0]);
  await mcpToolCall(claude.mcpUserAgent!, 'claude run one');
  await replay(opencode.requests[0]);
  await mcpToolCall(codex.mcpUserAgent!, 'codex run one');
  await replay(gemini.requests[0]);
  await replay(opencode.requests[1]);
  await replay(gemini.requests[0]);
  // Each tool's second run: a new session id of its own.
  await replay(claude.requests[1]);
  await replay(codex.requests[1]);
  gateway.flushLog();

  const rows = ((await (await gateway.admin('/logs?limit=100')).json()) as { items: Row[] }).items.reverse();
  expect(rows).toHaveLength(10);
  const sessionOf = (match: (row: Row) => boolean) => [...new Set(rows.filter(match).map((row) => row.sessionId))];
  const claudeRunOne = claude.requests[0].headers['x-claude-code-session-id'];
  const codexRunOne = codex.requests[0].headers['session-id'];
  // Claude Code: its header names the session; its MCP tool call (user-agent claude-code/…) joins it.
  expect(rows[0].sessionId).toBe(claudeRunOne);
  expect(rows[2]).toMatchObject({ kind: 'mcp', sessionId: claudeRunOne });
  expect(rows[8].sessionId).toBe(claude.requests[1].headers['x-claude-code-session-id']);
  // Codex: its `session-id`; its MCP client (codex-mcp-client/…) joins the Codex run, not Claude's.
  expect(rows[1].sessionId).toBe(codexRunOne);
  expect(rows[4]).toMatchObject({ kind: 'mcp', sessionId: codexRunOne });
  expect(rows[9].sessionId).toBe(codex.requests[1].headers['session-id']);
  // OpenCode: its title call and its turn, one session by its `x-session-id`.
  expect(sessionOf((row) => row.client === 'opencode')).toEqual([opencode.requests[0].headers['x-session-id']]);
  // Gemini CLI names nothing: its two calls are one session by key, client tool and time, apart from the others.
  expect(rows[5].path).toContain('streamGenerateContent');
  expect(rows[7].sessionId).toBe(rows[5].sessionId);
  expect(rows[5].sessionId).toMatch(/^[0-9a-f-]{36}$/);
  expect(new Set(rows.map((row) => row.sessionId)).size).toBe(6);
});
