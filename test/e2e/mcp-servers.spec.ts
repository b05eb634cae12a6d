// The UI of the MCP gateway (issue 25) against a real `gatehouse serve` and its real admin API, with a
// real stdio MCP server built with the SDK (test/fakes/mcp-everything-like-server.ts): adding a server
// from a preset (the secret sent once, sealed, never shown), its tools listed with a switch each, a tool
// switched off, "Try a tool" with JSON checked before sending, a tool's own error and a server that cannot
// start shown as errors; a key's MCP servers on the Keys page; each agent's MCP set-up on Connect a tool.
// Screens at 900 and 1280 px, light and dark, with no sideways scroll.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, test, type Page } from '@playwright/test';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { collectProblems } from './page-problems.js';
import { screenshotWholePage } from './screenshots';
import { openKeyPanel } from './keys-page';

let gatehouse: ServedGatehouse;

test.beforeAll(async () => {
  gatehouse = await serveGatehouse();
});

test.afterAll(async () => {
  await gatehouse?.stop();
});

test.afterEach(async () => {
  // Each test starts from no MCP servers; keys stay (their names are unique).
  const { servers } = (await (await gatehouse.admin('/mcp-servers')).json()) as { servers: { name: string }[] };
  for (const { name } of servers) await gatehouse.admin(`/mcp-servers/${name}`, { method: 'DELETE' });
});

/** The MCP server the page drives: tools like server-everything's, over stdio, run by node with tsx. */
const EVERYTHING_LIKE = resolve(import.meta.dirname, '..', 'fakes', 'mcp-everything-like-server.ts');
const FIXTURE_COMMAND = process.execPath;
const FIXTURE_ARGS = ['--import', 'tsx', EVERYTHING_LIKE];

/** A stdio command that does not exist: the server fails to start. */
const MISSING_COMMAND = 'no-such-mcp-server';

/** What the page sent to the admin API (writes only), for assertions on the exact bodies. */
interface AdminWrite {
  method: string;
  path: string;
  body: unknown;
}

function recordAdminWrites(page: Page): AdminWrite[] {
  const writes: AdminWrite[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (!url.pathname.startsWith('/admin/api/') || request.method() === 'GET') return;
    writes.push({ method: request.method(), path: url.pathname.slice('/admin/api'.length), body: request.postData() ? request.postDataJSON() : undefined });
  });
  return writes;
}

async function addServer(server: Record<string, unknown>): Promise<void> {
  const response = await gatehouse.admin('/mcp-servers', { method: 'POST', body: JSON.stringify({ transport: 'stdio', ...server }) });
  expect(response.status, await response.clone().text()).toBe(201);
}

async function storedServer(name: string): Promise<Record<string, unknown> | undefined> {
  const response = await gatehouse.admin(`/mcp-servers/${name}`);
  return response.status === 200 ? ((await response.json()) as { server: Record<string, unknown> }).server : undefined;
}

async function storedKey(kind: 'virtual-keys' | 'gateway-keys', id: string): Promise<Record<string, unknown>> {
  const { items } = (await (await gatehouse.admin(`/${kind}`)).json()) as { items: Record<string, unknown>[] };
  return items.find((key) => key.id === id)!;
}

/** What an agent sees on /mcp/{server} with a gateway key: the tools listed, and the answer to a call of one. */
async function asAnAgent(server: string, tool: string, args: Record<string, unknown>): Promise<{ listed: string[]; call: string }> {
  const created = await gatehouse.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: `agent-${Date.now()}` }) });
  const { key } = (await created.json()) as { key: string };
  const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`/mcp/${server}`, gatehouse.origin), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  try {
    const listed = (await client.listTools()).tools.map((item) => item.name);
    const call = await client.callTool({ name: tool, arguments: args }).then(
      (result) => JSON.stringify(result),
      (error: Error) => `error: ${error.message}`,
    );
    return { listed, call };
  } finally {
    await client.close();
  }
}

