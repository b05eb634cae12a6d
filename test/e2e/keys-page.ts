// The Keys page as the specs drive it: a key is a row of a keys table; its details and actions are in
// the panel its name opens. One place for these selectors, so a spec says what it does to a key.
import { expect, type Locator, type Page } from '@playwright/test';

/** The table of one kind of key: 'Virtual keys' or 'Gateway keys'. */
export const keyTable = (page: Page, label: 'Virtual keys' | 'Gateway keys'): Locator => page.getByRole('table', { name: label });

/** A key's row, by its name. */
export const keyRow = (page: Page, name: string): Locator => page.getByRole('row').filter({ has: page.getByRole('button', { name, exact: true }) });

/** Opens a key's panel from its row (the Keys page must be showing) and returns the panel. */
export async function openKeyPanel(page: Page, name: string): Promise<Locator> {
  await keyRow(page, name).getByRole('button', { name, exact: true }).click();
  const panel = page.getByRole('dialog', { name, exact: true });
  await expect(panel).toBeVisible();
  return panel;
}
