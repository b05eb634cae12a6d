// Local model servers found, not typed (issue 15): fakes that answer like Ollama, LM Studio,
// llama.cpp server and vLLM are each found and named, with their models; a key made from one runs a
// prompt through the gateway with no secret; a web server, a closed port and a hanging server are
// not listed and cost the probe no more than its deadline; `gatehouse discover` prints the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { discoverLocalServers } from '../../src-main/discovery/probe.js';
import type { LocalServer } from '../../src-main/discovery/types.js';
import {
  closedPort,
  FAKE_VERSIONS,
  fakeReply,
  startHangingServerFake,
  startLocalServerFake,
  startWebServerFake,
  type FakeKind,
  type LocalServerFake,
} from '../fakes/local-servers.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

const KINDS: FakeKind[] = ['ollama', 'lmstudio', 'llamacpp', 'vllm'];
/** A deadline a loaded test machine still meets for servers that answer; the hanging one waits it out. */
const TIMEOUT_MS = 1_500;
/** Room for the event loop and the machine's load around the deadline. */
const SLACK_MS = 1_000;
/** The short deadline the hanging server is held to on its own. */
const SHORT_TIMEOUT_MS = 400;

const fakes = {} as Record<FakeKind, LocalServerFake>;
let web: LocalServerFake;
let hanging: LocalServerFake;
let closed: number;

beforeAll(async () => {
  for (const kind of KINDS) fakes[kind] = await startLocalServerFake(kind);
  web = await startWebServerFake();
  hanging = await startHangingServerFake();
  closed = await closedPort();
});

afterAll(async () => {
  await Promise.all([...Object.values(fakes), web, hanging].map((fake) => fake?.close()));
});

const allPorts = () => [...KINDS.map((kind) => fakes[kind].port), web.port, hanging.port, closed];