/** Every file under the data dir holds no trace of the value (it is sealed at rest). */
function dataDirContains(value: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (readFileSync(path).includes(value)) found.push(path);
    }
  };
  walk(gatehouse.dataDir);
  return found;
}

/** Clicks a switch as a person does: on its label (the input itself lies under the drawn track). */
const flip = (control: ReturnType<Page['getByRole']>) => control.locator('xpath=..').click();

/** The browser reports each non-2xx answer on the console; those a test provokes on purpose are not problems. */
const unexpected = (problems: string[], ...statuses: number[]) => problems.filter((problem) => !statuses.some((status) => problem.includes(`status of ${status}`)));

async function openMcpPage(page: Page): Promise<void> {
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'MCP servers' }).click();
  await expect(page.getByRole('heading', { name: 'MCP servers', level: 1 })).toBeVisible();
  await expect(page).toHaveTitle(/MCP servers/);
}

async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, 'the page scrolls sideways').toBeLessThanOrEqual(0);
}

test('add a server from a preset, switch a tool off, try a tool, and read its result or its error', async ({ page }) => {
  const problems = collectProblems(page);
  const writes = recordAdminWrites(page);
  await openMcpPage(page);
  await expect(page.getByText('No MCP servers yet')).toBeVisible();

  // The GitHub preset fills the form; its token is a secret the person still has to give.
  await page.getByRole('button', { name: 'Add a server' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add an MCP server' });
  await dialog.getByRole('button', { name: 'GitHub' }).click();
  await expect(dialog.getByLabel('Name', { exact: true })).toHaveValue('github');
  await expect(dialog.getByLabel('Command', { exact: true })).toHaveValue('npx');
  await expect(dialog.getByLabel('Arguments', { exact: true })).toHaveValue('-y @modelcontextprotocol/server-github');
  await expect(dialog.getByLabel('Variable 1 name')).toHaveValue('GITHUB_PERSONAL_ACCESS_TOKEN');
  await expect(dialog.getByRole('checkbox', { name: 'Secret (variable 1)' })).toBeChecked();
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog.getByText('Fill in the secret value of GITHUB_PERSONAL_ACCESS_TOKEN')).toBeVisible();
  expect(writes.filter((write) => write.method === 'POST')).toEqual([]);

  // The preset's npx package needs the internet; the local test server stands in, with the same kind of tools.
  await dialog.getByLabel('Command', { exact: true }).fill(FIXTURE_COMMAND);
  await dialog.getByLabel('Arguments', { exact: true }).fill(FIXTURE_ARGS.join(' '));
  await dialog.getByLabel('Variable 1 value').fill('ghp_sealed_0123456789');
  await dialog.getByRole('button', { name: 'Add variable' }).click();
  await dialog.getByLabel('Variable 2 name').fill('LOG_LEVEL');
  await dialog.getByLabel('Variable 2 value').fill('debug');
  await dialog.getByLabel('Call timeout (seconds)').fill('30');
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog).toBeHidden();
  expect(writes.find((write) => write.method === 'POST')).toEqual({ method: 'POST', path: '/mcp-servers', body: {
    name: 'github',
    transport: 'stdio',
    command: FIXTURE_COMMAND,
    args: FIXTURE_ARGS,
    env: { LOG_LEVEL: 'debug' },
    secretEnv: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_sealed_0123456789' },
    timeoutMs: 30_000,
  } });

  // Listed with its state and tool count; the detail opens with the tools and their descriptions.
  const list = page.getByRole('list', { name: 'MCP servers' });
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await expect(list).toContainText(`${FIXTURE_COMMAND} --import tsx ${EVERYTHING_LIKE}`);
  const tools = page.getByRole('list', { name: 'Tools of github' });
  await expect(tools.getByRole('listitem')).toHaveCount(3);
  await expect(tools).toContainText('Echoes back the input');
  await expect(list).toContainText('Running');
  await expect(list).toContainText('3 tools');
  const setup = page.getByLabel('Set-up of github');
  await expect(setup).toContainText('GITHUB_PERSONAL_ACCESS_TOKEN');
  await expect(setup).toContainText('sealed');
  await expect(page.getByLabel('Stderr of github')).toContainText('running on stdio');
  // The secret went out once and is nowhere on the page, nor in plain text in the data dir.
  await expect(page.locator('body')).not.toContainText('ghp_sealed');
  expect((await storedServer('github'))?.secretEnv).toEqual(['GITHUB_PERSONAL_ACCESS_TOKEN']);
  expect(dataDirContains('ghp_sealed_0123456789')).toEqual([]);

  // A tool switched off is saved in the server's disabledTools and leaves "Try a tool".
  const tryTool = page.getByRole('form', { name: 'Try a tool of github' });
  await expect(tryTool.getByLabel('Tool', { exact: true }).locator('option')).toHaveText(['echo', 'add', 'read_secret_file']);
  await flip(tools.getByRole('switch', { name: 'add on' }));
  await expect(tools.getByRole('switch', { name: 'add on' })).not.toBeChecked();
  await expect.poll(async () => (await storedServer('github'))?.disabledTools).toEqual(['add']);
  expect(writes.at(-1)).toEqual({ method: 'PATCH', path: '/mcp-servers/github', body: { disabledTools: ['add'] } });
  await expect(tryTool.getByLabel('Tool', { exact: true }).locator('option')).toHaveText(['echo', 'read_secret_file']);
  // Off for every agent too: not listed on /mcp/github, and a call of it refused.
  const agent = await asAnAgent('github', 'add', { a: 1, b: 2 });
  expect(agent.listed).toEqual(['echo', 'read_secret_file']);
  expect(agent.call).toMatch(/^error: .*add/);

  // Arguments are checked before anything is sent.
  const argumentsField = tryTool.getByLabel('Arguments (JSON)');
  await expect(argumentsField).toHaveValue('{\n  "message": ""\n}');
  await argumentsField.fill('{"message": ');
  await tryTool.getByRole('button', { name: 'Run' }).click();
  await expect(tryTool.getByText(/^Not valid JSON/)).toBeVisible();
  await argumentsField.fill('{}');
  await tryTool.getByRole('button', { name: 'Run' }).click();
  await expect(tryTool.getByText('echo needs “message”')).toBeVisible();
  await argumentsField.fill('["hello"]');
  await tryTool.getByRole('button', { name: 'Run' }).click();
  await expect(tryTool.getByText('The arguments are one JSON object')).toBeVisible();
  const toolCalls = () => writes.filter((write) => write.path.endsWith('/call'));
  expect(toolCalls()).toEqual([]);

  // A call: the text readable, the duration, the raw JSON folded away.
  await argumentsField.fill('{"message": "hello gate"}');
  await tryTool.getByRole('button', { name: 'Run' }).click();
  const result = tryTool.getByRole('region', { name: 'Tool result' });
  await expect(result.locator('.tool-result-text')).toHaveText('Echo: hello gate');
  await expect(result).toContainText('OK');
  await expect(result).toContainText(/\d+ ms/);
  expect(toolCalls()).toEqual([{ method: 'POST', path: '/mcp-servers/github/tools/echo/call', body: { arguments: { message: 'hello gate' } } }]);
  const raw = result.getByLabel('Raw result of echo', { exact: true });
  await expect(raw).toBeHidden();
  await result.getByText('Raw result (JSON)').click();
  await expect(raw).toContainText('"type": "text"');

  // A tool's own error (isError) is shown as an error, with its message.
  await tryTool.getByLabel('Tool', { exact: true }).selectOption('read_secret_file');
  await argumentsField.fill('{"path": "/etc/shadow"}');
  await tryTool.getByRole('button', { name: 'Run' }).click();
  await expect(result.locator('.badge')).toHaveText('Tool error');
  await expect(result).toContainText('The tool reported an error');
  await expect(result.locator('.tool-result-text')).toHaveText('Access denied: /etc/shadow is outside the allowed directories');

  // The timeout is saved in milliseconds.
  await page.getByRole('region', { name: 'github' }).getByLabel('Call timeout (seconds)').fill('90');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect.poll(async () => (await storedServer('github'))?.timeoutMs).toBe(90_000);
  expect(problems).toEqual([]);
});

