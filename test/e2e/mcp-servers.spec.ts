// The UI of the MCP gateway (issue 25) against a real `gatehouse serve`, with the MCP part of the admin
// API answered by an in-test fake faithful to its contract (mcp-admin-fake.ts): adding a server from a
// preset (the secret sent once, never shown), its tools listed with a switch each, "Try a tool" with
// JSON checked before sending, a tool's own error and a server that cannot start shown as errors; a
// key's MCP servers on the Keys page; each agent's MCP set-up on Connect a tool. Screens at 900 and
// 1280 px, light and dark, with no sideways scroll.
import { expect, test, type Page } from '@playwright/test';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { McpAdminFake, MISSING_COMMAND } from './mcp-admin-fake';
import { collectProblems } from './page-problems.js';
import { screenshotWholePage } from './screenshots';

let gatehouse: ServedGatehouse;

test.beforeAll(async () => {
  gatehouse = await serveGatehouse();
});

test.afterAll(async () => {
  await gatehouse?.stop();
});

/** Clicks a switch as a person does: on its label (the input itself lies under the drawn track). */
const flip = (control: ReturnType<Page['getByRole']>) => control.locator('xpath=..').click();

/** The browser reports each non-2xx answer on the console; those a test provokes on purpose are not problems. */
const unexpected = (problems: string[], ...statuses: number[]) => problems.filter((problem) => !statuses.some((status) => problem.includes(`status of ${status}`)));

async function openMcpPage(page: Page, fake: McpAdminFake): Promise<void> {
  await fake.install(page);
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
  const fake = new McpAdminFake();
  await openMcpPage(page, fake);
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
  expect(fake.requests.filter((request) => request.method === 'POST')).toEqual([]);

  await dialog.getByLabel('Variable 1 value').fill('ghp_sealed_0123456789');
  await dialog.getByRole('button', { name: 'Add variable' }).click();
  await dialog.getByLabel('Variable 2 name').fill('LOG_LEVEL');
  await dialog.getByLabel('Variable 2 value').fill('debug');
  await dialog.getByLabel('Call timeout (seconds)').fill('30');
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog).toBeHidden();
  expect(fake.requests.find((request) => request.method === 'POST')?.body).toEqual({
    name: 'github',
    transport: 'stdio',
    command: 'npx',
    args: ['-y', '@modelcontextprotocol/server-github'],
    env: { LOG_LEVEL: 'debug' },
    secretEnv: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_sealed_0123456789' },
    timeoutMs: 30_000,
  });

  // Listed with its state and tool count; the detail opens with the tools and their descriptions.
  const list = page.getByRole('list', { name: 'MCP servers' });
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await expect(list).toContainText('npx -y @modelcontextprotocol/server-github');
  const tools = page.getByRole('list', { name: 'Tools of github' });
  await expect(tools.getByRole('listitem')).toHaveCount(3);
  await expect(tools).toContainText('Echoes back the input');
  await expect(list).toContainText('Running');
  await expect(list).toContainText('3 tools');
  const setup = page.getByLabel('Set-up of github');
  await expect(setup).toContainText('GITHUB_PERSONAL_ACCESS_TOKEN');
  await expect(setup).toContainText('sealed');
  await expect(page.getByLabel('Stderr of github')).toContainText('running on stdio');
  // The secret went out once and is nowhere on the page.
  await expect(page.locator('body')).not.toContainText('ghp_sealed');

  // A tool switched off is saved in the server's disabledTools and leaves "Try a tool".
  const tryTool = page.getByRole('form', { name: 'Try a tool of github' });
  await expect(tryTool.getByLabel('Tool', { exact: true }).locator('option')).toHaveText(['echo', 'add', 'read_secret_file']);
  await flip(tools.getByRole('switch', { name: 'add on' }));
  await expect(tools.getByRole('switch', { name: 'add on' })).not.toBeChecked();
  expect(fake.servers.get('github')?.disabledTools).toEqual(['add']);
  await expect(tryTool.getByLabel('Tool', { exact: true }).locator('option')).toHaveText(['echo', 'read_secret_file']);

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
  expect(fake.calls).toEqual([]);

  // A call: the text readable, the duration, the raw JSON folded away.
  await argumentsField.fill('{"message": "hello gate"}');
  await tryTool.getByRole('button', { name: 'Run' }).click();
  const result = tryTool.getByRole('region', { name: 'Tool result' });
  await expect(result.locator('.tool-result-text')).toHaveText('Echo: hello gate');
  await expect(result).toContainText('OK');
  await expect(result).toContainText('42 ms');
  expect(fake.calls).toEqual([{ server: 'github', tool: 'echo', arguments: { message: 'hello gate' } }]);
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
  await expect.poll(() => fake.servers.get('github')?.timeoutMs).toBe(90_000);
  expect(problems).toEqual([]);
});

