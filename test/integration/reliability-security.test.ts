// Security (issue 7, items 9–10): only loopback Hosts and same-origin pages reach the admin API, no CORS
// header lets another origin in, the data dir is private, and no secret surfaces anywhere it could be read.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { startBedrockFake, type AwsTestCredentials, type BedrockFake } from '../fakes/bedrock.js';

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
      await gateway.flushLog();

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
  // Shapes no fallback pattern in redact.ts knows (no `sk-`), so only the redacted values can catch them.
  const PROVIDER_SECRET = randomBytes(16).toString('hex'); // an Azure-style key
  const CALLER_TOKEN = `gsk_${randomBytes(39).toString('base64url').replace(/[-_]/g, 'x')}`; // a Groq key
  const CLOUD_SECRET = randomBytes(30).toString('base64url');
  const ENV_GATEWAY_KEY = randomBytes(24).toString('base64url');
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
    // Each call quotes only the secrets it carries itself: the gateway redacts a request's own secrets, and
    // another key's stored secret in a prompt is just text to it.
    const carried = new Map<Record<string, string>, string>([
      [viaVirtualKey, `${PROVIDER_SECRET} and ${virtualKey}`],
      [viaGatewayKey, `${CALLER_TOKEN}, ${CLOUD_SECRET} and ${gatewayKey}`],
      [viaEnvKey, `${CALLER_TOKEN}, ${CLOUD_SECRET} and ${ENV_GATEWAY_KEY}`],
    ]);
    for (const headers of [viaVirtualKey, viaGatewayKey, viaEnvKey]) {
      fake.enqueue(echoEverything(401));
      await call(headers, { model: 'm', prompt: 'x' });
      fake.enqueue(echoEverything(500));
      await call({ ...headers, 'x-gateway-retry-count': '1' }, { model: 'm', prompt: 'x' });
      fake.enqueue(echoEverything(200));
      await call(headers, { model: 'm', prompt: `my keys are ${carried.get(headers)}` });
      fake.enqueue(echoEverything(200, true));
      await call(headers, { model: 'm', prompt: 'x', stream: true });
      await call(headers, { model: 'm', prompt: 'x', temperature: 9 });
      await call({ ...headers, 'x-gateway-custom-host': 'http://127.0.0.1:9/v1' }, { model: 'm', prompt: 'x' });
    }
    // Failed authentication: the key that was tried must not be kept either.
    await call({ 'content-type': 'application/json', 'x-gateway-api-key': `${gatewayKey}-typo` }, { model: 'm', prompt: 'x' });
    await call({ 'content-type': 'application/json', authorization: `Bearer ${virtualKey}x` }, { model: 'm', prompt: 'x' });
    await gateway.flushLog();
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