test('a server that cannot start shows Failed and why; switching off and removing a server', async ({ page }) => {
  const problems = collectProblems(page);
  const writes = recordAdminWrites(page);
  await addServer({ name: 'everything', command: FIXTURE_COMMAND, args: FIXTURE_ARGS });
  await openMcpPage(page);
  const list = page.getByRole('list', { name: 'MCP servers' });
  await expect(list).toContainText('Tools not listed yet');

  // The filesystem preset cannot be saved with its <dir> still in it.
  await page.getByRole('button', { name: 'Add a server' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add an MCP server' });
  await dialog.getByRole('button', { name: 'Filesystem' }).click();
  await expect(dialog.getByRole('status')).toContainText('Replace <dir>');
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog.getByText('Replace <dir> with a real value')).toBeVisible();
  await dialog.getByLabel('Name', { exact: true }).fill('broken');
  await dialog.getByLabel('Command', { exact: true }).fill(MISSING_COMMAND);
  await dialog.getByLabel('Arguments', { exact: true }).fill('');
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog).toBeHidden();

  const detail = page.getByRole('region', { name: 'broken' });
  await expect(detail.getByRole('alert').filter({ hasText: 'Could not list the tools' })).toContainText(`spawn ${MISSING_COMMAND} ENOENT`);
  const row = list.getByRole('listitem').filter({ hasText: 'broken' });
  await expect(row).toContainText('Failed');
  await expect(row).toContainText(`spawn ${MISSING_COMMAND} ENOENT`);
  await expect(detail.getByRole('alert').filter({ hasText: 'Last error' })).toContainText('ENOENT');

  // A URL server: its secret header goes in secretHeaders.
  await page.getByRole('button', { name: 'Add a server' }).click();
  await dialog.getByLabel('Name', { exact: true }).fill('remote-docs');
  await dialog.getByRole('radio', { name: 'Streamable HTTP' }).click();
  await dialog.getByLabel('URL').fill('not a url');
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog.getByText('An http:// or https:// address')).toBeVisible();
  await dialog.getByLabel('URL').fill('https://docs.example.com/mcp');
  await dialog.getByRole('button', { name: 'Add header' }).click();
  await dialog.getByLabel('Header 1 name').fill('Authorization');
  await dialog.getByLabel('Header 1 value').fill('Bearer doc-token-0123');
  await dialog.getByRole('checkbox', { name: 'Secret (header 1)' }).check();
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog).toBeHidden();
  expect(writes.filter((write) => write.method === 'POST').at(-1)?.body).toMatchObject({ name: 'remote-docs', transport: 'http', url: 'https://docs.example.com/mcp', headers: {}, secretHeaders: { Authorization: 'Bearer doc-token-0123' } });
  await expect(list.getByRole('listitem')).toHaveCount(3);

  // A name the server refuses is shown on the name field.
  await page.getByRole('button', { name: 'Add a server' }).click();
  await dialog.getByLabel('Name', { exact: true }).fill('everything');
  await dialog.getByLabel('Command', { exact: true }).fill('npx');
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog.getByText("An MCP server named 'everything' exists already")).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  // Off: saved, shown as Off.
  const everything = list.getByRole('listitem').filter({ hasText: 'everything' });
  await flip(everything.getByRole('switch', { name: 'On (everything)' }));
  await expect(everything.getByRole('switch', { name: 'On (everything)' })).not.toBeChecked();
  await expect.poll(async () => (await storedServer('everything'))?.enabled).toBe(false);
  await expect(everything).toContainText('Off');

  // Remove, after a confirmation.
  await list.getByRole('button', { name: 'broken' }).click();
  await page.getByRole('button', { name: 'Remove broken' }).click();
  await page.getByRole('dialog', { name: 'Remove broken?' }).getByRole('button', { name: 'Remove' }).click();
  await expect(list.getByRole('listitem')).toHaveCount(2);
  expect(await storedServer('broken')).toBeUndefined();
  expect(unexpected(problems, 502, 409)).toEqual([]);
});