test('a server that cannot start shows Failed and why; switching off and removing a server', async ({ page }) => {
  const problems = collectProblems(page);
  const fake = new McpAdminFake();
  fake.seed({ name: 'everything' });
  await openMcpPage(page, fake);
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
  expect(fake.requests.filter((request) => request.method === 'POST').at(-1)?.body).toMatchObject({ name: 'remote-docs', transport: 'http', url: 'https://docs.example.com/mcp', headers: {}, secretHeaders: { Authorization: 'Bearer doc-token-0123' } });
  await expect(list.getByRole('listitem')).toHaveCount(3);

  // A name the server refuses is shown on the name field.
  await page.getByRole('button', { name: 'Add a server' }).click();
  await dialog.getByLabel('Name', { exact: true }).fill('everything');
  await dialog.getByLabel('Command', { exact: true }).fill('npx');
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog.getByText('An MCP server named everything exists')).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  // Off: saved, shown as Off.
  const everything = list.getByRole('listitem').filter({ hasText: 'everything' });
  await flip(everything.getByRole('switch', { name: 'On (everything)' }));
  await expect(everything.getByRole('switch', { name: 'On (everything)' })).not.toBeChecked();
  expect(fake.servers.get('everything')?.enabled).toBe(false);
  await expect(everything).toContainText('Off');

  // Remove, after a confirmation.
  await list.getByRole('button', { name: 'broken' }).click();
  await page.getByRole('button', { name: 'Remove broken' }).click();
  await page.getByRole('dialog', { name: 'Remove broken?' }).getByRole('button', { name: 'Remove' }).click();
  await expect(list.getByRole('listitem')).toHaveCount(2);
  expect(fake.servers.has('broken')).toBe(false);
  expect(unexpected(problems, 502, 409)).toEqual([]);
});

test("a key's MCP servers: all by default, a chosen set, none, and back to all", async ({ page }) => {
  const problems = collectProblems(page);
  const fake = new McpAdminFake();
  fake.seed({ name: 'github' });
  fake.seed({ name: 'fetch', command: 'uvx', args: ['mcp-server-fetch'] });
  const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'mcp-agent', provider: 'openai', secret: 'sk-mcp-agent-0123456789' }) });
  const { id: virtualId } = (await created.json()) as { id: string };
  const gateway = await gatehouse.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'mcp-ci' }) });
  const { id: gatewayId } = (await gateway.json()) as { id: string };
  await fake.install(page);
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Keys' }).click();

  const virtualRow = page.getByRole('list', { name: 'Virtual keys' }).getByRole('listitem').filter({ hasText: 'mcp-agent' });
  await expect(virtualRow).toContainText('All MCP servers');
  await virtualRow.getByRole('button', { name: 'MCP servers of mcp-agent' }).click();
  const dialog = page.getByRole('dialog', { name: 'MCP servers of “mcp-agent”' });
  await expect(dialog.getByRole('radio', { name: 'All servers' })).toBeChecked();
  await dialog.getByRole('radio', { name: 'Only these' }).click();
  await dialog.getByRole('checkbox', { name: 'github' }).check();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(virtualRow).toContainText('MCP: github');
  expect(fake.requests.at(-1)).toEqual({ method: 'PATCH', path: `/virtual-keys/${virtualId}`, body: { mcpServers: ['github'] } });

  // Read back after a reload, as the server keeps it.
  await page.reload();
  await expect(virtualRow).toContainText('MCP: github');
  await virtualRow.getByRole('button', { name: 'MCP servers of mcp-agent' }).click();
  await expect(dialog.getByRole('checkbox', { name: 'github' })).toBeChecked();
  await expect(dialog.getByRole('checkbox', { name: 'fetch' })).not.toBeChecked();
  await dialog.getByRole('radio', { name: 'All servers' }).click();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(virtualRow).toContainText('All MCP servers');
  expect(fake.requests.at(-1)?.body).toEqual({ mcpServers: null });

  // A gateway key limited to no server at all.
  const gatewayRow = page.getByRole('list', { name: 'Gateway keys' }).getByRole('listitem').filter({ hasText: 'mcp-ci' });
  await gatewayRow.getByRole('button', { name: 'MCP servers of mcp-ci' }).click();
  const gatewayDialog = page.getByRole('dialog', { name: 'MCP servers of “mcp-ci”' });
  await gatewayDialog.getByRole('radio', { name: 'Only these' }).click();
  await expect(gatewayDialog.getByText('None ticked: the key reaches no MCP server.')).toBeVisible();
  await gatewayDialog.getByRole('button', { name: 'Save' }).click();
  await expect(gatewayRow).toContainText('No MCP servers');
  expect(fake.requests.at(-1)).toEqual({ method: 'PATCH', path: `/gateway-keys/${gatewayId}`, body: { mcpServers: [] } });
  expect(problems).toEqual([]);
});

test('Connect a tool gives each agent its MCP set-up with the address and the key written in', async ({ page }) => {
  const problems = collectProblems(page);
  const fake = new McpAdminFake();
  fake.seed({ name: 'github' });
  await fake.install(page);
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Connect a tool' }).click();
  const key = 'gh-gk-0123456789abcdef0123456789abcdef';
  const url = `${gatehouse.origin}/mcp`;
  const card = page.getByRole('region', { name: 'MCP servers (tools)' });
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
        const fake = new McpAdminFake();
        fake.seed({ name: 'filesystem', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/projects/a-rather-long-folder-name/with/more/depth'] });
        fake.seed({ name: 'github', args: ['-y', '@modelcontextprotocol/server-github'], secretEnv: { GITHUB_PERSONAL_ACCESS_TOKEN: 'x' }, disabledTools: ['add'] });
        fake.seed({ name: 'broken', command: MISSING_COMMAND, args: [], status: 'failed', lastError: `spawn ${MISSING_COMMAND} ENOENT: the command was not found on PATH; restarted 5 times, giving up` });
        fake.seed({ name: 'docs', transport: 'http', command: undefined, args: undefined, url: 'https://docs.example.com/mcp', headers: { 'X-Team': 'platform' }, secretHeaders: { Authorization: 'x' } });
        await openMcpPage(page, fake);
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
