// What a daily user of the app relies on (issue 26): Logs that say which key made a call and what it
// cost, with a date range and an export; a Chat that keeps its turns, across a reload; a theme switch.
import { expect, test } from '@playwright/test';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { collectProblems } from './page-problems';

let gatehouse: ServedGatehouse;
let fake: OpenAIFake;

async function createKey(name: string): Promise<{ id: string; key: string }> {
  const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name, provider: 'openai', secret: 'sk-daily-1234567890', customHost: fake.baseUrl }) });
  expect(created.status).toBe(201);
  return (await created.json()) as { id: string; key: string };
}

async function chat(key: string, model: string): Promise<number> {
  const response = await fetch(`${gatehouse.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': key },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await response.text();
  return response.status;
}

test.beforeAll(async () => {
  fake = await startOpenAIFake();
  gatehouse = await serveGatehouse();
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await fake?.close();
});

test('Logs show each call’s key and cost, the key in the detail, a refused call’s provider, and export the filtered rows', async ({ page }) => {
  const problems = collectProblems(page);
  const billing = await createKey('Billing key');
  const limited = await createKey('Limited key');
  expect(await chat(billing.key, 'gpt-4o-mini')).toBe(200);
  expect(await chat(billing.key, 'no-price-model')).toBe(200);
  // One request a minute: the second is refused before its body is read.
  expect((await gatehouse.admin(`/keys/${limited.id}/limits`, { method: 'PUT', body: JSON.stringify({ rpm: 1 }) })).status).toBe(200);
  expect(await chat(limited.key, 'gpt-4o-mini')).toBe(200);
  expect(await chat(limited.key, 'gpt-4o-mini')).toBe(429);

  await page.goto(`${gatehouse.origin}/#/logs&token=${gatehouse.adminToken}`);
  const table = page.getByRole('table', { name: 'Requests' });
  await expect(table.getByRole('columnheader', { name: 'Key' })).toBeVisible();
  await expect(table.getByRole('columnheader', { name: 'Cost' })).toBeVisible();
  const rows = table.getByRole('row');
  const priced = rows.filter({ hasText: 'gpt-4o-mini' }).filter({ hasText: 'Billing key' });
  await expect(priced).toHaveCount(1);
  // gpt-4o-mini is in the price catalog: 5 in and 3 out cost a fraction of a cent, shown as dollars.
  await expect(priced.getByRole('cell').last()).toHaveText(/^\$0\.0000\d+$/);
  // A model with no price says so, rather than a blank or $0.
  await expect(rows.filter({ hasText: 'no-price-model' }).getByRole('cell').last()).toHaveText('unknown');
  // The 429 was refused before its body was read: the key's provider stands in for "—".
  const refused = rows.filter({ hasText: '429' });
  await expect(refused.getByRole('cell').nth(2)).toHaveText('Limited key');
  await expect(refused.getByRole('cell').nth(3)).toHaveText('openai');

  await priced.click();
  const detail = page.getByRole('region', { name: 'Request detail' });
  await expect(detail).toContainText(`Billing key (${billing.id})`);

  // Export: the current filters travel with the chosen format.
  await page.getByRole('button', { name: 'Close detail' }).click();
  await page.getByLabel('Provider filter').selectOption('openai');
  await page.getByLabel('From day').fill('2026-01-01');
  await page.getByLabel('Model filter').fill('gpt-4o-mini');
  await expect(rows.filter({ hasText: 'no-price-model' })).toHaveCount(0);
  const exports: URL[] = [];
  await page.route('**/admin/api/logs/export?**', async (route) => {
    exports.push(new URL(route.request().url()));
    expect(route.request().headers().authorization).toBe(`Bearer ${gatehouse.adminToken}`);
    const csv = exports.at(-1)?.searchParams.get('format') === 'csv';
    await route.fulfill({ status: 200, contentType: csv ? 'text/csv' : 'application/x-ndjson', body: csv ? 'id,model\n1,gpt-4o-mini\n' : '{"id":"1"}\n' });
  });
  for (const [label, format, extension] of [['CSV', 'csv', 'csv'], ['JSON Lines', 'jsonl', 'jsonl']] as const) {
    await page.getByRole('button', { name: 'Export' }).click();
    const downloading = page.waitForEvent('download');
    await page.getByRole('menuitem', { name: label }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(new RegExp(`^gatehouse-logs-.*\\.${extension}$`));
    const sent = exports.at(-1)!;
    expect(sent.searchParams.get('format')).toBe(format);
    expect(sent.searchParams.get('provider')).toBe('openai');
    expect(sent.searchParams.get('model')).toBe('gpt-4o-mini');
    expect(Number(sent.searchParams.get('since'))).toBe(new Date(2026, 0, 1).getTime());
    expect(sent.searchParams.has('limit')).toBe(false);
  }
  expect(problems).toEqual([]);
});

test('Chat keeps a transcript: each Run continues the conversation, it survives a reload, and New conversation starts over', async ({ page }) => {
  const chatKey = await createKey('Chat key');
  await page.goto(gatehouse.uiUrl);
  // A new user lands in Chat, with the key's first model already chosen.
  await expect(page.getByRole('radio', { name: 'Chat' })).toHaveAttribute('aria-checked', 'true');
  await page.getByLabel('Key', { exact: true }).selectOption(chatKey.id);
  await expect(page.getByLabel('Model')).toHaveValue(/\S/);
  await expect(page.getByLabel('Model')).toHaveAttribute('placeholder', 'Pick or type a model name…');
  await page.getByLabel('Model').fill('gpt-4o-mini');

  const transcript = page.getByRole('list', { name: 'Conversation' });
  fake.requests.length = 0;
  await page.getByLabel('Prompt').fill('First question');
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(transcript.getByRole('listitem')).toHaveCount(3);
  await expect(transcript).toContainText('First question');
  await expect(transcript).toContainText('Hello from the fake');
  await expect(page.getByLabel('Prompt')).toHaveValue('');

  await page.getByLabel('Prompt').fill('Second question');
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(transcript.getByRole('listitem')).toHaveCount(5);
  // The question joins the transcript as the run starts, before the provider has it: wait for the second call.
  const chatCalls = () => fake.requests.filter((request) => request.url.endsWith('/chat/completions'));
  await expect.poll(() => chatCalls().length).toBe(2);
  const sent = chatCalls().at(-1)!;
  expect((sent.json.messages as Array<{ role: string; content: string }>).map((message) => `${message.role}: ${message.content}`)).toEqual([
    'system: You are a helpful assistant.',
    'user: First question',
    'assistant: Hello from the fake',
    'user: Second question',
  ]);

  await page.reload();
  await expect(transcript.getByRole('listitem')).toHaveCount(5);
  await expect(transcript).toContainText('Second question');

  await page.getByRole('button', { name: 'New chat' }).click();
  await expect(transcript.getByRole('listitem')).toHaveCount(1);
  await page.reload();
  await expect(transcript.getByRole('listitem')).toHaveCount(1);
});

test('the theme switch pins light or dark over the system setting, and is remembered', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(`${gatehouse.origin}/#/settings&token=${gatehouse.adminToken}`);
  const theme = page.getByRole('radiogroup', { name: 'Theme' });
  await expect(theme.getByRole('radio', { name: 'System' })).toHaveAttribute('aria-checked', 'true');
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const light = await background();

  await theme.getByRole('radio', { name: 'Dark' }).click();
  await expect.poll(background).not.toBe(light);
  const dark = await background();
  await page.reload();
  await expect(page.getByRole('radiogroup', { name: 'Theme' }).getByRole('radio', { name: 'Dark' })).toHaveAttribute('aria-checked', 'true');
  expect(await background()).toBe(dark);

  // Pinned light stays light on a dark system; System follows it again.
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.getByRole('radiogroup', { name: 'Theme' }).getByRole('radio', { name: 'Light' }).click();
  await expect.poll(background).toBe(light);
  await page.getByRole('radiogroup', { name: 'Theme' }).getByRole('radio', { name: 'System' }).click();
  await expect.poll(background).toBe(dark);
});
