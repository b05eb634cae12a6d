// No page scrolls sideways: every page, with data in it, at 900 and 1280 px wide, light and dark. The
// document and every card must fit their width (scrollWidth <= clientWidth), and no button or field sits
// in a sideways scroller inside a card. Every dialog's buttons are inside the window at 1280x800 and
// 900x700. Screenshots of each view go to test-results/screens for a person to look at.
import { expect, test, type Page } from '@playwright/test';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai';
import { openKeyPanel } from './keys-page';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { screenshot, screenshotWholePage } from './screenshots';

let gatehouse: ServedGatehouse;
let fake: OpenAIFake;

test.beforeAll(async () => {
  fake = await startOpenAIFake();
  gatehouse = await serveGatehouse();
  const keys: Array<{ key: string }> = [];
  // Two keys on the same host at different ports: the Keys page must tell them apart.
  for (const [name, customHost] of [['LM Studio on this machine with a long name', 'http://127.0.0.1:1234/v1'], ['Fake provider', fake.baseUrl]]) {
    const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name, provider: 'openai', secret: 'sk-walk-1234567890', customHost }) });
    expect(created.status).toBe(201);
    keys.push((await created.json()) as { key: string });
  }
  await gatehouse.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'CI runner' }) });
  const route = await gatehouse.admin('/routes', { method: 'POST', body: JSON.stringify({ name: 'fallback-chain', match: 'team-*', strategy: 'fallback', targets: [{ key: 'Fake provider', model: 'gpt-4o-mini' }] }) });
  expect(route.status).toBe(201);
  await gatehouse.admin('/model-overrides', { method: 'POST', body: JSON.stringify({ provider: 'openai', model: 'a-fine-tuned-model-with-a-long-name', input: 0.5, output: 1.5, contextWindow: 128000 }) });
  for (const [model, stream] of [['gpt-4o-mini', true], ['team-alpha', false], ['no-price-model', false]] as const) {
    const response = await fetch(`${gatehouse.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': keys[1].key, 'x-gateway-retry-count': '2' },
      body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'hello' }] }),
    });
    await response.text();
  }
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await fake?.close();
});

/** Elements wider than their box, by a short description: the document, then each card. */
async function sidewaysScrollers(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) found.push(`document ${root.scrollWidth} > ${root.clientWidth}`);
    for (const card of document.querySelectorAll<HTMLElement>('.card')) {
      if (card.scrollWidth > card.clientWidth) {
        const title = card.querySelector('h2, h3')?.textContent ?? card.getAttribute('aria-label') ?? card.className;
        found.push(`card "${title}" ${card.scrollWidth} > ${card.clientWidth}`);
      }
      // A scroller inside a card may scroll sideways, but nothing a person must reach may be in it.
      for (const scroller of card.querySelectorAll<HTMLElement>('*')) {
        const { overflowX } = getComputedStyle(scroller);
        if ((overflowX !== 'auto' && overflowX !== 'scroll') || scroller.scrollWidth <= scroller.clientWidth) continue;
        const controls = scroller.querySelectorAll('button, input, select, textarea, a[href]');
        if (controls.length) found.push(`${controls.length} control(s) in a sideways scroller (${scroller.className}) ${scroller.scrollWidth} > ${scroller.clientWidth}`);
      }
    }
    return found;
  });
}

const PAGES: Array<{ link: string; heading: string; ready: (page: Page) => Promise<void> }> = [
  { link: 'Playground', heading: 'Playground', ready: async (page) => void (await expect(page.getByLabel('Model')).toHaveValue(/\S/)) },
  { link: 'Logs', heading: 'Logs', ready: async (page) => void (await expect(page.getByRole('table', { name: 'Requests' })).toContainText('no-price-model')) },
  { link: 'Usage', heading: 'Usage', ready: async (page) => void (await expect(page.locator('.recharts-surface').first()).toBeVisible()) },
  { link: 'Keys', heading: 'Keys', ready: async (page) => void (await expect(page.getByRole('table', { name: 'Virtual keys' })).toContainText('Fake provider')) },
  { link: 'Routes', heading: 'Routes', ready: async (page) => void (await expect(page.getByText('fallback-chain').first()).toBeVisible()) },
  { link: 'Local models', heading: 'Local models', ready: async () => undefined },
  { link: 'MCP servers', heading: 'MCP servers', ready: async () => undefined },
  { link: 'Connect a tool', heading: 'Connect a tool', ready: async () => undefined },
  { link: 'Settings', heading: 'Settings', ready: async (page) => void (await expect(page.getByText('a-fine-tuned-model-with-a-long-name')).toBeVisible()) },
];

for (const theme of ['light', 'dark'] as const) {
  for (const width of [900, 1280]) {
    test(`no page scrolls sideways at ${width} px (${theme})`, async ({ page }) => {
      await page.emulateMedia({ colorScheme: theme });
      await page.setViewportSize({ width, height: 860 });
      await page.goto(gatehouse.uiUrl);
      const problems: string[] = [];
      for (const { link, heading, ready } of PAGES) {
        await page.getByRole('link', { name: link }).click();
        await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible();
        await ready(page);
        problems.push(...(await sidewaysScrollers(page)).map((problem) => `${link}: ${problem}`));
        await screenshotWholePage(page, `walk-${width}-${theme}-${link.toLowerCase().replaceAll(' ', '-')}`);
      }
      // The views inside pages: a log entry's detail, the Compare view with results, the sidebar state.
      await page.getByRole('link', { name: 'Logs' }).click();
      await page.getByRole('table', { name: 'Requests' }).getByText('team-alpha').first().click();
      await expect(page.getByRole('region', { name: 'Request detail' })).toContainText('Fake provider');
      problems.push(...(await sidewaysScrollers(page)).map((problem) => `Log detail: ${problem}`));
      await screenshotWholePage(page, `walk-${width}-${theme}-logs-detail`);

      await page.getByRole('link', { name: 'Playground' }).click();
      await page.getByRole('radio', { name: 'Compare' }).click();
      for (const [side, model] of [['A', 'gpt-4o-mini'], ['B', 'no-price-model']]) {
        const keySelect = page.getByLabel(`Key ${side}`);
        await keySelect.selectOption((await keySelect.locator('option', { hasText: 'Fake provider' }).getAttribute('value')) ?? '');
        await page.getByLabel(`Model ${side}`).fill(model);
      }
      await page.getByLabel('Prompt').fill('Compare these');
      await page.getByRole('button', { name: 'Run' }).click();
      await expect(page.getByRole('region', { name: 'Result A' })).toContainText('Hello from the fake');
      // A side without a price says so instead of leaving its Cost cell out.
      await expect(page.getByRole('region', { name: 'Result B' }).getByLabel('Statistics B')).toContainText('Costunknown');
      problems.push(...(await sidewaysScrollers(page)).map((problem) => `Compare: ${problem}`));
      await screenshotWholePage(page, `walk-${width}-${theme}-compare`);
      await page.getByRole('radio', { name: 'Single' }).click();

      // Below 1100 px the sidebar shows icons only; its links keep their names.
      const sidebar = await page.locator('aside.sidebar').evaluate((element) => element.getBoundingClientRect().width);
      if (width < 1100) expect(sidebar).toBeLessThan(80);
      else expect(sidebar).toBeGreaterThan(200);
      await expect(page.getByRole('link', { name: 'Settings' })).toBeVisible();
      expect(problems).toEqual([]);
    });
  }
}

/** The open dialog on top: outside the window (its box, a button sideways, a footer button below the fold). */
async function dialogOutOfView(page: Page, what: string): Promise<string[]> {
  const problems = await page.evaluate(() => {
    const open = [...document.querySelectorAll<HTMLDialogElement>('dialog[open]')];
    const dialog = open.at(-1);
    if (!dialog) return ['no dialog open'];
    const found: string[] = [];
    const inside = (box: DOMRect) => box.left >= 0 && box.top >= 0 && box.right <= window.innerWidth && box.bottom <= window.innerHeight;
    if (!inside(dialog.getBoundingClientRect())) found.push('the dialog is larger than the window');
    const own = [...dialog.querySelectorAll<HTMLElement>('button')].filter((button) => button.closest('dialog') === dialog && button.getClientRects().length);
    for (const button of own) {
      const box = button.getBoundingClientRect();
      if (box.left < 0 || box.right > window.innerWidth) found.push(`"${button.textContent?.trim()}" is outside the window sideways`);
      // The footer's buttons (what the dialog is for) show without scrolling.
      if (button.closest('.dialog-actions') && !inside(box)) found.push(`"${button.textContent?.trim()}" is below the window`);
    }
    return found;
  });
  return problems.map((problem) => `${what}: ${problem}`);
}

for (const [width, height] of [
  [1280, 800],
  [900, 700],
] as const) {
  test(`every dialog's buttons are inside the window at ${width}x${height}`, async ({ page }) => {
    // Fourteen dialogs opened and closed one after another.
    test.setTimeout(180_000);
    await page.setViewportSize({ width, height });
    await page.goto(gatehouse.uiUrl);
    const problems: string[] = [];
    const check = async (what: string, open: () => Promise<unknown>) => {
      await open();
      await expect(page.locator('dialog[open]').last()).toBeVisible();
      problems.push(...(await dialogOutOfView(page, what)));
      await screenshot(page, `dialog-${width}-${what.toLowerCase().replaceAll(/[^a-z0-9]+/g, '-')}`);
      await page.locator('dialog[open]').last().getByRole('button', { name: 'Close' }).first().click();
    };

    await page.getByRole('link', { name: 'Keys' }).click();
    await check('New virtual key', () => page.getByRole('button', { name: 'New virtual key' }).click());
    await check('New gateway key', () => page.getByRole('button', { name: 'New gateway key' }).click());
    const panel = await openKeyPanel(page, 'Fake provider');
    problems.push(...(await dialogOutOfView(page, 'Key panel')));
    // The panel with a Test connection result in it (what the host listed) keeps its buttons in view.
    await panel.getByRole('button', { name: 'Test connection' }).click();
    await expect(panel.getByRole('region', { name: 'Test connection' })).toContainText('models listed');
    problems.push(...(await dialogOutOfView(page, 'Key panel with Test connection')));
    await screenshot(page, `dialog-${width}-key-panel-test-connection`);
    for (const action of ['Change host', 'Change default model', 'Change allowed models', 'Change limits', 'Change MCP servers', 'Use', 'Rotate credential', 'Revoke']) {
      await check(action, () => panel.getByRole('button', { name: action, exact: true }).click());
    }
    await panel.getByRole('button', { name: 'Close' }).first().click();

    await page.getByRole('link', { name: 'Routes' }).click();
    await check('New route', () => page.getByRole('button', { name: 'New route' }).first().click());
    await check('Test route', () => page.getByRole('button', { name: /^Test fallback-chain/ }).click());
    await check('Delete route', () => page.getByRole('button', { name: /^Delete fallback-chain/ }).click());

    await page.getByRole('link', { name: 'MCP servers' }).click();
    await check('Add an MCP server', () => page.getByRole('button', { name: 'Add a server' }).first().click());
    expect(problems).toEqual([]);
  });
}
