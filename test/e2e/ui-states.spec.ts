// What people see when things are empty, wrong, or need confirming — shown in place, operable by
// keyboard — plus every page in dark mode.
import { expect, test } from '@playwright/test';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { screenshot, screenshotWholePage } from './screenshots';
import { openKeyPanel } from './keys-page';

let gatehouse: ServedGatehouse;
let fake: OpenAIFake;

test.beforeAll(async () => {
  fake = await startOpenAIFake();
  gatehouse = await serveGatehouse();
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await fake?.close();
});

test('without a token the page asks for one, and a wrong one is refused in place', async ({ page }) => {
  // A server of its own: the wrong token becomes a refused row in its log, and the test below wants an empty log.
  const own = await serveGatehouse();
  try {
    await page.goto(own.origin);
    await expect(page.getByRole('heading', { name: 'Open Gatehouse' })).toBeVisible();
    await page.getByLabel('Admin token').fill('not-the-token');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByRole('alert')).toContainText('That token was not accepted');
    await screenshot(page, 'sign-in');
    await page.getByLabel('Admin token').fill(own.adminToken);
    await page.keyboard.press('Enter');
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  } finally {
    await own.stop();
  }
});

test('an empty log says so and points to the Playground', async ({ page }) => {
  await page.goto(`${gatehouse.origin}/#/logs&token=${gatehouse.adminToken}`);
  await expect(page.getByRole('heading', { name: 'No requests yet' })).toBeVisible();
  await expect(page).toHaveURL(/#\/logs$/);
  await screenshot(page, 'logs-empty');
  await page.getByRole('button', { name: 'Open the Playground' }).click();
  await expect(page.getByRole('heading', { name: 'Playground' })).toBeVisible();
});

test('the Playground blocks out-of-range values and shows gateway errors next to the run', async ({ page }) => {
  await page.goto(gatehouse.uiUrl);
  // Best of is the Completion API's (Chat is the default mode).
  await page.getByRole('radio', { name: 'Completion' }).click();
  await page.getByRole('radio', { name: 'Paste a key' }).click();
  await page.getByLabel('Virtual key').fill('gh-vk-this-key-does-not-exist');
  await page.getByLabel('Model').fill('gpt-3.5-turbo-instruct');
  await page.getByLabel('Prompt').fill('hello');

  await page.getByRole('spinbutton', { name: 'Temperature' }).fill('2.5');
  await expect(page.getByText('Temperature must be 0 to 2')).toBeVisible();
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(page.getByRole('alert')).toContainText('Temperature must be 0 to 2');
  await page.getByRole('button', { name: 'Reset Temperature' }).click();

  // The gateway's own 401 appears in place, with its status.
  await page.getByLabel('Prompt').press('Control+Enter');
  await expect(page.getByRole('alert')).toContainText('401');
  await screenshot(page, 'playground-error');

  // best_of cannot stream: said before anything is sent.
  await page.getByText('Advanced').click();
  await page.getByRole('spinbutton', { name: 'Best of' }).fill('3');
  await expect(page.getByText('Best of cannot be combined with streaming')).toBeVisible();
});

test('provider mode sends the provider, token and custom host, with presets for local servers', async ({ page }) => {
  const created = await gatehouse.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'Playground' }) });
  const { key: gatewayKey } = (await created.json()) as { key: string };
  await page.goto(gatehouse.uiUrl);
  // The choice groups work from the keyboard: arrows move the choice.
  await page.getByRole('radio', { name: 'Key by name' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('radio', { name: 'Paste a key' })).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('radio', { name: 'Provider + token' })).toBeFocused();
  await expect(page.getByRole('radio', { name: 'Provider + token' })).toHaveAttribute('aria-checked', 'true');
  await page.getByRole('button', { name: 'Ollama' }).click();
  await expect(page.getByLabel('Custom host')).toHaveValue('http://localhost:11434/v1');
  await page.getByRole('button', { name: 'vLLM' }).click();
  await expect(page.getByLabel('Custom host')).toHaveValue('http://localhost:8000/v1');

  await page.getByLabel('Provider', { exact: true }).selectOption('openai');
  await page.getByLabel('Custom host').fill(fake.baseUrl);
  await page.getByLabel('Gateway API key').fill(gatewayKey);
  await page.getByLabel('Provider token').fill('sk-direct-token');
  // Keys faster than React re-renders (a held arrow key) each move the choice: two in one task, two steps.
  await page.getByRole('radiogroup', { name: 'Mode' }).evaluate((group) => {
    const focused = group.querySelector('[role="radio"][aria-checked="true"]') as HTMLElement;
    focused.focus();
    for (let press = 0; press < 2; press++) document.activeElement?.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
  });
  await expect(page.getByRole('radio', { name: 'Messages' })).toHaveAttribute('aria-checked', 'true');
  // Chat comes first, before Completion.
  await page.getByRole('radio', { name: 'Completion' }).focus();
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByRole('radio', { name: 'Chat' })).toHaveAttribute('aria-checked', 'true');
  await page.getByLabel('Model').fill('gpt-4o-mini');
  await page.getByLabel('Prompt').fill('Hi there');
  await page.getByText('Gateway options').click();
  await page.getByLabel('Trace id').fill('e2e-trace-42');
  await page.getByLabel('Metadata').fill('{"team": "e2e"}');
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(page.getByRole('region', { name: 'Output' })).toContainText('Hello from the fake');
  // The gateway echoes the trace id and records it with the metadata.
  await expect(page.getByText('e2e-trace-42', { exact: true })).toBeVisible();
  const logged = (await (await gatehouse.admin('/logs?q=e2e-trace-42')).json()) as { items: Array<{ traceId: string; metadata: Record<string, string> }> };
  expect(logged.items[0]).toMatchObject({ traceId: 'e2e-trace-42', metadata: { team: 'e2e' } });
  await page.getByRole('button', { name: 'Find in Logs' }).click();
  await expect(page.getByLabel('Search')).toHaveValue('e2e-trace-42');
  await expect(page.getByRole('table', { name: 'Requests' }).locator('.log-body [role="row"]')).toHaveCount(1);
  await page.getByRole('link', { name: 'Playground' }).click();
  // The Playground may list the provider's models again as it opens: the chat call is the last of its kind.
  const received = fake.requests.filter((request) => request.url !== '/v1/models').at(-1);
  expect(received?.url).toBe('/v1/chat/completions');
  expect(received?.headers.authorization).toBe('Bearer sk-direct-token');
  await page.getByRole('tab', { name: 'Python' }).click();
  await expect(page.getByLabel('Python snippet', { exact: true })).toContainText('"x-gateway-provider": "openai"');
  await screenshotWholePage(page, 'playground-chat');

  // After a reload the draft is back, but no key or token was kept anywhere in the browser.
  await page.reload();
  await expect(page.getByLabel('Model')).toHaveValue('gpt-4o-mini');
  await expect(page.getByLabel('Gateway API key')).toHaveValue('');
  await expect(page.getByLabel('Provider token')).toHaveValue('');
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  expect(stored).not.toContain('sk-direct-token');
  expect(stored).not.toContain(gatewayKey);
});