test("a key's MCP servers: all by default, a chosen set, none, and back to all", async ({ page }) => {
  const problems = collectProblems(page);
  const writes = recordAdminWrites(page);
  await addServer({ name: 'github', command: FIXTURE_COMMAND, args: FIXTURE_ARGS });
  await addServer({ name: 'fetch', command: 'uvx', args: ['mcp-server-fetch'] });
  const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'mcp-agent', provider: 'openai', secret: 'sk-mcp-agent-0123456789' }) });
  const { id: virtualId } = (await created.json()) as { id: string };
  const gateway = await gatehouse.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'mcp-ci' }) });
  const { id: gatewayId } = (await gateway.json()) as { id: string };
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Keys' }).click();

  let virtualRow = await openKeyPanel(page, 'mcp-agent');
  await expect(virtualRow).toContainText('All MCP servers');
  await virtualRow.getByRole('button', { name: 'Change MCP servers' }).click();
  const dialog = page.getByRole('dialog', { name: 'MCP servers of “mcp-agent”' });
  await expect(dialog.getByRole('radio', { name: 'All servers' })).toBeChecked();
  await dialog.getByRole('radio', { name: 'Only these' }).click();
  await dialog.getByRole('checkbox', { name: 'github' }).check();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(virtualRow).toContainText('MCP: github');
  expect(writes.at(-1)).toEqual({ method: 'PATCH', path: `/virtual-keys/${virtualId}`, body: { mcpServers: ['github'] } });
  expect((await storedKey('virtual-keys', virtualId)).mcpServers).toEqual(['github']);

  // Read back after a reload, as the server keeps it.
  await page.reload();
  virtualRow = await openKeyPanel(page, 'mcp-agent');
  await expect(virtualRow).toContainText('MCP: github');
  await virtualRow.getByRole('button', { name: 'Change MCP servers' }).click();
  await expect(dialog.getByRole('checkbox', { name: 'github' })).toBeChecked();
  await expect(dialog.getByRole('checkbox', { name: 'fetch' })).not.toBeChecked();
  await dialog.getByRole('radio', { name: 'All servers' }).click();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(virtualRow).toContainText('All MCP servers');
  expect(writes.at(-1)?.body).toEqual({ mcpServers: null });
  expect((await storedKey('virtual-keys', virtualId)).mcpServers).toBeNull();

  // A gateway key limited to no server at all.
  await virtualRow.getByRole('button', { name: 'Close' }).click();
  const gatewayRow = await openKeyPanel(page, 'mcp-ci');
  await gatewayRow.getByRole('button', { name: 'Change MCP servers' }).click();
  const gatewayDialog = page.getByRole('dialog', { name: 'MCP servers of “mcp-ci”' });
  await gatewayDialog.getByRole('radio', { name: 'Only these' }).click();
  await expect(gatewayDialog.getByText('None ticked: the key reaches no MCP server.')).toBeVisible();
  await gatewayDialog.getByRole('button', { name: 'Save' }).click();
  await expect(gatewayRow).toContainText('No MCP servers');
  expect(writes.at(-1)).toEqual({ method: 'PATCH', path: `/gateway-keys/${gatewayId}`, body: { mcpServers: [] } });
  expect((await storedKey('gateway-keys', gatewayId)).mcpServers).toEqual([]);
  expect(problems).toEqual([]);
});

