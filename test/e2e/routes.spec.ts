// Routes end to end, against the real `gatehouse serve` and two local OpenAI-format doubles: a route
// made in the UI whose targets are two virtual keys, reordered by keyboard and by drag, tested, run from
// the Playground with only a gateway key, and found in the Logs with the target that served; then the
// first double fails and the second serves, and the log's timeline shows both attempts. Also: a refused
// save, a YAML import (all or nothing, errors by line), export, and a key's default model and model map.
import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { openAIError, startOpenAIFake, type OpenAIFake } from '../fakes/openai';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { screenshot, screenshotWholePage } from './screenshots';
import { collectProblems } from './page-problems.js';
import { openKeyPanel } from './keys-page';

/** The calls a double got that generate (the Playground also reads a key's model list when it is picked). */
const generations = (double: { requests: { method: string; url: string; json: Record<string, unknown> }[] }) =>
  double.requests.filter((request) => request.method === 'POST');

let primary: OpenAIFake;
let backup: OpenAIFake;
let gatehouse: ServedGatehouse;
let gatewayKey: string;

test.beforeAll(async () => {
  [primary, backup] = await Promise.all([startOpenAIFake(), startOpenAIFake()]);
  gatehouse = await serveGatehouse();
  for (const [name, fake] of [['primary-double', primary], ['backup-double', backup]] as const) {
    const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name, provider: 'openai', secret: `sk-${name}-0123456789`, customHost: fake.baseUrl }) });
    expect(created.status).toBe(201);
  }
  const gateway = await gatehouse.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'Routes e2e' }) });
  gatewayKey = ((await gateway.json()) as { key: string }).key;
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await Promise.all([primary?.close(), backup?.close()]);
});

/** Every uncaught error and console error of the page, to assert there are none. */

async function routeNamesInOrder(): Promise<string[]> {
  const listed = (await (await gatehouse.admin('/routes')).json()) as { items: Array<{ name: string }> };
  return listed.items.map((route) => route.name);
}