test('tokens show as they arrive, and Stop ends the run all the way to the provider', async ({ page }) => {
  const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'Slow', provider: 'openai', secret: 'sk-slow', customHost: fake.baseUrl }) });
  const { key } = (await created.json()) as { key: string };
  let providerSawClose = false;

  await page.goto(gatehouse.uiUrl);
  await page.getByRole('radio', { name: 'Paste a key' }).click();
  await page.getByLabel('Virtual key').fill(key);
  // The Model field reads the key's model list from the provider first; the scripted answer is for the run.
  await expect(page.getByText(/2 models listed by the provider/)).toBeVisible();
  fake.enqueue(async (_request, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = { id: 'cmpl-slow', object: 'text_completion', created: 1, model: 'slow-model', choices: [{ index: 0, text: 'Slowly, the', logprobs: null, finish_reason: null }] };
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    // Never finishes on its own: only the client's Stop can end it.
    await new Promise((resolve) => res.on('close', resolve));
    providerSawClose = true;
  });
  await page.getByLabel('Model').fill('slow-model');
  await page.getByLabel('Prompt').fill('take your time');
  await page.getByRole('button', { name: 'Run' }).click();
  // The token's text must not occur in the placeholder ("Waiting for the first token…"), or
  // Stop could be pressed before anything arrived.
  await expect(page.getByRole('region', { name: 'Output' })).toContainText('Slowly, the');
  await expect(page.getByRole('region', { name: 'Output' })).toHaveAttribute('aria-busy', 'true');
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByRole('button', { name: 'Run' })).toBeVisible();
  await expect(page.getByText('stopped', { exact: true })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Output' })).toContainText('Slowly, the');
  await expect.poll(() => providerSawClose).toBe(true);
});

