// Key limits on the Keys page (a key's panel and its row), against the real `gatehouse serve` and a local OpenAI-format double: set
// a rate limit and a daily budget in the editor, see the meters fill as the key is used, see it blocked
// once over, in light and dark mode, with no console errors.
import { expect, test } from '@playwright/test';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { screenshot } from './screenshots';
import { collectProblems } from './page-problems.js';
import { keyRow, openKeyPanel } from './keys-page';

let fake: OpenAIFake;
let gatehouse: ServedGatehouse;
let gatewayKey: string;

test.beforeAll(async () => {
  fake = await startOpenAIFake();
  gatehouse = await serveGatehouse();
  const created = (await (await gatehouse.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'nightly-agent' }) })).json()) as { key: string };
  gatewayKey = created.key;
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await fake?.close();
});

function chat(): Promise<number> {
  return fetch(`${gatehouse.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': gatewayKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.baseUrl, authorization: 'Bearer sk-e2e' },
    // One output token asked for: a call's worst case (what a budget holds while it runs) stays a few millionths of a dollar.
    body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] }),
  }).then(async (response) => {
    await response.text();
    return response.status;
  });
}


test('set limits on a key in the Keys page and watch how close it gets, in light and dark mode', async ({ page }) => {
  const problems = collectProblems(page);
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Keys' }).click();
  const row = keyRow(page, 'nightly-agent');
  await expect(row).toContainText('No limits');
  const keys = await openKeyPanel(page, 'nightly-agent');
  await expect(keys).toContainText('No limits');

  await keys.getByRole('button', { name: 'Change limits' }).click();
  const editor = page.getByRole('dialog', { name: 'Limits of “nightly-agent”' });
  // A slip is pointed out next to its field before anything is saved.
  await editor.getByLabel('Requests per minute').fill('2.5');
  await editor.getByRole('button', { name: 'Save limits' }).click();
  await expect(editor.getByText('Requests per minute must be a whole number of 1 or more')).toBeVisible();
  await editor.getByLabel('Requests per minute').fill('4');
  // Three cheap calls cost about $0.0000077: a budget of $0.00002 is then more than a third used, with room
  // left for the worst case of a fourth.
  await editor.getByLabel('Daily budget (USD)').fill('0.00002');
  await screenshot(page, 'key-limits-editor');
  await editor.getByRole('button', { name: 'Save limits' }).click();
  await expect(editor).toBeHidden();
  await expect(page.getByText('Limits of nightly-agent saved')).toBeVisible();

  const requests = keys.getByRole('meter', { name: 'Requests/min for nightly-agent' });
  const today = keys.getByRole('meter', { name: 'Today for nightly-agent' });
  await expect(requests).toHaveAttribute('aria-valuetext', '0 / 4');
  await expect(today).toHaveAttribute('aria-valuetext', '$0.00 / $0.00002');

  for (let i = 0; i < 3; i++) expect(await chat()).toBe(200);
  // The meters refresh by themselves while the page is open.
  await expect(requests).toHaveAttribute('aria-valuetext', '3 / 4', { timeout: 10_000 });
  await expect(today).toHaveAttribute('aria-valuetext', /^\$0\.000007[67] \/ \$0\.00002$/);
  await screenshot(page, 'key-limits-meters-light');

  // The fourth call takes the last request of the minute; the fifth is refused and the row and the panel say so.
  expect(await chat()).toBe(200);
  expect(await chat()).toBe(429);
  await page.reload();
  await expect(row).toContainText('Blocked');
  await expect(row).toContainText('4 req/min · $0.00002 a day');
  await openKeyPanel(page, 'nightly-agent');
  await expect(requests).toHaveAttribute('aria-valuetext', '4 / 4');
  await expect(keys.getByText(/^Blocked until/)).toBeVisible();

  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(requests).toBeVisible();
  const fill = await requests.locator('.limit-meter-fill').evaluate((element) => getComputedStyle(element).backgroundColor);
  const track = await requests.evaluate((element) => getComputedStyle(element).backgroundColor);
  expect(fill).not.toBe(track);
  await screenshot(page, 'key-limits-meters-dark');

  // Removing the limits takes the meters away again.
  await keys.getByRole('button', { name: 'Change limits' }).click();
  await page.getByRole('dialog', { name: 'Limits of “nightly-agent”' }).getByRole('button', { name: 'Remove all limits' }).click();
  await expect(keys).toContainText('No limits');
  await expect(keys.getByRole('meter')).toHaveCount(0);
  await page.emulateMedia({ colorScheme: 'light' });

  expect(problems).toEqual([]);
});
