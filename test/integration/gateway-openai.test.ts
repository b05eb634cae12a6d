// The gateway in front of an OpenAI-format provider: what the provider receives, what the client gets.
import { Agent, request } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import OpenAI from 'openai';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { openAIError, startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

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
afterEach(() => {
  fake.requests.length = 0;
});

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-gateway-api-key': gateway.apiKey,
    'x-gateway-provider': 'openai',
    'x-gateway-custom-host': fake.baseUrl,
    authorization: 'Bearer sk-provider-token-1234567890',
    ...extra,
  };
}

function post(path: string, body: string | object, extra: Record<string, string> = {}) {
  return fetch(`${gateway.baseUrl}${path}`, { method: 'POST', headers: headers(extra), body: typeof body === 'string' ? body : JSON.stringify(body) });
}

function sdk(extraHeaders: Record<string, string> = {}) {
  return new OpenAI({
    apiKey: 'sk-provider-token-1234567890',
    baseURL: `${gateway.baseUrl}/v1`,
    defaultHeaders: { 'x-gateway-api-key': gateway.apiKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.baseUrl, ...extraHeaders },
    maxRetries: 0,
  });
}

describe('POST /v1/completions through an OpenAI-format provider', () => {
  it('sends the client body bytes unchanged, so a seed of 2^63-1 arrives exactly', async () => {
    const raw = '{"model":"gpt-3.5-turbo-instruct","prompt":"Say hi","seed":9223372036854775807,"max_tokens":5}';
    const response = await post('/v1/completions', raw);
    expect(response.status).toBe(200);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0].body.toString('utf8')).toBe(raw);
    expect(fake.requests[0].url).toBe('/v1/completions');
  });

  it('converts auth: the provider gets the bearer token and never a gateway header or the gateway key', async () => {
    await post('/v1/completions', { model: 'm', prompt: 'x' }, { 'x-custom-thing': 'kept' });
    const received = fake.requests[0].headers;
    expect(received.authorization).toBe('Bearer sk-provider-token-1234567890');
    expect(received['x-custom-thing']).toBe('kept');
    expect(Object.keys(received).filter((name) => name.startsWith('x-gateway-'))).toEqual([]);
    expect(JSON.stringify(received)).not.toContain(gateway.apiKey);
  });

  it('forwards the headers named in x-gateway-forward-headers, including credential headers', async () => {
    await post('/v1/completions', { model: 'm', prompt: 'x' }, { 'x-gateway-forward-headers': 'x-api-key, x-secret-thing', 'x-api-key': 'abc123', 'x-secret-thing': 'shh' });
    expect(fake.requests[0].headers['x-api-key']).toBe('abc123');
    expect(fake.requests[0].headers['x-secret-thing']).toBe('shh');
  });

  it('answers through the official OpenAI SDK: completion, stream and chat', async () => {
    const client = sdk();
    const completion = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'hello world' });
    expect(completion.choices[0].text).toBe('echo: hello world');
    expect(completion.object).toBe('text_completion');

    const stream = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'one two three', stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
    expect(text).toBe('echo: one two three');

    const chat = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.choices[0].message.content).toBe('Hello from the fake');

    const chatStream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let chatText = '';
    for await (const chunk of chatStream) chatText += chunk.choices[0]?.delta?.content ?? '';
    expect(chatText).toBe('Hello from the fake');
  });

  it('surfaces a validation error as the SDK APIError with status 400 and param', async () => {
    const error = await sdk()
      .completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'x', temperature: 2.5 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((error as InstanceType<typeof OpenAI.APIError>).param).toBe('temperature');
    expect(fake.requests).toHaveLength(0);
  });

  it('relays a stream event by event, ending with data: [DONE], and include_usage gives the usage chunk', async () => {
    const response = await post('/v1/completions', { model: 'm', prompt: 'a b', stream: true, stream_options: { include_usage: true } });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const text = await response.text();
    const events = text.split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const usageChunk = JSON.parse(events.at(-2)!.slice(6));
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage.total_tokens).toBe(8);
    // The usage the relay read as the stream passed is the log row's.
    await gateway.flushLog();
    const { items } = (await (await gateway.admin('/logs?limit=1')).json()) as { items: { stream: boolean; promptTokens: number; completionTokens: number }[] };
    expect(items[0]).toMatchObject({ stream: true, promptTokens: usageChunk.usage.prompt_tokens, completionTokens: usageChunk.usage.completion_tokens });
  });

  it('writes the first stream event to the client before the provider finished', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    fake.enqueue(async (_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"id":"1","object":"text_completion","choices":[{"index":0,"text":"first"}]}\n\n');
      await held;
      res.end('data: [DONE]\n\n');
    });
    const response = await post('/v1/completions', { model: 'm', prompt: 'x', stream: true });
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('"first"');
    release();
    let rest = '';
    for (let part = await reader.read(); !part.done; part = await reader.read()) rest += new TextDecoder().decode(part.value);
    expect(rest).toContain('data: [DONE]');
  });

  it('ends a stream with an error event when the provider breaks off mid-stream, and the next call works', async () => {
    fake.enqueue((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"id":"1","object":"text_completion","choices":[{"index":0,"text":"partial"}]}\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const response = await post('/v1/completions', { model: 'm', prompt: 'x', stream: true });
    const text = await response.text();
    expect(text).toContain('"partial"');
    const last = text.trim().split('\n\n').at(-1)!;
    expect(JSON.parse(last.slice(6)).error.type).toBe('gateway_error');
    expect((await post('/v1/completions', { model: 'm', prompt: 'x' })).status).toBe(200);
  });

  it('keeps the provider status and message on a provider error, naming the provider', async () => {
    fake.enqueue(openAIError(404, 'The model `nope` does not exist', 'invalid_request_error', 'model_not_found'));
    const response = await post('/v1/completions', { model: 'nope', prompt: 'x' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { message: 'The model `nope` does not exist', type: 'invalid_request_error', param: null, code: 'model_not_found', provider: 'openai' },
    });
  });

  it('redacts the caller key when a provider echoes it back in an error', async () => {
    fake.enqueue(openAIError(401, 'Incorrect API key provided: sk-provider-token-1234567890.'));
    const response = await post('/v1/completions', { model: 'm', prompt: 'x' });
    expect(response.status).toBe(401);
    expect(await response.text()).not.toContain('sk-provider-token-1234567890');
  });

  it('answers 502 when the provider is unreachable and 504 past x-gateway-request-timeout', async () => {
    const unreachable = await post('/v1/completions', { model: 'm', prompt: 'x' }, { 'x-gateway-custom-host': 'http://127.0.0.1:9/v1' });
    expect(unreachable.status).toBe(502);
    expect((await unreachable.json()).error.type).toBe('gateway_error');

    fake.enqueue(() => undefined); // never answers
    const slow = await post('/v1/completions', { model: 'm', prompt: 'x' }, { 'x-gateway-request-timeout': '150' });
    expect(slow.status).toBe(504);
    expect((await slow.json()).error.type).toBe('gateway_error');
  });

  it('retries a 429 when x-gateway-retry-count allows it, honouring Retry-After', async () => {
    fake.enqueue((_request, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end('{"error":{"message":"slow down","type":"rate_limit_error"}}');
    });
    const response = await post('/v1/completions', { model: 'm', prompt: 'x' }, { 'x-gateway-retry-count': '2', 'x-gateway-trace-id': 'retry-trace' });
    expect(response.status).toBe(200);
    expect(fake.requests).toHaveLength(2);
    await gateway.flushLog();
    const logs = await (await gateway.admin('/logs?q=retry-trace')).json();
    expect(logs.items[0].attempts).toBe(2);
  });

  it('aborts the provider call when the client goes away mid-stream', async () => {
    let providerSawClose!: () => void;
    const closed = new Promise<void>((resolve) => (providerSawClose = resolve));
    fake.enqueue((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"choices":[{"index":0,"text":"x"}]}\n\n');
      res.on('close', () => providerSawClose());
    });
    const response = await post('/v1/completions', { model: 'm', prompt: 'x', stream: true }, {});
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    await expect(Promise.race([closed.then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('still open'), 1000))])).resolves.toBe('closed');
  });
});

