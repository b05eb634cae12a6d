// Settings → Team gateway in the browser, against two real `gatehouse serve` processes: the one the user
// opened (this computer's) and a "team" one with its own GATEHOUSE_ADMIN_TOKEN. The user connects the team
// in Settings, switches to it, sees and creates the team's keys, gets the team's address in Connect a tool,
// and switches back to this computer's keys. No console errors.
import { expect, test, type Page } from '@playwright/test';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { collectProblems } from './page-problems.js';
import { SCREENSHOTS } from './screenshots';
import { keyRow } from './keys-page';

const TEAM_TOKEN = 'team-e2e-admin-token-5a7c9e1b3d5f7a9c';

let local: ServedGatehouse;
let team: ServedGatehouse;

test.beforeAll(async () => {
  [local, team] = await Promise.all([serveGatehouse(), serveGatehouse({ GATEHOUSE_ADMIN_TOKEN: TEAM_TOKEN })]);
  for (const [gatehouse, name] of [
    [local, 'laptop-key'],
    [team, 'team-shared-key'],
  ] as const) {
    const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name, provider: 'openai', secret: 'sk-e2e-0123456789' }) });
    expect(created.status).toBe(201);
  }
});

test.afterAll(async () => {
  await Promise.all([local?.stop(), team?.stop()]);
});

async function keyNames(gatehouse: ServedGatehouse): Promise<string[]> {
  const body = (await (await gatehouse.admin('/virtual-keys')).json()) as { items: { name: string }[] };
  return body.items.map((key) => key.name);
}


async function connectTeam(page: Page, token: string) {
  await page.getByRole('link', { name: 'Settings' }).click();
  const card = page.getByRole('region', { name: 'Team gateway' });
  await card.getByLabel('Address').fill(team.origin);
  await card.getByLabel('Admin token').fill(token);
  await card.getByRole('button', { name: 'Connect' }).click();
  return card;
}

test.describe.configure({ mode: 'serial' });

test('a wrong team token is refused under the token field, and nothing is switched', async ({ page }) => {
  const problems = collectProblems(page);
  await page.goto(local.uiUrl);
  const card = await connectTeam(page, 'not-the-team-token');
  await expect(card.getByText(`The team gateway at ${team.origin} refused its admin token`)).toBeVisible();
  await expect(page.getByRole('radiogroup', { name: 'Managed gateway' })).toHaveCount(0);
  // The browser's console shows the refused PUT as a failed request; nothing else may go wrong.
  expect(problems.filter((problem) => !problem.includes('401'))).toEqual([]);
});

test('manages the team from Settings, then this computer again', async ({ page }) => {
  const problems = collectProblems(page);
  await page.goto(local.uiUrl);
  const card = await connectTeam(page, TEAM_TOKEN);
  const host = new URL(team.origin).host;
  await expect(card.getByRole('status')).toContainText(`Connected to ${host}`);
  await expect(card.getByRole('status')).toContainText('SQLite');
  // The token is not shown again, nor kept in the page.
  await expect(card.getByLabel('Admin token')).toHaveValue('');

  const switcher = page.getByRole('radiogroup', { name: 'Managed gateway' });
  await expect(switcher.getByRole('radio', { name: 'This computer' })).toHaveAttribute('aria-checked', 'true');
  await switcher.getByRole('radio', { name: `Team: ${host}` }).click();
  await expect(page.getByText('Changes here go to the team gateway.')).toBeVisible();

  await page.getByRole('link', { name: 'Keys' }).click();
  await expect(keyRow(page, 'team-shared-key')).toBeVisible();
  await expect(keyRow(page, 'laptop-key')).toHaveCount(0);

  await page.getByRole('button', { name: 'New virtual key' }).click();
  const dialog = page.getByRole('dialog', { name: 'New virtual key' });
  await dialog.getByLabel('Name').fill('made-from-the-app');
  await dialog.getByLabel('API key').fill('sk-made-0123456789');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect.poll(() => keyNames(team)).toContain('made-from-the-app');
  expect(await keyNames(local)).not.toContain('made-from-the-app');
  // The new key's set-ups name the team's address too.
  await expect(page.getByRole('dialog').getByText(`ANTHROPIC_BASE_URL=${team.origin}`)).toBeVisible();
  await page.getByRole('button', { name: 'Done' }).click();

  await page.getByRole('link', { name: 'Connect a tool' }).click();
  const inputs = page.getByRole('region', { name: 'What to write in' });
  await expect(inputs.locator('code').first()).toHaveText(team.origin);
  await expect(page.locator('main')).not.toContainText(local.origin);
  await expect(page.getByText(`ANTHROPIC_BASE_URL=${team.origin}`).first()).toBeVisible();

  await switcher.getByRole('radio', { name: 'This computer' }).click();
  await expect(inputs.locator('code').first()).toHaveText(local.origin);
  await page.getByRole('link', { name: 'Keys' }).click();
  await expect(keyRow(page, 'laptop-key')).toBeVisible();
  await expect(keyRow(page, 'team-shared-key')).toHaveCount(0);
  await expect(keyRow(page, 'made-from-the-app')).toHaveCount(0);
  expect(problems).toEqual([]);
});

