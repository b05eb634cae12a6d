// What a new user trips over with keys (issue 26): a name two keys share, a host that cannot be changed,
// a host without /v1, a key for a Chat-only server, a budget on a model without a price. Against a running
// gateway and an OpenAI-format double, through the admin API and the CLI.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { closedPort } from '../fakes/local-servers.js';
import { runKeysCommand } from '../../src-main/cli/keys.js';
import { runInProcess, type CliResult } from '../helpers/cli-in-process.js';

let gateway: TestGateway;
let fake: OpenAIFake;
let other: OpenAIFake;

beforeAll(async () => {
  [gateway, fake, other] = await Promise.all([startGateway(), startOpenAIFake(), startOpenAIFake()]);
});
afterAll(async () => {
  await gateway.close();
  await Promise.all([fake.close(), other.close()]);
});
afterEach(() => {
  fake.requests.length = 0;
  other.requests.length = 0;
});

type Body = Record<string, unknown> & { error?: { message: string; param: string | null; code: string | null } };
async function call(path: string, method: string, body?: unknown): Promise<{ status: number; body: Body }> {
  const response = await gateway.admin(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, body: (await response.json()) as Body };
}

/** Runs `gatehouse keys …` in-process on the gateway's data dir; stdin is what a pipe would hold. */
function cli(args: string[], stdin = ''): Promise<CliResult> {
  return runInProcess(runKeysCommand, [...args, '--data-dir', gateway.dataDir], { stdin });
}

function chat(key: string) {
  return fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
}

describe('key names are unique among active keys of both kinds, case aside', () => {
  it('refuses a second virtual key, a gateway key and a rename to a taken name, naming it; a revoked key frees it', async () => {
    const first = await call('/virtual-keys', 'POST', { name: 'Work', provider: 'openai', secret: 'sk-work-0123456789', customHost: fake.baseUrl });
    expect(first.status).toBe(201);

    const twin = await call('/virtual-keys', 'POST', { name: 'work', provider: 'openai', secret: 'sk-twin-0123456789', customHost: fake.baseUrl });
    expect(twin.status).toBe(409);
    expect(twin.body.error).toMatchObject({ param: 'name', code: 'key_name_taken' });
    expect(twin.body.error!.message).toContain("A key named 'Work' already exists");

    const gatewayTwin = await call('/gateway-keys', 'POST', { name: 'WORK' });
    expect(gatewayTwin.status).toBe(409);
    expect(gatewayTwin.body.error!.message).toContain("'Work'");

    const ci = await call('/gateway-keys', 'POST', { name: 'ci' });
    expect(ci.status).toBe(201);
    const rename = await call(`/virtual-keys/${first.body.id as string}`, 'PATCH', { name: 'CI' });
    expect(rename.status).toBe(409);
    expect(rename.body.error!.message).toContain("A key named 'ci' already exists");
    const gatewayRename = await call(`/gateway-keys/${ci.body.id as string}`, 'PATCH', { name: 'work' });
    expect(gatewayRename.status).toBe(409);
    // A key may change the case of its own name.
    expect((await call(`/virtual-keys/${first.body.id as string}`, 'PATCH', { name: 'WORK' })).status).toBe(200);

    // The CLI refuses the same way, naming the name, and exits 1.
    const added = await cli(['keys', 'add', '--name', 'work', '--provider', 'openai', '--custom-host', fake.baseUrl], 'sk-cli-0123456789\n');
    expect(added.code).toBe(1);
    expect(added.stderr).toContain("A key named 'WORK' already exists");
    const gatewayAdded = await cli(['gateway-keys', 'add', '--name', 'Ci']);
    expect(gatewayAdded.code).toBe(1);
    expect(gatewayAdded.stderr).toContain("A key named 'ci' already exists");

    // Revoked: the name is free again, for either kind.
    expect((await call(`/virtual-keys/${first.body.id as string}`, 'DELETE')).status).toBe(200);
    expect((await call('/gateway-keys', 'POST', { name: 'work' })).status).toBe(201);
  });
});