test("deny by default: Settings keeps keys that name no server away from MCP, and a key's own switch lets it in again", async ({ page }) => {
  const problems = collectProblems(page);
  const writes = recordAdminWrites(page);
  await addServer({ name: 'github', command: FIXTURE_COMMAND, args: FIXTURE_ARGS });
  const created = await gatehouse.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'mcp-default-key' }) });
  const { id, key } = (await created.json()) as { id: string; key: string };
  /** The tools this key is shown on /mcp/github, as an agent lists them (none when refused). */
  const toolsListed = async (): Promise<string[]> => {
    const client = new Client({ name: 'e2e-default', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL('/mcp/github', gatehouse.origin), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
      return (await client.listTools()).tools.map((tool) => tool.name);
    } catch {
      return [];
    } finally {
      await client.close();
    }
  };
  expect(await toolsListed()).toContain('echo');
  try {
    await page.goto(gatehouse.uiUrl);
    await page.getByRole('link', { name: 'Settings' }).click();
    const card = page.getByRole('region', { name: 'MCP servers' });
    await card.getByRole('radio', { name: 'Reach none until allowed' }).click();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect(page.getByText('Settings saved')).toBeVisible();
    expect(((await (await gatehouse.admin('/settings')).json()) as { mcpKeyDefault: string }).mcpKeyDefault).toBe('deny');
    expect(await toolsListed()).toEqual([]);

    await page.getByRole('link', { name: 'Keys' }).click();
    const panel = await openKeyPanel(page, 'mcp-default-key');
    await expect(panel).toContainText('No MCP servers until allowed');
    await panel.getByRole('button', { name: 'Change MCP servers' }).click();
    const dialog = page.getByRole('dialog', { name: 'MCP servers of “mcp-default-key”' });
    await expect(dialog.getByRole('radio', { name: 'None until allowed' })).toBeChecked();
    await dialog.getByRole('radio', { name: 'All servers' }).click();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    await expect(panel).toContainText('All MCP servers');
    expect(writes.at(-1)).toEqual({ method: 'PATCH', path: `/gateway-keys/${id}`, body: { mcpServers: null, mcpDefault: 'allow' } });
    expect(await toolsListed()).toContain('echo');

    // And the key's own switch back to none, while Settings let keys in again.
    await gatehouse.admin('/settings', { method: 'PATCH', body: JSON.stringify({ mcpKeyDefault: 'allow' }) });
    await panel.getByRole('button', { name: 'Change MCP servers' }).click();
    await dialog.getByRole('radio', { name: 'None until allowed' }).click();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(panel).toContainText('No MCP servers until allowed');
    expect(writes.at(-1)?.body).toEqual({ mcpServers: null, mcpDefault: 'deny' });
    expect(await toolsListed()).toEqual([]);
  } finally {
    await gatehouse.admin('/settings', { method: 'PATCH', body: JSON.stringify({ mcpKeyDefault: 'allow' }) });
  }
  expect(unexpected(problems, 401, 403, 404)).toEqual([]);
});

