// The Playground as a chat (issue 38), against the real `gatehouse serve` and two OpenAI-format doubles
// that stream their replies word by word: the transcript across three streamed turns at 1280x800 with the
// newest turn and reply in view (and left alone when the person scrolled up), Markdown replies, a model
// re-picked on a key change, the code tabs equal to the request that ran, Stop while streaming, edit and
// resend, regenerate, Compare pre-filled, and a log row that asks before replacing a conversation.
import { expect, test, type Page } from '@playwright/test';
import type { ServerResponse } from 'node:http';
import { openaiChatProblem } from '../fakes/openai';
import { startRecordingServer, type RecordedRequest, type RecordingServer } from '../fakes/recording-server';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { collectProblems } from './page-problems';

type ChatTurn = { role: string; content: string };

/** The reply to a question: Markdown with a list and a code block, tall enough that three turns outgrow the window. */
const replyTo = (question: string) =>
  `**Answer** to \`${question}\`:\n\n- first point about ${question}\n- second point\n\n\`\`\`js\nconsole.log(${JSON.stringify(question)});\n\`\`\`\n\nThat is all about ${question}.`;

/**
 * An OpenAI-format double with its own model list whose chat answers stream word by word, a few ms
 * apart. A question containing "slowly" streams 400 ms apart; one containing "hang" sends a first word
 * and never ends (only the client's Stop ends it).
 */
async function startChatDouble(models: string[]): Promise<RecordingServer & { baseUrl: string; state: { closedEarly: number } }> {
  const state = { closedEarly: 0 };
  const server = await startRecordingServer(async (request: RecordedRequest, res: ServerResponse) => {
    if (request.method === 'GET' && request.url.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model', created: 1, owned_by: 'test' })) }));
      return;
    }
    const problem = openaiChatProblem(request.json);
    if (problem || !request.url.endsWith('/chat/completions')) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: problem?.message ?? 'unexpected path', type: 'invalid_request_error' } }));
      return;
    }
    const messages = request.json.messages as ChatTurn[];
    const question = messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: request.json.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (question.includes('hang')) {
      res.write(chunk({ role: 'assistant', content: 'Partly there' }));
      await new Promise((resolve) => res.on('close', resolve));
      state.closedEarly += 1;
      return;
    }
    const pause = question.includes('slowly') ? 400 : 5;
    const words = replyTo(question).split(/(?<= )/);
    for (const word of words) {
      if (res.destroyed) return;
      res.write(chunk({ content: word }));
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
    res.write(chunk({}, 'stop'));
    res.end('data: [DONE]\n\n');
  });
  return { ...server, baseUrl: `${server.origin}/v1`, state };
}

let gatehouse: ServedGatehouse;
let alpha: Awaited<ReturnType<typeof startChatDouble>>;
let beta: Awaited<ReturnType<typeof startChatDouble>>;
const keys: Record<'alpha' | 'beta', { id: string; name: string }> = {} as never;

test.beforeAll(async () => {
  alpha = await startChatDouble(['alpha-small', 'alpha-large']);
  beta = await startChatDouble(['beta-one', 'beta-two']);
  gatehouse = await serveGatehouse({ GATEHOUSE_DISCOVERY_PORTS: '' });
  for (const [which, fake, name] of [['alpha', alpha, 'Alpha key'], ['beta', beta, 'Beta key']] as const) {
    const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name, provider: 'openai', secret: `sk-chat-${which}-1234567890`, customHost: fake.baseUrl }) });
    expect(created.status).toBe(201);
    keys[which] = { id: ((await created.json()) as { id: string }).id, name };
  }
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await alpha?.close();
  await beta?.close();
});

const chatRequests = (fake: RecordingServer) => fake.requests.filter((request) => request.url.endsWith('/chat/completions'));
const sentTurns = (request: RecordedRequest | undefined) => ((request?.json.messages ?? []) as ChatTurn[]).map((message) => `${message.role}: ${message.content}`);

