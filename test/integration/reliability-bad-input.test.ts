// Bad input (issue 7, item 6): whatever bytes, JSON or headers a client sends, the gateway answers in
// the contract's error shape with a 4xx, or passes a valid request on; it never crashes or answers 5xx itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Agent, request, type OutgoingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { completionText, startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { readDataLines, streamedText } from '../helpers/sse.js';
import { MAX_JSON_DEPTH } from '../../src-main/core/json-scan.js';

const MAX_BODY_BYTES = 64 * 1024;
let gateway: TestGateway;
let fake: OpenAIFake;
let port: number;
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

beforeAll(async () => {
  gateway = await startGateway({ maxBodyBytes: MAX_BODY_BYTES });
  fake = await startOpenAIFake();
  port = Number(new URL(gateway.baseUrl).port);
});
afterAll(async () => {
  agent.destroy();
  await gateway.close();
  await fake.close();
});

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function send(path: string, headers: OutgoingHttpHeaders, body?: Uint8Array | string, method = 'POST'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function gatewayHeaders(extra: OutgoingHttpHeaders = {}): OutgoingHttpHeaders {
  return {
    'content-type': 'application/json',
    'x-gateway-api-key': gateway.apiKey,
    'x-gateway-provider': 'openai',
    'x-gateway-custom-host': fake.baseUrl,
    authorization: 'Bearer sk-provider-token-1234567890',
    ...extra,
  };
}

/** The contract's error shape (CONTRACT §4), and nothing looser. */
function expectContractError(reply: Reply): void {
  expect(reply.headers['content-type']).toContain('application/json');
  const body = JSON.parse(reply.text) as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(['error']);
  expect(typeof body.error.message).toBe('string');
  expect((body.error.message as string).length).toBeGreaterThan(0);
  expect(typeof body.error.type).toBe('string');
  expect(body.error.param === null || typeof body.error.param === 'string').toBe(true);
  expect(body.error.code === null || typeof body.error.code === 'string' || typeof body.error.code === 'number').toBe(true);
}

/**
 * A 200 must be the double's real answer to what the client sent: the request reached the double with the
 * client's bytes unchanged (an OpenAI-format provider gets them as they are), the double (which refuses
 * what OpenAI refuses) accepted it, and the answer is its answer to that request — the text it makes
 * from that prompt, for that model, whole (a stream ends with [DONE]).
 */
function expectRealAnswer(path: string, sent: Uint8Array | string, reply: Reply, requestsBefore: number): void {
  const what = `a 200 to ${path} ${Buffer.from(sent).toString('utf8').slice(0, 200)}`;
  expect(fake.requests.length - requestsBefore, `${what}: the request must have reached the provider double once`).toBe(1);
  const received = fake.requests.at(-1)!;
  expect(received.body.equals(Buffer.from(sent)), `${what}: the provider got other bytes than the client sent`).toBe(true);
  const json = received.json;
  const isChat = path === '/v1/chat/completions';
  const expectedText = isChat ? 'Hello from the fake' : completionText(json.prompt);
  if (String(reply.headers['content-type']).startsWith('text/event-stream')) {
    const stream = readDataLines(reply.text);
    expect(stream.done, `${what}: the stream must end with [DONE]`).toBe(true);
    expect(streamedText(stream.chunks), `${what}: streamed text`).toBe(expectedText);
    return;
  }
  const answer = JSON.parse(reply.text) as { object: string; model: string; choices: { text?: string; message?: { content: string } }[] };
  expect(answer.object, what).toBe(isChat ? 'chat.completion' : 'text_completion');
  expect(answer.model, `${what}: the answer is for the model sent`).toBe(json.model);
  expect(isChat ? answer.choices[0].message?.content : answer.choices[0].text, `${what}: the answer's text`).toBe(expectedText);
}

/** 200s checked by expectRealAnswer: a property whose runs were all refused would check nothing of the kind. */
let answered = 0;
/** Of the header property's runs (a valid body, any headers), at least this many must be answered. */
const MIN_ANSWERED = 50;

/** Either the provider double really answered what was sent (see expectRealAnswer), or a 4xx in the contract shape. */
async function sendAndCheck(path: string, headers: OutgoingHttpHeaders, body: Uint8Array | string): Promise<Reply> {
  const requestsBefore = fake.requests.length;
  const reply = await send(path, headers, body);
  if (reply.status === 200) {
    expectRealAnswer(path, body, reply, requestsBefore);
    answered++;
    return reply;
  }
  expect(reply.status, `${path}: neither a real answer nor a refusal: ${reply.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
  expect(reply.status).toBeLessThan(500);
  expectContractError(reply);
  return reply;
}

const ENDPOINTS = ['/v1/completions', '/v1/chat/completions'] as const;

describe('any body', () => {
  it('any bytes: a 4xx in the contract shape', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENDPOINTS), fc.uint8Array({ maxLength: 2_048 }), async (path, bytes) => {
        await sendAndCheck(path, gatewayHeaders(), bytes);
      }),
      { numRuns: 150 },
    );
  });

  it('any JSON value: answered when valid, else a 400 that names the field when there is one', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENDPOINTS), fc.jsonValue({ maxDepth: 6 }), async (path, value) => {
        const reply = await sendAndCheck(path, gatewayHeaders(), JSON.stringify(value));
        if (reply.status !== 200) expect(reply.status).toBe(400);
      }),
      { numRuns: 150 },
    );
  });

  const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.double(), fc.integer(), fc.string(), fc.boolean(), fc.constant(null));
  const looksRight = {
    model: fc.oneof(fc.constant('gpt-3.5-turbo-instruct'), anyValue),
    prompt: fc.oneof(fc.string({ maxLength: 40 }), fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }), fc.array(fc.nat(), { maxLength: 5 }), anyValue),
    messages: fc.oneof(fc.constant([{ role: 'user', content: 'hi' }]), fc.array(fc.record({ role: fc.constantFrom('user', 'system', 'wizard'), content: anyValue }), { maxLength: 3 }), anyValue),
    temperature: fc.oneof(fc.double({ min: -1, max: 3, noNaN: true }), anyValue),
    top_p: fc.oneof(fc.double({ min: -0.5, max: 1.5, noNaN: true }), anyValue),
    max_tokens: fc.oneof(fc.integer({ min: -5, max: 5_000 }), anyValue),
    n: fc.oneof(fc.integer({ min: -1, max: 200 }), anyValue),
    best_of: fc.oneof(fc.integer({ min: -1, max: 30 }), anyValue),
    logprobs: fc.oneof(fc.integer({ min: -1, max: 8 }), fc.boolean(), anyValue),
    stop: fc.oneof(fc.string({ maxLength: 5 }), fc.array(fc.string({ maxLength: 5 }), { maxLength: 6 }), anyValue),
    stream: fc.oneof(fc.constant(false), anyValue),
    stream_options: fc.oneof(fc.constant({ include_usage: true }), anyValue),
    logit_bias: fc.oneof(fc.dictionary(fc.oneof(fc.nat({ max: 50_000 }).map(String), fc.string({ maxLength: 4 })), fc.double({ min: -150, max: 150, noNaN: true }), { maxKeys: 3 }), anyValue),
    seed: fc.oneof(fc.integer(), anyValue),
    presence_penalty: fc.oneof(fc.double({ min: -3, max: 3, noNaN: true }), anyValue),
    frequency_penalty: fc.oneof(fc.double({ min: -3, max: 3, noNaN: true }), anyValue),
    user: fc.oneof(fc.string({ maxLength: 8 }), anyValue),
    suffix: fc.oneof(fc.string({ maxLength: 8 }), anyValue),
    echo: fc.oneof(fc.boolean(), anyValue),
  };

  it('request-shaped objects with any field values: answered or a 400 naming a field', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENDPOINTS), fc.record(looksRight, { requiredKeys: [] }), async (path, body) => {
        const reply = await sendAndCheck(path, gatewayHeaders(), JSON.stringify(body));
        if (reply.status !== 200) expect(reply.status).toBe(400);
      }),
      { numRuns: 250 },
    );
  });

  // Requests valid by construction, with any mix of optional fields in their valid ranges: each must be
  // answered — a 200 that is the double's answer to exactly what was sent — not merely "not a 5xx".
  const validOptional = {
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    top_p: fc.double({ min: 0, max: 1, noNaN: true }),
    max_tokens: fc.integer({ min: 1, max: 256 }),
    stop: fc.oneof(fc.string({ minLength: 1, maxLength: 5 }), fc.array(fc.string({ minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 })),
    seed: fc.integer(),
    presence_penalty: fc.double({ min: -2, max: 2, noNaN: true }),
    frequency_penalty: fc.double({ min: -2, max: 2, noNaN: true }),
    user: fc.string({ maxLength: 8 }),
    stream: fc.boolean(),
  };
  const validRequest = fc.oneof(
    fc.record({
      path: fc.constant('/v1/completions' as const),
      required: fc.record({ model: fc.constant('gpt-3.5-turbo-instruct'), prompt: fc.oneof(fc.string({ maxLength: 40 }), fc.array(fc.string({ maxLength: 10 }), { minLength: 1, maxLength: 3 }), fc.array(fc.nat({ max: 50_000 }), { minLength: 1, maxLength: 5 })) }),
      optional: fc.record(validOptional, { requiredKeys: [] }),
    }),
    fc.record({
      path: fc.constant('/v1/chat/completions' as const),
      required: fc.record({ model: fc.constant('gpt-4o-mini'), messages: fc.array(fc.record({ role: fc.constantFrom('user', 'system', 'assistant', 'developer'), content: fc.string({ maxLength: 20 }) }), { minLength: 1, maxLength: 3 }) }),
      optional: fc.record(validOptional, { requiredKeys: [] }),
    }),
  );

  it('valid requests with any valid optional fields: every one answered, with the answer to what was sent', async () => {
    await fc.assert(
      fc.asyncProperty(validRequest, async ({ path, required, optional }) => {
        const sent = JSON.stringify({ ...required, ...optional });
        const reply = await sendAndCheck(path, gatewayHeaders(), sent);
        expect(reply.status, `${path} ${sent} was refused: ${reply.text}`).toBe(200);
      }),
      { numRuns: 150 },
    );
  });

  it(`arrays and objects nested deeper than ${MAX_JSON_DEPTH} levels are refused with 400 before any parsing cost`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: MAX_JSON_DEPTH + 1, max: 10_000 }), fc.constantFrom('[', '{"a":'), async (depth, opener) => {
        const closer = opener === '[' ? ']' : '}';
        const body = `{"model":"m","prompt":"x","extra":${opener.repeat(depth - 1)}1${closer.repeat(depth - 1)}}`;
        const reply = await send('/v1/completions', gatewayHeaders(), body);
        expect(reply.status).toBe(400);
        expectContractError(reply);
        expect(JSON.parse(reply.text).error.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
      }),
      { numRuns: 30 },
    );
    const deepest = `{"model":"m","prompt":"x","extra":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`;
    expect((await send('/v1/completions', gatewayHeaders(), deepest)).status).toBe(200);
  });

  it('a body over the limit gets 413, whether its length is declared or it comes chunked', async () => {
    const big = JSON.stringify({ model: 'm', prompt: 'x'.repeat(MAX_BODY_BYTES) });
    const declared = await send('/v1/completions', gatewayHeaders(), big);
    expect(declared.status).toBe(413);
    expectContractError(declared);
    const chunked = await new Promise<Reply>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/v1/chat/completions', method: 'POST', headers: gatewayHeaders() }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      });
      req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
      for (let i = 0; i < 20; i++) req.write('x'.repeat(8 * 1024));
      req.end();
    });
    expect(chunked.status).toBe(413);
    expectContractError(chunked);
    expect((await send('/v1/completions', gatewayHeaders(), '{"model":"m","prompt":"still fine"}')).status).toBe(200);
  });

  it('the admin API refuses a body over its limit and deep nesting in the same shape', async () => {
    const admin = { authorization: `Bearer ${gateway.adminToken}`, 'content-type': 'application/json', host: `127.0.0.1:${port}` };
    const big = await send('/admin/api/gateway-keys', admin, JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }));
    expect(big.status).toBe(413);
    expectContractError(big);
    const deep = await send('/admin/api/gateway-keys', admin, `{"name":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    expect(deep.status).toBe(400);
    expectContractError(deep);
    expect(JSON.parse(deep.text).error.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
  });
});

describe('any headers', () => {
  // Framing headers would make the client itself send a broken request; those are covered by the raw-bytes test.
  const FRAMING = new Set(['content-length', 'transfer-encoding', 'host', 'connection', 'expect', 'upgrade', 'te', 'trailer', 'keep-alive']);
  // Fixed to the double so no generated request can leave loopback.
  const PINNED = new Set(['x-gateway-custom-host']);
  const gatewayHeaderNames = [
    'x-gateway-api-key', 'x-gateway-provider', 'x-gateway-retry-count', 'x-gateway-trace-id', 'x-gateway-metadata',
    'x-gateway-forward-headers', 'x-gateway-cloud-a-resource-name', 'x-gateway-cloud-b-region', 'x-gateway-cloud-c-region',
    'authorization', 'x-api-key', 'api-key', 'cookie', 'origin',
  ];
  const headerName = fc
    .oneof(fc.constantFrom(...gatewayHeaderNames), fc.stringMatching(/^[a-z][a-z0-9-]{0,24}$/), fc.stringMatching(/^x-gateway-[a-z-]{1,16}$/))
    .filter((name) => !FRAMING.has(name) && !PINNED.has(name));
  const headerValue = fc.oneof(
    fc.string({ unit: 'grapheme-ascii', maxLength: 60 }).map((value) => value.trim()),
    fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
    fc.integer({ min: -10, max: 10 }).map(String),
    fc.constantFrom('openai', 'OpenAI', 'nope', '[]', '["x-api-key"]', '{}', '{"a":1}', 'Bearer gh-vk-not-a-key', 'Bearer '),
  );

  it('any header names and values: answered or a 4xx in the contract shape', async () => {
    const answeredBefore = answered;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENDPOINTS), fc.dictionary(headerName, headerValue, { maxKeys: 6 }), async (path, extra) => {
        const body = path === '/v1/completions' ? '{"model":"m","prompt":"x"}' : '{"model":"m","messages":[{"role":"user","content":"x"}]}';
        // A provider the double cannot stand in for would answer in the wrong format; any other slug is fair game.
        const provider = extra['x-gateway-provider'];
        if (provider !== undefined && provider.trim().toLowerCase() !== 'openai' && /^[a-z-]+$/i.test(provider.trim())) extra['x-gateway-provider'] = `${provider}-unknown`;
        await sendAndCheck(path, gatewayHeaders(extra), body);
      }),
      { numRuns: 250 },
    );
    expect(answered - answeredBefore, 'runs answered 200 and checked against what was sent').toBeGreaterThanOrEqual(MIN_ANSWERED);
  });

  it('headers over the size limit get 431 in the contract shape, one huge header or many', async () => {
    const huge = await send('/v1/completions', gatewayHeaders({ 'x-padding': 'a'.repeat(70 * 1024) }), '{}');
    expect(huge.status).toBe(431);
    expectContractError(huge);
    const many: OutgoingHttpHeaders = {};
    for (let i = 0; i < 400; i++) many[`x-pad-${i}`] = 'b'.repeat(200);
    const lots = await send('/v1/completions', gatewayHeaders(many), '{}');
    expect(lots.status).toBe(431);
    expectContractError(lots);
  });
});

