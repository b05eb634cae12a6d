// What a new user trips over on the Keys and Routes pages (issue 26), against the real `gatehouse serve`:
// a second key with a taken name is refused under Name, naming it; a key's host is edited in its row (the
// secret asked again) and the same key string then works at the new host; a catch-all route is saved beside
// one that pins a target model, and the list explains what it does. No console errors.
import { expect, test } from '@playwright/test';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { collectProblems } from './page-problems.js';
import { openKeyPanel } from './keys-page';

let first: OpenAIFake;
let second: OpenAIFake;
let gatehouse: ServedGatehouse;
let movingKey: string;

test.beforeAll(async () => {
  [first, second] = await Promise.all([startOpenAIFake(), startOpenAIFake()]);
  gatehouse = await serveGatehouse();
  const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'lm-studio', provider: 'openai', secret: 'sk-first-0123456789', customHost: first.baseUrl }) });
  movingKey = ((await created.json()) as { key: string }).key;
  await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'pinned-target', provider: 'openai', secret: 'sk-pin-0123456789', customHost: first.baseUrl }) });
  const pinned = await gatehouse.admin('/routes', { method: 'POST', body: JSON.stringify({ name: 'fast', match: 'fast', targets: [{ key: 'pinned-target', model: 'gpt-4o-mini' }] }) });
  expect(pinned.status).toBe(201);
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await Promise.all([first?.close(), second?.close()]);
});

function chat(key: string): Promise<number> {
  return fetch(`${gatehouse.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  }).then(async (response) => {
    await response.text();
    return response.status;
  });
}

test('a second key named like an active one is refused under Name, naming it', async ({ page }) => {
  const problems = collectProblems(page);
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Keys' }).click();
  await page.getByRole('button', { name: 'New virtual key' }).click();
  const dialog = page.getByRole('dialog', { name: 'New virtual key' });
  await dialog.getByLabel('Name').fill('LM-Studio');
  await dialog.getByLabel('API key').fill('sk-twin-0123456789');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog.getByText("A key named 'lm-studio' already exists")).toBeVisible();
  const list = (await (await gatehouse.admin('/virtual-keys')).json()) as { items: { name: string }[] };
  expect(list.items.filter((key) => key.name.toLowerCase() === 'lm-studio')).toHaveLength(1);
  // The browser reports the refused request (409) itself; nothing else may go wrong.
  expect(problems.filter((problem) => !problem.includes('409'))).toEqual([]);
});

test("a key's host is edited in its row, the secret asked again, and the same key works at the new host", async ({ page }) => {
  const problems = collectProblems(page);
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Keys' }).click();
  await (await openKeyPanel(page, 'lm-studio')).getByRole('button', { name: 'Change host' }).click();
  const dialog = page.getByRole('dialog', { name: 'Change the host of “lm-studio”' });
  await dialog.getByLabel('Custom host').fill(second.baseUrl);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByText('A new host needs the secret again')).toBeVisible();
  await dialog.getByLabel('API key').fill('sk-second-0123456789');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText(`${second.baseUrl} answered: 2 models listed.`)).toBeVisible();
  await expect(page.getByRole('table', { name: 'Virtual keys' }).getByText(second.baseUrl)).toBeVisible();

  expect(await chat(movingKey)).toBe(200);
  expect(second.requests.at(-1)!.headers.authorization).toBe('Bearer sk-second-0123456789');
  expect(problems).toEqual([]);
});

test('a catch-all route is saved beside a route that pins a target model, and the list explains it', async ({ page }) => {
  const problems = collectProblems(page);
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Routes' }).click();
  await page.getByRole('button', { name: 'New route' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New route' });
  await dialog.getByLabel('Name').fill('default');
  await dialog.getByLabel('Match').fill('*');
  await dialog.getByRole('button', { name: 'Create route' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText("Default route: takes every model no route above it takes, for gateway keys. A virtual key's own calls keep going to its own provider.")).toBeVisible();
  const routes = (await (await gatehouse.admin('/routes')).json()) as { items: { name: string }[] };
  expect(routes.items.map((route) => route.name)).toEqual(['fast', 'default']);
  expect(problems).toEqual([]);
});
