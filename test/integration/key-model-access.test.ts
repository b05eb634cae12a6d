// Which models a key may call (allowedModels): set through the admin API or the CLI, checked at
// admission like a limit. A model not on the list is a 403 in the client's own dialect that names the
// model, and no provider is called; null lets the key call every model again. The admin token of a
// deployment comes from GATEHOUSE_ADMIN_TOKEN.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ADMIN_TOKEN = 'team-admin-token-0123456789abcdef';
let gateway: TestGateway;
let openai: OpenAIFake;
let anthropic: AnthropicFake;

beforeAll(async () => {
  gateway = await startGateway({ env: { GATEHOUSE_ADMIN_TOKEN: ADMIN_TOKEN } });
  openai = await startOpenAIFake();
  anthropic = await startAnthropicFake();
});
afterAll(async () => {
  await gateway.close();
  await openai.close();
  await anthropic.close();
});

async function json<T>(response: Response): Promise<T> {
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as T;
}

const allow = (id: string, allowedModels: unknown) => gateway.admin(`/keys/${id}/allowed-models`, { method: 'PUT', body: JSON.stringify({ allowedModels }) });

function chat(key: string, model: string) {
  return fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': openai.baseUrl, authorization: 'Bearer sk-test' },
    body: JSON.stringify({ model, max_tokens: 3, messages: [{ role: 'user', content: 'hi' }] }),
  }).then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> }));
}

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src-main/cli.ts', ...args, '--data-dir', gateway.dataDir], { cwd: repoRoot, env: { PATH: process.env.PATH, HOME: gateway.dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('models a key may call', () => {
  it('the admin token is the deployment\'s GATEHOUSE_ADMIN_TOKEN', async () => {
    expect(gateway.adminToken).toBe(ADMIN_TOKEN);
    const response = await fetch(`${gateway.baseUrl}/admin/api/limits`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(response.status).toBe(200);
  });

  it('a gateway key limited to gpt-4o-mini gets an OpenAI 403 naming any other model, and reaches no provider', async () => {
    const created = await json<{ id: string; key: string }>(await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'mini-only' }) }));
    expect(await json(await gateway.admin(`/keys/${created.id}/allowed-models`))).toMatchObject({ keyName: 'mini-only', allowedModels: null });
    expect(await json(await allow(created.id, ['gpt-4o-mini', 'o3-*']))).toMatchObject({ allowedModels: ['gpt-4o-mini', 'o3-*'] });
    expect((await chat(created.key, 'gpt-4o-mini')).status).toBe(200);
    const before = openai.requests.length;
    const refused = await chat(created.key, 'gpt-4o');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'model_not_allowed', param: 'model' });
    expect((refused.body.error as { message: string }).message).toContain("may not call model 'gpt-4o'");
    expect(openai.requests.length).toBe(before);
    // null: every model again.
    expect(await json(await allow(created.id, null))).toMatchObject({ allowedModels: null });
    expect((await chat(created.key, 'gpt-4o')).status).toBe(200);
  });

  it('a virtual key limited by a glob gets the refusal in Anthropic\'s shape', async () => {
    const created = await json<{ id: string; key: string }>(
      await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'haiku-only', provider: 'anthropic', secret: 'sk-ant-test', customHost: anthropic.baseUrl }) }),
    );
    await json(await allow(created.id, ['claude-3-5-haiku-*']));
    const messages = (model: string) =>
      fetch(`${gateway.baseUrl}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': created.key, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
      });
    expect((await messages('claude-3-5-haiku-20241022')).status).toBe(200);
    const refused = await messages('claude-3-opus-20240229');
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ type: 'error', error: { type: 'permission_error', message: expect.stringContaining("'claude-3-opus-20240229'") as unknown } });
  });

  it('bad lists are a 400 naming allowedModels; an unknown key is a 404', async () => {
    const created = await json<{ id: string }>(await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'checked-models' }) }));
    for (const bad of [[], 'gpt-4o', [''], [42], Array.from({ length: 201 }, (_, i) => `m${i}`), ['route:']]) {
      const response = await allow(created.id, bad);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { param: string } }).error.param).toBe('allowedModels');
    }
    const unknownField = await gateway.admin(`/keys/${created.id}/allowed-models`, { method: 'PUT', body: JSON.stringify({ allowedModels: null, models: [] }) });
    expect(unknownField.status).toBe(400);
    expect((await allow('gk_0000', ['x'])).status).toBe(404);
  });

  it('gatehouse keys models NAME --allow, from another process: the running server applies it within a second', async () => {
    const created = await json<{ id: string; key: string }>(await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'cli-models' }) }));
    const set = await cli(['keys', 'models', 'cli-models', '--allow', 'gpt-4o-mini']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toContain("'cli-models' may call only gpt-4o-mini");
    const deadline = Date.now() + 3_000;
    let status = 200;
    while (Date.now() < deadline && (status = (await chat(created.key, 'gpt-4o')).status) !== 403) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(status).toBe(403);
    const shown = await cli(['keys', 'models', 'cli-models', '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ keyName: 'cli-models', allowedModels: ['gpt-4o-mini'] });
    const bad = await cli(['keys', 'models', 'cli-models', '--allow', ',']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--allow');
    expect((await cli(['keys', 'models', 'cli-models', '--all'])).code).toBe(0);
    // Each CLI run starts Node with tsx: seconds apiece on a slow machine.
  }, 90_000);
});
