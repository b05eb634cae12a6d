// Routes through the real gateway against local provider doubles: a failing first target (429, 500,
// its own timeout, a reset connection) gives way to the second, and the client sees one clean answer; a
// stream that began is never retried elsewhere; every attempt is in the log row.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { openAIError, startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

let gateway: TestGateway;
let primary: OpenAIFake;
let secondary: OpenAIFake;
const createdRoutes: string[] = [];

beforeAll(async () => {
  gateway = await startGateway();
  primary = await startOpenAIFake();
  secondary = await startOpenAIFake();
  await createKey('primary', primary.baseUrl);
  await createKey('secondary', secondary.baseUrl);
});
afterAll(async () => {
  await gateway.close();
  await primary.close();
  await secondary.close();
});
afterEach(async () => {
  // Each test has its own route; the cool-downs a failure starts stay with that route's targets.
  for (const id of createdRoutes.splice(0)) await gateway.admin(`/routes/${id}`, { method: 'DELETE' });
  primary.requests.length = 0;
  secondary.requests.length = 0;
});

async function createKey(name: string, customHost: string): Promise<void> {
  const response = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name, provider: 'openai', secret: `sk-${name}-0123456789abcdef`, customHost }) });
  expect(response.status).toBe(201);
}

/** A fallback route from `primary` (sending `firstModel`) to `secondary`, matched by `match`. */
async function fallbackRoute(match: string, firstTarget: Record<string, unknown> = {}): Promise<void> {
  const response = await gateway.admin('/routes', {
    method: 'POST',
    body: JSON.stringify({ name: `route-${match}`, match, strategy: 'fallback', targets: [{ key: 'primary', model: `${match}-primary`, ...firstTarget }, { key: 'secondary', model: `${match}-secondary` }] }),
  });
  const body = (await response.json()) as { id: string };
  expect(response.status, JSON.stringify(body)).toBe(201);
  createdRoutes.push(body.id);
}

/** A chat call with only the gateway key and a model name: no provider headers. */
function chat(model: string, extra: Record<string, unknown> = {}) {
  return fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...extra }),
  });
}

interface LoggedRow {
  id: string;
  status: number;
  provider: string;
  route: string | null;
  routeTarget: string | null;
  attempts: number;
}
interface LoggedDetail extends LoggedRow {
  attemptLog: { status: number | null; error: string | null; durationMs: number; target?: string; reason?: string }[];
}

async function lastLogRow(): Promise<LoggedDetail> {
  await gateway.flushLog();
  const list = (await (await gateway.admin('/logs?limit=1')).json()) as { items: LoggedRow[] };
  return (await (await gateway.admin(`/logs/${list.items[0].id}`)).json()) as LoggedDetail;
}

