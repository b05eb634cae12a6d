// The Playground with keys picked by name, against the real `gatehouse serve` and two local OpenAI-format
// doubles: run as a key chosen from a list (the key and its secret never reach the page), the Model field
// offers the key's models, a run saved as a named prompt re-opens with its key, and the compare view
// puts two keys side by side. Light and dark, with no console errors; the sidebar reaches the window's
// bottom however far the page is scrolled.
import { expect, test, type Page } from '@playwright/test';
// (Local servers: a server found by discovery offers its models too, with no key needed to list them.)
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { FAKE_LOCAL_MODELS, startLocalServerFake, type LocalServerFake } from '../fakes/local-servers';

const SECRETS = { alpha: 'sk-e2e-alpha-secret-5b21c9', beta: 'sk-e2e-beta-secret-8e04d1' };

let alpha: OpenAIFake;
let beta: OpenAIFake;
let ollama: LocalServerFake;
let gatehouse: ServedGatehouse;
const keys: Record<'alpha' | 'beta', { id: string; key: string }> = {} as never;

test.beforeAll(async () => {
  alpha = await startOpenAIFake();
  beta = await startOpenAIFake();
  ollama = await startLocalServerFake('ollama');
  // Discovery probes only the Ollama double, whatever else runs on this machine.
  gatehouse = await serveGatehouse({ GATEHOUSE_DISCOVERY_PORTS: '', GATEHOUSE_DISCOVERY_TIMEOUT_MS: '3000' });
  expect((await gatehouse.admin('/settings', { method: 'PATCH', body: JSON.stringify({ discoveryPorts: [ollama.port] }) })).status).toBe(200);
  for (const [which, fake, name] of [['alpha', alpha, 'Fake Alpha'], ['beta', beta, 'Fake Beta']] as const) {
    const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name, provider: 'openai', secret: SECRETS[which], customHost: fake.baseUrl }) });
    keys[which] = (await created.json()) as { id: string; key: string };
  }
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await alpha?.close();
  await beta?.close();
  await ollama?.close();
});

/** Console errors, uncaught errors, and any request or answer of the page that carries a key or secret. */
function watchPage(page: Page): string[] {
  const problems: string[] = [];
  const forbidden = [SECRETS.alpha, SECRETS.beta, keys.alpha.key, keys.beta.key];
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('request', (request) => {
    const seen = `${request.url()} ${JSON.stringify(request.headers())} ${request.postData() ?? ''}`;
    for (const value of forbidden) if (seen.includes(value)) problems.push(`request carries a key or secret: ${request.url()}`);
  });
  page.on('response', async (response) => {
    if (!response.url().includes('/admin/api/')) return;
    const text = await response.text().catch(() => '');
    for (const value of forbidden) if (text.includes(value)) problems.push(`answer carries a key or secret: ${response.url()}`);
  });
  return problems;
}

/** However far the page is scrolled, the sidebar covers the window from top to bottom. */
async function expectSidebarFillsWindow(page: Page) {
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  const box = await page.locator('.sidebar').boundingBox();
  const height = await page.evaluate(() => window.innerHeight);
  const scrolled = await page.evaluate(() => window.scrollY);
  expect(scrolled).toBeGreaterThan(0);
  // Within a pixel: a fractional scroll position leaves a subpixel offset.
  expect(Math.abs(box?.y ?? Number.NaN)).toBeLessThan(1);
  expect(Math.abs((box?.y ?? 0) + (box?.height ?? 0) - height)).toBeLessThan(1);
  // The frame paints the sidebar's column down to the very bottom of the page too.
  const column = await page.evaluate(() => getComputedStyle(document.querySelector('.app')!).backgroundImage);
  expect(column).toContain('linear-gradient');
  await page.evaluate(() => window.scrollTo(0, 0));
}

