// Which models a key may call, set on the Keys page against the real `gatehouse serve` and a local
// OpenAI-format double: limited to one model and one route, the key's other calls are refused with a 403
// naming the model before the provider hears of them; back to every model, they go through again.
import { expect, test } from '@playwright/test';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { collectProblems } from './page-problems.js';
import { screenshot } from './screenshots';
import { openKeyPanel } from './keys-page';

let fake: OpenAIFake;
let gatehouse: ServedGatehouse;
let virtualKey: string;

test.beforeAll(async () => {
  fake = await startOpenAIFake();
  gatehouse = await serveGatehouse();
  const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'intern-laptop', provider: 'openai', secret: 'sk-e2e-0123456789', customHost: fake.baseUrl }) });
  virtualKey = ((await created.json()) as { key: string }).key;
  const route = await gatehouse.admin('/routes', { method: 'POST', body: JSON.stringify({ name: 'cheap', match: 'cheap', strategy: 'fallback', targets: [{ key: 'intern-laptop', model: 'gpt-4o-mini' }] }) });
  expect(route.status).toBe(201);
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await fake?.close();
});

async function call(model: string): Promise<{ status: number; code?: string }> {
  const response = await fetch(`${gatehouse.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': virtualKey },
    body: JSON.stringify({ model, max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] }),
  });
  const body = (await response.json()) as { error?: { code?: string } };
  return { status: response.status, code: body.error?.code };
}

for (const theme of ['light', 'dark'] as const) {
  test(`limit a key to some models on the Keys page, then to every model again (${theme})`, async ({ page }) => {
    const problems = collectProblems(page);
    await page.emulateMedia({ colorScheme: theme });
    await page.goto(gatehouse.uiUrl);
    await page.getByRole('link', { name: 'Keys' }).click();
    const panel = await openKeyPanel(page, 'intern-laptop');
    await expect(panel).toContainText('All models');

    await panel.getByRole('button', { name: 'Change allowed models' }).click();
    const dialog = page.getByRole('dialog', { name: 'Models “intern-laptop” may call' });
    await dialog.getByRole('radio', { name: 'Only these' }).click();
    await dialog.getByLabel('Models, one a line').fill('gpt-4o-mini\n\ngpt-4o-mini\n');
    await dialog.getByRole('button', { name: 'route:cheap' }).click();
    await expect(dialog.getByLabel('Models, one a line')).toHaveValue('gpt-4o-mini\nroute:cheap');
    await screenshot(page, `key-model-access-dialog-${theme}`);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    await expect(panel).toContainText('Only gpt-4o-mini, route:cheap');

    const seen = fake.requests.length;
    expect(await call('gpt-4o')).toEqual({ status: 403, code: 'model_not_allowed' });
    expect(fake.requests.length).toBe(seen);
    expect((await call('gpt-4o-mini')).status).toBe(200);
    expect((await call('cheap')).status).toBe(200);
    // What the page shows is what the server keeps.
    await page.reload();
    const reopened = await openKeyPanel(page, 'intern-laptop');
    await expect(reopened).toContainText('Only gpt-4o-mini, route:cheap');

    await reopened.getByRole('button', { name: 'Change allowed models' }).click();
    await dialog.getByRole('radio', { name: 'Every model' }).click();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(reopened).toContainText('All models');
    expect((await call('gpt-4o')).status).toBe(200);
    expect(problems).toEqual([]);
  });
}

test('a list the server refuses is shown in the dialog, and nothing changes', async ({ page }) => {
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Keys' }).click();
  const panel = await openKeyPanel(page, 'intern-laptop');
  await panel.getByRole('button', { name: 'Change allowed models' }).click();
  const dialog = page.getByRole('dialog', { name: 'Models “intern-laptop” may call' });
  await dialog.getByRole('radio', { name: 'Only these' }).click();
  await dialog.getByLabel('Models, one a line').fill('route:');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByText("'route:' in 'allowedModels' needs a route name after it")).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(panel).toContainText('All models');
  expect((await call('gpt-4o')).status).toBe(200);
});
