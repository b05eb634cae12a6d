// The Sessions page (issue 39) against a real `gatehouse serve`: a Claude Code-like run seeded through the
// gateway (two model calls naming their session, a tool call between them through /mcp from the agent's
// MCP client), listed with its calls, tokens and cost, opened as a timeline with the idle gap drawn; a call
// opens its log entry, and the log entry's "Open session" comes back. At 1280x800.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, test } from '@playwright/test';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai';
import { startMcpHttpServer, type McpHttpTestServer } from '../fakes/mcp-tools';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';

let gatehouse: ServedGatehouse;
let openai: OpenAIFake;
let tools: McpHttpTestServer;
const SESSION = 'e2e-claude-run-0001';

test.beforeAll(async () => {
  [gatehouse, openai, tools] = await Promise.all([serveGatehouse(), startOpenAIFake(), startMcpHttpServer('tools')]);
  const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'agent', provider: 'openai', secret: 'sk-e2e-agent-0001', customHost: openai.baseUrl }) });
  const { key } = (await created.json()) as { key: string };
  expect((await gatehouse.admin('/mcp-servers', { method: 'POST', body: JSON.stringify({ name: 'tools', transport: 'http', url: tools.url }) })).status).toBe(201);
  const turn = async (text: string) => {
    const response = await fetch(`${gatehouse.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'user-agent': 'claude-cli/2.1.197 (external, sdk-cli)', 'x-claude-code-session-id': SESSION },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }] }),
    });
    expect(response.status).toBe(200);
    await response.text();
  };
  await turn('list the files');
  const client = new Client({ name: 'claude-code', version: '2.1.197' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', gatehouse.origin), { requestInit: { headers: { authorization: `Bearer ${key}`, 'user-agent': 'claude-code/2.1.197 (sdk-cli)' } } }));
  await client.callTool({ name: 'tools__echo', arguments: { text: 'a.txt b.txt' } });
  await client.close();
  // The agent thinks a while before its next turn: a gap the timeline draws.
  await new Promise((done) => setTimeout(done, 600));
  await turn('summarise them');
});

test.afterAll(async () => {
  await Promise.all([gatehouse?.stop(), openai?.close(), tools?.close()]);
});

test('a run is one session: listed with its calls, opened as a timeline, each call opening its log entry', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${gatehouse.origin}/#/sessions&token=${gatehouse.adminToken}`);
  const table = page.getByRole('table', { name: 'Sessions' });
  const row = table.getByRole('row').filter({ hasText: 'claude-cli' });
  await expect(row).toHaveCount(1);
  // Model calls 2, tool calls 1.
  await expect(row.getByRole('cell').nth(4)).toHaveText('2');
  await expect(row.getByRole('cell').nth(5)).toHaveText('1');
  await row.click();
  const timeline = page.getByRole('list', { name: 'Calls in order' });
  await expect(timeline.getByRole('button')).toHaveText([/model.*gpt-4o-mini/, /tool.*tools · echo/, /model.*gpt-4o-mini/]);
  // At least the 600 ms the agent thought before its second turn.
  await expect(page.getByText(/idle \d/).last()).toBeVisible();
  await expect(page.getByRole('region', { name: 'Session' })).toContainText('2 model calls · 1 tool calls');
  // The tool call opens its log entry; the entry's "Open session" comes back to the same session.
  await timeline.getByRole('button', { name: /Tool call tools · echo/ }).click();
  await expect(page).toHaveURL(/#\/logs/);
  const detail = page.getByRole('region', { name: 'Request detail' });
  await expect(detail.getByRole('heading', { name: 'tools · echo' })).toBeVisible();
  await detail.getByRole('button', { name: 'Open session' }).click();
  await expect(page).toHaveURL(/#\/sessions/);
  await expect(page.getByRole('list', { name: 'Calls in order' }).getByRole('button')).toHaveCount(3);
});
