// The `keys` command line and a running server on one data dir at the same time (CONTRACT §1): what
// the CLI process changes takes effect on the server within a second, with no restart.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

let gateway: TestGateway;
let fake: OpenAIFake;

beforeAll(async () => {
  gateway = await startGateway();
  fake = await startOpenAIFake();
});
afterAll(async () => {
  await gateway.close();
  await fake.close();
});

/** Runs `gatehouse <args>` as its own process, as a user would from a second terminal. */
function cli(args: string[], stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // No GATEHOUSE_MASTER_KEY: adding and revoking keys needs no access to the secrets.
    const child = spawn(process.execPath, ['--import', 'tsx', 'src-main/cli.ts', ...args, '--data-dir', gateway.dataDir], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH, HOME: gateway.dataDir },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

function complete(headers: Record<string, string>) {
  return fetch(`${gateway.baseUrl}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'gpt-3.5-turbo-instruct', prompt: 'hi', max_tokens: 5 }),
  }).then(async (response) => {
    await response.text();
    return response.status;
  });
}

/** Milliseconds until the request answers `status`, polling; fails past the limit. */
async function millisecondsUntil(status: number, headers: Record<string, string>, limitMs: number): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < limitMs) {
    if ((await complete(headers)) === status) return Date.now() - start;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the server did not answer ${status} within ${limitMs} ms`);
}

describe('keys command line beside a running server', () => {
  it('a virtual key added by the CLI works on the server within a second, and a revoke stops it within a second', async () => {
    const added = await cli(['keys', 'add', '--name', 'from the cli', '--provider', 'openai', '--custom-host', fake.baseUrl], 'sk-cli-added-5150\n');
    expect(added.stderr).not.toContain('sk-cli-added-5150');
    expect(added.code).toBe(0);
    const key = added.stdout.trim();
    expect(key).toMatch(/^gh-vk-/);

    expect(await millisecondsUntil(200, { 'x-gateway-api-key': key }, 1000)).toBeLessThan(1000);
    expect(fake.requests.at(-1)?.headers.authorization).toBe('Bearer sk-cli-added-5150');

    // The UI lists it as well.
    const listed = (await (await gateway.admin('/virtual-keys')).json()) as { items: { id: string; name: string }[] };
    const entry = listed.items.find((item) => item.name === 'from the cli');
    expect(entry).toBeDefined();

    const revoked = await cli(['keys', 'revoke', entry?.id ?? '']);
    expect(revoked.code).toBe(0);
    expect(await millisecondsUntil(401, { 'x-gateway-api-key': key }, 1000)).toBeLessThan(1000);
  });

  it('a key created in the UI shows up in `keys list`', async () => {
    const created = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'made in the ui', provider: 'openai', secret: 'sk-ui-1', customHost: fake.baseUrl }) });
    expect(created.status).toBe(201);
    const listed = await cli(['keys', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('made in the ui');
    expect(listed.stdout).not.toContain('sk-ui-1');
  });

  it('a gateway key added by the CLI authenticates on the server within a second', async () => {
    const added = await cli(['gateway-keys', 'add', '--name', 'ci from cli']);
    expect(added.code).toBe(0);
    const key = added.stdout.trim();
    const headers = { 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.baseUrl, authorization: 'Bearer sk-client' };
    expect(await millisecondsUntil(200, headers, 1000)).toBeLessThan(1000);
  });
});
