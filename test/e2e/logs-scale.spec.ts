// The log stays usable at 100,000 rows: only the rows in view are in the DOM, any part of the
// list is one scroll away, and the keyboard moves the selection. The list answer is replaced with
// 100,000 synthetic entries; everything else is the real server.
import { expect, test } from '@playwright/test';
import type { LogEntry } from '../../src-main/core/log-store';
import { startOpenAIFake } from '../fakes/openai';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { screenshot } from './screenshots';

const ROW_COUNT = 100_000;
let gatehouse: ServedGatehouse;

// Frame timings are measured: trace screenshots would be measured with them.
test.use({ trace: 'off' });

test.beforeAll(async () => {
  gatehouse = await serveGatehouse();
});

test.afterAll(async () => {
  await gatehouse?.stop();
});

function syntheticEntries(count: number): LogEntry[] {
  const newest = Date.parse('2026-01-01T12:00:00Z');
  const providers = ['openai', 'anthropic', 'groq', 'ollama'];
  return Array.from({ length: count }, (_, position) => {
    const number = count - position;
    const status = number % 17 === 0 ? 429 : number % 23 === 0 ? 502 : 200;
    return {
      id: `row-${number}`,
      createdAt: new Date(newest - position * 1000).toISOString(),
      traceId: `trace-${number}`,
      metadata: {},
      provider: providers[number % providers.length],
      model: `model-${number}`,
      path: number % 3 === 0 ? '/v1/chat/completions' : '/v1/completions',
      status,
      latencyMs: 100 + (number % 900),
      ttfbMs: 40 + (number % 200),
      promptTokens: 10 + (number % 50),
      completionTokens: 20 + (number % 300),
      stream: number % 2 === 0,
      error: status === 200 ? null : 'Upstream said no',
      attempts: 1,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      reasoningTokens: null,
      costUsd: null,
      client: null,
      dialect: number % 3 === 0 ? 'openai-chat' : 'openai-completions',
      providerFormat: null,
      dropped: [],
      route: null,
      routeTarget: null,
      keyId: null,
    };
  });
}

test('100,000 log rows render only what is in view and scroll end to end', async ({ page }) => {
  const entries = syntheticEntries(ROW_COUNT);
  const listBody = JSON.stringify({ items: entries, next: null });
  await page.route(/\/admin\/api\/logs\?/, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: listBody }));
  await page.route(/\/admin\/api\/logs\/row-\d+$/, (route) => {
    const id = new URL(route.request().url()).pathname.split('/').pop() ?? '';
    const entry = entries.find((candidate) => candidate.id === id);
    return route.fulfill({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ ...entry, keyId: null, requestHeaders: { 'content-type': 'application/json', 'x-gateway-api-key': '[redacted]' }, requestBody: '{"model":"m","prompt":"hi"}', responseBody: '{"choices":[{"text":"hello"}]}' }),
    });
  });

  await page.goto(`${gatehouse.origin}/#/logs&token=${gatehouse.adminToken}`);
  const table = page.getByRole('table', { name: 'Requests' });
  await expect(table).toHaveAttribute('aria-rowcount', String(ROW_COUNT + 1));
  const body = table.locator('.log-body');
  const rows = body.locator('[role="row"]');
  await expect(rows.first()).toContainText(`model-${ROW_COUNT}`);
  expect(await rows.count()).toBeLessThan(60);

  // Scrolling through the whole list in 40 jumps keeps the DOM small and every frame quick.
  const timings = await body.evaluate(async (element) => {
    const frame = () => new Promise<number>((resolve) => requestAnimationFrame(() => resolve(performance.now())));
    const durations: number[] = [];
    for (let step = 1; step <= 40; step++) {
      const started = performance.now();
      element.scrollTop = (element.scrollHeight * step) / 40;
      element.dispatchEvent(new Event('scroll'));
      await frame();
      durations.push((await frame()) - started);
    }
    return { durations, renderedRows: element.querySelectorAll('[role="row"]').length };
  });
  expect(timings.renderedRows).toBeLessThan(60);
  const sorted = [...timings.durations].sort((a, b) => a - b);
  // Two animation frames per step: about 33 ms when rendering keeps up.
  expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThan(120);
  await expect(rows.last()).toContainText('model-1');
  await screenshot(page, 'logs-100k-bottom');

  // Back at the top, the keyboard moves the selection and opens each row's detail.
  await body.evaluate((element) => {
    element.scrollTop = 0;
  });
  await rows.first().click();
  await expect(page.getByRole('region', { name: 'Request detail' })).toContainText(`model-${ROW_COUNT}`);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(body.locator('[role="row"][aria-selected="true"]')).toContainText(`model-${ROW_COUNT - 2}`);
  await expect(page.getByRole('region', { name: 'Request detail' })).toContainText(`model-${ROW_COUNT - 2}`);
  // Keys pressed faster than focus can follow (a held arrow key) each still move the selection.
  await body.evaluate((element) => {
    const focused = element.querySelector('[role="row"][aria-selected="true"]');
    for (let press = 0; press < 3; press++) focused?.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true }));
  });
  await expect(body.locator('[role="row"][aria-selected="true"]')).toContainText(`model-${ROW_COUNT - 5}`);
  await page.keyboard.press('End');
  await expect(body.locator('[role="row"][aria-selected="true"]')).toContainText('model-1');
  await expect(page.getByRole('region', { name: 'Request detail' })).toContainText('model-1');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('region', { name: 'Request detail' })).toHaveCount(0);
  await page.keyboard.press('/');
  await expect(page.getByLabel('Search')).toBeFocused();
  await screenshot(page, 'logs-100k');
});

test('scrolling to the end of the real log fetches the older pages with the cursor', async ({ page }) => {
  const fake = await startOpenAIFake();
  try {
    const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'Pages', provider: 'openai', secret: 'sk-pages', customHost: fake.baseUrl }) });
    const { key } = (await created.json()) as { key: string };
    const total = 260;
    for (let first = 0; first < total; first += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, total - first) }, (_, offset) =>
          fetch(`${gatehouse.origin}/v1/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-gateway-api-key': key },
            body: JSON.stringify({ model: `page-model-${first + offset}`, prompt: 'p' }),
          }).then((response) => response.arrayBuffer()),
        ),
      );
    }

    await page.goto(`${gatehouse.origin}/#/logs&token=${gatehouse.adminToken}`);
    await expect(page.getByText(/200 requests loaded/)).toBeVisible();
    const body = page.getByRole('table', { name: 'Requests' }).locator('.log-body');
    await body.evaluate((element) => {
      element.scrollTop = element.scrollHeight;
    });
    await expect(page.getByText(`${total} requests`, { exact: true })).toBeVisible();
    await body.evaluate((element) => {
      element.scrollTop = element.scrollHeight;
    });
    // The oldest request is the last row, right after the newest page's 200.
    await expect(body.locator(`[role="row"][aria-rowindex="${total + 1}"]`)).toContainText('page-model-');
    await expect(body.locator('[role="row"]').last()).toHaveAttribute('aria-rowindex', String(total + 1));
  } finally {
    await fake.close();
  }
});