describe('any path', () => {
  const segment = fc.oneof(
    fc.string({ unit: fc.constantFrom('%', 'z', 'A', '0', 'e', 'E', '9', '/', '.', '~', 'é'), maxLength: 12 }),
    fc.constantFrom('%zz', '%E0%A4%A', '%', '%%', '..', '%2e%2e', '%00', '%C0%AF'),
  );

  it('admin paths with any (even malformed) escapes: answered, or a 4xx in the contract shape, never a 5xx', async () => {
    const admin = { authorization: `Bearer ${gateway.adminToken}`, 'content-type': 'application/json' };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/admin/api/virtual-keys/', '/admin/api/gateway-keys/', '/admin/api/logs/', '/admin/api/'),
        segment,
        fc.constantFrom('GET', 'DELETE', 'PATCH'),
        async (prefix, rest, method) => {
          const path = encodeURI(prefix + rest).replace(/%25/g, '%');
          const reply = await send(path, { ...admin, host: `127.0.0.1:${port}` }, method === 'PATCH' ? '{"name":"x"}' : undefined, method);
          // A path that happens to name a real entry (say /logs/9) is answered; anything else is refused.
          expect(reply.status, `${method} ${path}`).toBeLessThan(500);
          if (reply.status >= 400) expectContractError(reply);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('any admin API body', () => {
  it('any JSON to the admin routes that take a body: 2xx or a 4xx in the contract shape, never a 5xx', async () => {
    const admin = { authorization: `Bearer ${gateway.adminToken}`, 'content-type': 'application/json', host: `127.0.0.1:${port}` };
    const created = JSON.parse((await send('/admin/api/virtual-keys', admin, JSON.stringify({ name: 'target', provider: 'openai', secret: 'sk-target-0123456789abcdef' }))).text) as { id: string };
    const field = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.string({ maxLength: 12 }), fc.constantFrom('openai', 'anthropic', 'bedrock', 'http://127.0.0.1:9/v1', 'nope'));
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record(
        { name: field, provider: field, secret: field, customHost: field, cloud: fc.oneof(field, fc.dictionary(fc.string({ maxLength: 20 }), field, { maxKeys: 3 })), regenerateKey: field,
          retentionDays: field, maxLogRows: field, storeBodies: field, port: field, host: field },
        { requiredKeys: [] },
      ),
    );
    const routes: [string, string][] = [
      ['POST', '/admin/api/virtual-keys'], ['POST', '/admin/api/gateway-keys'], ['PATCH', `/admin/api/virtual-keys/${created.id}`],
      ['PATCH', '/admin/api/settings'], ['PATCH', '/admin/api/gateway-keys/none'],
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), body, async ([method, path], value) => {
        const reply = await send(path, admin, JSON.stringify(value), method);
        expect(reply.status, `${method} ${path} ${JSON.stringify(value)}: ${reply.text}`).toBeLessThan(500);
        if (reply.status >= 400) expectContractError(reply);
      }),
      { numRuns: 250 },
    );
  });
});

describe('any bytes on the wire', () => {
  /** Writes raw bytes, half-closes, and collects whatever the server says before it hangs up. */
  function rawExchange(bytes: Uint8Array): Promise<string> {
    return new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
      let reply = '';
      socket.on('data', (data: Buffer) => (reply += data.toString('latin1')));
      socket.on('error', () => undefined);
      socket.setTimeout(3_000, () => socket.destroy());
      socket.on('close', () => resolve(reply));
    });
  }

  const requestHead = fc
    .tuple(
      fc.constantFrom('GET', 'POST', 'PUT', 'OPTIONS', 'DELETE', 'PATCH', 'BREW', ''),
      fc.constantFrom('/v1/completions', '/v1/chat/completions', '/admin/api/health', '/', '/%zz', '//x', '*', 'http://a/b'),
      fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/9', ''),
      fc.array(fc.tuple(fc.string({ unit: 'grapheme-ascii', maxLength: 20 }), fc.string({ unit: 'grapheme-ascii', maxLength: 40 })), { maxLength: 5 }),
      fc.uint8Array({ maxLength: 300 }),
    )
    .map(([method, path, version, lines, body]) => {
      const head = `${method} ${path} ${version}\r\n${lines.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
      return Buffer.concat([Buffer.from(head, 'latin1'), body]);
    });

  it('garbage or mangled requests get an HTTP answer in the contract shape or a closed connection, never a crash', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(requestHead, fc.uint8Array({ minLength: 1, maxLength: 600 })), async (bytes) => {
        const reply = await rawExchange(bytes);
        // Only bytes that are nothing but line ends may go unanswered: a server ignores empty lines before a
        // request (RFC 9112 §2.2). Anything else cut off without a word is a dropped connection, not a pass.
        if (reply === '') {
          expect(/^[\r\n]*$/.test(Buffer.from(bytes).toString('latin1')), `the connection was dropped without an answer to ${JSON.stringify(Buffer.from(bytes).toString('latin1').slice(0, 120))}`).toBe(true);
          return;
        }
        const statusLine = /^HTTP\/1\.[01] (\d{3}) /.exec(reply);
        expect(statusLine, `reply: ${reply.slice(0, 120)}`).not.toBeNull();
        const status = Number(statusLine![1]);
        expect(status === 200 || (status >= 400 && status < 500), `status ${status}`).toBe(true);
        const separator = reply.indexOf('\r\n\r\n');
        const body = reply.slice(separator + 4);
        if (status >= 400 && body.length > 0 && !/^HTTP\/1\.[01] \d{3}/.test(body)) {
          const firstBody = body.split(/HTTP\/1\.[01] \d{3} /)[0];
          expect(JSON.parse(firstBody.trim() || '{"error":{}}')).toHaveProperty('error');
        }
      }),
      { numRuns: 200 },
    );
    const health = await send('/admin/api/health', { authorization: `Bearer ${gateway.adminToken}`, host: `127.0.0.1:${port}` }, undefined, 'GET');
    expect(health.status).toBe(200);
  });
});