describe("a key's host", () => {
  it('moves to another host with its secret given again; the same key string works there; the old secret never goes there', async () => {
    const created = await call('/virtual-keys', 'POST', { name: 'lm-studio', provider: 'openai', secret: 'sk-first-0123456789', customHost: fake.baseUrl });
    const key = created.body.key as string;
    expect((await chat(key)).status).toBe(200);
    expect(fake.requests.at(-1)!.headers.authorization).toBe('Bearer sk-first-0123456789');

    // Without the secret: refused, nothing changes.
    const bare = await call(`/virtual-keys/${created.body.id as string}`, 'PATCH', { customHost: other.baseUrl });
    expect(bare.status).toBe(400);
    const moved = await call(`/virtual-keys/${created.body.id as string}`, 'PATCH', { customHost: other.baseUrl, secret: 'sk-second-0123456789' });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ customHost: other.baseUrl, warnings: [] });

    const before = fake.requests.length;
    expect((await chat(key)).status).toBe(200);
    expect(fake.requests.length).toBe(before);
    expect(other.requests.at(-1)!.headers.authorization).toBe('Bearer sk-second-0123456789');

    // The host check lists the models of the new host.
    const check = await call(`/virtual-keys/${created.body.id as string}/host-check`, 'POST');
    expect(check.body).toMatchObject({ ok: true, models: 2 });
    expect(other.requests.at(-1)!.url).toBe('/v1/models');
  });

  it('warns about a host without /v1, and a server that is down is a warning, not a refusal', async () => {
    const port = await closedPort();
    const created = await call('/virtual-keys', 'POST', { name: 'bare-host', provider: 'openai', secret: 'sk-bare-0123456789', customHost: `http://127.0.0.1:${port}` });
    expect(created.status).toBe(201);
    expect((created.body.warnings as string[])[0]).toContain('/v1');
    const check = await call(`/virtual-keys/${created.body.id as string}/host-check`, 'POST');
    expect(check.status).toBe(200);
    expect(check.body.ok).toBe(false);
    expect(check.body.message).toContain(`http://127.0.0.1:${port}`);
  });

  it('a host that is not a URL is refused in words a user knows', async () => {
    const refused = await call('/virtual-keys', 'POST', { name: 'typo', provider: 'openai', secret: 'sk-typo-0123456789', customHost: 'localhost1234' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ param: 'customHost' });
    expect(refused.body.error!.message).toBe("Custom host must be a URL like http://127.0.0.1:1234/v1 (got 'localhost1234')");
  });

  it('gatehouse keys host NAME URL moves the key, reading the secret from stdin, and reports the model list', async () => {
    const created = await call('/virtual-keys', 'POST', { name: 'vllm', provider: 'openai', secret: 'sk-vllm-0123456789', customHost: fake.baseUrl });
    const moved = await cli(['keys', 'host', 'vllm', other.baseUrl], 'sk-vllm-new-0123456789\n');
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stderr).toContain(`now calls ${other.baseUrl}`);
    expect(moved.stderr).toContain('2 models listed');
    // The server picks the change up within a second (it watches the data dir).
    const deadline = Date.now() + 5_000;
    let status = 0;
    while (Date.now() < deadline) {
      other.requests.length = 0;
      status = (await chat(created.body.key as string)).status;
      if (other.requests.some((request) => request.url === '/v1/chat/completions')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
    expect(other.requests.find((request) => request.url === '/v1/chat/completions')!.headers.authorization).toBe('Bearer sk-vllm-new-0123456789');

    const missing = await cli(['keys', 'host', 'no-such-key', other.baseUrl], 'sk-x\n');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("No active virtual key named 'no-such-key'");
  });
});

describe('chatOnly and budgets on a key', () => {
  it('chatOnly is shown on the key and set by hand in the API and the CLI', async () => {
    const created = await call('/virtual-keys', 'POST', { name: 'llama-cpp', provider: 'openai', secret: 'sk-l-0123456789', customHost: fake.baseUrl, chatOnly: true });
    expect(created.body.chatOnly).toBe(true);
    const off = await call(`/virtual-keys/${created.body.id as string}`, 'PATCH', { chatOnly: false });
    expect(off.body.chatOnly).toBe(false);
    const on = await cli(['keys', 'chat-only', 'llama-cpp', '--on', '--json']);
    expect(JSON.parse(on.stdout)).toMatchObject({ name: 'llama-cpp', chatOnly: true });
    expect((await call(`/virtual-keys/${created.body.id as string}`, 'GET')).body.chatOnly).toBe(true);
  });

  it('a budget on a key whose model has no price says so when set and when read; a priced model says nothing', async () => {
    const local = await call('/virtual-keys', 'POST', { name: 'unpriced', provider: 'openai', secret: 'sk-u-0123456789', customHost: fake.baseUrl, defaultModel: 'qwen3-coder:30b' });
    const set = await call(`/keys/${local.body.id as string}/limits`, 'PUT', { dailyUsd: 1 });
    expect(set.status).toBe(200);
    expect(set.body.budgetWarning).toContain("No price is known for 'qwen3-coder:30b'");
    expect((await call(`/keys/${local.body.id as string}/limits`, 'GET')).body.budgetWarning).toContain('count nothing against this budget');
    const listed = (await call('/limits', 'GET')).body.items as { keyId: string; budgetWarning: string | null }[];
    expect(listed.find((item) => item.keyId === local.body.id)!.budgetWarning).toContain('qwen3-coder:30b');
    // A request limit alone is not a budget: nothing to warn about.
    expect((await call(`/keys/${local.body.id as string}/limits`, 'PUT', { rpm: 10 })).body.budgetWarning).toBeNull();

    const priced = await call('/virtual-keys', 'POST', { name: 'priced', provider: 'openai', secret: 'sk-p-0123456789', defaultModel: 'gpt-4o-mini' });
    expect((await call(`/keys/${priced.body.id as string}/limits`, 'PUT', { dailyUsd: 1 })).body.budgetWarning).toBeNull();
  });
});
