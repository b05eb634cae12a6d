// A key knows its models, and Test connection says what answered (issue 38): the admin API's
// GET /virtual-keys/:id/models and POST /virtual-keys/:id/host-check against a running gateway and the
// strict doubles: a llama.cpp-style server listing qwen3-coder:30b and llama3.2, a closed port, a server
// that never answers, a web server that is not a model server, an OpenAI double that refuses the key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { openAIError, startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { closedPort, startHangingServerFake, startLocalServerFake, startWebServerFake, type LocalServerFake } from '../fakes/local-servers.js';
import { runKeysCommand } from '../../src-main/cli/keys.js';
import { runInProcess, type CliResult } from '../helpers/cli-in-process.js';

const LOCAL_MODELS = [{ id: 'qwen3-coder:30b' }, { id: 'llama3.2' }];

let gateway: TestGateway;
let local: LocalServerFake;
let openai: OpenAIFake;
let hanging: LocalServerFake;
let web: LocalServerFake;

beforeAll(async () => {
  [gateway, local, openai, hanging, web] = await Promise.all([
    startGateway(),
    startLocalServerFake('llamacpp', { models: LOCAL_MODELS }),
    startOpenAIFake(),
    startHangingServerFake(),
    startWebServerFake(),
  ]);
});
afterAll(async () => {
  await gateway.close();
  await Promise.all([local.close(), openai.close(), hanging.close(), web.close()]);
});

type Body = Record<string, any>;
async function call(path: string, method = 'GET', body?: unknown): Promise<{ status: number; body: Body }> {
  const response = await gateway.admin(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Body };
}

