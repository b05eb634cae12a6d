// Every page of the UI, light and dark, compared with screenshots kept in the repository
// (test/e2e/__screenshots__/visual.spec.ts/, see snapshotPathTemplate in playwright.config.ts): a colour
// that goes unreadable in one theme, a page that loses its styles, a layout that breaks fails here, not
// only a heading that goes missing. What changes from run to run (times, durations, ports, key prefixes,
// the data folder) is masked; animations are stopped; anti-aliasing differences up to 0.5% of the pixels are tolerated.
//
// The baselines are made by the same headless Debian Chromium the suite runs in. After an intended change
// to the UI, look at the diff Playwright writes to test-results/, then make them again and commit them:
//   npx playwright test test/e2e/visual.spec.ts --update-snapshots
import { expect, test, type Locator, type Page } from '@playwright/test';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai';
import { startLocalServerFake, type LocalServerFake } from '../fakes/local-servers';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';

let gatehouse: ServedGatehouse;
let fake: OpenAIFake;
let localFakes: LocalServerFake[] = [];

test.beforeAll(async () => {
  fake = await startOpenAIFake();
  // The Local models page lists these two and nothing else that runs on this machine.
  localFakes = [await startLocalServerFake('ollama'), await startLocalServerFake('lmstudio')];
  gatehouse = await serveGatehouse({ GATEHOUSE_DISCOVERY_PORTS: localFakes.map((local) => local.port).join(','), GATEHOUSE_DISCOVERY_TIMEOUT_MS: '3000' });
  // The same keys and the same three requests on every run: the pages show the same rows.
  const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'Visual', provider: 'openai', secret: 'sk-visual-secret-0123456789', customHost: fake.baseUrl }) });
  const { key } = (await created.json()) as { key: string };
  await gatehouse.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'CI runner' }) });
  // Routes that no request below matches: the Routes page shows them, unused, the same on every run.
  await gatehouse.admin('/routes', {
    method: 'PUT',
    body: JSON.stringify({
      routes: [
        { name: 'background', match: 'claude-haiku-*', strategy: 'fallback', targets: [{ key: 'Visual', model: 'qwen3-coder:30b', timeout_ms: 30000 }, { key: 'Visual', model: 'gpt-4o-mini' }] },
        { name: 'fast', match: 'fast', strategy: 'balance', targets: [{ key: 'Visual', model: 'llama-3.3-70b-versatile', weight: 2 }, { key: 'Visual', model: 'gpt-4o-mini', weight: 1 }] },
        { name: 'long', match: 'claude-sonnet-*', strategy: 'fallback', targets: [{ key: 'Visual', model: 'gemini-2.5-pro', when: { min_prompt_tokens: 60000 } }, { key: 'Visual' }] },
      ],
    }),
  });
  const call = async (body: object, apiKey = key) => {
    const response = await fetch(`${gatehouse.origin}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-gateway-api-key': apiKey }, body: JSON.stringify(body) });
    await response.text();
  };
  await call({ model: 'gpt-3.5-turbo-instruct', prompt: 'Write a haiku about gates' });
  await call({ model: 'gpt-3.5-turbo-instruct', prompt: 'Stream a greeting', stream: true });
  await call({ model: 'gpt-3.5-turbo-instruct', prompt: 'Out of range', temperature: 7 });
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await fake?.close();
  await Promise.all(localFakes.map((local) => local.close()));
});

/** Parts that differ from run to run, on any page. */
function dynamicParts(page: Page): Locator[] {
  return [
    page.locator('.connection-address'),
    page.locator('.col-time:not([role="columnheader"])'),
    page.locator('.col-latency:not([role="columnheader"])'),
    page.locator('.page-subtitle .summary'),
    page.locator('.timing'),
    page.locator('.detail-grid > div').filter({ has: page.locator('dt', { hasText: /^(Time|Trace id)$/ }) }).locator('dd'),
    page.locator('.key-prefix'),
    page.locator('.key-dates'),
    page.locator('.local-ports'),
    page.locator('.local-checked'),
  ];
}

/**
 * Writes this run's ports and temporary folder as fixed text, where they stand inside other text (the
 * Connect page's set-ups, a key's host, the key-file notice): masking those would hide the code blocks
 * whose colours are the point.
 */
async function fixRunSpecificText(page: Page): Promise<void> {
  await page.evaluate(() => {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.nodeValue ?? '';
      const fixed = text.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:8787').replace(/gatehouse-e2e-[A-Za-z0-9]+/g, 'gatehouse-e2e-XXXXXX');
      if (fixed !== text) node.nodeValue = fixed;
    }
  });
}

async function expectLooksAsBefore(page: Page, name: string, alsoMask: Locator[] = []): Promise<void> {
  await fixRunSpecificText(page);
  await expect(page).toHaveScreenshot(`${name}.png`, { mask: [...dynamicParts(page), ...alsoMask] });
}

async function openPage(page: Page, link: string, ready: (page: Page) => Locator): Promise<void> {
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: link }).click();
  await expect(page.getByRole('heading', { name: link, level: 1 })).toBeVisible();
  await expect(ready(page)).toBeVisible();
  await expect(page.locator('.connection-connected')).toBeVisible();
}

for (const theme of ['light', 'dark'] as const) {
  test.describe(`${theme} theme`, () => {
    test.use({ colorScheme: theme });

    test(`sign-in (${theme})`, async ({ page }) => {
      await page.goto(gatehouse.origin);
      await expect(page.getByRole('heading', { name: 'Open Gatehouse' })).toBeVisible();
      await expectLooksAsBefore(page, `sign-in-${theme}`);
    });

    test(`playground (${theme})`, async ({ page }) => {
      await page.goto(gatehouse.uiUrl);
      await expect(page.getByRole('heading', { name: 'Playground', level: 1 })).toBeVisible();
      await expect(page.locator('.connection-connected')).toBeVisible();
      // Settled: the one key picked by name, its models listed, the saved prompts read.
      await expect(page.getByText(/\d+ models? listed by the provider/)).toBeVisible();
      await expect(page.getByText(/None yet\. Save a prompt/)).toBeVisible();
      await expectLooksAsBefore(page, `playground-${theme}`);
    });

    test(`logs (${theme})`, async ({ page }) => {
      await openPage(page, 'Logs', (p) => p.getByRole('table', { name: 'Requests' }).getByRole('row').nth(3));
      await expect(page.locator('.live-live')).toBeVisible();
      await expectLooksAsBefore(page, `logs-${theme}`);
    });

    test(`log detail (${theme})`, async ({ page }) => {
      await openPage(page, 'Logs', (p) => p.getByRole('table', { name: 'Requests' }).getByRole('row').nth(3));
      await page.getByRole('table', { name: 'Requests' }).getByRole('row').nth(3).click();
      await expect(page.getByRole('region', { name: 'Request detail' })).toContainText('echo: Write a haiku about gates');
      await expect(page.locator('.live-live')).toBeVisible();
      await expectLooksAsBefore(page, `log-detail-${theme}`);
    });

    test(`usage (${theme})`, async ({ page }) => {
      await openPage(page, 'Usage', (p) => p.getByRole('img', { name: 'Spend per day' }).locator('.recharts-bar-rectangle').first());
      await expect(page.getByTestId('usage-total-requests')).toHaveText('3');
      // The charts' dates are today's.
      await expectLooksAsBefore(page, `usage-${theme}`, [page.locator('.recharts-xAxis .recharts-cartesian-axis-tick-value')]);
    });

    test(`keys (${theme})`, async ({ page }) => {
      await openPage(page, 'Keys', (p) => p.getByRole('table', { name: 'Gateway keys' }));
      await expect(page.getByRole('table', { name: 'Virtual keys' })).toContainText('Visual');
      await expectLooksAsBefore(page, `keys-${theme}`);
    });

    test(`new virtual key dialog (${theme})`, async ({ page }) => {
      await openPage(page, 'Keys', (p) => p.getByRole('table', { name: 'Virtual keys' }));
      await page.getByRole('button', { name: 'New virtual key' }).click();
      const dialog = page.getByRole('dialog');
      await expect(dialog).toBeVisible();
      // The dialog alone: the page's masks would be painted over it, on top of the overlay.
      await expect(dialog).toHaveScreenshot(`keys-new-${theme}.png`);
    });

    test(`routes (${theme})`, async ({ page }) => {
      await openPage(page, 'Routes', (p) => p.getByRole('list', { name: 'Routes' }));
      await expect(page.getByRole('list', { name: 'Routes' }).locator(':scope > li')).toHaveCount(3);
      await expectLooksAsBefore(page, `routes-${theme}`);
    });

    test(`route test dialog (${theme})`, async ({ page }) => {
      await openPage(page, 'Routes', (p) => p.getByRole('list', { name: 'Routes' }));
      await page.getByRole('button', { name: 'Test long' }).click();
      await expect(page.getByRole('status', { name: 'What the router would do' })).toContainText('would serve');
      await expectLooksAsBefore(page, `routes-test-${theme}`);
    });

    test(`connect a tool (${theme})`, async ({ page }) => {
      await openPage(page, 'Connect a tool', (p) => p.getByRole('region', { name: 'Coding agents' }));
      await expectLooksAsBefore(page, `connect-${theme}`);
    });

    test(`local models (${theme})`, async ({ page }) => {
      await openPage(page, 'Local models', (p) => p.getByRole('region', { name: /^Ollama on/ }));
      await expect(page.getByRole('region', { name: /^LM Studio on/ }).getByRole('listitem')).toHaveCount(2);
      await expectLooksAsBefore(page, `local-models-${theme}`);
    });

    test(`settings (${theme})`, async ({ page }) => {
      await openPage(page, 'Settings', (p) => p.getByRole('heading', { name: /Key protection/ }));
      await expectLooksAsBefore(page, `settings-${theme}`);
    });
  });
}