test('a route made in the UI serves Playground runs, falls back when its first target fails, and shows in the Logs', async ({ page }) => {
  const problems = collectProblems(page);
  // Tests in one worker share the server: start from no routes.
  expect((await gatehouse.admin('/routes', { method: 'PUT', body: JSON.stringify({ routes: [] }) })).status).toBe(200);
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Routes' }).click();
  await expect(page.getByRole('heading', { name: 'Routes', level: 1 })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'No routes yet' })).toBeVisible();

  // Create: two targets, each a virtual key (picked by name) with the model to send.
  await page.getByRole('button', { name: 'New route' }).click();
  const dialog = page.getByRole('dialog', { name: 'New route' });
  await dialog.getByLabel('Name', { exact: true }).fill('chat');
  await dialog.getByLabel('Match', { exact: true }).fill('e2e-chat-*');
  const first = dialog.getByRole('group', { name: 'Target 1' });
  await first.getByLabel('Virtual key').selectOption('primary-double');
  await first.getByLabel('Model', { exact: true }).fill('primary-model');
  await first.getByLabel('Timeout (ms)').fill('20000');
  await dialog.getByRole('button', { name: 'Add target' }).click();
  const second = dialog.getByRole('group', { name: 'Target 2' });
  await second.getByLabel('Virtual key').selectOption('backup-double');
  await second.getByLabel('Model', { exact: true }).fill('backup-model');
  await screenshot(page, 'routes-new');
  await dialog.getByRole('button', { name: 'Create route' }).click();
  await expect(dialog).toBeHidden();

  const list = page.getByRole('list', { name: 'Routes' });
  const chatRow = list.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'chat' }) });
  await expect(chatRow).toContainText('e2e-chat-*');
  await expect(chatRow).toContainText('primary-double → primary-model');
  await expect(chatRow).toContainText('backup-double → backup-model');
  await expect(chatRow).toContainText('Not used yet');

  // A second route (made through the admin API) to reorder against.
  const other = await gatehouse.admin('/routes', { method: 'POST', body: JSON.stringify({ name: 'other', match: 'e2e-other', strategy: 'balance', targets: [{ key: 'backup-double', weight: 2 }] }) });
  expect(other.status).toBe(201);
  await page.reload();
  await expect(list.locator(':scope > li')).toHaveCount(2);

  // Reorder with the keyboard: focus stays on the button, so pressing again would move it further.
  const moveDown = page.getByRole('button', { name: 'Move chat down' });
  await moveDown.focus();
  await page.keyboard.press('Enter');
  await expect(list.locator(':scope > li').nth(1)).toContainText('chat');
  await expect(page.getByRole('button', { name: 'Move chat down' })).toBeFocused();
  await expect.poll(routeNamesInOrder).toEqual(['other', 'chat']);
  // And back to the top by dragging it onto the first row.
  await list.locator(':scope > li').nth(1).dragTo(list.locator(':scope > li').nth(0));
  await expect(list.locator(':scope > li').nth(0)).toContainText('chat');
  await expect.poll(routeNamesInOrder).toEqual(['chat', 'other']);
  await screenshotWholePage(page, 'routes');

  // Test: which target would serve, without sending anything.
  await page.getByRole('button', { name: 'Test chat' }).click();
  const test = page.getByRole('dialog', { name: 'Test route “chat”' });
  const verdict = test.getByRole('status', { name: 'What the router would do' });
  await expect(verdict).toContainText('primary-double → primary-model would serve');
  await expect(verdict).toContainText('backup-double → backup-model takes over');
  expect(generations(primary)).toHaveLength(0);
  await screenshot(page, 'routes-test');
  await test.getByLabel('Model name').fill('e2e-chat-mini');
  await test.getByRole('button', { name: 'Explain' }).click();
  await expect(verdict).toContainText('primary-double → primary-model would serve');

  // Run it from the Playground as a tool would: a gateway key and the model name, no provider.
  await test.getByRole('button', { name: 'Run in Playground' }).click();
  await expect(page.getByRole('heading', { name: 'Playground', level: 1 })).toBeVisible();
  await expect(page.getByLabel('Model', { exact: true })).toHaveValue('e2e-chat-mini');
  await expect(page.getByLabel('Provider', { exact: true })).toHaveValue('');
  await page.getByLabel('Gateway API key').fill(gatewayKey);
  // The completions double echoes the prompt: Completion mode (Chat is the Playground's first mode now).
  await page.getByRole('radio', { name: 'Completion' }).click();
  await page.getByLabel('Prompt').fill('routed hello');
  await page.getByRole('checkbox', { name: 'Stream' }).uncheck();
  await page.getByRole('button', { name: 'Run' }).click();
  const output = page.getByRole('region', { name: 'Output' });
  await expect(output).toContainText('echo: routed hello');
  expect(generations(primary)).toHaveLength(1);
  expect(generations(primary)[0].json.model).toBe('primary-model');
  expect(generations(backup)).toHaveLength(0);

  // The first target fails with a 500: the second serves, and the client sees one clean answer.
  primary.enqueue(openAIError(500, 'The primary double is down', 'server_error'));
  await page.getByLabel('Prompt').fill('fallback hello');
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(output).toContainText('echo: fallback hello');
  expect(generations(backup)).toHaveLength(1);
  expect(generations(backup)[0].json.model).toBe('backup-model');

  // Logs: the route on each row; the detail shows the serving target and every attempt.
  await page.getByRole('link', { name: 'Logs' }).click();
  const rows = page.getByRole('table', { name: 'Requests' }).locator('[role="rowgroup"].log-body [role="row"]');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText('route chat');
  await rows.nth(0).click();
  const trail = page.getByRole('region', { name: 'Request detail' }).getByRole('region', { name: 'Route and attempts' });
  await expect(trail).toContainText('served by backup-double → backup-model');
  const attempts = trail.getByRole('list', { name: 'Attempts' }).getByRole('listitem');
  await expect(attempts).toHaveCount(2);
  await expect(attempts.nth(0)).toContainText('primary-double → primary-model');
  await expect(attempts.nth(0)).toContainText('500');
  await expect(attempts.nth(0)).toContainText('moved on');
  await expect(attempts.nth(1)).toContainText('backup-double → backup-model');
  await expect(attempts.nth(1)).toContainText('served the answer');
  await screenshotWholePage(page, 'logs-routed-detail');

  await rows.nth(1).click();
  await expect(trail).toContainText('served by primary-double → primary-model');
  await expect(trail.getByRole('list', { name: 'Attempts' }).getByRole('listitem')).toHaveCount(1);

  // The route filter keeps only its requests.
  await page.getByLabel('Route filter').selectOption('other');
  await expect(page.getByRole('heading', { name: 'No requests match these filters' })).toBeVisible();
  await page.getByLabel('Route filter').selectOption('chat');
  await expect(rows).toHaveCount(2);

  // Back on Routes, the last target that served is shown.
  await page.getByRole('link', { name: 'Routes' }).click();
  await expect(chatRow).toContainText('Last served by backup-double → backup-model');

  expect(problems).toEqual([]);
});