describe('fallback before the first byte', () => {
  const failures: [string, (fake: OpenAIFake) => void, string][] = [
    ['429', (fake) => fake.enqueue(openAIError(429, 'Rate limit reached', 'rate_limit_error')), '429'],
    ['500', (fake) => fake.enqueue(openAIError(500, 'The server had an error', 'server_error')), '500'],
    ['a connection reset', (fake) => fake.enqueue((_request, res) => void res.socket?.destroy()), 'connection error'],
  ];
  for (const [what, fail, reason] of failures) {
    it(`moves on after the first target's ${what}: the second serves and the client sees one clean answer`, async () => {
      const model = `fb-${reason.replace(/\s/g, '-')}`;
      await fallbackRoute(model);
      fail(primary);
      const response = await chat(model);
      const body = (await response.json()) as { model: string; choices: { message: { content: string } }[] };
      expect(response.status).toBe(200);
      expect(body.model).toBe(`${model}-secondary`);
      expect(body.choices[0].message.content).toBe('Hello from the fake');
      expect(primary.requests).toHaveLength(1);
      expect(secondary.requests.map((request) => request.json.model)).toEqual([`${model}-secondary`]);

      const row = await lastLogRow();
      expect(row.route).toBe(`route-${model}`);
      expect(row.routeTarget).toBe(`secondary → ${model}-secondary`);
      expect(row.status).toBe(200);
      expect(row.attempts).toBe(2);
      expect(row.attemptLog.map((attempt) => [attempt.target, attempt.status, attempt.reason ?? null])).toEqual([
        [`primary → ${model}-primary`, reason === 'connection error' ? null : Number(reason), reason],
        [`secondary → ${model}-secondary`, 200, null],
      ]);
    });
  }

  it("moves on when the first target passes its own timeout_ms; the request's own time limit is not spent", async () => {
    await fallbackRoute('fb-timeout', { timeout_ms: 300 });
    primary.enqueue(() => new Promise<void>(() => undefined));
    const started = performance.now();
    const response = await chat('fb-timeout');
    expect(response.status).toBe(200);
    expect(((await response.json()) as { model: string }).model).toBe('fb-timeout-secondary');
    expect(performance.now() - started).toBeLessThan(3_000);
    const row = await lastLogRow();
    expect(row.attemptLog[0]).toMatchObject({ target: 'primary → fb-timeout-primary', status: null, reason: 'timeout' });
    expect(row.attemptLog[0].durationMs).toBeGreaterThanOrEqual(250);
  });

  it('a last target past its timeout_ms: 504 naming the route and the target', async () => {
    const response = await gateway.admin('/routes', {
      method: 'POST',
      body: JSON.stringify({ name: 'slow-only', match: 'slow-only', strategy: 'fallback', targets: [{ key: 'primary', timeout_ms: 200 }] }),
    });
    createdRoutes.push(((await response.json()) as { id: string }).id);
    primary.enqueue(() => new Promise<void>(() => undefined));
    const answer = await chat('slow-only');
    const body = (await answer.json()) as { error: { message: string; code: string } };
    expect(answer.status).toBe(504);
    expect(body.error.code).toBe('timeout');
    expect(body.error.message).toContain("Route 'slow-only': primary → slow-only did not answer within its timeout_ms (200 ms)");
  });

  it('relays the last target’s own error when every target fails', async () => {
    await fallbackRoute('fb-all');
    primary.enqueue(openAIError(503, 'Primary is down', 'server_error'));
    secondary.enqueue(openAIError(429, 'Secondary is busy', 'rate_limit_error'));
    const response = await chat('fb-all');
    expect(response.status).toBe(429);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('Secondary is busy');
    const row = await lastLogRow();
    expect(row.routeTarget).toBe('secondary → fb-all-secondary');
    expect(row.attemptLog.map((attempt) => attempt.status)).toEqual([503, 429]);
  });

  it('never retries a stream that began: the client gets the first target’s partial stream and an error event', async () => {
    await fallbackRoute('fb-stream');
    primary.enqueue((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'fb-stream-primary', choices: [{ index: 0, delta: { role: 'assistant', content: 'Half' }, finish_reason: null }] })}\n\n`);
      setTimeout(() => res.socket?.destroy(), 50);
    });
    const response = await chat('fb-stream', { stream: true });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).toContain('Half');
    expect(text).toContain('"error"');
    expect(secondary.requests).toHaveLength(0);
    const row = await lastLogRow();
    expect(row.routeTarget).toBe('primary → fb-stream-primary');
    expect(row.attemptLog).toHaveLength(1);
  });

  it('skips a target that failed for its cool-down, and says so in the log', async () => {
    await fallbackRoute('fb-cool');
    primary.enqueue(openAIError(429, 'Rate limit reached', 'rate_limit_error'));
    expect((await chat('fb-cool')).status).toBe(200);
    const second = await chat('fb-cool');
    expect(second.status).toBe(200);
    expect(primary.requests).toHaveLength(1);
    expect(secondary.requests).toHaveLength(2);
    const row = await lastLogRow();
    expect(row.attempts).toBe(1);
    expect(row.attemptLog).toEqual([
      { status: null, error: null, durationMs: 0, target: 'primary → fb-cool-primary', reason: 'cooling down' },
      expect.objectContaining({ target: 'secondary → fb-cool-secondary', status: 200 }),
    ]);
  });
});

describe('conditions through the gateway', () => {
  it('a long prompt goes to the long-context target, a short one to the default; tools pick theirs', async () => {
    const response = await gateway.admin('/routes', {
      method: 'POST',
      body: JSON.stringify({
        name: 'scenario',
        match: 'claude-sonnet-*',
        strategy: 'fallback',
        targets: [
          { key: 'primary', model: 'long-context', when: { min_prompt_tokens: 2000 } },
          { key: 'primary', model: 'with-tools', when: { tools: true } },
          { key: 'secondary', model: 'default' },
        ],
      }),
    });
    expect(response.status, await response.clone().text()).toBe(201);
    createdRoutes.push(((await response.json()) as { id: string }).id);

    expect((await chat('claude-sonnet-4', { messages: [{ role: 'user', content: 'word '.repeat(3000) }] })).status).toBe(200);
    expect(primary.requests.at(-1)!.json.model).toBe('long-context');
    expect((await chat('claude-sonnet-4')).status).toBe(200);
    expect(secondary.requests.at(-1)!.json.model).toBe('default');
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];
    expect((await chat('claude-sonnet-4', { tools })).status).toBe(200);
    expect(primary.requests.at(-1)!.json.model).toBe('with-tools');
  });
});

describe('what a target sends', () => {
  it("rewrites only the model value in the client's bytes; other bytes go up unchanged", async () => {
    await fallbackRoute('bytes');
    const raw = '{ "model" : "bytes",\n  "messages": [{"role": "user", "content": "ünïcode \\u00e9", "name": "model"}],  "temperature": 1.0 }';
    const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` }, body: raw });
    expect(response.status).toBe(200);
    expect(primary.requests[0].body.toString('utf8')).toBe(raw.replace('"bytes"', '"bytes-primary"'));
  });

  it('sends the requested name when a target names no model', async () => {
    const response = await gateway.admin('/routes', {
      method: 'POST',
      body: JSON.stringify({ name: 'as-asked', match: 'asked-*', strategy: 'fallback', targets: [{ key: 'secondary' }] }),
    });
    createdRoutes.push(((await response.json()) as { id: string }).id);
    const raw = JSON.stringify({ model: 'asked-1', messages: [{ role: 'user', content: 'hi' }] });
    const answer = await fetch(`${gateway.baseUrl}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` }, body: raw });
    expect(answer.status).toBe(200);
    expect(secondary.requests[0].body.toString('utf8')).toBe(raw);
  });

  it('a gateway key that names its provider is not routed', async () => {
    await fallbackRoute('direct');
    const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': gateway.apiKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': secondary.baseUrl, authorization: 'Bearer sk-own-token-0123456789' },
      body: JSON.stringify({ model: 'direct', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    expect(secondary.requests[0].json.model).toBe('direct');
    expect(primary.requests).toHaveLength(0);
    expect((await lastLogRow()).route).toBeNull();
  });
});