test("a key's MCP tools: only two tools of a server, ticked from its list, then every tool again", async ({ page }) => {
  const problems = collectProblems(page);
  const writes = recordAdminWrites(page);
  await addServer({ name: 'github', command: FIXTURE_COMMAND, args: FIXTURE_ARGS });
  const gateway = await gatehouse.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'mcp-two-tools' }) });
  const { id } = (await gateway.json()) as { id: string };
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Keys' }).click();

  const row = await openKeyPanel(page, 'mcp-two-tools');
  await row.getByRole('button', { name: 'Change MCP servers' }).click();
  const dialog = page.getByRole('dialog', { name: 'MCP servers of “mcp-two-tools”' });
  const github = dialog.getByRole('group', { name: 'github: tools' });
  await github.getByRole('checkbox', { name: 'Only some tools' }).check();
  const tools = github.getByRole('group', { name: 'Tools this key may use' });
  await expect(tools.getByRole('checkbox', { name: 'read_secret_file' })).toBeVisible();
  await tools.getByRole('checkbox', { name: 'echo' }).check();
  await tools.getByRole('checkbox', { name: 'add' }).check();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(row).toContainText('All MCP servers (some tools of github)');
  expect(writes.at(-1)).toEqual({ method: 'PATCH', path: `/gateway-keys/${id}`, body: { mcpServers: null, mcpTools: { github: ['add', 'echo'] } } });
  expect((await storedKey('gateway-keys', id)).mcpTools).toEqual({ github: ['add', 'echo'] });

  // Read back after a reload, then every tool again.
  await page.reload();
  const again = await openKeyPanel(page, 'mcp-two-tools');
  await again.getByRole('button', { name: 'Change MCP servers' }).click();
  await expect(tools.getByRole('checkbox', { name: 'echo' })).toBeChecked();
  await expect(tools.getByRole('checkbox', { name: 'read_secret_file' })).not.toBeChecked();
  await github.getByRole('checkbox', { name: 'Only some tools' }).uncheck();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(again).toContainText('All MCP servers');
  expect(writes.at(-1)?.body).toEqual({ mcpServers: null, mcpTools: null });
  expect((await storedKey('gateway-keys', id)).mcpTools).toBeNull();
  expect(problems).toEqual([]);
});

