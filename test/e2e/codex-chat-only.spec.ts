// A Codex set-up for a key whose server speaks Chat Completions only (LM Studio, vLLM, llama.cpp behind an
// `openai` key): the Keys page marks the key "Chat only", the Connect page's Codex set-up for it is the
// usual Responses one (wire_api "responses", base_url the gateway's /v1), and that set-up works: Codex's
// own request, sent where the set-up says with the key it names, is answered as a Responses stream while
// the server only ever sees Chat. With GATEHOUSE_E2E_CODEX naming a Codex CLI binary, the real `codex exec`
// runs with the page's config.toml too.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai';
import { serveGatehouse, type ServedGatehouse } from './gatehouse-server';
import { collectProblems } from './page-problems.js';
import { openKeyPanel } from './keys-page';

const CODEX = JSON.parse(readFileSync(new URL('../fixtures/codex-0.171-responses-request.json', import.meta.url), 'utf8')) as { userAgent: string; body: Record<string, unknown> };
const MODEL = 'qwen2.5-coder-7b';

/** Answers /v1/chat/completions strictly, as OpenAI does, and 404 to /v1/responses: a Chat-only server. */
let chatOnlyServer: OpenAIFake;
let gatehouse: ServedGatehouse;
let key: string;

test.beforeAll(async () => {
  chatOnlyServer = await startOpenAIFake();
  gatehouse = await serveGatehouse();
  const created = await gatehouse.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'lm-studio', provider: 'openai', secret: 'sk-local-0123456789', customHost: chatOnlyServer.baseUrl, chatOnly: true }) });
  expect(created.status).toBe(201);
  key = ((await created.json()) as { key: string }).key;
});

test.afterAll(async () => {
  await gatehouse?.stop();
  await chatOnlyServer?.close();
});

/** The Connect page's Codex config.toml for the key, as the page shows it. */
async function codexTomlFromPage(page: Page): Promise<string> {
  await page.getByRole('link', { name: 'Connect a tool' }).click();
  await page.getByLabel('Virtual key').fill(key);
  await page.getByLabel('Model').fill(MODEL);
  const agents = page.getByRole('region', { name: 'Coding agents' });
  await agents.getByRole('tab', { name: 'Codex' }).click();
  const toml = agents.getByLabel('Codex CLI: Save as ~/.codex/config.toml', { exact: true });
  await expect(toml).toContainText(`model = "${MODEL}"`);
  return (await toml.locator('pre, code').first().textContent()) ?? '';
}

const tomlValue = (toml: string, name: string) => toml.match(new RegExp(`^${name} = "([^"]*)"$`, 'm'))?.[1];

test('a chat-only key gets a Codex set-up that works through the translated path', async ({ page }) => {
  const problems = collectProblems(page);
  await page.goto(gatehouse.uiUrl);
  await page.getByRole('link', { name: 'Keys' }).click();
  await expect((await openKeyPanel(page, 'lm-studio')).locator('.badge', { hasText: 'Chat only' })).toBeVisible();
  await page.keyboard.press('Escape');

  const toml = await codexTomlFromPage(page);
  expect(tomlValue(toml, 'wire_api')).toBe('responses');
  expect(tomlValue(toml, 'base_url')).toBe(`${gatehouse.origin}/v1`);
  expect(tomlValue(toml, 'env_key')).toBe('GATEHOUSE_API_KEY');
  await expect(page.getByRole('region', { name: 'Coding agents' }).getByLabel('Codex CLI: Set in your shell, then run codex', { exact: true })).toContainText(`export GATEHOUSE_API_KEY=${key}`);

  // What Codex does with that set-up: its own Responses request to base_url + /responses, the key as Bearer.
  const response = await fetch(`${tomlValue(toml, 'base_url')}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${key}`, 'user-agent': CODEX.userAgent },
    body: JSON.stringify({ ...CODEX.body, model: tomlValue(toml, 'model') }),
  });
  expect(response.status).toBe(200);
  const stream = await response.text();
  expect(stream).toContain('"type":"response.output_text.delta"');
  expect(stream).toContain('Hello from the fake');
  expect(stream).toContain('"type":"response.completed"');
  // (Creating the key checked its host with a GET of /v1/models.)
  expect(chatOnlyServer.requests.filter((request) => request.method === 'POST').map((request) => request.url)).toEqual(['/v1/chat/completions']);

  // The Logs page shows the Responses call served in Chat's format.
  await page.getByRole('link', { name: 'Logs' }).click();
  await expect(page.getByRole('row', { name: /\/v1\/responses/ }).first()).toBeVisible();
  expect(problems).toEqual([]);
});

const codexBinary = process.env.GATEHOUSE_E2E_CODEX;
test('the real Codex CLI answers through the page\'s set-up', async ({ page }) => {
  test.skip(!codexBinary, 'GATEHOUSE_E2E_CODEX names no Codex CLI binary');
  test.setTimeout(120_000);
  await page.goto(gatehouse.uiUrl);
  const toml = await codexTomlFromPage(page);
  const home = mkdtempSync(join(tmpdir(), 'gatehouse-codex-home-'));
  const work = mkdtempSync(join(tmpdir(), 'gatehouse-codex-work-'));
  try {
    writeFileSync(join(home, 'config.toml'), toml);
    const output = await new Promise<{ error: Error | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(codexBinary!, ['exec', '--skip-git-repo-check', 'Say hello in one short sentence.'], { cwd: work, env: { ...process.env, CODEX_HOME: home, GATEHOUSE_API_KEY: key }, timeout: 90_000 }, (error, stdout, stderr) => resolve({ error, stdout, stderr }));
      // codex exec reads more of the prompt from stdin until it is closed.
      child.stdin?.end();
    });
    expect(output.error, output.stderr).toBeNull();
    expect(output.stdout).toContain('Hello from the fake');
  } finally {
    rmSync(home, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
});
