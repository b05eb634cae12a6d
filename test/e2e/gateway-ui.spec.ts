// The whole path a person takes, against the real `gatehouse serve` and a local OpenAI-format
// provider double: create a virtual key, run prompts in the Playground (streamed and not), find
// them in the Logs, open one, and check the provider secret shows up nowhere.
import { expect, test, type Page } from '@playwright/test';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { screenshot, screenshotWholePage } from './screenshots';

const PROVIDER_SECRET = 'sk-e2e-provider-secret-7f3a9c1d2b';

let fake: OpenAIFake;
let gatehouse: ServedGatehouse;

test.beforeAll(async () => {
  fake = await startOpenAIFake();
  gatehouse = await serveGatehouse();
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await fake?.close();
});

async function expectNoSecretOnPage(page: Page) {
  expect(await page.content()).not.toContain(PROVIDER_SECRET);
  expect(await page.evaluate(() => document.body.innerText)).not.toContain(PROVIDER_SECRET);
}

test('a virtual key created in Keys runs prompts in the Playground that then show in Logs without the secret', async ({ page }) => {
  const pageProblems: string[] = [];
  page.on('pageerror', (error) => pageProblems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') pageProblems.push(`console: ${message.text()}`);
  });
  await page.goto(gatehouse.uiUrl);
  // The token is kept for the session and taken out of the address bar.
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  expect(page.url()).not.toContain('token=');

  // Keys: create a virtual key for the fake provider.
  await page.getByRole('link', { name: 'Keys' }).click();
  await expect(page.getByRole('heading', { name: 'No virtual keys yet' })).toBeVisible();
  await screenshot(page, 'keys-empty');
  await page.getByRole('button', { name: 'New virtual key' }).first().click();
  const createDialog = page.getByRole('dialog', { name: 'New virtual key' });
  await createDialog.getByLabel('Name').fill('E2E fake OpenAI');
  await createDialog.getByLabel('Provider').selectOption('openai');
  await createDialog.getByLabel('API key').fill(PROVIDER_SECRET);
  await createDialog.getByLabel('Custom host').fill(fake.baseUrl);
  await screenshot(page, 'keys-new-virtual-key');
  await createDialog.getByRole('button', { name: 'Create' }).click();

  const revealDialog = page.getByRole('dialog', { name: /created/ });
  const shownKey = revealDialog.getByLabel('New key');
  await expect(shownKey).toHaveText(/^gh-vk-/);
  const virtualKey = (await shownKey.textContent())?.trim() ?? '';
  await expect(revealDialog.getByRole('button', { name: 'Copy key' })).toBeVisible();
  await screenshot(page, 'keys-created');
  await expectNoSecretOnPage(page);
  await revealDialog.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByRole('table', { name: 'Virtual keys' })).toContainText('E2E fake OpenAI');
  await expect(page.getByText(virtualKey)).toHaveCount(0);
  await screenshot(page, 'keys');

  // Playground: a streamed run, token by token into Output (a Completion run; Chat is the default).
  await page.getByRole('link', { name: 'Playground' }).click();
  await page.getByRole('radio', { name: 'Completion' }).click();
  await page.getByRole('radio', { name: 'Paste a key' }).click();
  await page.getByLabel('Virtual key').fill(virtualKey);
  await page.getByLabel('Model').fill('gpt-3.5-turbo-instruct');
  await page.getByLabel('Prompt').fill('streamed hello');
  await expect(page.getByRole('checkbox', { name: 'Stream' })).toBeChecked();
  await page.getByRole('button', { name: 'Run' }).click();
  const output = page.getByRole('region', { name: 'Output' });
  await expect(output).toContainText('echo: streamed hello');
  await expect(page.getByRole('button', { name: 'Run' })).toBeEnabled();
  const stats = page.getByLabel('Run statistics');
  await expect(stats).toContainText('stop');
  await expect(stats).toContainText('5 in · 3 out');
  await screenshotWholePage(page, 'playground-streamed');

  // The raw exchange is there, with the virtual key masked.
  await page.getByRole('tab', { name: 'Response' }).click();
  await expect(page.getByLabel('response events', { exact: true })).toContainText('data: [DONE]');
  await page.getByRole('tab', { name: 'Request' }).click();
  await expect(page.getByLabel('request headers', { exact: true })).not.toContainText(virtualKey);
  await page.getByRole('tab', { name: 'curl' }).click();
  await expect(page.getByLabel('curl snippet', { exact: true })).toContainText('x-gateway-api-key: $GATEHOUSE_VIRTUAL_KEY');

  // And the same prompt without streaming.
  await page.getByRole('checkbox', { name: 'Stream' }).uncheck();
  await page.getByLabel('Prompt').fill('whole hello');
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(output).toContainText('echo: whole hello');
  await expect(stats).toContainText('stop');
  await screenshotWholePage(page, 'playground');

  // The provider received the stored secret, at the host the key is bound to.
  // (Besides the model list the Model field reads, with the same key.)
  const runs = fake.requests.filter((request) => request.method === 'POST');
  expect(runs).toHaveLength(2);
  expect(runs[0].headers.authorization).toBe(`Bearer ${PROVIDER_SECRET}`);
  expect(runs[0].json.stream).toBe(true);
  expect(runs[1].json.stream).toBeUndefined();

  // Logs: both runs, newest first; the detail opens on selection.
  await page.getByRole('link', { name: 'Logs' }).click();
  const table = page.getByRole('table', { name: 'Requests' });
  const rows = table.locator('[role="rowgroup"].log-body [role="row"]');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText('gpt-3.5-turbo-instruct');
  await expect(rows.nth(0)).toContainText('200');
  await expect(rows.nth(0)).not.toContainText('stream');
  await expect(rows.nth(1)).toContainText('stream');

  // A request made while the page is open arrives live, at the top.
  const live = await fetch(`${gatehouse.origin}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': virtualKey },
    body: JSON.stringify({ model: 'live-model', prompt: 'live hello' }),
  });
  expect(live.status).toBe(200);
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toContainText('live-model');

  // Filters narrow the list on the server and come off in one click.
  await page.getByLabel('Model filter').fill('live-model');
  await expect(rows).toHaveCount(1);
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(rows).toHaveCount(3);
  await page.getByLabel('Search').fill('no-such-request-anywhere');
  await expect(page.getByRole('heading', { name: 'No requests match these filters' })).toBeVisible();
  await page.getByRole('button', { name: 'Clear filters' }).first().click();
  await expect(rows).toHaveCount(3);

  await rows.nth(2).click();
  const detail = page.getByRole('region', { name: 'Request detail' });
  await expect(detail).toContainText('echo: streamed hello');
  await detail.getByRole('tab', { name: /Raw events/ }).click();
  await expect(detail.getByLabel('raw events', { exact: true })).toContainText('[DONE]');
  await detail.getByRole('tab', { name: 'Request', exact: true }).click();
  await expect(detail.getByLabel('request body', { exact: true })).toContainText('streamed hello');
  await screenshot(page, 'logs-detail');
  await expectNoSecretOnPage(page);
  await expect(page.getByText(virtualKey)).toHaveCount(0);

  // The logged request can be opened again in the Playground, as it was sent.
  await detail.getByRole('button', { name: 'Open in Playground' }).click();
  // The Playground still holds the conversation just run: replacing it is confirmed.
  await page.getByRole('dialog', { name: 'Replace the conversation?' }).getByRole('button', { name: 'Replace it' }).click();
  await expect(page.getByLabel('Prompt')).toHaveValue('streamed hello');
  await expect(page.getByRole('checkbox', { name: 'Stream' })).toBeChecked();

  // Nothing went wrong behind the scenes either: no uncaught errors, no CSP violations, no failed loads.
  expect(pageProblems).toEqual([]);
});

test('settings show where data lives and whether keys are protected', async ({ page }) => {
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByText(gatehouse.dataDir, { exact: true })).toBeVisible();
  await expect(page.getByRole('heading', { name: /Key protection/ })).toBeVisible();
  await screenshotWholePage(page, 'settings');

  // Saving a change goes to the server and comes back.
  await page.getByLabel('Keep logs for (days)').fill('14');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByText('Settings saved')).toBeVisible();
  const saved = (await (await gatehouse.admin('/settings')).json()) as { retentionDays: number };
  expect(saved.retentionDays).toBe(14);
});