describe('the probe', () => {
  it('finds and names each local server with its models, and lists nothing else, within its deadline', async () => {
    const started = performance.now();
    const servers = await discoverLocalServers({ ports: allPorts(), timeoutMs: TIMEOUT_MS });
    const elapsed = performance.now() - started;

    expect(servers.map((server) => server.kind)).toEqual(KINDS);
    // The hanging server holds the sweep up to the deadline, never longer.
    expect(elapsed).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(servers.map((server) => server.port)).not.toContain(web.port);
    expect(servers.map((server) => server.port)).not.toContain(hanging.port);
    expect(servers.map((server) => server.port)).not.toContain(closed);

    const byKind = Object.fromEntries(servers.map((server) => [server.kind, server]));
    expect(byKind.ollama).toMatchObject({
      url: `http://127.0.0.1:${fakes.ollama.port}/v1`,
      version: FAKE_VERSIONS.ollama,
      models: [
        { id: 'llama3.2:latest', size: 2_019_393_189, contextLength: 131_072 },
        { id: 'qwen2.5-coder:7b', size: 4_683_087_332, contextLength: 32_768 },
      ],
      connection: { provider: 'ollama', customHost: `http://127.0.0.1:${fakes.ollama.port}/v1` },
    });
    // LM Studio: downloaded models with their context length and whether loaded; embeddings left out.
    expect(byKind.lmstudio.models).toEqual([
      { id: 'meta-llama-3.1-8b-instruct', contextLength: 131_072, loaded: true },
      { id: 'qwen2-vl-7b-instruct', contextLength: 32_768, loaded: false },
    ]);
    expect(byKind.lmstudio.connection).toEqual({ provider: 'openai-compatible', customHost: `http://127.0.0.1:${fakes.lmstudio.port}/v1` });
    expect(byKind.llamacpp).toMatchObject({ version: FAKE_VERSIONS.llamacpp, models: [{ id: 'gemma-3-4b-it-Q4_K_M.gguf', size: 2_489_757_856, contextLength: 8192 }] });
    expect(byKind.vllm).toMatchObject({ version: FAKE_VERSIONS.vllm, models: [{ id: 'Qwen/Qwen2.5-1.5B-Instruct', contextLength: 32_768 }] });
  });

  it('a hanging server alone costs its deadline, and a closed port next to nothing', async () => {
    let started = performance.now();
    expect(await discoverLocalServers({ ports: [hanging.port], timeoutMs: SHORT_TIMEOUT_MS })).toEqual([]);
    const hangingMs = performance.now() - started;
    expect(hangingMs).toBeGreaterThanOrEqual(SHORT_TIMEOUT_MS - 50);
    expect(hangingMs).toBeLessThan(SHORT_TIMEOUT_MS + SLACK_MS);

    started = performance.now();
    expect(await discoverLocalServers({ ports: [closed, web.port], timeoutMs: 5_000 })).toEqual([]);
    // Refused at once, and the web server's 404s and non-lists end its probe without waiting.
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('finds a server that listens only on the IPv6 loopback, at its [::1] address', async () => {
    const v6 = await startLocalServerFake('vllm', { host: '::1' });
    try {
      const [found] = await discoverLocalServers({ ports: [v6.port], timeoutMs: TIMEOUT_MS });
      expect(found).toMatchObject({ kind: 'vllm', url: `http://[::1]:${v6.port}/v1`, connection: { provider: 'openai-compatible', customHost: `http://[::1]:${v6.port}/v1` } });
    } finally {
      await v6.close();
    }
  });

  it('asks nothing but loopback addresses', async () => {
    const before = fakes.ollama.requests.length;
    await discoverLocalServers({ ports: [fakes.ollama.port], timeoutMs: TIMEOUT_MS });
    const asked = fakes.ollama.requests.slice(before);
    expect(asked.length).toBeGreaterThan(0);
    for (const request of asked) expect(request.headers.host).toBe(`127.0.0.1:${fakes.ollama.port}`);
  });
});

describe('the app', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    // No usual ports: only what the test lists, whatever else runs on this machine.
    gateway = await startGateway({ env: { GATEHOUSE_DISCOVERY_PORTS: '', GATEHOUSE_DISCOVERY_TIMEOUT_MS: String(TIMEOUT_MS) } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const list = async (path = '/local-servers', method = 'GET') => {
    const response = await gateway.admin(path, { method });
    expect(response.status).toBe(200);
    return (await response.json()) as { items: LocalServer[]; checkedAt: string | null; refreshing: boolean };
  };

  it('takes extra ports in Settings, finds the servers on them, and a key made from one runs a prompt with no secret', async () => {
    const saved = await gateway.admin('/settings', { method: 'PATCH', body: JSON.stringify({ discoveryPorts: allPorts() }) });
    expect(saved.status).toBe(200);
    expect(((await saved.json()) as { discoveryPorts: number[] }).discoveryPorts).toEqual(allPorts());

    const { items, checkedAt } = await list('/local-servers/refresh', 'POST');
    expect(checkedAt).not.toBeNull();
    expect(items.map((server) => server.kind).sort()).toEqual([...KINDS].sort());
    expect(items.every((server) => server.online)).toBe(true);
    expect((await list()).items.length).toBe(KINDS.length);

    for (const server of items) {
      const created = await gateway.admin('/virtual-keys', {
        method: 'POST',
        body: JSON.stringify({ name: `${server.kind} on ${server.port}`, provider: server.connection.provider, customHost: server.connection.customHost }),
      });
      expect(created.status).toBe(201);
      const { key } = (await created.json()) as { key: string };
      const model = server.models[0].id;
      const answer = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Say hello' }] }),
      });
      expect(answer.status).toBe(200);
      const body = (await answer.json()) as { choices: { message: { content: string } }[] };
      expect(body.choices[0].message.content).toBe(fakeReply(server.kind, model));
      // No secret was stored, so none travels: the local server sees no Authorization header.
      const received = fakes[server.kind as FakeKind].requests.filter((request) => request.path === '/v1/chat/completions').at(-1);
      expect(received?.headers.authorization).toBeUndefined();
      expect(received?.headers['x-gateway-api-key']).toBeUndefined();

      // Tools fill their model pickers from /v1/models through the same key.
      const models = await fetch(`${gateway.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
      expect(models.status).toBe(200);
      expect(((await models.json()) as { data: { id: string }[] }).data.map((entry) => entry.id)).toContain(model);
    }
  });

  it('shows a server that went away as offline, with what it last said, and finds it again when it is back', async () => {
    const port = fakes.vllm.port;
    await fakes.vllm.close();
    const { items } = await list('/local-servers/refresh', 'POST');
    const gone = items.find((server) => server.port === port);
    expect(gone).toMatchObject({ kind: 'vllm', online: false, models: [{ id: 'Qwen/Qwen2.5-1.5B-Instruct', contextLength: 32_768 }] });
    expect(Date.parse(gone!.lastSeen)).not.toBeNaN();
    // Online servers first.
    expect(items.at(-1)?.port).toBe(port);

    fakes.vllm = await startLocalServerFake('vllm', { port });
    const back = (await list('/local-servers/refresh', 'POST')).items.find((server) => server.port === port);
    expect(back?.online).toBe(true);
  });

  it('forgets a server whose port is taken off the list, and refuses a port that is not one', async () => {
    const remaining = allPorts().filter((port) => port !== fakes.llamacpp.port);
    await gateway.admin('/settings', { method: 'PATCH', body: JSON.stringify({ discoveryPorts: remaining }) });
    const { items } = await list('/local-servers/refresh', 'POST');
    expect(items.map((server) => server.kind)).not.toContain('llamacpp');

    const bad = await gateway.admin('/settings', { method: 'PATCH', body: JSON.stringify({ discoveryPorts: [70000] }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('discoveryPorts');
  });

  it('serves prompts at full speed while a sweep waits on a hanging port', async () => {
    const created = await gateway.admin('/virtual-keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'during sweep', provider: 'ollama', customHost: `http://127.0.0.1:${fakes.ollama.port}/v1` }),
    });
    const { key } = (await created.json()) as { key: string };
    const sweep = list('/local-servers/refresh', 'POST');
    const started = performance.now();
    const answer = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'llama3.2:latest', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(answer.status).toBe(200);
    const promptMs = performance.now() - started;
    await sweep;
    const sweepMs = performance.now() - started;
    // The sweep holds on for the hanging port's deadline; the prompt does not wait for it.
    expect(sweepMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    expect(promptMs).toBeLessThan(TIMEOUT_MS / 2);
  });

  it('answers concurrent refreshes with one sweep', async () => {
    const before = fakes.ollama.requests.filter((request) => request.path === '/api/tags').length;
    await Promise.all([list('/local-servers/refresh', 'POST'), list('/local-servers/refresh', 'POST'), list('/local-servers/refresh', 'POST')]);
    const after = fakes.ollama.requests.filter((request) => request.path === '/api/tags').length;
    expect(after - before).toBeLessThanOrEqual(2);
  });
});

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src-main/cli.ts', 'discover', ...args], { env: { ...process.env, GATEHOUSE_DISCOVERY_PORTS: '' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, ms: performance.now() - started })));
}

describe('gatehouse discover', () => {
  const portArgs = () => [...allPorts().flatMap((port) => ['--port', String(port)]), '--timeout', String(TIMEOUT_MS)];

  it('prints one server a line: kind, base URL, models comma-separated; quickly, whatever the ports hold', async () => {
    const { code, stdout, ms } = await runCli(portArgs());
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(KINDS.length);
    const fields = lines.map((line) => line.split(/\s{2,}/));
    expect(fields.map(([kind]) => kind)).toEqual(KINDS);
    expect(fields[0]).toEqual(['ollama', `http://127.0.0.1:${fakes.ollama.port}/v1`, 'llama3.2:latest, qwen2.5-coder:7b']);
    expect(fields[1]).toEqual(['lmstudio', `http://127.0.0.1:${fakes.lmstudio.port}/v1`, 'meta-llama-3.1-8b-instruct, qwen2-vl-7b-instruct']);
    // Starting node with tsx takes most of this; the probe itself takes the hanging port's deadline.
    expect(ms).toBeLessThan(10_000);
  });

  it('--json prints an array of {kind, url, version, models}', async () => {
    const { code, stdout } = await runCli([...portArgs(), '--json']);
    expect(code).toBe(0);
    const list = JSON.parse(stdout) as { kind: string; url: string; version: string | null; models: { id: string }[] }[];
    expect(list.map((server) => server.kind)).toEqual(KINDS);
    expect(Object.keys(list[0]).sort()).toEqual(['kind', 'models', 'url', 'version']);
    expect(list[0]).toMatchObject({ url: `http://127.0.0.1:${fakes.ollama.port}/v1`, version: FAKE_VERSIONS.ollama, models: [{ id: 'llama3.2:latest', contextLength: 131_072 }, { id: 'qwen2.5-coder:7b' }] });
    expect(list[3]).toMatchObject({ kind: 'vllm', version: FAKE_VERSIONS.vllm });
  });

  it('says so on stderr when nothing answers, and refuses a bad port', async () => {
    const none = await runCli(['--port', String(closed), '--port', String(web.port)]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/No local model server answered on ports/);
    const emptyJson = await runCli(['--port', String(closed), '--json']);
    expect(JSON.parse(emptyJson.stdout)).toEqual([]);

    const bad = await runCli(['--port', 'eleven']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Invalid --port: eleven/);
  });
});