/** A fresh page on the Playground, in Chat, with a key picked by name and its model. */
async function openPlayground(page: Page, key: 'alpha' | 'beta' = 'alpha') {
  await page.goto(gatehouse.uiUrl);
  await expect(page.getByRole('heading', { name: 'Playground', level: 1 })).toBeVisible();
  await page.getByLabel('Key', { exact: true }).selectOption(keys[key].id);
  await expect(page.getByLabel('Model')).toHaveValue(key === 'alpha' ? /^alpha-/ : /^beta-/);
}

async function send(page: Page, text: string) {
  await page.getByLabel('Prompt').fill(text);
  await page.getByRole('button', { name: 'Run' }).click();
}

const transcriptOf = (page: Page) => page.getByRole('list', { name: 'Conversation' });
const lastTurns = (page: Page) => transcriptOf(page).locator(':scope > li');

test('three streamed turns at 1280x800: each reply streams into the transcript as Markdown, the newest turn and its reply in view with the composer, and a person who scrolled up is left there', async ({ page }) => {
  const problems = collectProblems(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await openPlayground(page);
  const turns = lastTurns(page);
  for (const [round, question] of ['first question', 'second question', 'third question'].entries()) {
    await send(page, question);
    await expect(turns).toHaveCount(3 + round * 2);
    const reply = turns.last();
    await expect(reply).toContainText(`That is all about ${question}.`);
    await expect(page.getByRole('button', { name: 'Run' })).toBeVisible();
    // The newest turn and its whole reply are on screen, and so is the box to answer it.
    await expect(turns.nth(-2)).toContainText(question);
    await expect(turns.nth(-2)).toBeInViewport({ ratio: 1 });
    await expect(reply).toBeInViewport({ ratio: 1 });
    await expect(page.getByLabel('Prompt')).toBeInViewport({ ratio: 1 });
  }
  // Three turns do not fit the window: the view followed them.
  expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
  // Markdown, built as elements: bold, inline code, a list, a code block with its own copy button, no marks left.
  const reply = turns.last();
  await expect(reply.locator('strong')).toHaveText('Answer');
  await expect(reply.locator('p code')).toHaveText('third question');
  await expect(reply.locator('ul > li')).toHaveCount(2);
  await expect(reply.locator('.md-code pre')).toHaveText('console.log("third question");');
  await expect(reply.getByRole('button', { name: 'Copy code' })).toBeVisible();
  expect(await reply.innerText()).not.toContain('**');
  expect(sentTurns(chatRequests(alpha).at(-1))).toEqual([
    'system: You are a helpful assistant.',
    'user: first question',
    `assistant: ${replyTo('first question')}`,
    'user: second question',
    `assistant: ${replyTo('second question')}`,
    'user: third question',
  ]);

  // A slow reply: the person scrolls up to read an earlier turn, and the stream does not pull them down.
  await send(page, 'tell it slowly');
  await expect(page.getByRole('region', { name: 'Output' })).toContainText('Answer');
  await page.evaluate(() => window.scrollTo(0, 0));
  await expect(page.getByRole('region', { name: 'Output' })).toContainText('That is all about tell it slowly.', { timeout: 30_000 });
  await expect(page.getByRole('button', { name: 'Run' })).toBeVisible();
  expect(await page.evaluate(() => window.scrollY)).toBe(0);

  // The sticky Parameters column, taller than this window, is never cut at the window's bottom: scrolled
  // down, its last control is on screen, and nothing of it hides in a scroller of its own.
  const parameters = page.getByRole('complementary', { name: 'Parameters' });
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  const box = await parameters.boundingBox();
  expect(box!.y + box!.height).toBeLessThanOrEqual(800);
  await expect(parameters.getByText('Advanced', { exact: true })).toBeInViewport();
  expect(await parameters.evaluate((element) => element.scrollHeight - element.clientHeight)).toBeLessThanOrEqual(1);
  expect(problems).toEqual([]);
});

test('changing the key picks a model that key serves, the last one used with it or else its first, and says so', async ({ page }) => {
  const problems = collectProblems(page);
  await openPlayground(page, 'alpha');
  const model = page.getByLabel('Model');
  await model.fill('alpha-large');
  await send(page, 'on alpha');
  await expect(lastTurns(page).last()).toContainText('That is all about on alpha.');
  expect(chatRequests(alpha).at(-1)?.json.model).toBe('alpha-large');

  const keyPicker = page.getByLabel('Key', { exact: true });
  await keyPicker.selectOption(keys.beta.id);
  await expect(model).toHaveValue('beta-one');
  await expect(page.getByRole('status').filter({ hasText: 'Model set to beta-one, the first one Beta key serves.' })).toBeVisible();
  const betaCalls = chatRequests(beta).length;
  await send(page, 'on beta');
  await expect(lastTurns(page).last()).toContainText('That is all about on beta.');
  expect(chatRequests(beta)).toHaveLength(betaCalls + 1);
  expect(chatRequests(beta).at(-1)?.json.model).toBe('beta-one');

  await keyPicker.selectOption(keys.alpha.id);
  await expect(model).toHaveValue('alpha-large');
  await expect(page.getByRole('status').filter({ hasText: 'Model set to alpha-large, the one last used with Alpha key.' })).toBeVisible();
  expect(problems).toEqual([]);
});

test('the curl, Python and JavaScript tabs show exactly the request that ran, not one ending with the reply', async ({ page }) => {
  await openPlayground(page);
  await send(page, 'curl one');
  await expect(lastTurns(page).last()).toContainText('That is all about curl one.');
  await send(page, 'curl two');
  await expect(lastTurns(page).last()).toContainText('That is all about curl two.');
  const received = chatRequests(alpha).at(-1)!;

  await page.getByRole('tab', { name: 'curl' }).click();
  const curl = (await page.getByLabel('curl snippet', { exact: true }).textContent()) ?? '';
  const body = /-d '([\s\S]*)'\s*$/.exec(curl)?.[1].replace(/'\\''/g, "'");
  expect(body).toBeDefined();
  // What the provider double received is what the snippet sends, field for field.
  expect(JSON.parse(body!)).toEqual(received.json);
  expect(sentTurns(received).at(-1)).toBe('user: curl two');
  for (const tab of ['Python', 'JavaScript'] as const) {
    await page.getByRole('tab', { name: tab }).click();
    const code = (await page.getByLabel(`${tab} snippet`, { exact: true }).textContent()) ?? '';
    expect(code).toContain('curl two');
    expect(code).not.toContain('That is all about curl two.');
  }
});

test('Stop while a reply streams ends the call at the provider and keeps the reply as far as it came, marked stopped', async ({ page }) => {
  await openPlayground(page);
  const closedBefore = alpha.state.closedEarly;
  await send(page, 'please hang');
  const output = page.getByRole('region', { name: 'Output' });
  await expect(output).toContainText('Partly there');
  await expect(output).toHaveAttribute('aria-busy', 'true');
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByRole('button', { name: 'Run' })).toBeVisible();
  await expect.poll(() => alpha.state.closedEarly).toBe(closedBefore + 1);
  const reply = lastTurns(page).last();
  await expect(reply).toContainText('Partly there');
  await expect(reply.getByText('stopped', { exact: true })).toBeVisible();
  await expect(lastTurns(page)).toHaveCount(3);
});

test('edit and resend from an earlier turn drops the turns after it; regenerate asks for the reply again', async ({ page }) => {
  await openPlayground(page);
  await send(page, 'question A');
  await expect(lastTurns(page).last()).toContainText('That is all about question A.');
  await send(page, 'question B');
  await expect(lastTurns(page)).toHaveCount(5);
  await expect(lastTurns(page).last()).toContainText('That is all about question B.');

  // Edit the first question and send it again: the second exchange goes, a new reply comes.
  await page.getByRole('button', { name: 'Edit message 2' }).click();
  await page.getByRole('textbox', { name: 'Message 2 (user)' }).fill('question A, rephrased');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(lastTurns(page)).toHaveCount(3);
  await expect(lastTurns(page).last()).toContainText('That is all about question A, rephrased.');
  await expect(transcriptOf(page)).not.toContainText('question B');
  expect(sentTurns(chatRequests(alpha).at(-1))).toEqual(['system: You are a helpful assistant.', 'user: question A, rephrased']);

  // Regenerate the reply: the same conversation goes again, the reply is replaced, not added.
  const calls = chatRequests(alpha).length;
  await page.getByRole('button', { name: 'Regenerate message 3' }).click();
  await expect.poll(() => chatRequests(alpha).length).toBe(calls + 1);
  await expect(page.getByRole('button', { name: 'Run' })).toBeVisible();
  await expect(lastTurns(page)).toHaveCount(3);
  await expect(lastTurns(page).last()).toContainText('That is all about question A, rephrased.');
  expect(sentTurns(chatRequests(alpha).at(-1))).toEqual(['system: You are a helpful assistant.', 'user: question A, rephrased']);

  // A new chat keeps the key, the model and the system message.
  const model = await page.getByLabel('Model').inputValue();
  await page.getByRole('button', { name: 'New chat' }).click();
  await expect(lastTurns(page)).toHaveCount(1);
  await expect(page.getByLabel('Model')).toHaveValue(model);
  await expect(page.getByLabel('Key', { exact: true })).toHaveValue(keys.alpha.id);
});

test('Compare pre-fills both sides with models their keys serve, and shows model ids as written', async ({ page }) => {
  await openPlayground(page);
  await page.getByLabel('Model').fill('alpha-Large-MixedCase');
  await page.getByRole('radio', { name: 'Compare' }).click();
  await expect(page.getByLabel('Model A')).toHaveValue('alpha-Large-MixedCase');
  await expect(page.getByLabel('Key B')).toHaveValue(keys.beta.id);
  await expect(page.getByLabel('Model B')).toHaveValue('beta-one');
  await page.getByLabel('Model A').fill('alpha-small');
  await page.getByLabel('Prompt').fill('compare this');
  await page.getByRole('button', { name: 'Run' }).click();
  const resultA = page.getByRole('region', { name: 'Result A' });
  await expect(resultA).toContainText('That is all about compare this.');
  // As the eye reads it (innerText applies CSS text-transform).
  expect(await resultA.locator('h3').innerText()).toContain('alpha-small');
  expect(await page.getByRole('region', { name: 'Result B' }).locator('h3').innerText()).toContain('beta-one');
  await page.getByRole('radio', { name: 'Single' }).click();
});

test('Open in Playground from a log row asks before replacing a conversation in progress', async ({ page }) => {
  await openPlayground(page);
  await send(page, 'logged question');
  await expect(lastTurns(page).last()).toContainText('That is all about logged question.');
  await send(page, 'conversation to keep');
  await expect(lastTurns(page)).toHaveCount(5);

  await page.getByRole('link', { name: 'Logs' }).click();
  const row = page.getByRole('table', { name: 'Requests' }).getByRole('row').filter({ hasText: 'alpha-' }).first();
  await row.click();
  const detail = page.getByRole('region', { name: 'Request detail' });
  await detail.getByRole('button', { name: 'Open in Playground' }).click();
  const dialog = page.getByRole('dialog', { name: 'Replace the conversation?' });
  await expect(dialog).toContainText('4 turns');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(detail).toBeVisible();

  await page.getByRole('link', { name: 'Playground' }).click();
  await expect(lastTurns(page)).toHaveCount(5);
  await expect(transcriptOf(page)).toContainText('conversation to keep');

  await page.getByRole('link', { name: 'Logs' }).click();
  await page.getByRole('table', { name: 'Requests' }).getByRole('row').filter({ hasText: 'alpha-' }).first().click();
  await page.getByRole('region', { name: 'Request detail' }).getByRole('button', { name: 'Open in Playground' }).click();
  await page.getByRole('dialog', { name: 'Replace the conversation?' }).getByRole('button', { name: 'Replace it' }).click();
  await expect(page.getByRole('heading', { name: 'Playground', level: 1 })).toBeVisible();
  await expect(transcriptOf(page)).not.toContainText('That is all about conversation to keep.');
});
