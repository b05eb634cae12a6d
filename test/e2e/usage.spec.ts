// The Usage page against the real `gatehouse serve` and a local OpenAI-format double: after a few calls
// its totals match the calls (spend from the catalog, the unknown-priced call counted apart), the
// breakdowns switch, the Keys page shows the key's spend, in light and dark mode, with no console errors;
// Settings sets and removes a model override.
import { expect, test } from '@playwright/test';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { screenshotWholePage } from './screenshots';
import { collectProblems } from './page-problems.js';
import { openKeyPanel } from './keys-page';

let fake: OpenAIFake;
let gatehouse: ServedGatehouse;

test.beforeAll(async () => {
  fake = await startOpenAIFake();
  gatehouse = await serveGatehouse();
  const { key } = (await (await gatehouse.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'ci-bot' }) })).json()) as { key: string };
  const chat = async (model: string) => {
    const response = await fetch(`${gatehouse.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.baseUrl, authorization: 'Bearer sk-e2e', 'user-agent': 'claude-cli/1.0.80 (external, cli)' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    await response.text();
  };
  await chat('gpt-4o-mini');
  await chat('gpt-4o-mini');
  await chat('my-local-model');
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await fake?.close();
});


for (const theme of ['light', 'dark'] as const) {
  test(`Usage shows what a few calls cost and used, by model, key and client tool (${theme})`, async ({ page }) => {
    const problems = collectProblems(page);
    await page.emulateMedia({ colorScheme: theme });
    await page.goto(gatehouse.uiUrl);
    await page.getByRole('link', { name: 'Usage' }).click();
    await expect(page.getByRole('heading', { name: 'Usage', level: 1 })).toBeVisible();

    // The double reports 5 prompt and 3 completion tokens a call; gpt-4o-mini is $0.15 / $0.60 per million.
    await expect(page.getByTestId('usage-total-requests')).toHaveText('3');
    await expect(page.getByTestId('usage-total-spend')).toHaveText('$0.0000051');
    await expect(page.getByTestId('usage-total-input')).toHaveText('15');
    await expect(page.getByTestId('usage-total-output')).toHaveText('9');
    await expect(page.getByTestId('usage-total-unknown')).toContainText('1 call');

    const table = page.locator('.usage-table');
    await expect(table.getByRole('row', { name: /gpt-4o-mini/ })).toContainText('$0.0000051');
    // The model the catalog does not price shows as unknown, never as $0.
    await expect(table.getByRole('row', { name: /my-local-model/ })).toContainText('unknown');
    await expect(page.getByRole('img', { name: 'Spend per day' }).locator('.recharts-bar-rectangle').first()).toBeVisible();
    await expect(page.getByRole('img', { name: 'Tokens per day' }).locator('.recharts-bar-rectangle').first()).toBeVisible();

    await page.getByRole('radiogroup', { name: 'Break down by' }).getByRole('radio', { name: 'Key' }).click();
    await expect(table.getByRole('row', { name: /ci-bot/ })).toContainText('3');
    await page.getByRole('radiogroup', { name: 'Break down by' }).getByRole('radio', { name: 'Client tool' }).click();
    await expect(table.getByRole('row', { name: /claude-cli/ })).toBeVisible();
    await page.getByRole('radiogroup', { name: 'Period' }).getByRole('radio', { name: 'Months' }).click();
    await expect(page.getByRole('img', { name: 'Spend per month' })).toBeVisible();
    await expect(page.getByTestId('usage-total-requests')).toHaveText('3');
    // Twelve months reach back past the log's 30 days: the page says from when it counts.
    await expect(page.locator('.usage-retention')).toContainText(/Counted from \w{3} \d{1,2}, \d{4}: .*keeps 30 days of calls \(Settings\)\./);
    await screenshotWholePage(page, `usage-${theme}`);

    // The Keys page shows the same spend for the key, today and this month.
    await page.getByRole('link', { name: 'Keys' }).click();
    const spend = (await openKeyPanel(page, 'ci-bot')).getByLabel('Spend of ci-bot');
    await expect(spend).toContainText('Today $0.0000051 + unknown');
    await expect(spend).toContainText('This month $0.0000051 + unknown');
    expect(problems).toEqual([]);
  });
}

test('Settings sets a local model to cost 0 (checked before saving, listed, removable); calls already logged keep their cost', async ({ page }) => {
  const problems = collectProblems(page);
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Settings' }).click();
  const section = page.getByRole('region', { name: 'Model prices and context windows' });
  await section.getByLabel('Provider').selectOption('openai');
  await section.getByLabel('Model').fill('gpt-4o-mini');
  // The catalog's own figures show as placeholders while the model is typed.
  await expect(section.getByLabel('Input $/M')).toHaveAttribute('placeholder', '0.15');
  await section.getByLabel('Model').fill('my-local-model');
  await section.getByLabel('Input $/M').fill('-1');
  await section.getByRole('button', { name: 'Save override' }).click();
  await expect(section.getByText('Input $/M must be a price of 0 or more')).toBeVisible();
  await section.getByLabel('Input $/M').fill('0');
  await section.getByLabel('Output $/M').fill('0');
  await section.getByLabel('Context window').fill('8192');
  await section.getByRole('button', { name: 'Save override' }).click();
  const overrides = section.getByRole('table', { name: 'Model overrides' });
  await expect(overrides.getByRole('row', { name: /my-local-model/ })).toContainText('8,192');

  await page.getByRole('link', { name: 'Usage' }).click();
  await page.getByRole('radiogroup', { name: 'Break down by' }).getByRole('radio', { name: 'Model' }).click();
  // Calls made before the override keep the cost they were logged with (unknown); new ones are priced.
  await expect(page.getByTestId('usage-total-unknown')).toContainText('1 call');

  await page.getByRole('link', { name: 'Settings' }).click();
  await overrides.getByRole('button', { name: 'Remove the override for my-local-model' }).click();
  await expect(overrides).toHaveCount(0);
  expect(problems).toEqual([]);
});
