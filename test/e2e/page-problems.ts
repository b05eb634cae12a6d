// What a page reports going wrong while a test drives it: uncaught errors and console errors. A test
// ends by expecting none.
import type { Page } from '@playwright/test';

export function collectProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  return problems;
}
