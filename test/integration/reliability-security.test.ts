// Security (issue 7, items 9–10): only loopback Hosts and same-origin pages reach the admin API, no CORS
// header lets another origin in, the data dir is private, and no secret surfaces anywhere it could be read.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** node:http rather than fetch: fetch will not send an arbitrary Host header. */
function send(baseUrl: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

function corsHeaders(reply: Reply): string[] {
  return Object.keys(reply.headers).filter((name) => name.startsWith('access-control-'));
}

describe('who may reach the admin API', () => {
  let gateway: TestGateway;
  let port: string;
  beforeAll(async () => {
    gateway = await startGateway();
    port = new URL(gateway.baseUrl).port;
  });
  afterAll(() => gateway.close());

  const admin = (host: string | undefined, extra: Record<string, string> = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${gateway.adminToken}`, ...extra };
    if (host !== undefined) headers.host = host.replace('PORT', port);
    return send(gateway.baseUrl, '/admin/api/health', { headers });
  };

  it.each(['127.0.0.1.evil.com', 'localhost.evil.com', 'evil.com', '127.0.0.1.evil.com:PORT', 'localhost.evil.com:PORT', 'evil.com:PORT', 'localhost:PORT@evil.com', '0.0.0.0:PORT'])(
    'refuses Host %s with 403 in the contract shape',
    async (host) => {
      const reply = await admin(host);
      expect(reply.status).toBe(403);
      expect(JSON.parse(reply.text).error.type).toBe('permission_error');
    },
  );

  it.each(['localhost:PORT', '127.0.0.1:PORT', '[::1]:PORT', 'localhost', 'LOCALHOST:PORT'])('lets Host %s in', async (host) => {
    const reply = await admin(host);
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toMatchObject({ ok: true });
  });

  it('refuses a request with no Host at all (HTTP/1.0)', async () => {
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.end(`GET /admin/api/health HTTP/1.0\r\nauthorization: Bearer ${gateway.adminToken}\r\n\r\n`));
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
    });
    expect(reply).toMatch(/^HTTP\/1\.[01] 403 /);
  });

  it('refuses another origin, even on a loopback Host with the right token', async () => {
    for (const origin of ['http://evil.com', 'null', `http://127.0.0.1:${Number(port) + 1}`, `https://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      const reply = await admin('127.0.0.1:PORT', { origin });
      expect(reply.status, origin).toBe(403);
    }
    expect((await admin('127.0.0.1:PORT', { origin: `http://127.0.0.1:${port}` })).status).toBe(200);
  });

  it('checks the token: none, a wrong one, or a prefix of the right one get 401', async () => {
    for (const authorization of ['', 'Bearer ', 'Bearer wrong', `Bearer ${gateway.adminToken.slice(0, -1)}`, `Basic ${gateway.adminToken}`]) {
      const reply = await send(gateway.baseUrl, '/admin/api/health', { headers: { authorization } });
      expect(reply.status, authorization).toBe(401);
    }
  });

  it('sends no access-control-allow-* header anywhere, preflights included', async () => {
    const paths = ['/v1/completions', '/v1/chat/completions', '/admin/api/health', '/admin/api/logs', '/admin/api/virtual-keys', '/', '/index.html', '/nowhere'];
    const origin = { origin: 'http://evil.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, x-gateway-api-key, content-type' };
    for (const path of paths) {
      const preflight = await send(gateway.baseUrl, path, { method: 'OPTIONS', headers: origin });
      expect(corsHeaders(preflight), `OPTIONS ${path}`).toEqual([]);
      expect(preflight.status, `OPTIONS ${path}`).toBeGreaterThanOrEqual(400);
      for (const method of ['GET', 'POST']) {
        const reply = await send(gateway.baseUrl, path, { method, headers: { origin: 'http://evil.com', authorization: `Bearer ${gateway.adminToken}`, 'x-gateway-api-key': gateway.apiKey }, body: method === 'POST' ? '{}' : undefined });
        expect(corsHeaders(reply), `${method} ${path}`).toEqual([]);
      }
    }
  });
});