for (const theme of ['light', 'dark'] as const) {
  test.describe(`${theme} theme`, () => {
    test.use({ colorScheme: theme });

    test(`a key picked by name runs, offers its models, saves and re-opens a prompt, and compares with another (${theme})`, async ({ page }) => {
      const problems = watchPage(page);
      await page.goto(gatehouse.uiUrl);
      await expect(page.getByRole('heading', { name: 'Playground', level: 1 })).toBeVisible();
      await expect(page.getByRole('radio', { name: 'Key by name' })).toHaveAttribute('aria-checked', 'true');

      // Pick by name; the Model field offers what that key's provider lists.
      const keyPicker = page.getByLabel('Key', { exact: true });
      await keyPicker.selectOption({ label: `Fake Beta · openai · ${beta.baseUrl}` });
      await expect(page.getByText('2 models listed by the provider; any other name works too.')).toBeVisible();
      await expect(page.locator('#playground-model-options option')).toHaveCount(2);
      expect(await page.locator('#playground-model-options option').evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value))).toEqual(['gpt-3.5-turbo-instruct', 'gpt-4o-mini']);
      expect(beta.requests.some((request) => request.url === '/v1/models' && request.headers.authorization === `Bearer ${SECRETS.beta}`)).toBe(true);

      // Run it, streamed: the answer comes from Beta's double, with Beta's secret.
      const prompt = `hello by name ${theme}`;
      // The completions double echoes the prompt: Completion mode (Chat is the Playground's first mode now).
      await page.getByRole('radio', { name: 'Completion' }).click();
      await page.getByLabel('Model').fill('gpt-3.5-turbo-instruct');
      await page.getByLabel('Prompt').fill(prompt);
      await expect(page.getByRole('checkbox', { name: 'Stream' })).toBeChecked();
      await page.getByRole('button', { name: 'Run' }).click();
      await expect(page.getByRole('region', { name: 'Output' })).toContainText(`echo: ${prompt}`);
      await expect(page.getByLabel('Run statistics')).toContainText('200');
      expect(beta.requests.some((request) => request.json?.prompt === prompt && request.headers.authorization === `Bearer ${SECRETS.beta}`)).toBe(true);
      expect(alpha.requests.some((request) => request.json?.prompt === prompt)).toBe(false);

      // Save it under a name; change everything; re-open it.
      const name = `Greeting ${theme}`;
      await page.getByRole('button', { name: 'Save prompt' }).click();
      const dialog = page.getByRole('dialog', { name: 'Save prompt' });
      await dialog.getByLabel('Prompt name').fill(name);
      await dialog.getByRole('button', { name: 'Save' }).click();
      await expect(dialog).toHaveCount(0);
      const saved = page.getByRole('list', { name: 'Saved', exact: true });
      await expect(saved).toContainText(name);
      await expect(saved).toContainText('Fake Beta');
      await page.getByLabel('Prompt').fill('something else');
      await page.getByLabel('Model').fill('other-model');
      await keyPicker.selectOption({ label: `Fake Alpha · openai · ${alpha.baseUrl}` });
      await saved.getByRole('button', { name: `Open ${name}` }).click();
      // A prompt is being written: opening the saved one over it is confirmed.
      await page.getByRole('dialog', { name: 'Replace the conversation?' }).getByRole('button', { name: 'Replace it' }).click();
      await expect(page.getByLabel('Prompt')).toHaveValue(prompt);
      await expect(page.getByLabel('Model')).toHaveValue('gpt-3.5-turbo-instruct');
      await expect(keyPicker).toHaveValue(keys.beta.id);

      // Compare: the same prompt to Alpha and Beta, each with its own model, side by side.
      await page.getByRole('checkbox', { name: 'Stream' }).uncheck();
      await page.getByRole('radio', { name: 'Compare' }).click();
      await page.getByLabel('Key A').selectOption({ label: `Fake Alpha · openai · ${alpha.baseUrl}` });
      await page.getByLabel('Key B').selectOption({ label: `Fake Beta · openai · ${beta.baseUrl}` });
      await expect(page.locator('#compare-models-A option')).toHaveCount(2);
      await page.getByLabel('Model A').fill('gpt-3.5-turbo-instruct');
      await page.getByLabel('Model B').fill('gpt-4o-mini');
      await page.getByLabel('Prompt').fill(`compare ${theme}`);
      await page.getByRole('button', { name: 'Run' }).click();
      for (const side of ['A', 'B']) {
        await expect(page.getByRole('region', { name: `Result ${side}` })).toContainText(`echo: compare ${theme}`);
        const stats = page.getByLabel(`Statistics ${side}`);
        await expect(stats).toContainText('200');
        await expect(stats).toContainText('5 in · 3 out');
        await expect(stats.locator('.stat').filter({ hasText: 'Latency' }).locator('dd')).not.toHaveText('—');
      }
      await expect(page.getByRole('region', { name: 'Result B' })).toContainText('gpt-4o-mini');
      expect(alpha.requests.some((request) => request.json?.prompt === `compare ${theme}` && request.json?.model === 'gpt-3.5-turbo-instruct')).toBe(true);
      expect(beta.requests.some((request) => request.json?.prompt === `compare ${theme}` && request.json?.model === 'gpt-4o-mini')).toBe(true);

      // A long page: the sidebar still reaches the bottom of the window, in a tall window and in a
      // window shorter than the sidebar's own items.
      await expectSidebarFillsWindow(page);
      await page.setViewportSize({ width: 1440, height: 360 });
      await expectSidebarFillsWindow(page);
      await expect(page.locator('.sidebar')).toHaveJSProperty('scrollTop', 0);
      await page.locator('.sidebar').evaluate((sidebar) => sidebar.scrollTo(0, sidebar.scrollHeight));
      await expect(page.locator('.connection')).toBeInViewport({ ratio: 1 });
      await page.setViewportSize({ width: 1440, height: 900 });

      // Both runs are in the Logs like any call.
      await expect(async () => {
        const logs = (await (await gatehouse.admin('/logs?q=compare')).json()) as { items: { path: string; status: number; model: string }[] };
        expect(logs.items.filter((item) => item.path === '/v1/completions' && item.status === 200).map((item) => item.model)).toEqual(expect.arrayContaining(['gpt-3.5-turbo-instruct', 'gpt-4o-mini']));
      }).toPass();
      expect(await page.content()).not.toContain(SECRETS.beta);
      expect(problems).toEqual([]);
    });

    test(`a local server found on this machine offers its models in provider mode (${theme})`, async ({ page }) => {
      const problems = watchPage(page);
      await page.goto(gatehouse.uiUrl);
      await page.getByRole('radio', { name: 'Provider + token' }).click();
      const chip = page.getByRole('button', { name: `Ollama :${ollama.port}` });
      await expect(chip).toBeVisible();
      await chip.click();
      await expect(page.getByLabel('Custom host')).toHaveValue(`http://127.0.0.1:${ollama.port}/v1`);
      const names = FAKE_LOCAL_MODELS.ollama.map((model) => model.id).sort((a, b) => a.localeCompare(b));
      await expect(page.getByText(`${names.length} model${names.length === 1 ? '' : 's'} on Ollama at`)).toBeVisible();
      expect(await page.locator('#playground-model-options option').evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value))).toEqual(names);
      expect(problems).toEqual([]);
    });
  });
}