describe('trace id, metadata and the request log', () => {
  it('echoes the trace id, generates one when absent, and records metadata', async () => {
    const withTrace = await post('/v1/completions', { model: 'logged-model', prompt: 'x' }, { 'x-gateway-trace-id': 'trace-abc', 'x-gateway-metadata': '{"team":"blue"}' });
    expect(withTrace.headers.get('x-gateway-trace-id')).toBe('trace-abc');
    const without = await post('/v1/completions', { model: 'm', prompt: 'x' });
    // Generated: W3C Trace Context's form, one word to the log's search (found whole or by its beginning).
    const generated = without.headers.get('x-gateway-trace-id')!;
    expect(generated).toMatch(/^[0-9a-f]{32}$/);

    await gateway.flushLog();
    for (const q of [generated, generated.slice(0, 10)]) {
      const found = (await (await gateway.admin(`/logs?q=${q}`)).json()) as { items: { traceId: string }[] };
      expect(found.items.map((item) => item.traceId)).toEqual([generated]);
    }
    const list = await (await gateway.admin('/logs?q=trace-abc')).json();
    const entry = list.items[0];
    expect(entry).toMatchObject({ traceId: 'trace-abc', metadata: { team: 'blue' }, provider: 'openai', model: 'logged-model', path: '/v1/completions', status: 200, stream: false, error: null, promptTokens: 5, completionTokens: 3 });
    expect(entry.ttfbMs).toBeGreaterThan(0);
    expect(entry.latencyMs).toBeGreaterThanOrEqual(entry.ttfbMs);
    const detail = await (await gateway.admin(`/logs/${entry.id}`)).json();
    expect(detail.requestHeaders.authorization).toBe('[redacted]');
    expect(detail.requestHeaders['x-gateway-api-key']).toBe('[redacted]');
    expect(JSON.stringify(detail)).not.toContain('sk-provider-token-1234567890');
    expect(JSON.parse(detail.responseBody).choices[0].text).toBe('echo: x');
  });

  it('logs first-byte time and latency as the provider made them, streamed or not', async () => {
    // Timers may fire a millisecond early by performance.now(); the bounds allow for that, no more.
    const FIRST_BYTE_DELAY_MS = 150;
    const REST_DELAY_MS = 250;
    const EARLY_TIMER_MS = 2;
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const piece = (text: string) => `data: ${JSON.stringify({ id: 'c', object: 'text_completion', choices: [{ index: 0, text, finish_reason: null }] })}\n\n`;
    fake.enqueue(async (_request, res) => {
      await sleep(FIRST_BYTE_DELAY_MS);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(piece('first'));
      await sleep(REST_DELAY_MS);
      res.write(piece(' last'));
      res.end('data: [DONE]\n\n');
    });
    fake.enqueue(async (request, res) => {
      await sleep(FIRST_BYTE_DELAY_MS);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'cmpl-timed', object: 'text_completion', created: 1, model: request.json.model, choices: [{ index: 0, text: 'late', finish_reason: 'stop' }] }));
    });
    const clientTimes: Record<string, number> = {};
    for (const [traceId, stream] of [['timed-stream', true], ['timed-json', false]] as const) {
      const started = performance.now();
      const response = await post('/v1/completions', { model: 'm', prompt: 'x', stream }, { 'x-gateway-trace-id': traceId });
      expect(response.status).toBe(200);
      await response.text();
      clientTimes[traceId] = performance.now() - started;
    }
    await gateway.flushLog();
    const entry = async (traceId: string) => (await (await gateway.admin(`/logs?q=${traceId}`)).json()).items[0] as { ttfbMs: number; latencyMs: number };

    const streamed = await entry('timed-stream');
    expect(streamed.ttfbMs, 'stream: first-byte time is at least the delay before the provider’s first byte').toBeGreaterThanOrEqual(FIRST_BYTE_DELAY_MS - EARLY_TIMER_MS);
    expect(streamed.ttfbMs, 'stream: first-byte time is when the first event went out, not when the answer ended').toBeLessThan(FIRST_BYTE_DELAY_MS + REST_DELAY_MS - EARLY_TIMER_MS);
    expect(streamed.latencyMs, 'stream: latency covers the whole answer').toBeGreaterThanOrEqual(FIRST_BYTE_DELAY_MS + REST_DELAY_MS - 2 * EARLY_TIMER_MS);
    expect(streamed.latencyMs, 'stream: latency is no shorter than the first-byte time').toBeGreaterThanOrEqual(streamed.ttfbMs);
    expect(streamed.latencyMs, 'stream: latency is no longer than the client waited').toBeLessThanOrEqual(clientTimes['timed-stream']);

    const json = await entry('timed-json');
    expect(json.ttfbMs, 'JSON: first-byte time is at least the provider’s delay').toBeGreaterThanOrEqual(FIRST_BYTE_DELAY_MS - EARLY_TIMER_MS);
    expect(json.latencyMs, 'JSON: latency is no shorter than the first-byte time').toBeGreaterThanOrEqual(json.ttfbMs);
    expect(json.latencyMs, 'JSON: latency is no longer than the client waited').toBeLessThanOrEqual(clientTimes['timed-json']);
  });

  it('logs a character the provider’s stream split between two network chunks whole', async () => {
    fake.enqueue(async (_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = Buffer.from(`data: ${JSON.stringify({ id: 'c', object: 'text_completion', choices: [{ index: 0, text: 'Grüße 😀', finish_reason: null }] })}\n\n`);
      const inEmoji = event.indexOf(Buffer.from('😀')) + 2;
      res.write(event.subarray(0, inEmoji));
      await new Promise((resolve) => setTimeout(resolve, 30));
      res.write(event.subarray(inEmoji));
      res.end('data: [DONE]\n\n');
    });
    const response = await post('/v1/completions', { model: 'm', prompt: 'x', stream: true }, { 'x-gateway-trace-id': 'split-utf8' });
    expect(await response.text()).toContain('Grüße 😀');

    await gateway.flushLog();
    const [entry] = (await (await gateway.admin('/logs?q=split-utf8')).json()).items;
    const detail = await (await gateway.admin(`/logs/${entry.id}`)).json();
    expect(detail.responseBody).toContain('Grüße 😀');
    expect(detail.responseBody).not.toContain('\uFFFD');
  });

  it('refuses invalid metadata JSON with 400', async () => {
    const response = await post('/v1/completions', { model: 'm', prompt: 'x' }, { 'x-gateway-metadata': '{nope' });
    expect(response.status).toBe(400);
    expect((await response.json()).error.param).toBe('x-gateway-metadata');
  });

  it('streams each new log entry on /admin/api/events', async () => {
    const events = await gateway.admin('/events');
    const reader = events.body!.getReader();
    await reader.read(); // ": connected"
    await post('/v1/completions', { model: 'live-model', prompt: 'x' });
    let seen = '';
    while (!seen.includes('live-model')) seen += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(seen).toContain('"provider":"openai"');
  });
});

