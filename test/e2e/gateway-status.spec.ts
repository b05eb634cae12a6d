// The sidebar's status follows the gateway: Stopped within 5 s of it going down, Running within 5 s
// of its return, and a page that failed while it was away (Keys) loads again without a Retry click.
import { expect, test } from '@playwright/test';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';

let gatehouse: ServedGatehouse;

test.beforeAll(async () => {
  gatehouse = await serveGatehouse();
  const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'Survives restarts', provider: 'openai', secret: 'sk-status-123456' }) });
  expect(created.status).toBe(201);
});

test.afterAll(async () => {
  await gatehouse?.stop();
});

test('the status says Stopped when the gateway goes down and Running when it returns, and Keys reloads by itself', async ({ page }) => {
  await page.goto(gatehouse.uiUrl);
  const status = page.getByRole('complementary').locator('.connection');
  await expect(status).toContainText('Running');

  // A page with nothing live on it (Settings): only the status check can notice.
  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
  await gatehouse.halt();
  const stoppedAt = Date.now();
  await expect(status).toContainText('Stopped', { timeout: 5000 });
  expect(Date.now() - stoppedAt).toBeLessThanOrEqual(5000);

  // Keys opened while the gateway is down fails in place...
  await page.getByRole('link', { name: 'Keys' }).click();
  await expect(page.getByText('Could not load keys')).toBeVisible();

  // ...and loads by itself once the gateway is back: no Retry click.
  await gatehouse.resume();
  const resumedAt = Date.now();
  await expect(status).toContainText('Running', { timeout: 5000 });
  expect(Date.now() - resumedAt).toBeLessThanOrEqual(5000);
  await expect(page.getByRole('table', { name: 'Virtual keys' })).toContainText('Survives restarts');
  await expect(page.getByText('Could not load keys')).toHaveCount(0);
});
