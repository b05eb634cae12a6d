// The app's side of issue 12, against the real `gatehouse serve` and local provider doubles: the
// Connect a tool page and the Keys "Use it" panel show set-ups with this gateway's address and the key
// written in; the Logs name each request's dialect and filter by it; the Playground's Messages and
// Responses modes send what Claude Code and Codex send and stream the answer. Every page in light and
// dark, with no console errors.
import { expect, test, type Page } from '@playwright/test';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { screenshotWholePage } from './screenshots';
import { openKeyPanel } from './keys-page';

let openai: OpenAIFake;
let anthropic: AnthropicFake;
let gatehouse: ServedGatehouse;

test.beforeAll(async () => {
  openai = await startOpenAIFake();
  anthropic = await startAnthropicFake();
  gatehouse = await serveGatehouse();
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await openai?.close();
  await anthropic?.close();
});

async function createVirtualKey(name: string, provider: string, customHost: string): Promise<string> {
  const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name, provider, secret: `sk-${name}-secret-0123456789`, customHost }) });
  expect(created.status).toBe(201);
  return ((await created.json()) as { key: string }).key;
}

/** Collects uncaught errors and console errors; the test ends by expecting none. */
function watchForProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  return problems;
}

async function screenshotBothThemes(page: Page, name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'light' });
  await screenshotWholePage(page, name);
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshotWholePage(page, `${name}-dark`);
  await page.emulateMedia({ colorScheme: 'light' });
}