let keyCount = 0;
async function makeKey(fields: Record<string, unknown>): Promise<Body> {
  const created = await call('/virtual-keys', 'POST', { name: `key ${++keyCount}`, ...fields });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

const modelListCalls = (server: { requests: { path?: string; url?: string; method: string }[] }) =>
  server.requests.filter((request) => request.method === 'GET' && (request.path ?? request.url)?.split('?')[0].endsWith('/models')).length;

describe('the models of a key', () => {
  it("are its host's list, its default model, its model map's names and the routes that use it, each once", async () => {
    const key = await makeKey({ provider: 'openai-compatible', customHost: `${local.origin}/v1`, defaultModel: 'llama3.2', modelMap: { 'gpt-4o-mini': 'qwen3-coder:30b' } });
    const route = await call('/routes', 'POST', { name: 'coder', match: 'coder', strategy: 'fallback', targets: [{ key: key.name, model: 'qwen3-coder:30b' }] });
    expect(route.status).toBe(201);
    const { status, body } = await call(`/virtual-keys/${key.id}/models`);
    expect(status).toBe(200);
    expect(body.models).toEqual([
      { id: 'llama3.2', source: 'default' },
      { id: 'qwen3-coder:30b', source: 'provider' },
      { id: 'gpt-4o-mini', source: 'map' },
      { id: 'coder', source: 'route' },
    ]);
    expect(body.listing).toMatchObject({ ok: true, host: `${local.origin}/v1`, models: 2, modelIds: ['llama3.2', 'qwen3-coder:30b'], reason: null });
    await call(`/routes/${route.body.id}`, 'DELETE');
  });

  it('asks the host once while its list is fresh, again on refresh=true, and again at once when the host changes', async () => {
    const other = await startLocalServerFake('vllm', { models: [{ id: 'Qwen/Qwen3-8B' }] });
    try {
      const key = await makeKey({ provider: 'openai-compatible', customHost: `${local.origin}/v1` });
      const before = modelListCalls(local);
      await Promise.all([call(`/virtual-keys/${key.id}/models`), call(`/virtual-keys/${key.id}/models`)]);
      await call(`/virtual-keys/${key.id}/models`);
      expect(modelListCalls(local) - before).toBe(1);
      await call(`/virtual-keys/${key.id}/models?refresh=true`);
      expect(modelListCalls(local) - before).toBe(2);

      expect((await call(`/virtual-keys/${key.id}`, 'PATCH', { customHost: `${other.origin}/v1` })).status).toBe(200);
      const moved = await call(`/virtual-keys/${key.id}/models`);
      expect(moved.body.models).toEqual([{ id: 'Qwen/Qwen3-8B', source: 'provider' }]);
      expect(modelListCalls(other)).toBe(1);
    } finally {
      await other.close();
    }
  });

  it("come from the catalog for a provider whose list cannot be read, never from OpenAI's catalog for a server someone runs", async () => {
    const port = await closedPort();
    const openaiKey = await makeKey({ provider: 'openai', secret: 'sk-test-0123456789', customHost: `http://127.0.0.1:${port}/v1` });
    const fromCatalog = await call(`/virtual-keys/${openaiKey.id}/models`);
    expect(fromCatalog.body.listing).toMatchObject({ ok: false, reason: 'refused' });
    expect(fromCatalog.body.models.length).toBeGreaterThan(10);
    expect(fromCatalog.body.models.every((model: Body) => model.source === 'catalog')).toBe(true);
    expect(fromCatalog.body.models.map((model: Body) => model.id)).toContain('gpt-4o-mini');

    const serverKey = await makeKey({ provider: 'openai-compatible', customHost: `http://127.0.0.1:${port}/v1` });
    expect((await call(`/virtual-keys/${serverKey.id}/models`)).body.models).toEqual([]);
  });

  it('is a 404 for a revoked key', async () => {
    const key = await makeKey({ provider: 'openai-compatible', customHost: `${local.origin}/v1` });
    await call(`/virtual-keys/${key.id}`, 'DELETE');
    expect((await call(`/virtual-keys/${key.id}/models`)).status).toBe(404);
  });
});

describe('Test connection (host-check)', () => {
  it('lists what answered, with the key’s secret', async () => {
    const key = await makeKey({ provider: 'openai', secret: 'sk-listed-0123456789', customHost: openai.baseUrl });
    const { body } = await call(`/virtual-keys/${key.id}/host-check`, 'POST');
    expect(body).toMatchObject({ ok: true, host: openai.baseUrl, reason: null, warnings: [] });
    expect(body.modelIds.length).toBe(body.models);
    expect(openai.requests.at(-1)!.headers.authorization).toBe('Bearer sk-listed-0123456789');
  });

  it('says why nothing answered: a closed port, a refused key, a host that hangs, a server that is not OpenAI-style, a wrong path', async () => {
    const port = await closedPort();
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ provider: 'openai-compatible', customHost: `http://127.0.0.1:${port}/v1` }, 'refused', /nothing listens on that port/],
      [{ provider: 'openai-compatible', customHost: `${web.origin}/v1` }, 'not-a-model-list', /not as an OpenAI-style server/],
      [{ provider: 'openai-compatible', customHost: `${local.origin}/api` }, 'not-found', /no model list at this address \(404\)/],
    ];
    for (const [fields, reason, message] of cases) {
      const key = await makeKey(fields);
      const { status, body } = await call(`/virtual-keys/${key.id}/host-check`, 'POST');
      expect(status).toBe(200);
      expect(body).toMatchObject({ ok: false, models: 0, modelIds: [], reason });
      expect(body.message).toMatch(message);
      expect(body.message).toContain(fields.customHost as string);
    }

    const refusedKey = await makeKey({ provider: 'openai', secret: 'sk-wrong-0123456789', customHost: openai.baseUrl });
    openai.enqueue(openAIError(401, 'Incorrect API key provided: sk-wrong-0123456789', 'invalid_request_error', 'invalid_api_key'));
    const refused = await call(`/virtual-keys/${refusedKey.id}/host-check`, 'POST');
    expect(refused.body).toMatchObject({ ok: false, reason: 'unauthorized' });
    expect(refused.body.message).toMatch(/refused the key's credential \(401\)/);
    // The secret the server echoed is not handed back.
    expect(refused.body.message).not.toContain('sk-wrong-0123456789');
  });

  it('a host that accepts the connection and never answers is reported within the bound, and the admin API keeps answering meanwhile', async () => {
    const key = await makeKey({ provider: 'openai-compatible', customHost: `${hanging.origin}/v1` });
    const started = performance.now();
    const pending = call(`/virtual-keys/${key.id}/host-check`, 'POST');
    const health = await call('/health');
    expect(health.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1_000);
    const { body } = await pending;
    const took = performance.now() - started;
    expect(body).toMatchObject({ ok: false, reason: 'timeout' });
    expect(took).toBeGreaterThan(4_500);
    expect(took).toBeLessThan(7_000);
  }, 15_000);
});