test('token probabilities are shown when logprobs are asked for', async ({ page }) => {
  const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'Logprobs', provider: 'openai', secret: 'sk-lp', customHost: fake.baseUrl }) });
  const { key } = (await created.json()) as { key: string };
  await page.goto(gatehouse.uiUrl);
  // Chat is the default mode; logprobs as numbers are the Completion API's.
  await page.getByRole('radio', { name: 'Completion' }).click();
  await page.getByRole('radio', { name: 'Paste a key' }).click();
  await page.getByLabel('Virtual key').fill(key);
  // The Model field reads the key's model list from the provider first; the scripted answer is for the run.
  await expect(page.getByText(/2 models listed by the provider/)).toBeVisible();
  fake.enqueue((request, res) => {
    const logprobs = { tokens: ['The', ' sky', ' is', ' blue'], token_logprobs: [-0.01, -0.3, -0.9, -2.5], top_logprobs: [], text_offset: [0, 3, 7, 10] };
    const answer = { id: 'cmpl-lp', object: 'text_completion', created: 1, model: request.json.model, choices: [{ index: 0, text: 'The sky is blue', logprobs, finish_reason: 'length' }], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
  });
  await page.getByLabel('Model').fill('davinci-002');
  await page.getByLabel('Prompt').fill('Colour of the sky:');
  await page.getByRole('checkbox', { name: 'Stream' }).uncheck();
  await page.getByText('Advanced').click();
  await page.getByRole('spinbutton', { name: 'Logprobs' }).fill('2');
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(page.getByRole('region', { name: 'Output' })).toContainText('The sky is blue');
  expect(fake.requests.at(-1)?.json.logprobs).toBe(2);
  await page.getByRole('checkbox', { name: 'Token probabilities' }).check();
  await expect(page.getByTitle(/^p = 99\.0%/)).toHaveText('The');
  await expect(page.getByTitle(/^p = 8\.2%/)).toHaveText(' blue');
  await screenshot(page, 'playground-logprobs');
});

test('keys are renamed, and revoked only after confirming', async ({ page }) => {
  await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'Old name', provider: 'openai', secret: 'sk-x', customHost: fake.baseUrl }) });
  await gatehouse.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'CI runner' }) });
  await page.goto(`${gatehouse.origin}/#/keys&token=${gatehouse.adminToken}`);

  // A name is required: the form says so next to the field.
  await page.getByRole('button', { name: 'New virtual key' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('dialog').getByText('Give the key a name')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);

  const panel = await openKeyPanel(page, 'Old name');
  await panel.getByRole('button', { name: 'Rename' }).click();
  await page.getByLabel('New name for Old name').fill('New name');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('table', { name: 'Virtual keys' })).toContainText('New name');

  // A leaked gh-vk- key is replaced without re-entering the provider credential.
  await page.getByRole('dialog', { name: 'New name', exact: true }).getByRole('button', { name: 'Rotate credential' }).click();
  await page.getByRole('button', { name: 'Issue a new key' }).click();
  await expect(page.getByRole('dialog', { name: /created/ }).getByLabel('New key')).toHaveText(/^gh-vk-/);
  await page.getByRole('button', { name: 'Done' }).click();
  await page.getByRole('dialog', { name: 'New name', exact: true }).getByRole('button', { name: 'Close' }).click();

  const gatewayPanel = await openKeyPanel(page, 'CI runner');
  await gatewayPanel.getByRole('button', { name: 'Revoke' }).click();
  const confirm = page.getByRole('dialog', { name: 'Revoke “CI runner”?' });
  await expect(confirm).toBeVisible();
  await screenshot(page, 'keys-revoke');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('table', { name: 'Gateway keys' })).toContainText('CI runner');
  await gatewayPanel.getByRole('button', { name: 'Revoke' }).click();
  await confirm.getByRole('button', { name: 'Revoke key' }).click();
  await expect(page.getByText('CI runner')).toHaveCount(0);
  const remaining = (await (await gatehouse.admin('/gateway-keys')).json()) as { items: Array<{ name: string }> };
  expect(remaining.items.map((key) => key.name)).not.toContain('CI runner');
});

test.describe('dark mode', () => {
  test.use({ colorScheme: 'dark' });

  test('every page renders in dark mode', async ({ page }) => {
    const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'Dark', provider: 'openai', secret: 'sk-dark', customHost: fake.baseUrl }) });
    const { key } = (await created.json()) as { key: string };
    const streamed = await fetch(`${gatehouse.origin}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': key },
      body: JSON.stringify({ model: 'dark-model', prompt: 'night owl', stream: true }),
    });
    await streamed.text();

    await page.goto(gatehouse.uiUrl);
    await page.getByLabel('Model').fill('gpt-4o-mini');
    await screenshot(page, 'dark-playground');
    // Each page is photographed once its data is in (the log's live feed never lets the network idle).
    const loaded = { Logs: page.getByRole('table', { name: 'Requests' }), Keys: page.getByRole('table', { name: 'Virtual keys' }), Settings: page.getByRole('heading', { name: /Key protection/ }) };
    for (const name of ['Logs', 'Keys', 'Settings'] as const) {
      await page.getByRole('link', { name }).click();
      await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
      await expect(loaded[name]).toBeVisible();
      await screenshot(page, `dark-${name.toLowerCase()}`);
    }

    await page.getByRole('link', { name: 'Logs' }).click();
    await page.getByRole('table', { name: 'Requests' }).getByText('dark-model').first().click();
    await expect(page.getByRole('region', { name: 'Request detail' })).toContainText('echo: night owl');
    await screenshot(page, 'dark-logs-detail');
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('button', { name: 'New virtual key' }).click();
    await expect(page.getByRole('dialog')).toBeVisible();
    await screenshot(page, 'dark-keys-new');
  });
});
