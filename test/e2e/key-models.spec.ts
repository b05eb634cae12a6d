// Models that fit the key (issue 38), against the real `gatehouse serve` and a llama.cpp-style double
// listing qwen3-coder:30b and llama3.2: a new OpenAI-compatible key is tested as it is created (what
// answered, or why a closed port did not) and its set-ups name the server's models, picked in a list;
// Keys → Use and Connect a tool do the same. Never gpt-4o-mini for a server that lacks it.
import { expect, test } from '@playwright/test';
import { closedPort, startLocalServerFake, type LocalServerFake } from '../fakes/local-servers';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { openKeyPanel } from './keys-page';

let local: LocalServerFake;
let gatehouse: ServedGatehouse;

test.beforeAll(async () => {
  local = await startLocalServerFake('llamacpp', { models: [{ id: 'qwen3-coder:30b' }, { id: 'llama3.2' }] });
  gatehouse = await serveGatehouse();
});
test.afterAll(async () => {
  await gatehouse?.stop();
  await local?.close();
});

async function createKey(page: import('@playwright/test').Page, name: string, host: string) {
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Keys' }).click();
  await page.getByRole('button', { name: 'New virtual key' }).click();
  const form = page.getByRole('dialog', { name: 'New virtual key' });
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('Provider').selectOption('openai-compatible');
  await form.getByLabel('Custom host').fill(host);
  await form.getByRole('button', { name: 'Create' }).click();
  return page.getByRole('dialog', { name: `Virtual key “${name}” created` });
}

test("a new key for a local server is tested, and its set-ups name the server's models", async ({ page }) => {
  const created = await createKey(page, 'box', `${local.origin}/v1`);
  const testSection = created.getByRole('region', { name: 'Test connection' });
  await expect(testSection).toContainText('2 models listed');
  await expect(testSection.getByRole('list', { name: 'Models the host listed' })).toContainText('qwen3-coder:30b');

  const picker = created.getByLabel('Model', { exact: true });
  await expect(picker).toHaveValue('llama3.2');
  const code = created.locator('.tool-setup').first();
  await expect(code).toContainText('llama3.2');
  await picker.fill('qwen3-coder:30b');
  await expect(code).toContainText('qwen3-coder:30b');
  await expect(created).not.toContainText('gpt-4o-mini');
  await created.getByRole('button', { name: 'Done' }).click();

  // Keys → Use offers the same models.
  const panel = await openKeyPanel(page, 'box');
  await panel.getByRole('button', { name: 'Use' }).click();
  const use = page.getByRole('dialog', { name: 'Use “box”' });
  await expect(use.getByLabel('Model', { exact: true })).toHaveValue('llama3.2');
  await expect(use.locator('.tool-setup').first()).toContainText('llama3.2');
  await expect(use).not.toContainText('gpt-4o-mini');
});

test('a key to a closed port is saved, and the test says nothing listens there', async ({ page }) => {
  const port = await closedPort();
  const created = await createKey(page, 'closed', `http://127.0.0.1:${port}/v1`);
  const testSection = created.getByRole('region', { name: 'Test connection' });
  await expect(testSection).toContainText('nothing listens on that port');
  await expect(created.getByLabel('New key')).toContainText('gh-vk-');
  // No model to pick: the field asks for one instead of naming a model the server may lack.
  await expect(created.getByLabel('Model', { exact: true })).toHaveValue('');
  await expect(created).not.toContainText('gpt-4o-mini');
});

test("Connect a tool picks among a pasted key's models", async ({ page }) => {
  const made = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'connect-box', provider: 'openai-compatible', customHost: `${local.origin}/v1` }) });
  const { key } = (await made.json()) as { key: string };
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: /Connect/ }).click();
  await page.getByLabel('Virtual key').fill(key);
  const model = page.getByLabel('Model', { exact: true });
  await expect(model).toHaveValue('llama3.2');
  await model.fill('qwen3-coder:30b');
  await expect(page.locator('.tool-setup').first()).toContainText('qwen3-coder:30b');
});

test("a key's panel tests its connection on demand, and again when its host moves: then the set-ups follow what answered", async ({ page }) => {
  const made = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'panel-box', provider: 'openai-compatible', customHost: `${local.origin}/v1` }) });
  expect(made.status).toBe(201);
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Keys' }).click();
  const panel = await openKeyPanel(page, 'panel-box');
  const testSection = panel.getByRole('region', { name: 'Test connection' });
  // Nothing is asked until the person asks (the panel opens without calling the host).
  await expect(testSection).toHaveCount(0);
  await panel.getByRole('button', { name: 'Test connection' }).click();
  await expect(testSection).toContainText('2 models listed');
  await expect(testSection.getByRole('list', { name: 'Models the host listed' })).toContainText('qwen3-coder:30b');

  // The host moves to a closed port: the panel tests it at once and says why nothing answered.
  const port = await closedPort();
  await panel.getByRole('button', { name: 'Change host' }).click();
  const hostDialog = page.getByRole('dialog', { name: 'Change the host of “panel-box”' });
  await hostDialog.getByLabel('Custom host').fill(`http://127.0.0.1:${port}/v1`);
  await hostDialog.getByRole('button', { name: 'Save' }).click();
  await expect(hostDialog).toBeHidden();
  await expect(testSection).toContainText('nothing listens on that port');
  // Use reads the key's models as the test left them: the old host's models are not offered.
  await panel.getByRole('button', { name: 'Use' }).click();
  const use = page.getByRole('dialog', { name: 'Use “panel-box”' });
  await expect(use.getByLabel('Model', { exact: true })).toHaveValue('');
  await expect(use).not.toContainText('llama3.2');
});

test("the Playground offers a key's models as its set-ups do: the server's list and the key's model map", async ({ page }) => {
  const made = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'play-box', provider: 'openai-compatible', customHost: `${local.origin}/v1`, modelMap: { fast: 'llama3.2' } }) });
  expect(made.status).toBe(201);
  const { id } = (await made.json()) as { id: string };
  const offered = (list: import('@playwright/test').Locator) => list.locator('option').evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));

  await page.goto(gatehouse.uiUrl);
  await page.getByLabel('Key', { exact: true }).selectOption(id);
  // The key's first model, as its set-ups pick it; the model map's name is offered too.
  await expect(page.getByLabel('Model')).toHaveValue('llama3.2');
  await expect.poll(() => offered(page.locator('#playground-model-options'))).toEqual(['llama3.2', 'qwen3-coder:30b', 'fast']);

  await page.getByRole('link', { name: 'Keys' }).click();
  const panel = await openKeyPanel(page, 'play-box');
  await panel.getByRole('button', { name: 'Use' }).click();
  const use = page.getByRole('dialog', { name: 'Use “play-box”' });
  await expect(use.getByLabel('Model', { exact: true })).toHaveValue('llama3.2');
  expect(await offered(use.locator('datalist'))).toEqual(['llama3.2', 'qwen3-coder:30b', 'fast']);
});
