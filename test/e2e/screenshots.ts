// Screenshots kept as test artifacts (test-results/screens, not committed) for reviewing the UI.
import type { Page } from '@playwright/test';

export const SCREENSHOTS = 'test-results/screens';

/**
 * The whole page at once. Playwright's fullPage mode stitches while sticky parts (sidebar,
 * parameters) stay put, so the window is made as tall as the page instead.
 */
export async function screenshotWholePage(page: Page, name: string): Promise<void> {
  const original = page.viewportSize();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  if (original) await page.setViewportSize({ width: original.width, height: Math.max(original.height, height) });
  await page.screenshot({ path: `${SCREENSHOTS}/${name}.png` });
  if (original) await page.setViewportSize(original);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SCREENSHOTS}/${name}.png` });
}