describe('errors of the gateway itself', () => {
  it.each([
    ['no key', { 'x-gateway-api-key': '' }, 401, 'authentication_error'],
    ['an unknown key', { 'x-gateway-api-key': 'wrong' }, 401, 'authentication_error'],
    ['an unknown provider', { 'x-gateway-provider': 'nope' }, 400, 'invalid_request_error'],
  ])('answers %s with the contract error', async (_name, extra, status, type) => {
    const response = await post('/v1/completions', { model: 'm', prompt: 'x' }, extra as Record<string, string>);
    expect(response.status).toBe(status);
    expect((await response.json()).error.type).toBe(type);
  });

  it('keeps the connection open after a refusal, with nothing left unhandled once it is answered', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const problems: unknown[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void problems.push(args));
    const send = (extra: Record<string, string>) =>
      new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const req = request(`${gateway.baseUrl}/v1/completions`, { method: 'POST', headers: headers(extra), agent }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
        });
        req.on('error', reject);
        req.end(JSON.stringify({ model: 'm', prompt: 'x' }));
      });
    try {
      // A keep-alive client (every SDK) sends its next request on the socket of the refused one.
      expect(await send({ 'x-gateway-provider': 'nope' })).toEqual({ status: 400, reused: false });
      expect(await send({ 'x-gateway-provider': 'nope' })).toEqual({ status: 400, reused: true });
      expect(await send({})).toEqual({ status: 200, reused: true });
      expect(problems).toEqual([]);
    } finally {
      spy.mockRestore();
      agent.destroy();
    }
  });

  it('a failure after an answer is complete (here: the log) leaves the answer and the connection alone', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const requestLog = gateway.running.services.requestLog;
    const append = requestLog.append.bind(requestLog);
    let failOnce = true;
    requestLog.append = (entry) => {
      if (!failOnce) return append(entry);
      failOnce = false;
      throw new Error('disk on fire');
    };
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const send = () =>
      new Promise<{ status: number; reused: boolean; text: string }>((resolve, reject) => {
        const req = request(`${gateway.baseUrl}/v1/completions`, { method: 'POST', headers: headers(), agent }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket, text }));
        });
        req.on('error', reject);
        req.end(JSON.stringify({ model: 'm', prompt: 'x' }));
      });
    try {
      const first = await send();
      expect(first.status).toBe(200);
      expect(JSON.parse(first.text).choices).toHaveLength(1);
      // Let the failure after the answer happen before the next request goes out on the same socket.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(spy).toHaveBeenCalledWith('Gatehouse: unhandled error', expect.objectContaining({ message: 'disk on fire' }));
      expect(await send()).toMatchObject({ status: 200, reused: true });
    } finally {
      requestLog.append = append;
      spy.mockRestore();
      agent.destroy();
    }
  });

  it('names the known providers when the slug is unknown', async () => {
    const body = await (await post('/v1/completions', { model: 'm', prompt: 'x' }, { 'x-gateway-provider': 'nope' })).json();
    expect(body.error.message).toContain("'nope'");
    expect(body.error.message).toContain('openai');
  });

  it('answers 404 in JSON for an unknown path and 400 for a body that is not JSON', async () => {
    const unknown = await fetch(`${gateway.baseUrl}/v1/nothing`, { method: 'POST', headers: headers() });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.type).toBe('not_found_error');
    const notJson = await post('/v1/completions', '{"model": ');
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error.type).toBe('invalid_request_error');
  });

  it('answers 413 for a body over the limit', async () => {
    const big = JSON.stringify({ model: 'm', prompt: 'x'.repeat(11 * 1024 * 1024) });
    const response = await post('/v1/completions', big);
    expect(response.status).toBe(413);
  });

  it('refuses the context window overflow of a known OpenAI model', async () => {
    const response = await post('/v1/completions', { model: 'gpt-3.5-turbo-instruct', prompt: 'hello '.repeat(4000), max_tokens: 200 }, { 'x-gateway-custom-host': '' });
    const body = await response.json();
    expect(response.status).toBe(400);
    expect(body.error).toMatchObject({ param: 'max_tokens', code: 'context_length_exceeded' });
  });
});
