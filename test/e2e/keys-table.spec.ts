// The Keys page with 30 keys, against the real `gatehouse serve` and a local OpenAI-format double: one
// compact line a key with its provider, host, limits, spend today and last use; search and sort; a key's
// details and actions in its panel; nothing cut off at 1280x800 nor at 900x700.
import { expect, test, type Page } from '@playwright/test';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { keyRow, keyTable, openKeyPanel } from './keys-page';
import { collectProblems } from './page-problems.js';
import { screenshot } from './screenshots';

let fake: OpenAIFake;
let gatehouse: ServedGatehouse;
const keys = new Map<string, string>();

test.beforeAll(async () => {
  fake = await startOpenAIFake();
  gatehouse = await serveGatehouse();
  for (let i = 1; i <= 28; i++) {
    const name = `team-${String(i).padStart(2, '0')} laptop`;
    // Half the keys go to the double, the others to a local server's port of their own.
    const customHost = i % 2 ? fake.baseUrl : `http://127.0.0.1:${11000 + i}/v1`;
    const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name, provider: 'openai', secret: 'sk-table-1234567890', customHost }) });
    expect(created.status).toBe(201);
    keys.set(name, ((await created.json()) as { key: string }).key);
  }
  for (const name of ['CI runner', 'nightly-agent']) {
    expect((await gatehouse.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name }) })).status).toBe(201);
  }
  // team-07 is used today: it has spend and the most recent use.
  for (let i = 0; i < 2; i++) {
    const response = await fetch(`${gatehouse.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': keys.get('team-07 laptop') ?? '' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(response.status).toBe(200);
    await response.text();
  }
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await fake?.close();
});

const names = (page: Page) => keyTable(page, 'Virtual keys').locator('tbody th').getByRole('button').allTextContents();

/** What a person cannot see: the page or a card scrolling sideways, a heading or figure cut by an ellipsis, a panel's button outside the window. */
async function cutOff(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) found.push(`document ${root.scrollWidth} > ${root.clientWidth}`);
    for (const card of document.querySelectorAll<HTMLElement>('.card')) if (card.scrollWidth > card.clientWidth) found.push(`card ${card.scrollWidth} > ${card.clientWidth}`);
    // Column headings, names, spend and last use are whole; a long host gives way in its middle by design.
    for (const cell of document.querySelectorAll<HTMLElement>('.key-table thead th, .key-open, .key-cell-spend, .key-cell-used, .key-cell-provider')) {
      if (cell.scrollWidth > cell.clientWidth + 1) found.push(`"${cell.textContent}" cut: ${cell.scrollWidth} > ${cell.clientWidth}`);
    }
    for (const button of document.querySelectorAll<HTMLElement>('dialog[open] button')) {
      const box = button.getBoundingClientRect();
      if (box.right > window.innerWidth || box.left < 0) found.push(`button "${button.textContent}" outside the window sideways`);
    }
    return found;
  });
}

test('30 keys: one line each, searched, sorted, and each key acted on from its panel', async ({ page }) => {
  const problems = collectProblems(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Keys' }).click();
  const table = keyTable(page, 'Virtual keys');
  await expect(table.locator('tbody tr')).toHaveCount(28);
  await expect(keyTable(page, 'Gateway keys').locator('tbody tr')).toHaveCount(2);
  // A line a key: 28 keys take less than two windows' height, not 28 cards of 200 px.
  const rowHeight = await table.locator('tbody tr').first().evaluate((row) => row.getBoundingClientRect().height);
  expect(rowHeight).toBeLessThan(48);

  // The row says what a person looks for: provider, host, limits, spend today, last use.
  const used = keyRow(page, 'team-07 laptop');
  await expect(used).toContainText('OpenAI');
  await expect(used).toContainText(fake.baseUrl.replace(/^https?:\/\//, ''));
  await expect(used).toContainText('No limits');
  await expect(used.locator('.key-cell-spend')).toHaveText(/^\$0\.0000\d+$/);
  await expect(used.locator('.key-cell-used')).toHaveText('just now');
  await expect(keyRow(page, 'team-08 laptop').locator('.key-cell-used')).toHaveText('never');
  await expect(keyRow(page, 'team-08 laptop')).toContainText('127.0.0.1:11008');

  // Search: by name, and by host (the port of one local server).
  const search = page.getByRole('searchbox', { name: 'Search keys' });
  await search.fill('team-1');
  await expect(table.locator('tbody tr')).toHaveCount(10);
  await expect(page.getByRole('heading', { name: /Virtual keys/ })).toContainText('10 of 28');
  await expect(page.getByText('No gateway api keys match the search.')).toBeVisible();
  await search.fill('11012');
  expect(await names(page)).toEqual(['team-12 laptop']);
  await search.fill('');

  // Sort: by name both ways, then the most recently used first.
  expect((await names(page))[0]).toBe('team-01 laptop');
  await table.getByRole('button', { name: 'Name' }).click();
  expect((await names(page))[0]).toBe('team-28 laptop');
  await expect(table.getByRole('columnheader', { name: 'Name' })).toHaveAttribute('aria-sort', 'descending');
  await table.getByRole('button', { name: 'Last used' }).click();
  expect((await names(page))[0]).toBe('team-07 laptop');
  await table.getByRole('button', { name: 'Spend today' }).click();
  expect((await names(page))[0]).toBe('team-07 laptop');
  await expect(table.getByRole('columnheader', { name: 'Spend today' })).toHaveAttribute('aria-sort', 'descending');

  // The panel: every setting by its plain name, and each action from it.
  const panel = await openKeyPanel(page, 'team-07 laptop');
  for (const label of ['Host', 'Default model', 'Allowed models', 'Limits', 'Routing', 'MCP servers']) await expect(panel.getByRole('term').filter({ hasText: new RegExp(`^${label}$`) })).toBeVisible();
  for (const action of ['Change host', 'Change default model', 'Change allowed models', 'Change limits', 'Change MCP servers', 'Use', 'Rename', 'Rotate credential', 'Revoke']) {
    await expect(panel.getByRole('button', { name: action, exact: true })).toBeVisible();
  }
  await screenshot(page, 'keys-panel-1280');
  expect(await cutOff(page)).toEqual([]);

  await panel.getByRole('button', { name: 'Change limits' }).click();
  const limits = page.getByRole('dialog', { name: 'Limits of “team-07 laptop”' });
  await limits.getByLabel('Requests per minute').fill('60');
  await limits.getByRole('button', { name: 'Save limits' }).click();
  await expect(limits).toBeHidden();
  // The panel stays open on the key and shows the new limit; so does its row behind it.
  await expect(panel.getByRole('meter', { name: 'Requests/min for team-07 laptop' })).toHaveAttribute('aria-valuetext', '0 / 60');
  await panel.getByRole('button', { name: 'Rename' }).click();
  await panel.getByLabel('New name for team-07 laptop').fill('team-07 desktop');
  await panel.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('dialog', { name: 'team-07 desktop', exact: true })).toBeVisible();
  await page.getByRole('dialog', { name: 'team-07 desktop', exact: true }).getByRole('button', { name: 'Close' }).click();
  await expect(keyRow(page, 'team-07 desktop')).toContainText('60 req/min');

  // At 900x700 the table still fits and the panel's actions are all within reach.
  await page.setViewportSize({ width: 900, height: 700 });
  expect(await cutOff(page)).toEqual([]);
  const narrowPanel = await openKeyPanel(page, 'team-08 laptop');
  await screenshot(page, 'keys-panel-900');
  expect(await cutOff(page)).toEqual([]);
  const revoke = narrowPanel.getByRole('button', { name: 'Revoke' });
  await revoke.scrollIntoViewIfNeeded();
  await expect(revoke).toBeInViewport();
  await revoke.click();
  await page.getByRole('dialog', { name: 'Revoke “team-08 laptop”?' }).getByRole('button', { name: 'Revoke key' }).click();
  await expect(narrowPanel).toBeHidden();
  await expect(table.locator('tbody tr')).toHaveCount(27);
  expect(problems).toEqual([]);
});

test('a name over 100 characters gets a plain message, in the form and from the admin API', async ({ page }) => {
  const long = 'a'.repeat(101);
  const refused = await gatehouse.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: long }) });
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { error: { message: string; param: string } }).error).toMatchObject({ message: "'name': must be at most 100 characters", param: 'name' });

  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Keys' }).click();
  await page.getByRole('button', { name: 'New gateway key' }).click();
  const dialog = page.getByRole('dialog', { name: 'New gateway API key' });
  await dialog.getByLabel('Name').fill(long);
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog.getByText('A key’s name is at most 100 characters; this one has 101. Shorten it.')).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  // Renaming a key in its panel says the same.
  const panel = await openKeyPanel(page, 'CI runner');
  await panel.getByRole('button', { name: 'Rename' }).click();
  await panel.getByLabel('New name for CI runner').fill(long);
  await panel.getByRole('button', { name: 'Save' }).click();
  await expect(panel.getByText('A key’s name is at most 100 characters; this one has 101. Shorten it.')).toBeVisible();
});