test("the Playground lists the team's keys while managing the team, and this computer's again after", async ({ page }) => {
  const problems = collectProblems(page);
  await page.goto(local.uiUrl);
  // This computer's key is picked first, as a new user's Playground does.
  const keyPicker = page.getByLabel('Key', { exact: true });
  await expect(keyPicker.locator('option:checked')).toHaveText(/^laptop-key/);
  const switcher = page.getByRole('radiogroup', { name: 'Managed gateway' });
  await switcher.getByRole('radio', { name: /^Team:/ }).click();
  // The team's key, never "revoked or gone" for this computer's key nor its internal id.
  await expect(keyPicker.locator('option', { hasText: 'team-shared-key' })).toHaveCount(1);
  await expect(keyPicker.locator('option', { hasText: 'laptop-key' })).toHaveCount(0);
  // The team's first key is picked (the test above may have made one more).
  const teamKeys = await keyNames(team);
  await expect(keyPicker.locator('option:checked')).toHaveText(new RegExp(`^(${teamKeys.join('|')}) ·`));
  await expect(page.locator('main')).not.toContainText('revoked or gone');
  await expect(page.locator('main')).not.toContainText(/vk_[0-9a-z]/i);
  await switcher.getByRole('radio', { name: 'This computer' }).click();
  await expect(keyPicker.locator('option:checked')).toHaveText(/^laptop-key/);
  // The team's key has no provider here (no host): its model list says so, which the console may show as a failed read.
  expect(problems.filter((problem) => !/40[14]|50[02]/.test(problem))).toEqual([]);
});

for (const theme of ['light', 'dark'] as const) {
  test(`screenshots of the card and the switch (${theme})`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: theme });
    await page.goto(local.uiUrl);
    await page.getByRole('link', { name: 'Settings' }).click();
    const switcher = page.getByRole('radiogroup', { name: 'Managed gateway' });
    await expect(switcher).toBeVisible();
    for (const width of [900, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      // Back from the team, Settings renders again once the local settings are read: scroll the card that stays.
      await expect(async () => page.getByRole('region', { name: 'Team gateway' }).scrollIntoViewIfNeeded({ timeout: 1_000 })).toPass();
      await page.screenshot({ path: `${SCREENSHOTS}/team-gateway-settings-${width}-${theme}.png` });
      await switcher.getByRole('radio', { name: /^Team:/ }).click();
      await page.getByRole('link', { name: 'Keys' }).click();
      await expect(keyRow(page, 'team-shared-key')).toBeVisible();
      await page.screenshot({ path: `${SCREENSHOTS}/team-gateway-managing-${width}-${theme}.png` });
      await switcher.getByRole('radio', { name: 'This computer' }).click();
      await page.getByRole('link', { name: 'Settings' }).click();
    }
  });
}