test('Connect a tool gives each agent its MCP set-up with the address and the key written in', async ({ page }) => {
  const problems = collectProblems(page);
  await addServer({ name: 'github', command: FIXTURE_COMMAND, args: FIXTURE_ARGS });
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Connect a tool' }).click();
  const key = 'gh-gk-0123456789abcdef0123456789abcdef';
  const url = `${gatehouse.origin}/mcp`;
  const card = page.getByRole('region', { name: 'MCP servers (tools)' });
  // The server list is there without a visit to the MCP servers page first.
  await expect(card.getByLabel('Servers').locator('option', { hasText: 'Only github (/mcp/github)' })).toHaveCount(1);
  await expect(card.getByLabel('Claude Code MCP: Run once', { exact: true })).toContainText('YOUR_GATEHOUSE_KEY');
  await page.getByLabel('Virtual key').fill(key);
  await expect(page.getByText('A gateway key: the MCP set-ups below work with it')).toBeVisible();

  const code = (label: string) => card.getByLabel(label, { exact: true }).innerText();
  await expect(card.getByLabel('Claude Code MCP: Run once', { exact: true })).toHaveText(`claude mcp add --transport http gatehouse ${url} \\\n  --header "Authorization: Bearer ${key}"`);
  expect(JSON.parse(await code('Claude Code MCP: Or save as .mcp.json in your project'))).toEqual({ mcpServers: { gatehouse: { type: 'http', url, headers: { Authorization: `Bearer ${key}` } } } });

  await card.getByRole('tab', { name: 'Codex' }).click();
  expect(await code('Codex CLI MCP: Add to ~/.codex/config.toml')).toBe(`[mcp_servers.gatehouse]\nurl = "${url}"\nbearer_token_env_var = "GATEHOUSE_API_KEY"`);
  expect(await code('Codex CLI MCP: Set in your shell, then run codex')).toBe(`export GATEHOUSE_API_KEY=${key}\ncodex`);

  await card.getByRole('tab', { name: 'OpenCode' }).click();
  expect(JSON.parse(await code('OpenCode MCP: Save as opencode.json in your project (or ~/.config/opencode/opencode.json)'))).toEqual({
    $schema: 'https://opencode.ai/config.json',
    mcp: { servers: { gatehouse: { type: 'remote', url, headers: { Authorization: `Bearer ${key}` } } } },
  });

  await card.getByRole('tab', { name: 'Cursor' }).click();
  expect(JSON.parse(await code('Cursor MCP: Save as .cursor/mcp.json in your project (or ~/.cursor/mcp.json)'))).toEqual({ mcpServers: { gatehouse: { url, headers: { Authorization: `Bearer ${key}` } } } });

  await card.getByRole('tab', { name: 'VS Code' }).click();
  expect(JSON.parse(await code('VS Code MCP: Save as .vscode/mcp.json in your workspace'))).toEqual({ servers: { gatehouse: { type: 'http', url, headers: { Authorization: `Bearer ${key}` } } } });

  // One server alone: its own endpoint, its own entry name.
  await card.getByLabel('Servers').focus();
  await expect(card.getByRole('option', { name: 'Only github (/mcp/github)' })).toBeAttached();
  await card.getByLabel('Servers').selectOption('github');
  expect(JSON.parse(await code('VS Code MCP: Save as .vscode/mcp.json in your workspace'))).toEqual({ servers: { 'gatehouse-github': { type: 'http', url: `${url}/github`, headers: { Authorization: `Bearer ${key}` } } } });
  expect(problems).toEqual([]);
});

