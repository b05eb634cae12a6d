// Issue 21, items 5 and 6, tried as a web page and a sloppy client would: a foreign Origin or Host never
// reaches /v1 nor the log; a flood of bad keys leaves a handful of log rows whose counts add up; a member
// name given twice is refused on every dialect; a refused big body is drained so a slow client reads its 413.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

interface Reply {
  status: number;
  text: string;
}

/** node:http rather than fetch: fetch will not send an arbitrary Host or Origin. */
function send(gateway: TestGateway, path: string, options: { method?: string; headers?: Record<string, string>; body?: string; agent?: Agent } = {}): Promise<Reply> {
  const url = new URL(gateway.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: options.method ?? 'POST', headers: options.headers, agent: options.agent }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

async function logRows(gateway: TestGateway, query = ''): Promise<{ path: string; status: number; count: number; error: string | null; model: string | null }[]> {
  await gateway.flushLog();
  return ((await (await gateway.admin(`/logs?limit=500${query}`)).json()) as { items: { path: string; status: number; count: number; error: string | null; model: string | null }[] }).items;
}

async function refusedCounter(gateway: TestGateway, reason: string): Promise<number> {
  const text = await (await fetch(`${gateway.baseUrl}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith(`gatehouse_refused_requests_total{reason="${reason}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('browsers on /v1', () => {
  let gateway: TestGateway;
  let fake: OpenAIFake;
  let port: string;
  const chat = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
  beforeAll(async () => {
    fake = await startOpenAIFake();
    gateway = await startGateway();
    port = new URL(gateway.baseUrl).port;
  });
  afterAll(async () => {
    await gateway.close();
    await fake.close();
  });
  const keyed = (extra: Record<string, string> = {}) => ({
    'content-type': 'application/json',
    'x-gateway-api-key': gateway.apiKey,
    'x-gateway-provider': 'openai',
    'x-gateway-custom-host': fake.baseUrl,
    ...extra,
  });

  it('refuses a foreign Origin with 403 in the dialect shape on every /v1 path, before the provider or the log', async () => {
    const before = (await logRows(gateway)).length;
    const seen = fake.requests.length;
    const paths: [string, string, string][] = [
      ['POST', '/v1/chat/completions', 'openai'],
      ['POST', '/v1/completions', 'openai'],
      ['POST', '/v1/responses', 'openai'],
      ['POST', '/v1/messages', 'anthropic'],
      ['POST', '/v1/messages/count_tokens', 'anthropic'],
      ['GET', '/v1/models', 'openai'],
      ['GET', '/v1/responses/resp_123', 'openai'],
    ];
    for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1.evil.example', 'http://localhost.evil.example:8080', 'file://']) {
      for (const [method, path, shape] of paths) {
        // A text/plain POST: what a page can send without a preflight.
        const reply = await send(gateway, path, { method, headers: keyed({ origin, 'content-type': 'text/plain' }), body: method === 'POST' ? chat : undefined });
        expect(reply.status, `${origin} ${path}`).toBe(403);
        const body = JSON.parse(reply.text);
        if (shape === 'anthropic') expect(body).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
        else expect(body.error.type, path).toBe('permission_error');
      }
    }
    expect(fake.requests.length).toBe(seen);
    expect((await logRows(gateway)).length).toBe(before);
    expect(await refusedCounter(gateway, 'foreign_origin')).toBeGreaterThanOrEqual(35);
  });

  it('lets a loopback Origin and a request without Origin through', async () => {
    for (const origin of [`http://127.0.0.1:${port}`, 'http://localhost:5173', 'https://[::1]:9000', 'http://127.0.0.2', undefined]) {
      const reply = await send(gateway, '/v1/chat/completions', { headers: keyed(origin ? { origin } : {}), body: chat });
      expect(reply.status, origin).toBe(200);
    }
  });

  it('refuses a foreign Host (DNS rebinding) with 403, and not a loopback one', async () => {
    const seen = fake.requests.length;
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1.evil.example:${port}`, `0.0.0.0:${port}`]) {
      const reply = await send(gateway, '/v1/chat/completions', { headers: keyed({ host }), body: chat });
      expect(reply.status, host).toBe(403);
      expect(JSON.parse(reply.text).error.message).toContain('--allow-remote');
    }
    expect(fake.requests.length).toBe(seen);
    for (const host of [`localhost:${port}`, `[::1]:${port}`, `127.0.0.1:${port}`]) {
      expect((await send(gateway, '/v1/chat/completions', { headers: keyed({ host }), body: chat })).status, host).toBe(200);
    }
    expect(await refusedCounter(gateway, 'foreign_host')).toBe(4);
  });

  it('with --allow-remote answers any Host, but still refuses a foreign Origin', async () => {
    const remote = await startGateway({ allowRemote: true });
    try {
      const headers = { 'x-gateway-api-key': remote.apiKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.baseUrl, 'content-type': 'application/json' };
      expect((await send(remote, '/v1/chat/completions', { headers: { ...headers, host: 'gatehouse.lan:8787' }, body: chat })).status).toBe(200);
      expect((await send(remote, '/v1/chat/completions', { headers: { ...headers, host: 'gatehouse.lan:8787', origin: 'http://gatehouse.lan:8787' }, body: chat })).status).toBe(403);
    } finally {
      await remote.close();
    }
  });
});

describe('the admin API by name', () => {
  it('answers only loopback names without --allow-remote; with it, the team address and its own pages, still with the token', async () => {
    const admin = (gateway: TestGateway, headers: Record<string, string>) => send(gateway, '/admin/api/virtual-keys', { method: 'GET', headers: { authorization: `Bearer ${gateway.adminToken}`, ...headers } });
    const local = await startGateway();
    const remote = await startGateway({ allowRemote: true });
    try {
      const refused = await admin(local, { host: 'gatehouse.team.example' });
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.text).error.message).toContain('--allow-remote');
      const host = 'gatehouse.team.example';
      expect((await admin(remote, { host })).status).toBe(200);
      // The UI served from the team's address, behind the operator's TLS.
      expect((await admin(remote, { host, origin: `https://${host}` })).status).toBe(200);
      // Another site's page, even one whose name now points at the gateway, is not the team's page.
      expect((await admin(remote, { host, origin: 'https://evil.example' })).status).toBe(403);
      expect((await send(remote, '/admin/api/virtual-keys', { method: 'GET', headers: { host, origin: `https://${host}` } })).status).toBe(401);
    } finally {
      await local.close();
      await remote.close();
    }
  });
});

describe('refusals without a valid key', () => {
  it('5,000 bad-key requests leave a handful of rows whose counts add up, and real history stays', async () => {
    // One window for the whole burst, however slow the machine: its rows are written when it closes (here, on stop).
    const gateway = await startGateway({ refusalWindowMs: 600_000, keepDataDir: true });
    const fake = await startOpenAIFake();
    let reopened: TestGateway | undefined;
    try {
      const headers = { 'content-type': 'application/json', 'x-gateway-api-key': gateway.apiKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.baseUrl };
      expect((await fetch(`${gateway.baseUrl}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify({ model: 'real-history', messages: [{ role: 'user', content: 'hi' }] }) })).status).toBe(200);

      const agent = new Agent({ keepAlive: true, maxSockets: 32 });
      const bad = { 'content-type': 'text/plain', 'x-gateway-api-key': 'gh-wrong-key-0123456789' };
      const statuses = await Promise.all(Array.from({ length: 5_000 }, (_, i) => send(gateway, i % 2 ? '/v1/chat/completions' : '/v1/messages', { headers: bad, body: '{}', agent }).then((reply) => reply.status)));
      agent.destroy();
      expect(statuses.every((status) => status === 401)).toBe(true);
      expect(await refusedCounter(gateway, 'unauthenticated')).toBe(5_000);

      // The first refusal of a window shows at once (a mistyped key is seen straight away); the rest are counted.
      const early = (await logRows(gateway)).filter((row) => row.status === 401);
      expect(early.map((row) => row.count)).toEqual([1, 1]);

      const { dataDir } = gateway;
      await gateway.close();
      reopened = await startGateway({ dataDir });
      const rows = await logRows(reopened);
      const refused = rows.filter((row) => row.status === 401);
      expect(refused.length).toBe(4);
      expect(refused.reduce((sum, row) => sum + row.count, 0)).toBe(5_000);
      expect(refused.filter((row) => row.count === 2_499).length).toBe(2);
      expect(rows.some((row) => row.model === 'real-history' && row.status === 200 && row.count === 1)).toBe(true);
    } finally {
      await (reopened ?? gateway).close();
      await fake.close();
    }
  });

  it('closes a window after its time: later refusals open a new one', async () => {
    const gateway = await startGateway({ refusalWindowMs: 300 });
    try {
      const bad = { 'content-type': 'application/json', 'x-gateway-api-key': 'gh-wrong-key-0123456789' };
      for (let i = 0; i < 3; i++) await send(gateway, '/v1/chat/completions', { headers: bad, body: '{}' });
      await new Promise((resolve) => setTimeout(resolve, 600));
      await send(gateway, '/v1/chat/completions', { headers: bad, body: '{}' });
      const counts = (await logRows(gateway)).filter((row) => row.status === 401).map((row) => row.count);
      // Newest first: the new window's first refusal, the closed window's count, its first refusal.
      expect(counts).toEqual([1, 2, 1]);
    } finally {
      await gateway.close();
    }
  });

  it('a refusal still in its window when the gateway stops is written with its count', async () => {
    const gateway = await startGateway({ refusalWindowMs: 600_000, keepDataDir: true });
    const bad = { 'content-type': 'application/json', 'x-gateway-api-key': 'gh-wrong-key-0123456789' };
    for (let i = 0; i < 10; i++) expect((await send(gateway, '/v1/chat/completions', { headers: bad, body: '{}' })).status).toBe(401);
    const { dataDir } = gateway;
    await gateway.close();
    const reopened = await startGateway({ dataDir });
    try {
      const refused = (await logRows(reopened)).filter((row) => row.status === 401);
      expect(refused.map((row) => row.count).sort()).toEqual([1, 9]);
    } finally {
      await reopened.close();
    }
  });
});

describe('strict bodies', () => {
  let gateway: TestGateway;
  let fake: OpenAIFake;
  beforeAll(async () => {
    fake = await startOpenAIFake();
    gateway = await startGateway({ maxBodyBytes: 1024 * 1024 });
  });
  afterAll(async () => {
    await gateway.close();
    await fake.close();
  });
  const headers = () => ({ 'content-type': 'application/json', 'x-gateway-api-key': gateway.apiKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.baseUrl });

  it('refuses a member name given twice with 400 naming it, on every dialect, and the provider gets nothing', async () => {
    const seen = fake.requests.length;
    const cases: [string, string, string][] = [
      ['/v1/chat/completions', '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"max_tokens":-5,"max_tokens":5}', 'max_tokens'],
      ['/v1/completions', '{"model":"m","prompt":"x","max_tokens":-5,"max_tokens":5}', 'max_tokens'],
      ['/v1/responses', '{"model":"m","input":"x","max_output_tokens":16,"max_output_tokens":1}', 'max_output_tokens'],
      ['/v1/messages', '{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi","role":"assistant"}]}', 'messages[0].role'],
      ['/v1/messages/count_tokens', '{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a","t\\u0065xt":"b"}]}]}', 'messages[0].content[0].text'],
    ];
    for (const [path, body, param] of cases) {
      const reply = await send(gateway, path, { headers: headers(), body });
      expect(reply.status, path).toBe(400);
      const parsed = JSON.parse(reply.text);
      expect(parsed.error.message, path).toContain(`'${param.split('.').pop()!.replace(/\[\d+\]$/, '')}' twice`);
      if (!path.startsWith('/v1/messages')) expect(parsed.error.param, path).toBe(param);
      else expect(parsed.type).toBe('error');
    }
    expect(fake.requests.length).toBe(seen);
    // The same names in different objects are fine.
    const fine = await send(gateway, '/v1/chat/completions', { headers: headers(), body: '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}' });
    expect(fine.status).toBe(200);
  });

  it('drains a refused big body while it arrives, so a client that reads only after sending gets the 413', async () => {
    const port = Number(new URL(gateway.baseUrl).port);
    const total = 6 * 1024 * 1024;
    const reply = await new Promise<{ text: string; sentAll: boolean }>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      let sent = 0;
      socket.on('data', (data) => (text += data.toString()));
      socket.on('error', () => resolve({ text, sentAll: sent >= total }));
      socket.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nx-gateway-api-key: ${gateway.apiKey}\r\ncontent-length: ${total}\r\n\r\n`);
      const piece = Buffer.alloc(256 * 1024, 0x61);
      // Slowly, over well past the old one-second drain; the answer is only looked at once all is sent.
      const timer = setInterval(() => {
        if (socket.destroyed) return clearInterval(timer);
        if (sent >= total) {
          clearInterval(timer);
          setTimeout(() => {
            resolve({ text, sentAll: true });
            socket.destroy();
          }, 300);
          return;
        }
        socket.write(piece);
        sent += piece.length;
      }, 80);
    });
    expect(reply.sentAll).toBe(true);
    expect(reply.text).toMatch(/^HTTP\/1\.1 413/);
  });

  it('cuts a refused body past its drain bound (64 MiB)', async () => {
    const port = Number(new URL(gateway.baseUrl).port);
    const cutAfter = await new Promise<number>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let sent = 0;
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(sent));
      socket.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nx-gateway-api-key: ${gateway.apiKey}\r\ncontent-length: ${200 * 1024 * 1024}\r\n\r\n`);
      const piece = Buffer.alloc(1024 * 1024, 0x61);
      const pump = () => {
        while (!socket.destroyed && sent < 200 * 1024 * 1024) {
          sent += piece.length;
          if (!socket.write(piece)) return void socket.once('drain', pump);
        }
      };
      pump();
    });
    expect(cutAfter).toBeGreaterThan(64 * 1024 * 1024);
    expect(cutAfter).toBeLessThan(200 * 1024 * 1024);
  });
});