test('a save the server refuses shows its reason beside the field it names', async ({ page }) => {
  const problems = collectProblems(page);
  await gatehouse.admin('/routes', { method: 'PUT', body: JSON.stringify({ routes: [{ name: 'everything', match: '*', strategy: 'fallback', targets: [{ key: 'primary-double' }] }] }) });
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Routes' }).click();
  await page.getByRole('button', { name: 'New route' }).click();
  const dialog = page.getByRole('dialog', { name: 'New route' });
  await dialog.getByLabel('Name', { exact: true }).fill('never');
  await dialog.getByLabel('Match', { exact: true }).fill('gpt-5');
  await dialog.getByRole('button', { name: 'Create route' }).click();
  // Appended after a catch-all, it could never match: the server names `match`.
  const matchField = dialog.locator('.field').filter({ has: page.getByLabel('Match', { exact: true }) });
  await expect(matchField.locator('.field-error')).toContainText('everything');
  await expect(dialog.getByLabel('Match', { exact: true })).toHaveAttribute('aria-invalid', 'true');
  await screenshot(page, 'routes-refused');
  // The browser reports the refused request itself; nothing else may go wrong.
  expect(problems.filter((problem) => !problem.includes('status of 400'))).toEqual([]);
});

test('a YAML routes file imports all or nothing, and a refusal names the line of the file', async ({ page }) => {
  const problems = collectProblems(page);
  await gatehouse.admin('/routes', { method: 'PUT', body: JSON.stringify({ routes: [] }) });
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Routes' }).click();
  await expect(page.getByRole('heading', { name: 'No routes yet' })).toBeVisible();
  const yamlRoutes = (key: string) =>
    ['routes:', '  - name: background', '    match: claude-haiku-*', '    strategy: fallback', '    targets:', '      - key: primary-double', '        model: qwen3-coder:30b', `      - key: ${key}`, ''].join('\n');

  // A target naming no existing key: nothing changes, and the error points at line 8.
  await page.getByLabel('Routes file to import').setInputFiles({ name: 'routes.yaml', mimeType: 'application/yaml', buffer: Buffer.from(yamlRoutes('no-such-key')) });
  const confirm = page.getByRole('dialog', { name: 'Import routes.yaml?' });
  await expect(confirm).toContainText('0 current routes are replaced by 1 from the file: background');
  await confirm.getByRole('button', { name: 'Replace routes' }).click();
  await expect(confirm.getByRole('alert')).toContainText('Line 8 (routes[0].targets[1].key)');
  await expect(confirm.getByRole('alert')).toContainText('no-such-key');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  expect(await routeNamesInOrder()).toEqual([]);

  await page.getByLabel('Routes file to import').setInputFiles({ name: 'routes.yaml', mimeType: 'application/yaml', buffer: Buffer.from(yamlRoutes('backup-double')) });
  await page.getByRole('dialog', { name: 'Import routes.yaml?' }).getByRole('button', { name: 'Replace routes' }).click();
  await expect(page.getByRole('list', { name: 'Routes' })).toContainText('primary-double → qwen3-coder:30b');
  expect(await routeNamesInOrder()).toEqual(['background']);

  // Export downloads the same routes as JSON.
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('gatehouse-routes.json');
  const exported = JSON.parse(await readFile(await file.path(), 'utf8')) as { routes: Array<{ name: string }> };
  expect(exported.routes.map((route) => route.name)).toEqual(['background']);
  expect(problems.filter((problem) => !problem.includes('status of 400'))).toEqual([]);
});