describe('each value the gateway redacts, caught on its own', () => {
  // None of these looks like `sk-…`, `gh-vk-…`, `AKIA…` or `AIza…`: redact.ts's fallback pattern cannot
  // blank them out, so each test below fails when its value is left out of proxy.ts's secretValues().
  const AZURE_STYLE_KEY = randomBytes(16).toString('hex');
  const GROQ_KEY = `gsk_${randomBytes(39).toString('base64url').replace(/[-_]/g, 'q')}`;
  const UNUSED_BEARER = `${randomBytes(27).toString('base64url')}.${randomBytes(12).toString('base64url')}`;
  const FORWARDED_SECRET = randomBytes(33).toString('base64url');
  const ENV_GATEWAY_KEY = `gwk_${randomBytes(20).toString('base64url')}`;
  const BEDROCK: AwsTestCredentials = {
    accessKeyId: 'ASIAQWERTYUIOPZXCVBN',
    secretAccessKey: randomBytes(30).toString('base64').replace(/=+$/, ''),
    sessionToken: `IQoJb3JpZ2lu${randomBytes(48).toString('base64')}`,
  };
  let gateway: TestGateway;
  let openai: OpenAIFake;
  let bedrock: BedrockFake;
  let storedKeyVirtualKey: string;
  let storedGatewayKey: string;

  /** A provider error that repeats back every header it was sent, in the body and message. */
  const echoHeaders = (status: number) => (request: { headers: Record<string, unknown> }, res: import('node:http').ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `Incorrect API key; you sent ${JSON.stringify(request.headers)}`, type: 'invalid_request_error', param: null, code: null } }));
  };
  const bedrockEchoHeaders = (request: { headers: Record<string, unknown> }, res: import('node:http').ServerResponse) => {
    res.writeHead(403, { 'content-type': 'application/json', 'x-amzn-errortype': 'UnrecognizedClientException:http://internal.amazon.com/coral/com.amazon.bedrock/' });
    res.end(JSON.stringify({ message: `The security token included in the request is invalid: ${JSON.stringify(request.headers)}` }));
  };

  beforeAll(async () => {
    openai = await startOpenAIFake();
    bedrock = await startBedrockFake({ region: 'us-west-2', credentials: [BEDROCK] });
    gateway = await startGateway({ env: { GATEWAY_API_KEY: ENV_GATEWAY_KEY } });
    const created = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'azure-style', provider: 'openai', secret: AZURE_STYLE_KEY, customHost: openai.baseUrl }) });
    expect(created.status).toBe(201);
    storedKeyVirtualKey = (await created.json()).key;
    storedGatewayKey = (await (await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'gk' }) })).json()).key;
    // Not a shape the fallback pattern knows either: this key is caught by its value or not at all.
    expect(storedGatewayKey).not.toMatch(/^(sk-|gh-vk-)/);
  });
  afterAll(async () => {
    await gateway.close();
    await openai.close();
    await bedrock.close();
  });

  /** One call; returns what the client saw and the log row (detail) it left. */
  async function call(headers: Record<string, string>, body: object, path = '/v1/completions'): Promise<{ status: number; client: string; row: string }> {
    const traceId = `trace-${randomBytes(6).toString('hex')}`;
    const response = await fetch(`${gateway.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-gateway-trace-id': traceId, ...headers }, body: JSON.stringify(body) });
    const client = `${response.status} ${JSON.stringify([...response.headers])} ${await response.text()}`;
    const items = (await (await gateway.admin('/logs?limit=200')).json()).items as { id: string; traceId: string }[];
    const item = items.find((entry) => entry.traceId === traceId);
    expect(item, `no log row for ${traceId}`).toBeDefined();
    const row = await (await gateway.admin(`/logs/${item!.id}`)).text();
    expect(row, 'the log row keeps bodies (else the body checks below are vacuous)').toContain('"requestBody":"{');
    return { status: response.status, client, row };
  }

  function expectRedacted(what: string, secret: string, where: Record<string, string>): void {
    for (const [place, text] of Object.entries(where)) {
      expect(text.includes(secret), `${what} leaked into ${place}: proxy.ts no longer redacts it (secretValues(), or the header names given to redactHeaders())`).toBe(false);
    }
  }

  it('the provider token (a stored Azure-style 32-hex key) is blanked out of a provider error that echoes it', async () => {
    openai.enqueue(echoHeaders(401));
    const { status, client, row } = await call({ authorization: `Bearer ${storedKeyVirtualKey}` }, { model: 'm', prompt: `x ${AZURE_STYLE_KEY}` });
    expect(status).toBe(401);
    expect(String(openai.requests.at(-1)!.headers.authorization), 'the provider got the key, so the check is not vacuous').toBe(`Bearer ${AZURE_STYLE_KEY}`);
    expect(row).toContain('[redacted]');
    expectRedacted('the provider token (credentials.token)', AZURE_STYLE_KEY, { 'the client error': client, 'the log row': row });
  });

  it("the caller's own provider token (a Groq gsk_ key as the bearer) is blanked out too", async () => {
    openai.enqueue(echoHeaders(401));
    const headers = { 'x-gateway-api-key': storedGatewayKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': openai.baseUrl, authorization: `Bearer ${GROQ_KEY}` };
    const { status, client, row } = await call(headers, { model: 'm', prompt: `x ${GROQ_KEY}` });
    expect(status).toBe(401);
    expect(String(openai.requests.at(-1)!.headers.authorization)).toBe(`Bearer ${GROQ_KEY}`);
    expectRedacted('the Groq key', GROQ_KEY, { 'the client error': client, 'the log row': row });
  });

  it("the caller's bearer the gateway does not use (a virtual key came in x-gateway-api-key) is blanked out of the logged body", async () => {
    const { status, row } = await call({ 'x-gateway-api-key': storedKeyVirtualKey, authorization: `Bearer ${UNUSED_BEARER}` }, { model: 'm', prompt: `my other key is ${UNUSED_BEARER}` });
    expect(status).toBe(200);
    expect(String(openai.requests.at(-1)!.headers.authorization), 'the stored key, not the bearer, went to the provider').toBe(`Bearer ${AZURE_STYLE_KEY}`);
    expectRedacted("the caller's bearer (headers.bearer)", UNUSED_BEARER, { 'the log row': row });
  });

  it('the gateway key, stored or from the environment, is blanked out of the logged body', async () => {
    for (const [name, key] of [['a stored gateway key', storedGatewayKey], ['the environment gateway key', ENV_GATEWAY_KEY]] as const) {
      const headers = { 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': openai.baseUrl, authorization: `Bearer ${GROQ_KEY}` };
      const { status, row } = await call(headers, { model: 'm', prompt: `the gateway key is ${key}` });
      expect(status, name).toBe(200);
      expectRedacted(`${name} (headers.apiKey)`, key, { 'the log row': row });
    }
  });

  it('a header the caller forwards by name (x-gateway-forward-headers) is blanked out of an error that echoes it', async () => {
    openai.enqueue(echoHeaders(403));
    const headers = { authorization: `Bearer ${storedKeyVirtualKey}`, 'x-gateway-forward-headers': 'x-upstream-token', 'x-upstream-token': FORWARDED_SECRET };
    const { status, client, row } = await call(headers, { model: 'm', prompt: 'x' });
    expect(status).toBe(403);
    expect(openai.requests.at(-1)!.headers['x-upstream-token'], 'the provider got the header').toBe(FORWARDED_SECRET);
    expectRedacted('a forwarded sensitive header (headers.forwardHeaders)', FORWARDED_SECRET, { 'the client error': client, 'the log row': row });
  });

  const bedrockHeaders = () => ({
    'x-gateway-api-key': storedGatewayKey,
    'x-gateway-provider': 'bedrock',
    'x-gateway-custom-host': bedrock.baseUrl,
    'x-gateway-cloud-c-access-key-id': BEDROCK.accessKeyId,
    'x-gateway-cloud-c-secret-access-key': BEDROCK.secretAccessKey,
    'x-gateway-cloud-c-session-token': BEDROCK.sessionToken!,
    'x-gateway-cloud-c-region': 'us-west-2',
  });

  it('the Bedrock secret access key is blanked out of the logged body', async () => {
    const { status, row } = await call(bedrockHeaders(), { model: 'anthropic.claude-3-haiku-20240307-v1:0', prompt: `sign with ${BEDROCK.secretAccessKey}` });
    expect(status).toBe(200);
    expectRedacted('the Bedrock secret access key (credentials.bedrock.secretAccessKey)', BEDROCK.secretAccessKey, { 'the log row': row });
  });

  it('the Bedrock session token is blanked out of a Bedrock error that echoes it', async () => {
    bedrock.enqueue(bedrockEchoHeaders);
    const { status, client, row } = await call(bedrockHeaders(), { model: 'anthropic.claude-3-haiku-20240307-v1:0', prompt: 'x' });
    expect(status).toBe(403);
    expect(bedrock.requests.at(-1)!.headers['x-amz-security-token'], 'Bedrock got the token').toBe(BEDROCK.sessionToken);
    expectRedacted('the Bedrock session token (credentials.bedrock.sessionToken)', BEDROCK.sessionToken!, { 'the client error': client, 'the log row': row });
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
