// The Usage page names the model that served a call, not the route it was asked through: calls to the route
// 'fast' (served by gpt-4o-mini through a virtual key) show as gpt-4o-mini, priced as it; no model named
// 'fast' is listed. Against the real `gatehouse serve` and a local OpenAI-format double.
import { expect, test } from '@playwright/test';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { collectProblems } from './page-problems.js';
import { screenshotWholePage } from './screenshots';

let fake: OpenAIFake;
let gatehouse: ServedGatehouse;

test.beforeAll(async () => {
  fake = await startOpenAIFake();
  gatehouse = await serveGatehouse();
  const json = async (path: string, body: object) => {
    const response = await gatehouse.admin(path, { method: 'POST', body: JSON.stringify(body) });
    expect(response.status).toBe(201);
    return (await response.json()) as { key: string };
  };
  await json('/virtual-keys', { name: 'cloud', provider: 'openai', secret: 'sk-cloud-0123456789', customHost: fake.baseUrl });
  await json('/routes', { name: 'fast', match: 'fast', strategy: 'fallback', targets: [{ key: 'cloud', model: 'gpt-4o-mini' }] });
  const { key } = await json('/gateway-keys', { name: 'ci-bot' });
  for (let index = 0; index < 2; index++) {
    const response = await fetch(`${gatehouse.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': key },
      body: JSON.stringify({ model: 'fast', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    await response.text();
  }
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await fake?.close();
});

test('Usage lists calls through a route under the model that served them, priced as that model, and under the route in the Route breakdown', async ({ page }) => {
  const problems = collectProblems(page);
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Usage' }).click();
  await expect(page.getByRole('heading', { name: 'Usage', level: 1 })).toBeVisible();
  await expect(page.getByTestId('usage-total-requests')).toHaveText('2');

  const table = page.locator('.usage-table');
  // Two calls of 5 prompt and 3 completion tokens at gpt-4o-mini's $0.15 / $0.60 per million.
  await expect(table.getByRole('row', { name: /gpt-4o-mini/ })).toContainText('$0.0000051');
  await expect(table.locator('tbody tr')).toHaveCount(1);
  await expect(table.getByRole('row', { name: /^fast\b/ })).toHaveCount(0);
  await expect(page.getByTestId('usage-total-unknown')).toContainText('0 calls');

  // The route's name is where a route is asked about: the Route breakdown.
  await page.getByRole('radiogroup', { name: 'Break down by' }).getByRole('radio', { name: 'Route' }).click();
  await expect(table.getByRole('row', { name: /^fast\b/ })).toContainText('$0.0000051');
  await expect(table.locator('tbody tr')).toHaveCount(1);
  await screenshotWholePage(page, 'usage-by-route');
  await page.setViewportSize({ width: 900, height: 800 });
  await screenshotWholePage(page, 'usage-by-route-900');
  expect(problems).toEqual([]);
});