describe('the OpenAI-compatible server provider', () => {
  it('is listed with its own name and needs a custom host, from the admin API and the CLI', async () => {
    const providers = await call('/providers');
    expect(providers.body.items.find((item: Body) => item.slug === 'openai-compatible')).toMatchObject({ name: 'OpenAI-compatible server', hostRequired: true });
    expect(providers.body.items.find((item: Body) => item.slug === 'openai')).toMatchObject({ hostRequired: false });

    const refused = await call('/virtual-keys', 'POST', { name: 'no host', provider: 'openai-compatible' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ param: 'customHost' });
    expect(refused.body.error.message).toContain('has no address of its own');

    const cli = await runCli(['keys', 'add', '--name', 'vllm box', '--provider', 'openai-compatible', '--custom-host', `${local.origin}/v1`], '\n');
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stderr).toContain('2 models listed');
    const listed = await call('/virtual-keys');
    expect(listed.body.items.find((item: Body) => item.name === 'vllm box')).toMatchObject({ provider: 'openai-compatible', customHost: `${local.origin}/v1` });

    const noHost = await runCli(['keys', 'add', '--name', 'no host', '--provider', 'openai-compatible'], '\n');
    expect(noHost.code).toBe(1);
    expect(noHost.stderr).toContain('has no address of its own');
  });

  it('serves a call through its host, charged no OpenAI price even for an OpenAI model name; a price the user sets applies', async () => {
    const server = await startLocalServerFake('vllm', { models: [{ id: 'gpt-4o-mini' }] });
    try {
      const key = await makeKey({ provider: 'openai-compatible', customHost: `${server.origin}/v1` });
      const chat = () =>
        fetch(`${gateway.baseUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key.key}` },
          body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
        });
      expect((await chat()).status).toBe(200);
      await gateway.flushLog();
      const logged = await call(`/logs?limit=1`);
      expect(logged.body.items[0]).toMatchObject({ provider: 'openai-compatible', model: 'gpt-4o-mini', costUsd: null });

      const priced = await call('/model-overrides', 'POST', { provider: 'openai-compatible', model: 'gpt-4o-mini', input: 1, output: 2 });
      expect(priced.status).toBeLessThan(300);
      expect((await chat()).status).toBe(200);
      await gateway.flushLog();
      // 9 prompt and 6 completion tokens at $1 and $2 per million.
      expect((await call(`/logs?limit=1`)).body.items[0].costUsd).toBeCloseTo(0.000021, 9);
      await call('/model-overrides', 'DELETE', { provider: 'openai-compatible', model: 'gpt-4o-mini' });
    } finally {
      await server.close();
    }
  });

  it('a request naming it without a custom host is refused, naming the header', async () => {
    const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': gateway.apiKey, 'x-gateway-provider': 'openai-compatible' },
      body: JSON.stringify({ model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as Body).error).toMatchObject({ param: 'x-gateway-custom-host' });
  });
});

/** Runs `gatehouse keys …` in-process on the gateway's data dir; stdin is what a pipe would hold. */
function runCli(args: string[], stdin: string): Promise<CliResult> {
  return runInProcess(runKeysCommand, [...args, '--data-dir', gateway.dataDir], { stdin });
}
