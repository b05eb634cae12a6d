// The app's side of issue 24's Gemini dialect, against the real `gatehouse serve` and a Gemini double:
// Connect a tool shows Gemini CLI's set-up (GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY and the settings file
// that selects API-key auth) with the key written in, and the Playground's Gemini mode sends what Gemini
// CLI sends (the model in the path, the key as x-goog-api-key) and streams the answer. No console errors.
import { expect, test } from '@playwright/test';
import { startGeminiFake, type GeminiFake } from '../fakes/gemini';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { collectProblems } from './page-problems';
import { screenshotWholePage } from './screenshots';

let gemini: GeminiFake;
let gatehouse: ServedGatehouse;

test.beforeAll(async () => {
  gemini = await startGeminiFake();
  gatehouse = await serveGatehouse();
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await gemini?.close();
});

async function createVirtualKey(name: string): Promise<string> {
  const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name, provider: 'google', secret: `AIza-${name}-secret-0123456789`, customHost: gemini.baseUrl }) });
  expect(created.status).toBe(201);
  return ((await created.json()) as { key: string }).key;
}

test('Connect a tool shows Gemini CLI with the gateway address, the key and the settings that select API-key auth', async ({ page }) => {
  const problems = collectProblems(page);
  const key = await createVirtualKey('connect-gemini');
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Connect a tool' }).click();
  await page.getByLabel('Virtual key').fill(key);
  await page.getByLabel('Model').fill('gemini-2.5-flash');
  const agents = page.getByRole('region', { name: 'Coding agents' });
  await agents.getByRole('tab', { name: 'Gemini CLI' }).click();
  const settings = agents.getByLabel('Gemini CLI: Save as ~/.gemini/settings.json (selects API-key auth)', { exact: true });
  await expect(settings).toContainText('"selectedType": "gemini-api-key"');
  await expect(settings).toContainText('"name": "gemini-2.5-flash"');
  const shell = agents.getByLabel('Gemini CLI: Set in your shell, then run gemini', { exact: true });
  await expect(shell).toContainText(`export GOOGLE_GEMINI_BASE_URL=${gatehouse.origin}\n`);
  await expect(shell).toContainText(`export GEMINI_API_KEY=${key}`);
  await expect(agents.locator('.tag-dialect')).toHaveText('Gemini');
  await screenshotWholePage(page, 'connect-gemini-cli');
  expect(problems).toEqual([]);
});

test('the Playground Gemini mode sends a Gemini request with the model in the path and streams the answer', async ({ page }) => {
  const problems = collectProblems(page);
  const key = await createVirtualKey('playground-gemini');
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Playground' }).click();
  await page.getByRole('radio', { name: 'Gemini' }).click();
  await page.getByRole('radio', { name: 'Paste a key' }).click();
  await page.getByLabel('Virtual key').fill(key);
  await page.getByLabel('Model').fill('gemini-2.5-flash');
  await expect(page.getByText('POST /v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse')).toBeVisible();
  await page.getByLabel('Prompt').fill('hello from the playground');
  await expect(page.getByRole('checkbox', { name: 'Stream' })).toBeChecked();
  await page.getByRole('button', { name: 'Run' }).click();
  const output = page.getByRole('region', { name: 'Output' });
  await expect(output).toContainText('Gemini heard: hello from the playground');
  await expect(page.getByLabel('Run statistics')).toContainText('STOP');

  // What reached the Gemini provider: the Gemini body as the page wrote it, on the model's own streaming path,
  // with the key's stored secret (not the virtual key).
  const received = gemini.requests.filter((request) => request.method === 'POST').at(-1);
  expect(received?.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  expect(received?.json).toMatchObject({ contents: [{ role: 'user', parts: [{ text: 'hello from the playground' }] }], generationConfig: { maxOutputTokens: 256 } });
  expect(received?.json).not.toHaveProperty('model');
  expect(received?.json).not.toHaveProperty('stream');
  expect(received?.headers['x-goog-api-key']).toBe('AIza-playground-gemini-secret-0123456789');
  await page.getByRole('tab', { name: 'Request', exact: true }).click();
  await expect(page.locator('body')).not.toContainText(key);
  await screenshotWholePage(page, 'playground-gemini');

  // Not streamed: :generateContent, the whole answer.
  await page.getByRole('checkbox', { name: 'Stream' }).uncheck();
  await page.getByLabel('Prompt').fill('whole please');
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(output).toContainText('Gemini heard: whole please');
  expect(gemini.requests.filter((request) => request.method === 'POST').at(-1)?.url).toBe('/v1beta/models/gemini-2.5-flash:generateContent');

  // A key picked by name goes through the admin API's Playground path to the same place.
  await page.getByRole('radio', { name: 'Key by name' }).click();
  await page.getByLabel('Key', { exact: true }).selectOption({ label: `playground-gemini · google · ${gemini.baseUrl}` });
  await page.getByLabel('Prompt').fill('by name');
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(output).toContainText('Gemini heard: by name');

  // The log names the dialect.
  await page.getByRole('link', { name: 'Logs' }).click();
  const rows = page.getByRole('table', { name: 'Requests' }).locator('.log-body [role="row"]');
  await expect(rows.first().locator('.tag-dialect')).toHaveText('Gemini');
  expect(problems).toEqual([]);
});
