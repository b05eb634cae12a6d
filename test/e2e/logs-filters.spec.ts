// Logs that answer "who did what", against the real `gatehouse serve`, the OpenAI double and an MCP
// server: each filter (key, kind, MCP server and tool, metadata) narrows the table to the calls it names;
// an MCP row shows its server, tool and the tool's result; with the detail panel open the Key column and
// the tags stay; Usage takes a date range, counts MCP calls per server and tool, and each row opens Logs
// filtered to it. (The Instance filter needs team mode on PostgreSQL: test/integration/logs-filters.test.ts.)
import { expect, test, type Page } from '@playwright/test';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai';
import { startMcpHttpServer, type McpHttpTestServer } from '../fakes/mcp-tools';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { collectProblems } from './page-problems.js';

let fake: OpenAIFake;
let tools: McpHttpTestServer;
let gatehouse: ServedGatehouse;

async function createKey(name: string): Promise<string> {
  const response = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name, provider: 'openai', secret: `sk-${name}-1234567890`, customHost: fake.baseUrl }) });
  expect(response.status).toBe(201);
  return ((await response.json()) as { key: string }).key;
}

async function call(key: string, path: string, body: unknown, metadata: Record<string, string>): Promise<void> {
  const response = await fetch(`${gatehouse.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': key, 'x-gateway-metadata': JSON.stringify(metadata) },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  await response.text();
}

test.beforeAll(async () => {
  [fake, tools, gatehouse] = await Promise.all([startOpenAIFake(), startMcpHttpServer('tools'), serveGatehouse()]);
  const alice = await createKey('alice');
  const bob = await createKey('bob');
  await call(alice, '/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, { team: 'search' });
  await call(alice, '/v1/embeddings', { model: 'text-embedding-3-small', input: 'hi' }, { team: 'search' });
  await call(bob, '/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'yo' }] }, { team: 'ads' });
  expect((await gatehouse.admin('/mcp-servers', { method: 'POST', body: JSON.stringify({ name: 'tools', transport: 'http', url: tools.url }) })).status).toBe(201);
  const gatewayKey = ((await (await gatehouse.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'agent' }) })).json()) as { key: string }).key;
  const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', gatehouse.origin), { requestInit: { headers: { authorization: `Bearer ${gatewayKey}` } } }));
  await client.callTool({ name: 'tools__echo', arguments: { text: 'x' } });
  await client.close();
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await Promise.all([fake?.close(), tools?.close()]);
});

const rows = (page: Page) => page.getByRole('table', { name: 'Requests' }).locator('.log-body [role="row"]');

async function openLogs(page: Page) {
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Logs' }).click();
  await expect(rows(page)).toHaveCount(4);
}

test('the Key filter shows one key\'s calls', async ({ page }) => {
  const problems = collectProblems(page);
  await openLogs(page);
  await page.getByLabel('Key filter').selectOption({ label: 'alice' });
  await expect(rows(page)).toHaveCount(2);
  for (const row of await rows(page).all()) await expect(row.locator('.col-key')).toHaveText('alice');
  await page.getByLabel('Key filter').selectOption({ label: 'bob' });
  await expect(rows(page)).toHaveCount(1);
  expect(problems).toEqual([]);
});

test('the Kind filter tells model calls, embeddings and MCP calls apart; an MCP row shows server, tool and result', async ({ page }) => {
  await openLogs(page);
  await page.getByLabel('Kind filter').selectOption('embeddings');
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first().locator('.col-model')).toContainText('text-embedding-3-small');
  await page.getByLabel('Kind filter').selectOption('model');
  await expect(rows(page)).toHaveCount(2);
  await page.getByLabel('Kind filter').selectOption('mcp');
  await expect(rows(page)).toHaveCount(1);
  const mcp = rows(page).first();
  await expect(mcp.locator('.col-provider')).toHaveText('tools');
  await expect(mcp.locator('.log-model')).toHaveText('echo');
  await expect(mcp.locator('.log-tags')).toContainText('MCP');
  await expect(mcp.locator('.log-tags')).toContainText('ok');
  await expect(mcp).not.toContainText('not read');
  await expect(mcp).not.toContainText('openai');
});

test('the MCP server and Tool filters narrow MCP calls', async ({ page }) => {
  await openLogs(page);
  await page.getByLabel('Kind filter').selectOption('mcp');
  await page.getByLabel('MCP server filter').selectOption('tools');
  await expect(rows(page)).toHaveCount(1);
  await page.getByLabel('Tool filter').fill('slow');
  await expect(page.getByText('No requests match these filters')).toBeVisible();
  await page.getByLabel('Tool filter').fill('echo');
  await expect(rows(page)).toHaveCount(1);
});

test('the Metadata filter takes name=value', async ({ page }) => {
  await openLogs(page);
  await page.getByLabel('Metadata filter').fill('team=search');
  await expect(rows(page)).toHaveCount(2);
  await page.getByLabel('Metadata filter').fill('team=ads');
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first().locator('.col-key')).toHaveText('bob');
});

for (const width of [1280, 900]) {
  test(`with the detail panel open at ${width} px the Key column and the tags stay readable`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 });
    await openLogs(page);
    await page.getByLabel('Kind filter').selectOption('mcp');
    await rows(page).first().click();
    await expect(page.getByRole('region', { name: 'Request detail' })).toBeVisible();
    const row = rows(page).first();
    await expect(row.locator('.col-key')).toBeVisible();
    await expect(row.locator('.col-key')).toHaveText('agent');
    // Each tag whole and inside the row's model cell, not cut.
    const cell = (await row.locator('.col-model').boundingBox())!;
    for (const tag of await row.locator('.log-tags .tag').all()) {
      const box = (await tag.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(cell.x + cell.width + 0.5);
      expect(box.y).toBeGreaterThanOrEqual(cell.y - 0.5);
    }
    await expect(row.locator('.log-tags')).toContainText('ok');
  });
}

test('Usage takes a date range, counts MCP calls per server and tool, and its rows open Logs filtered to them', async ({ page }) => {
  const problems = collectProblems(page);
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Usage' }).click();
  const mcp = page.getByRole('table', { name: 'MCP calls by server and tool' });
  await expect(mcp.getByRole('row', { name: /tools/ })).toContainText('echo');
  await expect(mcp.getByRole('row', { name: /tools/ }).locator('td').nth(1)).toHaveText('1');

  // A range that ends before today holds none of the calls; one that takes today holds them again.
  const today = await page.evaluate(() => new Date().toLocaleDateString('sv-SE'));
  const longAgo = '2020-01-01';
  await page.getByLabel('From day').fill(longAgo);
  await page.getByLabel('To day').fill('2020-01-31');
  await expect(page.getByText('No calls yet')).toBeVisible();
  await page.getByLabel('To day').fill(today);
  // Three model calls and the MCP call.
  await expect(page.getByTestId('usage-total-requests')).toHaveText('4');

  await mcp.getByRole('button', { name: 'tools' }).click();
  await expect(page.getByRole('heading', { name: 'Logs', level: 1 })).toBeVisible();
  await expect(page.getByLabel('Kind filter')).toHaveValue('mcp');
  await expect(page.getByLabel('Tool filter')).toHaveValue('echo');
  await expect(page.getByLabel('From day')).toHaveValue(longAgo);
  await expect(rows(page)).toHaveCount(1);

  await page.getByRole('link', { name: 'Usage' }).click();
  await page.getByRole('radio', { name: 'Key' }).click();
  await page.locator('.usage-table').first().getByRole('button', { name: 'alice' }).click();
  await expect(page.getByLabel('Key filter')).toHaveValue(/^vk_/);
  await expect(rows(page)).toHaveCount(2);
  expect(problems).toEqual([]);
});