test('a virtual key gets a default model and a model map from the Keys page', async ({ page }) => {
  const problems = collectProblems(page);
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Keys' }).click();
  const panel = await openKeyPanel(page, 'backup-double');
  await panel.getByRole('button', { name: 'Change default model' }).click();
  const dialog = page.getByRole('dialog', { name: 'Models of “backup-double”' });
  await dialog.getByLabel('Default model').fill('backup-default');
  await dialog.getByLabel('Requested model 1').fill('my-alias');
  await dialog.getByLabel('Provider model 1').fill('backup-model');
  await dialog.getByRole('button', { name: 'Save models' }).click();
  await expect(dialog).toBeHidden();
  await expect(panel).toContainText('default backup-default · 1 mapped');
  const keys = (await (await gatehouse.admin('/virtual-keys')).json()) as { items: Array<{ name: string; defaultModel: string | null; modelMap: Record<string, string> }> };
  expect(keys.items.find((key) => key.name === 'backup-double')).toMatchObject({ defaultModel: 'backup-default', modelMap: { 'my-alias': 'backup-model' } });
  expect(problems).toEqual([]);
});

for (const theme of ['light', 'dark'] as const) {
  test.describe(`${theme} theme`, () => {
  test.use({ colorScheme: theme });
    test(`the Routes page and its dialogs render without errors (${theme})`, async ({ page }) => {
      const problems = collectProblems(page);
      await gatehouse.admin('/routes', {
        method: 'PUT',
        body: JSON.stringify({
          routes: [
            { name: 'long', match: 'e2e-long-*', strategy: 'fallback', targets: [{ key: 'primary-double', model: 'long-model', when: { min_prompt_tokens: 60000 } }, { key: 'backup-double' }] },
            { name: 'fast', match: 'e2e-fast', strategy: 'balance', targets: [{ key: 'primary-double', weight: 2 }, { key: 'backup-double', weight: 1 }] },
          ],
        }),
      });
      await page.goto(gatehouse.uiUrl);
      await page.getByRole('link', { name: 'Routes' }).click();
      const list = page.getByRole('list', { name: 'Routes' });
      await expect(list).toContainText('when prompt ≥ 60,000 tokens');
      await expect(list).toContainText('weight 2');
      await screenshot(page, `routes-${theme}`);
      await page.getByRole('button', { name: 'Test long' }).click();
      // Below the threshold the long-context target sits out, with the reason.
      await expect(page.getByRole('status', { name: 'What the router would do' })).toContainText('backup-double → e2e-long-example would serve');
      await screenshot(page, `routes-test-${theme}`);
      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('button', { name: 'Edit fast' }).click();
      await expect(page.getByRole('dialog', { name: 'Edit route “fast”' }).getByLabel('Weight').first()).toHaveValue('2');
      await screenshot(page, `routes-edit-${theme}`);
      await page.getByRole('button', { name: 'Cancel' }).click();
      // Delete asks first, then the route is gone from the list and the server.
      await page.getByRole('button', { name: 'Delete fast' }).click();
      await page.getByRole('dialog', { name: 'Delete route “fast”?' }).getByRole('button', { name: 'Delete route' }).click();
      await expect(list.locator(':scope > li')).toHaveCount(1);
      expect(await routeNamesInOrder()).toEqual(['long']);
      expect(problems).toEqual([]);
    });
  });
}
