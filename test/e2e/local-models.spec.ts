// The Local models page (issue 15) against fakes that answer like Ollama, LM Studio and llama.cpp:
// the servers are listed with their kind, version and models; one click makes a key that runs a
// prompt through the gateway; a server that goes away is shown offline; a port added in Settings is
// probed. Light and dark, with no console errors.
import { expect, test, type Page } from '@playwright/test';
import { fakeReply, startLocalServerFake, type LocalServerFake } from '../fakes/local-servers';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';

let gatehouse: ServedGatehouse;
let ollama: LocalServerFake;
let lmStudio: LocalServerFake;

test.beforeAll(async () => {
  ollama = await startLocalServerFake('ollama');
  lmStudio = await startLocalServerFake('lmstudio');
  // No usual ports: only the fakes, whatever else runs on this machine; a longer deadline for a busy test machine.
  gatehouse = await serveGatehouse({ GATEHOUSE_DISCOVERY_PORTS: '', GATEHOUSE_DISCOVERY_TIMEOUT_MS: '3000' });
  const saved = await gatehouse.admin('/settings', { method: 'PATCH', body: JSON.stringify({ discoveryPorts: [ollama.port, lmStudio.port] }) });
  expect(saved.status).toBe(200);
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await Promise.all([ollama?.close(), lmStudio?.close()]);
});

function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  return problems;
}

async function openLocalModels(page: Page): Promise<void> {
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Local models' }).click();
  await expect(page.getByRole('heading', { name: 'Local models', level: 1 })).toBeVisible();
}

for (const theme of ['light', 'dark'] as const) {
  test.describe(`${theme} theme`, () => {
    test.use({ colorScheme: theme });

    test(`lists the servers found and makes a working key in one click (${theme})`, async ({ page }) => {
      const problems = watchProblems(page);
      await openLocalModels(page);

      const ollamaCard = page.getByRole('region', { name: `Ollama on 127.0.0.1:${ollama.port}` });
      await expect(ollamaCard).toBeVisible();
      await expect(ollamaCard.getByRole('heading')).toContainText('Ollama');
      await expect(ollamaCard).toContainText('online');
      await expect(ollamaCard).toContainText('v0.6.5');
      await expect(ollamaCard).toContainText(`http://127.0.0.1:${ollama.port}/v1`);
      const ollamaModels = ollamaCard.getByRole('list', { name: /Models on Ollama/ }).getByRole('listitem');
      await expect(ollamaModels).toHaveCount(2);
      await expect(ollamaModels.first()).toContainText('llama3.2:latest');
      await expect(ollamaModels.first()).toContainText('2.0 GB');
      await expect(ollamaModels.first()).toContainText('128K context');
      await expect(ollamaCard.getByRole('button', { name: 'Copy model name qwen2.5-coder:7b' })).toBeVisible();

      const lmCard = page.getByRole('region', { name: `LM Studio on 127.0.0.1:${lmStudio.port}` });
      await expect(lmCard.getByRole('listitem').first()).toContainText('meta-llama-3.1-8b-instruct');
      await expect(lmCard.getByRole('listitem').first()).toContainText('loaded');
      await expect(lmCard.getByRole('listitem').nth(1)).toContainText('32K context');

      // One click: the key is made and shown once, as on the Keys page.
      await ollamaCard.getByRole('button', { name: `Make a key for Ollama on 127.0.0.1:${ollama.port}` }).click();
      const dialog = page.getByRole('dialog');
      await expect(dialog).toContainText(`Virtual key “Ollama on 127.0.0.1:${ollama.port}” created`);
      const key = (await dialog.getByLabel('New key').textContent())?.trim() ?? '';
      expect(key).toMatch(/^gh-vk-/);

      const answer = await fetch(`${gatehouse.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'llama3.2:latest', messages: [{ role: 'user', content: 'Hi' }] }),
      });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { choices: { message: { content: string } }[] }).choices[0].message.content).toBe(fakeReply('ollama', 'llama3.2:latest'));

      await dialog.getByRole('button', { name: 'Done' }).click();
      await expect(dialog).toBeHidden();
      // The key is on the Keys page, bound to the local server.
      await page.getByRole('link', { name: 'Keys' }).click();
      await expect(page.getByRole('list', { name: 'Virtual keys' })).toContainText(`→ http://127.0.0.1:${ollama.port}/v1`);
      expect(problems).toEqual([]);
    });

    test(`a port added in Settings is probed, and a server that goes away shows offline (${theme})`, async ({ page }) => {
      const problems = watchProblems(page);
      const llama = await startLocalServerFake('llamacpp');
      try {
        await page.goto(gatehouse.uiUrl);
        await page.getByRole('link', { name: 'Settings' }).click();
        const ports = page.getByLabel('Extra ports');
        await expect(ports).toHaveValue(new RegExp(`^${ollama.port}, ${lmStudio.port}`));
        await ports.fill(`${await ports.inputValue()}, ${llama.port}`);
        await page.getByRole('button', { name: 'Save ports' }).click();
        await expect(page.getByText('Discovery ports saved')).toBeVisible();

        await page.getByRole('link', { name: 'Local models' }).click();
        const card = page.getByRole('region', { name: `llama.cpp server on 127.0.0.1:${llama.port}` });
        await expect(card).toContainText('online');
        await expect(card).toContainText('gemma-3-4b-it-Q4_K_M.gguf');
        await expect(card).toContainText('8K context');

        await llama.close();
        await page.getByRole('button', { name: 'Refresh' }).click();
        await expect(card).toContainText('offline');
        await expect(card).toContainText('last seen');
        // Still listed with what it last said.
        await expect(card).toContainText('gemma-3-4b-it-Q4_K_M.gguf');
      } finally {
        await llama.close();
        // Leaves the other tests' servers as they were.
        await gatehouse.admin('/settings', { method: 'PATCH', body: JSON.stringify({ discoveryPorts: [ollama.port, lmStudio.port] }) });
      }
      expect(problems).toEqual([]);
    });
  });
}

test('says where it looked when nothing is found', async ({ page }) => {
  const empty = await serveGatehouse({ GATEHOUSE_DISCOVERY_PORTS: '' });
  try {
    await page.goto(empty.uiUrl);
    await page.getByRole('link', { name: 'Local models' }).click();
    await expect(page.getByRole('heading', { name: 'No local model server found' })).toBeVisible();
    await page.getByRole('button', { name: 'Add a port in Settings' }).click();
    await expect(page.getByLabel('Extra ports')).toBeVisible();
  } finally {
    await empty.stop();
  }
});