test.describe('screens', () => {
  for (const width of [900, 1280]) {
    for (const theme of ['light', 'dark'] as const) {
      test(`MCP servers, Keys and Connect at ${width} px, ${theme}`, async ({ page }) => {
        await page.setViewportSize({ width, height: 900 });
        await page.emulateMedia({ colorScheme: theme });
        await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: `screens-${width}-${theme}`, provider: 'openai', secret: 'sk-screens-0123456789' }) });
        // filesystem is never started (it would need the internet); broken is asked for its tools so it has failed.
        await addServer({ name: 'filesystem', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/projects/a-rather-long-folder-name/with/more/depth'] });
        await addServer({ name: 'github', command: FIXTURE_COMMAND, args: FIXTURE_ARGS, secretEnv: { GITHUB_PERSONAL_ACCESS_TOKEN: 'x' } });
        await gatehouse.admin('/mcp-servers/github', { method: 'PATCH', body: JSON.stringify({ disabledTools: ['add'] }) });
        await addServer({ name: 'broken', command: MISSING_COMMAND, args: [] });
        expect((await gatehouse.admin('/mcp-servers/broken/tools')).status).toBe(502);
        await addServer({ name: 'docs', transport: 'http', url: 'https://docs.example.com/mcp', headers: { 'X-Team': 'platform' }, secretHeaders: { Authorization: 'x' } });
        await openMcpPage(page);
        await page.getByRole('list', { name: 'MCP servers' }).getByRole('button', { name: 'github' }).click();
        const tryTool = page.getByRole('form', { name: 'Try a tool of github' });
        await tryTool.getByLabel('Arguments (JSON)').fill('{"message": "hello gate"}');
        await tryTool.getByRole('button', { name: 'Run' }).click();
        await expect(tryTool.getByRole('region', { name: 'Tool result' })).toBeVisible();
        await expectNoSidewaysScroll(page);
        await screenshotWholePage(page, `mcp-servers-${width}-${theme}`);

        await page.getByRole('button', { name: 'Add a server' }).click();
        const dialog = page.getByRole('dialog', { name: 'Add an MCP server' });
        await dialog.getByRole('button', { name: 'GitHub' }).click();
        await dialog.getByRole('button', { name: 'Add variable' }).click();
        await expectNoSidewaysScroll(page);
        await page.screenshot({ path: `test-results/screens/mcp-add-${width}-${theme}.png` });
        await dialog.getByRole('radio', { name: 'HTTP+SSE (legacy)' }).click();
        await dialog.getByRole('button', { name: 'Add header' }).click();
        await page.screenshot({ path: `test-results/screens/mcp-add-sse-${width}-${theme}.png` });
        await dialog.getByRole('button', { name: 'Cancel' }).click();

        await page.getByRole('link', { name: 'Keys' }).click();
        await expect(page.getByRole('heading', { name: 'Keys', level: 1 })).toBeVisible();
        await expectNoSidewaysScroll(page);
        await screenshotWholePage(page, `mcp-keys-${width}-${theme}`);

        await page.getByRole('link', { name: 'Connect a tool' }).click();
        const card = page.getByRole('region', { name: 'MCP servers (tools)' });
        await card.scrollIntoViewIfNeeded();
        await expectNoSidewaysScroll(page);
        await screenshotWholePage(page, `mcp-connect-${width}-${theme}`);
      });
    }
  }
});
