// The Local models page (issue 15) against fakes that answer like Ollama, LM Studio and llama.cpp:
// the servers are listed with their kind, version and models; one click makes a key that runs a
// prompt through the gateway; a server that goes away is shown offline; a port added in Settings is
// probed; a discovered model is added to a new route in one flow (its key made on the way), then to
// that route again as a fallback, and the route serves a request sent with only a gateway key and the
// route's name. Light and dark, with no console errors.
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
      // Both themes run against one gateway: the second key for this server gets the next free name.
      await expect(dialog).toContainText(new RegExp(`Virtual key “Ollama on 127\\.0\\.0\\.1:${ollama.port}( \\(\\d+\\))?” created`));
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
      // A server that has a key offers that key, not another "Make a key"; it leads to the Keys page.
      await expect(ollamaCard.getByRole('button', { name: /^Make a key/ })).toHaveCount(0);
      await ollamaCard.getByRole('button', { name: /^Key: Ollama on 127\.0\.0\.1:/ }).click();
      // The key is on the Keys page, bound to the local server.
      await expect(page.getByRole('heading', { name: 'Keys', level: 1 })).toBeVisible();
      await expect(page.getByRole('table', { name: 'Virtual keys' })).toContainText(`http://127.0.0.1:${ollama.port}/v1`);
      // Revoked again, so the other theme's run starts from a server without a key.
      const listed = (await (await gatehouse.admin('/virtual-keys')).json()) as { items: Array<{ id: string; customHost: string | null }> };
      for (const made of listed.items.filter((item) => item.customHost === `http://127.0.0.1:${ollama.port}/v1`)) await gatehouse.admin(`/virtual-keys/${made.id}`, { method: 'DELETE' });
      expect(problems).toEqual([]);
    });

    test(`adds a discovered model to a new route in one flow, and the route serves a gateway key's request (${theme})`, async ({ page }) => {
      const problems = watchProblems(page);
      // A server of its own: no key reaches it yet, so the flow makes one.
      const studio = await startLocalServerFake('lmstudio');
      const routeName = `local-${theme}`;
      const serverName = `LM Studio on 127.0.0.1:${studio.port}`;
      let namesakeId: string | null = null;
      try {
        expect((await gatehouse.admin('/settings', { method: 'PATCH', body: JSON.stringify({ discoveryPorts: [ollama.port, lmStudio.port, studio.port] }) })).status).toBe(200);
        await openLocalModels(page);
        await page.getByRole('button', { name: 'Refresh' }).click();
        const card = page.getByRole('region', { name: serverName });
        await expect(card).toContainText('online');

        await card.getByRole('button', { name: 'Add to a route: meta-llama-3.1-8b-instruct' }).click();
        const dialog = page.getByRole('dialog', { name: 'Add meta-llama-3.1-8b-instruct to a route' });
        await expect(dialog).toContainText(`${serverName} → meta-llama-3.1-8b-instruct`);
        // The key made on the way is shown this once, in the same dialog.
        await expect(dialog).toContainText(`Made the virtual key “${serverName}” for this server.`);
        await expect(dialog.getByLabel('New key')).toHaveText(/^gh-vk-/);
        const name = dialog.getByLabel('Route name');
        await expect(name).toHaveValue('meta-llama-3.1-8b-instruct');
        await name.fill(routeName);
        await dialog.getByRole('button', { name: 'Create route' }).click();
        const created = page.getByRole('dialog', { name: `Route “${routeName}” created` });
        await expect(created).toContainText(`Send ${routeName} as the model with a gateway key`);
        await created.getByRole('button', { name: 'Done' }).click();
        await expect(created).toBeHidden();

        // The second model: the same key is used (nothing made), a taken name is refused beside the field,
        // and it joins the route just made as its fallback.
        const namesake = await gatehouse.admin('/routes', { method: 'POST', body: JSON.stringify({ name: 'qwen2-vl-7b-instruct', match: 'vision-*', strategy: 'fallback', targets: [{ key: serverName, model: 'meta-llama-3.1-8b-instruct' }] }) });
        expect(namesake.status).toBe(201);
        namesakeId = ((await namesake.json()) as { id: string }).id;
        await card.getByRole('button', { name: 'Add to a route: qwen2-vl-7b-instruct' }).click();
        const second = page.getByRole('dialog', { name: 'Add qwen2-vl-7b-instruct to a route' });
        await expect(second).toContainText(`${serverName} → qwen2-vl-7b-instruct`);
        await expect(second).not.toContainText('Made the virtual key');
        // The name proposed is one no route has (a route is already named after this model), and a taken
        // name typed in is refused beside the field in plain words, before anything is sent.
        await expect(second.getByLabel('Route name')).toHaveValue('qwen2-vl-7b-instruct-2');
        await second.getByLabel('Route name').fill(routeName);
        await second.getByRole('button', { name: 'Create route' }).click();
        await expect(second.getByLabel('Route name')).toHaveAttribute('aria-invalid', 'true');
        await expect(second.locator('.field-error')).toHaveText(`A route is already named “${routeName}”. Choose another name, or add this model to that route under Existing route.`);
        // (A route named as the model would also catch it as a target: it goes before the model joins a route.)
        expect((await gatehouse.admin(`/routes/${namesakeId}`, { method: 'DELETE' })).ok).toBe(true);
        namesakeId = null;
        await second.getByRole('radio', { name: 'Existing route' }).click();
        await second.getByLabel('Add to').selectOption({ label: `${routeName} · 1 target` });
        await second.getByRole('button', { name: 'Add target' }).click();
        const added = page.getByRole('dialog', { name: `Added to “${routeName}”` });
        await expect(added).toContainText('target 2 of 2: tried when the ones before it fail');
        await added.getByRole('button', { name: 'Open Routes' }).click();

        await expect(page.getByRole('heading', { name: 'Routes', level: 1 })).toBeVisible();
        const row = page.getByRole('list', { name: 'Routes' }).getByRole('listitem').filter({ has: page.getByRole('heading', { name: routeName }) });
        await expect(row).toContainText(`${serverName} → meta-llama-3.1-8b-instruct`);
        await expect(row).toContainText(`${serverName} → qwen2-vl-7b-instruct`);

        // A client with only a gateway key and the route's name reaches the local server.
        const gateway = await gatehouse.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: `Local route ${theme}` }) });
        const gatewayKey = ((await gateway.json()) as { key: string }).key;
        const answer = await fetch(`${gatehouse.origin}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${gatewayKey}` },
          body: JSON.stringify({ model: routeName, messages: [{ role: 'user', content: 'Hi' }] }),
        });
        expect(answer.status).toBe(200);
        expect(((await answer.json()) as { choices: { message: { content: string } }[] }).choices[0].message.content).toBe(fakeReply('lmstudio', 'meta-llama-3.1-8b-instruct'));
        // (Discovery's probe for a Responses API is an empty POST /v1/responses: only the chat calls count here.)
        expect(studio.requests.filter((request) => request.method === 'POST' && request.path === '/v1/chat/completions').map((request) => request.json.model)).toEqual(['meta-llama-3.1-8b-instruct']);
      } finally {
        await studio.close();
        if (namesakeId) await gatehouse.admin(`/routes/${namesakeId}`, { method: 'DELETE' });
        await gatehouse.admin('/settings', { method: 'PATCH', body: JSON.stringify({ discoveryPorts: [ollama.port, lmStudio.port] }) });
      }
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
