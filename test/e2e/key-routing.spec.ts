// A key's routing switch on the Keys page, against the real `gatehouse serve`: a new key lends nothing to
// other keys' routed calls unless the form's switch is on; flipping a key's switch in its row is saved
// (the admin API says so) and takes effect on the gateway: another virtual key's routed call is refused,
// then served. No console errors.
import { expect, test, type Page } from '@playwright/test';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { collectProblems } from './page-problems.js';
import { openKeyPanel } from './keys-page';

let fake: OpenAIFake;
let gatehouse: ServedGatehouse;
let callerKey: string;

test.beforeAll(async () => {
  fake = await startOpenAIFake();
  gatehouse = await serveGatehouse();
  const caller = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'agent-box', provider: 'openai', secret: 'sk-agent-0123456789', customHost: fake.baseUrl }) });
  callerKey = ((await caller.json()) as { key: string }).key;
  await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'team-openai', provider: 'openai', secret: 'sk-team-0123456789', customHost: fake.baseUrl }) });
  const route = await gatehouse.admin('/routes', { method: 'POST', body: JSON.stringify({ name: 'team', match: 'team-*', strategy: 'fallback', targets: [{ key: 'team-openai', model: 'gpt-4o-mini' }] }) });
  expect(route.status).toBe(201);
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await fake?.close();
});

/** agent-box asks for a model the `team` route sends to team-openai's credentials. */
function borrow(): Promise<number> {
  return fetch(`${gatehouse.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${callerKey}` },
    body: JSON.stringify({ model: 'team-chat', messages: [{ role: 'user', content: 'hi' }] }),
  }).then(async (response) => {
    await response.text();
    return response.status;
  });
}

const keyNamed = async (name: string) => {
  const list = (await (await gatehouse.admin('/virtual-keys')).json()) as { items: { name: string; allowRouting: boolean }[] };
  return list.items.find((key) => key.name === name);
};

/** Clicks a switch as a person does: on its label (the input itself lies under the drawn track). */
const flip = (control: ReturnType<Page['getByRole']>) => control.locator('xpath=..').click();


test("a key's routing switch: off for a new key unless asked, and flipping it in the row lets another key's routed call through", async ({ page }) => {
  const problems = collectProblems(page);
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Keys' }).click();
  const panel = await openKeyPanel(page, 'team-openai');
  const teamSwitch = panel.getByRole('switch', { name: /use it through routes \(team-openai\)/ });
  await expect(teamSwitch).not.toBeChecked();
  expect(await borrow()).toBe(403);

  await flip(teamSwitch);
  await expect(teamSwitch).toBeChecked();
  await expect.poll(async () => (await keyNamed('team-openai'))?.allowRouting).toBe(true);
  expect(await borrow()).toBe(200);

  await flip(teamSwitch);
  await expect(teamSwitch).not.toBeChecked();
  await expect.poll(async () => (await keyNamed('team-openai'))?.allowRouting).toBe(false);
  expect(await borrow()).toBe(403);

  // The new-key form: the switch explains itself and is off until turned on.
  await panel.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('button', { name: 'New virtual key' }).click();
  const dialog = page.getByRole('dialog', { name: 'New virtual key' });
  const formSwitch = dialog.getByRole('switch', { name: 'Other keys may use it through routes' });
  await expect(formSwitch).not.toBeChecked();
  await expect(dialog.getByText('counted against this key’s limits')).toBeVisible();
  await dialog.getByLabel('Name').fill('shared-openai');
  await dialog.getByLabel('API key').fill('sk-shared-0123456789');
  await flip(formSwitch);
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('dialog', { name: /shared-openai/ })).toBeVisible();
  expect((await keyNamed('shared-openai'))?.allowRouting).toBe(true);
  expect(problems).toEqual([]);
});