test('Connect a tool shows each set-up with the gateway address and the key written in', async ({ page }) => {
  const problems = watchForProblems(page);
  const key = await createVirtualKey('connect', 'openai', openai.baseUrl);
  const { origin } = gatehouse;
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Connect a tool' }).click();
  await expect(page.getByRole('heading', { name: 'Connect a tool', level: 1 })).toBeVisible();
  await expect(page).toHaveTitle(/Connect a tool/);

  // Before a key is given the set-ups say where it goes.
  const agents = page.getByRole('region', { name: 'Coding agents' });
  const claude = agents.getByLabel('Claude Code: Set in your shell, then run claude', { exact: true });
  await expect(claude).toContainText('YOUR_GATEHOUSE_KEY');


  await page.getByLabel('Virtual key').fill(key);
  await page.getByLabel('Model').fill('qwen2.5-coder');
  await expect(claude).toContainText(`export ANTHROPIC_BASE_URL=${origin}\n`);
  await expect(claude).toContainText(`export ANTHROPIC_AUTH_TOKEN=${key}`);
  await expect(claude).toContainText('export ANTHROPIC_MODEL=qwen2.5-coder');
  await expect(agents.locator('.tag-dialect')).toHaveText('Messages');

  await agents.getByRole('tab', { name: 'Codex' }).click();
  const codexToml = agents.getByLabel('Codex CLI: Save as ~/.codex/config.toml', { exact: true });
  await expect(codexToml).toContainText('model_provider = "gatehouse"');
  await expect(codexToml).toContainText(`base_url = "${origin}/v1"`);
  await expect(codexToml).toContainText('wire_api = "responses"');
  await expect(agents.getByLabel('Codex CLI: Set in your shell, then run codex', { exact: true })).toContainText(`export GATEHOUSE_API_KEY=${key}`);

  await agents.getByRole('tab', { name: 'OpenCode' }).click();
  const openCode = JSON.parse((await agents.locator('pre').first().textContent()) ?? '') as { provider: { gatehouse: { npm: string; options: { baseURL: string; apiKey: string } } } };
  expect(openCode.provider.gatehouse).toMatchObject({ npm: '@ai-sdk/openai-compatible', options: { baseURL: `${origin}/v1`, apiKey: key } });

  const sdks = page.getByRole('region', { name: 'SDKs' });
  await expect(sdks.locator('pre').first()).toContainText(`baseURL: "${origin}/v1", apiKey: "${key}"`);
  await sdks.getByRole('tab', { name: 'anthropic Python' }).click();
  await expect(sdks.locator('pre').first()).toContainText(`base_url="${origin}", api_key="${key}"`);

  const curl = page.getByRole('region', { name: 'curl' });
  await curl.getByRole('tab', { name: 'curl messages' }).click();
  await expect(curl.locator('pre').first()).toContainText(`curl ${origin}/v1/messages`);
  await expect(curl.locator('pre').first()).toContainText(`x-api-key: ${key}`);

  // The chat curl, run as written, gets an answer through the gateway.
  await curl.getByRole('tab', { name: 'curl chat' }).click();
  const chatCurl = (await curl.locator('pre').first().textContent()) ?? '';
  const body = /-d '(.*)'$/.exec(chatCurl)?.[1] ?? '';
  const answer = await fetch(`${origin}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body });
  expect(answer.status).toBe(200);

  await screenshotBothThemes(page, 'connect');

  // The Keys page's "Use it" panel shows the same set-ups; there the key is not known any more.
  await page.getByRole('link', { name: 'Keys' }).click();
  await (await openKeyPanel(page, 'connect')).getByRole('button', { name: 'Use' }).click();
  const usage = page.getByRole('dialog', { name: 'Use “connect”' });
  await expect(usage.getByLabel('Claude Code: Set in your shell, then run claude', { exact: true })).toContainText(`export ANTHROPIC_BASE_URL=${origin}\n`);
  await expect(usage.getByLabel('Claude Code: Set in your shell, then run claude', { exact: true })).toContainText('YOUR_GATEHOUSE_KEY');
  await usage.getByRole('tab', { name: 'Codex' }).click();
  await expect(usage.getByLabel('Codex CLI: Save as ~/.codex/config.toml', { exact: true })).toContainText('wire_api = "responses"');
  await screenshotBothThemes(page, 'keys-use-it');
  expect(problems).toEqual([]);
});

test('a new virtual key is shown with set-ups that already hold it', async ({ page }) => {
  const problems = watchForProblems(page);
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Keys' }).click();
  await page.getByRole('button', { name: 'New virtual key' }).first().click();
  const createDialog = page.getByRole('dialog', { name: 'New virtual key' });
  await createDialog.getByLabel('Name').fill('Fresh');
  await createDialog.getByLabel('Provider').selectOption('anthropic');
  await createDialog.getByLabel('API key').fill('sk-ant-fresh-secret-0123456789');
  await createDialog.getByLabel('Custom host').fill(anthropic.baseUrl);
  await createDialog.getByRole('button', { name: 'Create' }).click();
  const revealDialog = page.getByRole('dialog', { name: /created/ });
  const key = ((await revealDialog.getByLabel('New key').textContent()) ?? '').trim();
  expect(key).toMatch(/^gh-vk-/);
  await expect(revealDialog.getByLabel('Claude Code: Set in your shell, then run claude', { exact: true })).toContainText(`export ANTHROPIC_AUTH_TOKEN=${key}`);
  await revealDialog.getByRole('tab', { name: 'OpenCode' }).click();
  await expect(revealDialog.locator('.tool-setup pre')).toContainText(`"apiKey": "${key}"`);
  await revealDialog.getByRole('button', { name: 'Done' }).click();
  expect(problems).toEqual([]);
});

test('Logs badge each request with its dialect and filter by it, on the server and live', async ({ page }) => {
  const problems = watchForProblems(page);
  const key = await createVirtualKey('dialects', 'openai', openai.baseUrl);
  const send = (path: string, body: object) =>
    fetch(`${gatehouse.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-gateway-api-key': key }, body: JSON.stringify(body) });
  expect((await send('/v1/chat/completions', { model: 'dialect-chat-model', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
  expect((await send('/v1/completions', { model: 'dialect-completion-model', prompt: 'hi' })).status).toBe(200);

  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Logs' }).click();
  const rows = page.getByRole('table', { name: 'Requests' }).locator('.log-body [role="row"]');
  const chatRow = rows.filter({ hasText: 'dialect-chat-model' });
  await expect(chatRow.locator('.tag-dialect')).toHaveText('Chat');
  await expect(rows.filter({ hasText: 'dialect-completion-model' }).locator('.tag-dialect')).toHaveText('Completions');

  await page.getByLabel('Dialect filter').selectOption('openai-chat');
  await expect(rows.filter({ hasText: 'dialect-completion-model' })).toHaveCount(0);
  await expect(chatRow).toHaveCount(1);
  const listed = (await (await gatehouse.admin('/logs?dialect=openai-chat')).json()) as { items: Array<{ dialect: string }> };
  expect(listed.items.length).toBeGreaterThan(0);
  expect(listed.items.every((item) => item.dialect === 'openai-chat')).toBe(true);
  expect((await gatehouse.admin('/logs?dialect=klingon')).status).toBe(400);

  // Live entries follow the same filter.
  expect((await send('/v1/completions', { model: 'live-completion-model', prompt: 'live' })).status).toBe(200);
  expect((await send('/v1/chat/completions', { model: 'live-chat-model', messages: [{ role: 'user', content: 'live' }] })).status).toBe(200);
  await expect(rows.filter({ hasText: 'live-chat-model' })).toHaveCount(1);
  await expect(rows.filter({ hasText: 'live-completion-model' })).toHaveCount(0);

  await chatRow.click();
  const detail = page.getByRole('region', { name: 'Request detail' });
  await expect(detail).toContainText('Client dialect');
  // A Chat request to an OpenAI-format provider: the client's dialect and the provider's format are both Chat.
  await expect(detail.getByText('OpenAI Chat Completions', { exact: true })).toHaveCount(2);
  await screenshotBothThemes(page, 'logs-dialects');

  await page.getByRole('button', { name: 'Clear filters' }).first().click();
  await expect(rows.filter({ hasText: 'live-completion-model' })).toHaveCount(1);
  expect(problems).toEqual([]);
});

test('the Playground Messages mode sends an Anthropic Messages request and streams the answer', async ({ page }) => {
  const problems = watchForProblems(page);
  const key = await createVirtualKey('messages', 'anthropic', anthropic.baseUrl);
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Playground' }).click();
  await page.getByRole('radio', { name: 'Messages' }).click();
  await expect(page.getByText('POST /v1/messages')).toBeVisible();
  await page.getByRole('radio', { name: 'Paste a key' }).click();
  await page.getByLabel('Virtual key').fill(key);
  await page.getByLabel('Model').fill('claude-sonnet-4-5');
  await page.getByLabel('Prompt').fill('hello from the playground');
  await expect(page.getByRole('checkbox', { name: 'Stream' })).toBeChecked();
  await page.getByRole('button', { name: 'Run' }).click();
  const output = page.getByRole('region', { name: 'Output' });
  await expect(output).toContainText('Claude heard: hello from the playground');
  await expect(page.getByRole('button', { name: 'Run' })).toBeEnabled();
  await expect(page.getByLabel('Run statistics')).toContainText('end_turn');

  // What reached the Anthropic-format provider: the Messages body, unchanged, with the system prompt beside it.
  // (The Model field's model list is read from the provider too; the run is the last POST.)
  const received = anthropic.requests.filter((request) => request.method === 'POST').at(-1);
  expect(received?.url).toBe('/v1/messages');
  expect(received?.headers['anthropic-version']).toBe('2023-06-01');
  expect(received?.json).toMatchObject({ model: 'claude-sonnet-4-5', max_tokens: 256, stream: true, messages: [{ role: 'user', content: 'hello from the playground' }] });
  expect(received?.headers['x-api-key']).not.toBe(key);

  // The raw exchange shows the typed events; the key is masked.
  await page.getByRole('tab', { name: 'Response', exact: true }).click();
  await expect(page.getByLabel('response events', { exact: true })).toContainText('event: content_block_delta');
  await page.getByRole('tab', { name: 'Request', exact: true }).click();
  await expect(page.locator('body')).not.toContainText(key);
  await screenshotBothThemes(page, 'playground-messages');

  // Not streamed: the whole message.
  await page.getByRole('checkbox', { name: 'Stream' }).uncheck();
  await page.getByLabel('Prompt').fill('whole please');
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(output).toContainText('Claude heard: whole please');

  // The log names the dialect and the provider's format.
  await page.getByRole('link', { name: 'Logs' }).click();
  const rows = page.getByRole('table', { name: 'Requests' }).locator('.log-body [role="row"]');
  await expect(rows.first().locator('.tag-dialect')).toHaveText('Messages');
  await rows.first().click();
  await expect(page.getByRole('region', { name: 'Request detail' })).toContainText('Anthropic Messages');
  expect(problems).toEqual([]);
});

test('the Playground Responses mode sends what Codex sends, here to an Anthropic-format provider, and streams the answer', async ({ page }) => {
  const problems = watchForProblems(page);
  const key = await createVirtualKey('responses', 'anthropic', anthropic.baseUrl);
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Playground' }).click();
  await page.getByRole('radio', { name: 'Responses' }).click();
  await expect(page.getByText('POST /v1/responses')).toBeVisible();
  await page.getByRole('radio', { name: 'Paste a key' }).click();
  await page.getByLabel('Virtual key').fill(key);
  await page.getByLabel('Model').fill('claude-sonnet-4-5');
  await page.getByLabel('Prompt').fill('hello from codex mode');
  await page.getByRole('button', { name: 'Run' }).click();
  const output = page.getByRole('region', { name: 'Output' });
  await expect(output).toContainText('Claude heard: hello from codex mode');
  await expect(page.getByRole('button', { name: 'Run' })).toBeEnabled();
  await expect(page.getByLabel('Run statistics')).toContainText('completed');
  // The text once: the deltas, not the deltas and the completed response's copy of them.
  expect((await output.innerText()).split('Claude heard: hello from codex mode')).toHaveLength(2);

  // Translated for the Anthropic-format provider: instructions became the system prompt.
  const received = anthropic.requests.filter((request) => request.method === 'POST').at(-1);
  expect(received?.url).toBe('/v1/messages');
  expect(received?.json).toMatchObject({ model: 'claude-sonnet-4-5', max_tokens: 256, stream: true, messages: [{ role: 'user', content: 'hello from codex mode' }] });
  expect(JSON.stringify(received?.json.system)).toContain('You are a helpful assistant.');

  await page.getByRole('tab', { name: 'Response', exact: true }).click();
  await expect(page.getByLabel('response events', { exact: true })).toContainText('event: response.completed');
  await page.getByRole('tab', { name: 'Request', exact: true }).click();
  await expect(page.locator('body')).not.toContainText(key);
  await page.getByRole('tab', { name: 'Python', exact: true }).click();
  await expect(page.getByLabel('Python snippet', { exact: true })).toContainText('client.responses.create(');
  await screenshotBothThemes(page, 'playground-responses');

  // The log names the dialect and the provider's format, and reopens the request in Responses mode.
  await page.getByRole('link', { name: 'Logs' }).click();
  const rows = page.getByRole('table', { name: 'Requests' }).locator('.log-body [role="row"]');
  await expect(rows.first().locator('.tag-dialect')).toHaveText('Responses');
  await rows.first().click();
  const detail = page.getByRole('region', { name: 'Request detail' });
  await expect(detail).toContainText('OpenAI Responses');
  await expect(detail).toContainText('Anthropic Messages');
  await detail.getByRole('button', { name: 'Open in Playground' }).click();
  // The Playground still holds the conversation just run: replacing it is confirmed.
  await page.getByRole('dialog', { name: 'Replace the conversation?' }).getByRole('button', { name: 'Replace it' }).click();
  await expect(page.getByRole('radio', { name: 'Responses' })).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByLabel('Prompt')).toHaveValue('hello from codex mode');

  // A reasoning effort becomes a thinking budget for the Anthropic-format provider.
  await page.getByRole('radio', { name: 'Paste a key' }).click();
  await page.getByLabel('Virtual key').fill(key);
  await page.getByLabel('Max tokens', { exact: true }).fill('4096');
  await page.getByLabel('Reasoning effort').selectOption('low');
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(page.getByLabel('Run statistics')).toContainText('completed');
  const thought = anthropic.requests.filter((request) => request.method === 'POST').at(-1);
  expect(thought?.json).toMatchObject({ max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 } });
  expect(problems).toEqual([]);
});