describe('the data directory', () => {
  it('is created 0700 with every file 0600, even under a permissive umask', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'gatehouse-modes-'));
    const dataDir = join(parent, 'data');
    const previousUmask = process.umask(0o000);
    let gateway: TestGateway | undefined;
    const fake = await startOpenAIFake();
    try {
      // No master key: the key file protector writes master.key into the data dir.
      gateway = await startGateway({ dataDir, env: { GATEHOUSE_MASTER_KEY: '' } });
      const created = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'k', provider: 'openai', secret: 'sk-mode-test-secret-0123456789', customHost: fake.baseUrl }) });
      expect(created.status).toBe(201);
      const response = await fetch(`${gateway.baseUrl}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${(await created.json()).key}` },
        body: '{"model":"m","prompt":"x"}',
      });
      expect(response.status).toBe(200);
      gateway.flushLog();

      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      const files = ['gatehouse.db', 'gatehouse.db-wal', 'gatehouse.db-shm', 'admin-token', 'master.key'];
      for (const file of files) {
        expect(existsSync(join(dataDir, file)), file).toBe(true);
        expect((statSync(join(dataDir, file)).mode & 0o777).toString(8), file).toBe('600');
      }
    } finally {
      process.umask(previousUmask);
      await gateway?.close();
      await fake.close();
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it('narrows a data dir and files that were left open to others', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-widened-'));
    try {
      const first = await startGateway({ dataDir });
      await first.close();
      chmodSync(dataDir, 0o755);
      chmodSync(join(dataDir, 'gatehouse.db'), 0o644);
      chmodSync(join(dataDir, 'admin-token'), 0o644);
      const second = await startGateway({ dataDir });
      await second.close();
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dataDir, 'gatehouse.db')).mode & 0o777).toBe(0o600);
      expect(statSync(join(dataDir, 'admin-token')).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('no secret anywhere it could be read', () => {
  const PROVIDER_SECRET = 'sk-stored-provider-secret-7f3a9c2e1b';
  const CALLER_TOKEN = 'sk-caller-own-token-5d8e2a7f4c';
  const CLOUD_SECRET = 'cloud-secret-access-key-Zq81xR55pL';
  const ENV_GATEWAY_KEY = 'env-gateway-key-Pf93kDm2Qa7x';
  let gateway: TestGateway;
  let fake: OpenAIFake;
  let dataDir: string;
  let virtualKey: string;
  let gatewayKey: string;
  const consoleOutput: string[] = [];
  const clientSaw: string[] = [];
  const eventStream: string[] = [];

  /** A provider that repeats back everything it was sent: headers and body, in its answers and errors. */
  function echoEverything(status: number, stream = false) {
    return (request: { headers: Record<string, unknown>; body: Buffer }, res: import('node:http').ServerResponse) => {
      const echoed = `you sent ${JSON.stringify(request.headers)} with ${request.body.toString()}`;
      if (stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ id: 'c', object: 'text_completion', choices: [{ index: 0, text: echoed }] })}\n\n`);
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status >= 400 ? JSON.stringify({ error: { message: `Incorrect API key: ${echoed}`, type: 'invalid_request_error' } }) : JSON.stringify({ id: 'x', object: 'text_completion', choices: [{ index: 0, text: echoed }] }));
    };
  }

  beforeAll(async () => {
    for (const method of ['error', 'warn', 'log', 'info'] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        consoleOutput.push(args.map((arg) => (arg instanceof Error ? `${arg.message}\n${arg.stack}` : String(arg))).join(' '));
      });
    }
    dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-secrets-'));
    fake = await startOpenAIFake();
    gateway = await startGateway({ dataDir, env: { GATEWAY_API_KEY: ENV_GATEWAY_KEY } });
    const createdVirtual = await (await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'echo', provider: 'openai', secret: PROVIDER_SECRET, customHost: fake.baseUrl }) })).json();
    virtualKey = createdVirtual.key;
    gatewayKey = (await (await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'gk' }) })).json()).key;
    expect(virtualKey).toMatch(/^gh-vk-/);
    expect(gatewayKey).toBeTruthy();

    const events = await gateway.admin('/events');
    const reader = events.body!.getReader();
    void (async () => {
      for (let part = await reader.read(); !part.done; part = await reader.read()) eventStream.push(new TextDecoder().decode(part.value));
    })().catch(() => undefined);

    const viaVirtualKey = { 'content-type': 'application/json', authorization: `Bearer ${virtualKey}` };
    const viaGatewayKey = {
      'content-type': 'application/json',
      'x-gateway-api-key': gatewayKey,
      'x-gateway-provider': 'openai',
      'x-gateway-custom-host': fake.baseUrl,
      authorization: `Bearer ${CALLER_TOKEN}`,
      'x-gateway-forward-headers': 'x-cloud-secret',
      'x-cloud-secret': CLOUD_SECRET,
    };
    const viaEnvKey = { ...viaGatewayKey, 'x-gateway-api-key': ENV_GATEWAY_KEY };
    const call = async (headers: Record<string, string>, body: object, path = '/v1/completions') => {
      const response = await fetch(`${gateway.baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      clientSaw.push(`${response.status} ${JSON.stringify([...response.headers])} ${await response.text()}`);
    };
    for (const headers of [viaVirtualKey, viaGatewayKey, viaEnvKey]) {
      fake.enqueue(echoEverything(401));
      await call(headers, { model: 'm', prompt: 'x' });
      fake.enqueue(echoEverything(500));
      await call({ ...headers, 'x-gateway-retry-count': '1' }, { model: 'm', prompt: 'x' });
      fake.enqueue(echoEverything(200));
      await call(headers, { model: 'm', prompt: `my key is ${CALLER_TOKEN} and ${PROVIDER_SECRET}` });
      fake.enqueue(echoEverything(200, true));
      await call(headers, { model: 'm', prompt: 'x', stream: true });
      await call(headers, { model: 'm', prompt: 'x', temperature: 9 });
      await call({ ...headers, 'x-gateway-custom-host': 'http://127.0.0.1:9/v1' }, { model: 'm', prompt: 'x' });
    }
    // Failed authentication: the key that was tried must not be kept either.
    await call({ 'content-type': 'application/json', 'x-gateway-api-key': `${gatewayKey}-typo` }, { model: 'm', prompt: 'x' });
    await call({ 'content-type': 'application/json', authorization: `Bearer ${virtualKey}x` }, { model: 'm', prompt: 'x' });
    gateway.flushLog();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await reader.cancel();
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    await gateway.close();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const secrets = () => ({ PROVIDER_SECRET, CALLER_TOKEN, CLOUD_SECRET, ENV_GATEWAY_KEY, virtualKey, gatewayKey });

  function expectNoSecret(where: string, text: string): void {
    for (const [name, secret] of Object.entries(secrets())) expect(text.includes(secret), `${name} found in ${where}`).toBe(false);
  }

  it('the provider really received the secrets (so the checks below are not vacuous)', () => {
    const received = JSON.stringify(fake.requests.map((request) => request.headers));
    expect(received).toContain(PROVIDER_SECRET);
    expect(received).toContain(CALLER_TOKEN);
    expect(received).toContain(CLOUD_SECRET);
  });

  it('not in what the client got back: provider errors that echo the key are redacted', () => {
    const errors = clientSaw.filter((reply) => !reply.startsWith('200 '));
    expect(errors.length).toBeGreaterThan(10);
    for (const reply of errors) expectNoSecret('a client error response', reply);
  });

  it('not in any log row, listed or in detail, nor in the live events', async () => {
    const list = await (await gateway.admin('/logs?limit=500')).text();
    expect(JSON.parse(list).items.length).toBeGreaterThanOrEqual(20);
    expectNoSecret('GET /admin/api/logs', list);
    for (const item of JSON.parse(list).items as { id: string }[]) {
      expectNoSecret(`GET /admin/api/logs/${item.id}`, await (await gateway.admin(`/logs/${item.id}`)).text());
    }
    expect(eventStream.join('')).toContain('"provider":"openai"');
    expectNoSecret('/admin/api/events', eventStream.join(''));
  });

  it('not in any other admin payload', async () => {
    for (const path of ['/virtual-keys', '/gateway-keys', '/settings', '/providers', '/health', '/virtual-keys?includeRevoked=true']) {
      const reply = await gateway.admin(path);
      expect(reply.status, path).toBe(200);
      expectNoSecret(`GET /admin/api${path}`, await reply.text());
    }
  });

  it('not in the database files, write-ahead log included', () => {
    for (const file of ['gatehouse.db', 'gatehouse.db-wal']) {
      const path = join(dataDir, file);
      if (!existsSync(path)) continue;
      const bytes = readFileSync(path);
      for (const [name, secret] of Object.entries(secrets())) expect(bytes.includes(Buffer.from(secret)), `${name} in ${file}`).toBe(false);
    }
  });

  it('not in anything the gateway printed', () => {
    expectNoSecret('console output', consoleOutput.join('\n'));
  });
});

describe('damaged data leaves no secret behind in the message', () => {
  it('a refused database names the file, not its content', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-refused-'));
    try {
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(join(dataDir, 'gatehouse.db'), `not a database: ${'sk-inside-the-file-0123456789'}`);
      const error = await startGateway({ dataDir }).catch((caught: unknown) => caught as Error);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain('gatehouse.db');
      expect((error as Error).message).not.toContain('sk-inside-the-file');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
