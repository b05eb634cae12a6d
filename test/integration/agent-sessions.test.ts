// Issue 39, "each row records its session": the requests real agent tools sent (recorded with tap.mjs, under
// test/fixtures/agent-requests/) replayed through a real Gatehouse to a provider double, with an MCP tool
// call between their turns as each tool's MCP client makes it (its own user-agent, no session header),
// and the log rows grouped as the agent ran: one session per run, its MCP tool calls in it.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestGateway } from '../helpers/gateway.js';
import { backends } from '../helpers/backends.js';
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

describe.each(backends())('on $name', (backend) => {
  beforeAll(async () => {
    [gateway, anthropic, tools] = await Promise.all([backend.gateway(), startAnthropicFake(), startMcpHttpServer('tools')]);
    const created = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'agents', provider: 'anthropic', secret: 'sk-ant-agents-0001', customHost: anthropic.baseUrl }) });
    key = ((await created.json()) as { key: string }).key;
    await addMcpServer(gateway, { name: 'tools', transport: 'http', url: tools.url });
  });
  afterAll(async () => {
    await Promise.all([gateway?.close(), anthropic?.close(), tools?.close()]);
    await backend.close();
  });

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
    await gateway.flushLog();

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

  it('lists the sessions newest first with their client tool, key, calls, tokens and cost, filtered like Logs', async () => {
    const listed = (await (await gateway.admin('/sessions')).json()) as { items: Record<string, unknown>[]; next: number | null };
    expect(listed.items.map((item) => item.id)).toEqual([
      codex.requests[1].headers['session-id'],
      claude.requests[1].headers['x-claude-code-session-id'],
      expect.stringMatching(/^[0-9a-f-]{36}$/),
      opencode.requests[0].headers['x-session-id'],
      codex.requests[0].headers['session-id'],
      claude.requests[0].headers['x-claude-code-session-id'],
    ]);
    const claudeRun = listed.items[5];
    expect(claudeRun).toMatchObject({ client: 'claude-cli', modelCalls: 1, toolCalls: 1, errors: 0, promptTokens: expect.any(Number), completionTokens: expect.any(Number) });
    expect(claudeRun.keyId).toMatch(/^vk_/);
    expect(claudeRun.promptTokens as number).toBeGreaterThan(0);
    expect(claudeRun.costUsd).toBeGreaterThan(0);
    expect(claudeRun.durationMs as number).toBeGreaterThan(0);
    // Filters: a client tool; a page of two and the next page from its cursor.
    const opencodeOnly = (await (await gateway.admin('/sessions?client=opencode')).json()) as { items: { id: string; modelCalls: number }[] };
    expect(opencodeOnly.items).toEqual([expect.objectContaining({ id: opencode.requests[0].headers['x-session-id'], modelCalls: 2 })]);
    const first = (await (await gateway.admin('/sessions?limit=2')).json()) as { items: { id: string }[]; next: number };
    const second = (await (await gateway.admin(`/sessions?limit=2&before=${first.next}`)).json()) as { items: { id: string }[] };
    expect([...first.items, ...second.items].map((item) => item.id)).toEqual(listed.items.slice(0, 4).map((item) => item.id));
    expect((await gateway.admin(`/sessions?key=${encodeURIComponent('vk_nobody')}`).then((r) => r.json())) as unknown).toEqual({ items: [], next: null });
    expect((await gateway.admin('/sessions?limit=0')).status).toBe(400);
  });

  it('answers one session with its model and tool calls in order, the gaps between them, each naming its log entry', async () => {
    const id = claude.requests[0].headers['x-claude-code-session-id'];
    const session = (await (await gateway.admin(`/sessions/${id}`)).json()) as { calls: Record<string, unknown>[]; modelCalls: number; truncated: boolean };
    expect(session).toMatchObject({ id, modelCalls: 1, toolCalls: 1, truncated: false });
    expect(session.calls.map((call) => call.kind)).toEqual(['model', 'mcp']);
    const [model, tool] = session.calls;
    expect(model).toMatchObject({ model: 'claude-sonnet-4-5', provider: 'anthropic', status: 200, attempts: 1, gapMs: 0, ttfbMs: expect.any(Number), costUsd: expect.any(Number) });
    expect(model.attemptLog).toEqual([expect.objectContaining({ status: 200 })]);
    // The Codex turn came between: the tool call waited for it.
    expect(tool).toMatchObject({ server: 'tools', tool: 'echo', status: 200, gapMs: expect.any(Number) });
    expect(tool.gapMs as number).toBeGreaterThan(0);
    const entry = (await (await gateway.admin(`/logs/${tool.id as string}`)).json()) as { sessionId: string; kind: string };
    expect(entry).toMatchObject({ sessionId: id, kind: 'mcp' });
    expect((await gateway.admin('/sessions/no-such-session')).status).toBe(404);
  });
});
