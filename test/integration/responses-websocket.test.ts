// Issue 40: OpenAI's Responses WebSocket mode at /v1/responses. The `openai` SDK's own client (ResponsesWS)
// runs three turns over one socket — the later ones with `previous_response_id` and only the new input,
// `store: false` as Codex sends — to an OpenAI Responses double (passed through), an Anthropic double and a
// chat-only server (translated); the providers see the whole conversation every turn. Around it: the
// upgrade refused as HTTP before it happens (no key, a foreign Origin), bad JSON, a second turn while one
// runs, a warm-up, an idle socket closed, and a key revoked while its socket is open.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';
import type { ResponseInputItem, ResponsesServerEvent } from 'openai/resources/responses/responses';
import { WebSocket } from 'ws';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { startResponsesDouble, type ResponsesDouble } from '../helpers/responses-double.js';
import { holdStreamTail, sse } from '../helpers/held-stream.js';

const IDLE_MS = 1_500;
/** The gateway's body cap, lowered so an oversize message is quick to send (a client masks every byte). */
const MAX_BODY_BYTES = 256 * 1024;

let gateway: TestGateway;
let responses: ResponsesDouble;
let chatOnly: OpenAIFake;
let anthropic: AnthropicFake;
const keys: Record<string, string> = {};

async function createVirtualKey(body: Record<string, unknown>): Promise<{ key: string; id: string }> {
  const response = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify(body) });
  expect(response.status, await response.clone().text()).toBe(201);
  const created = (await response.json()) as { key: string; id?: string; virtualKey?: { id: string } };
  return { key: created.key, id: created.id ?? created.virtualKey!.id };
}

beforeAll(async () => {
  [gateway, responses, chatOnly, anthropic] = await Promise.all([startGateway({ maxBodyBytes: MAX_BODY_BYTES, clientTimeouts: { webSocketIdleMs: IDLE_MS } }), startResponsesDouble(), startOpenAIFake(), startAnthropicFake()]);
  keys.openai = (await createVirtualKey({ name: 'ws-openai', provider: 'openai', secret: 'sk-openai-ws-turns', customHost: responses.baseUrl })).key;
  keys.chat = (await createVirtualKey({ name: 'ws-ollama', provider: 'ollama', customHost: chatOnly.baseUrl })).key;
  keys.anthropic = (await createVirtualKey({ name: 'ws-anthropic', provider: 'anthropic', secret: 'sk-ant-ws-turns', customHost: anthropic.baseUrl })).key;
});
afterAll(async () => {
  await Promise.all([gateway?.close(), responses?.close(), chatOnly?.close(), anthropic?.close()]);
});

/** A TCP relay in front of the gateway that counts connections and WebSocket upgrades asked for. */
async function countingRelay(targetPort: number): Promise<{ port: number; connections: number; upgrades: number; close(): Promise<void> }> {
  const counts = { connections: 0, upgrades: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    counts.connections++;
    const upstream = createConnection({ port: targetPort, host: '127.0.0.1' });
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => {
      counts.upgrades += chunk.toString('latin1').match(/^GET [^\r\n]* HTTP\/1\.1\r\n(?:[^\r\n]+\r\n)*?upgrade: websocket\r\n/gim)?.length ?? 0;
      upstream.write(chunk);
    });
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return counts.connections;
    },
    get upgrades() {
      return counts.upgrades;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The SDK's WebSocket client, with a queue of what it received, read turn by turn. */
function sdkSocket(baseUrl: string, key: string) {
  const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: key, maxRetries: 0 });
  const socket = new ResponsesWS(client);
  const received: ResponsesServerEvent[] = [];
  const errors: unknown[] = [];
  let wake: (() => void) | undefined;
  socket.on('event', (event) => {
    received.push(event);
    wake?.();
  });
  socket.on('error', (error) => {
    errors.push(error.error ?? error.message);
    wake?.();
  });
  /** The events of one turn, up to its final event (or an error). */
  async function turn(body: Record<string, unknown>): Promise<ResponsesServerEvent[]> {
    received.length = 0;
    errors.length = 0;
    socket.send({ type: 'response.create', ...body } as never);
    const deadline = Date.now() + 10_000;
    while (!received.some((event) => ['response.completed', 'response.failed', 'response.incomplete'].includes(event.type)) && errors.length === 0) {
      if (Date.now() > deadline) throw new Error(`No final event; got ${received.map((event) => event.type).join(' ')}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 200);
      });
    }
    return [...received];
  }
  return { socket, turn, errors };
}

const userText = (text: string): ResponseInputItem => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const outputText = (events: ResponsesServerEvent[]) => events.map((event) => (event.type === 'response.output_text.delta' ? event.delta : '')).join('');
const finalOf = (events: ResponsesServerEvent[]) => (events.find((event) => event.type === 'response.completed') as { response: { id: string; output: unknown[] } } | undefined)?.response;

interface Target {
  name: string;
  key: () => string;
  model: string;
  /** The conversation the provider was sent on its last call, as the texts of its turns in order. */
  lastConversation: () => string[];
  reply: (text: string) => RegExp;
}

const texts = (content: unknown): string => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((part: { text?: string }) => part.text ?? '').join('') : '');

const TARGETS: Target[] = [
  {
    name: 'an OpenAI Responses double (passthrough)',
    key: () => keys.openai,
    model: 'gpt-5-codex',
    lastConversation: () => {
      const json = responses.requests.at(-1)!.json;
      expect(json.previous_response_id, 'the turn went up whole, not as a continuation').toBeUndefined();
      return (json.input as { content?: unknown }[]).map((item) => texts(item.content));
    },
    reply: (text) => new RegExp(`^Responses heard: ${text}$`),
  },
  {
    name: 'an Anthropic double (translated)',
    key: () => keys.anthropic,
    model: 'claude-sonnet-4-5',
    lastConversation: () => (anthropic.requests.at(-1)!.json.messages as { content: unknown }[]).map((message) => texts(message.content)),
    reply: (text) => new RegExp(`^Claude heard: ${text}$`),
  },
  {
    name: 'a chat-only server (translated)',
    key: () => keys.chat,
    model: 'qwen3-coder',
    lastConversation: () => (chatOnly.requests.at(-1)!.json.messages as { content: unknown }[]).map((message) => texts(message.content)),
    reply: () => /^Hello from the fake$/,
  },
];

describe.each(TARGETS)('ResponsesWS: three turns on one socket to $name', (target) => {
  it('each later turn sends only its new input with previous_response_id; the provider gets the whole conversation; one upgrade, one connection', async () => {
    const relay = await countingRelay(Number(new URL(gateway.baseUrl).port));
    const { socket, turn, errors } = sdkSocket(`http://127.0.0.1:${relay.port}`, target.key());
    try {
      const base = { model: target.model, store: false };
      const first = await turn({ ...base, input: [userText('one')] });
      expect(errors).toEqual([]);
      expect(first[0].type).toBe('response.created');
      expect(outputText(first)).toMatch(target.reply('one'));
      const firstId = finalOf(first)!.id;

      const second = await turn({ ...base, previous_response_id: firstId, input: [userText('two')] });
      expect(errors).toEqual([]);
      expect(outputText(second)).toMatch(target.reply('two'));
      expect(target.lastConversation()).toEqual(['one', outputText(first), 'two']);

      const third = await turn({ ...base, previous_response_id: finalOf(second)!.id, input: 'three' });
      expect(errors).toEqual([]);
      expect(outputText(third)).toMatch(target.reply('three'));
      expect(target.lastConversation()).toEqual(['one', outputText(first), 'two', outputText(second), 'three']);

      expect(relay.upgrades).toBe(1);
      expect(relay.connections).toBe(1);
    } finally {
      socket.close();
      await relay.close();
    }
  });
});

/** A raw `ws` client (for what the SDK would not send: bad JSON, a second turn at once). */
async function rawSocket(key: string | undefined, headers: Record<string, string> = {}): Promise<{ ws: WebSocket; next: () => Promise<Record<string, unknown>>; closed: Promise<{ code: number; reason: string }> }> {
  const ws = new WebSocket(`${gateway.baseUrl.replace('http:', 'ws:')}/v1/responses`, { headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } });
  const queue: Record<string, unknown>[] = [];
  const waiting: ((message: Record<string, unknown>) => void)[] = [];
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as Record<string, unknown>;
    const waiter = waiting.shift();
    if (waiter) waiter(message);
    else queue.push(message);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const next = () => (queue.length ? Promise.resolve(queue.shift()!) : new Promise<Record<string, unknown>>((resolve) => waiting.push(resolve)));
  return { ws, next, closed };
}

/** The HTTP answer to an upgrade that was refused. */
function refusedUpgrade(headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${gateway.baseUrl.replace('http:', 'ws:')}/v1/responses`, { headers });
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('error', () => {});
    ws.on('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown> }));
    });
  });
}

async function untilFinal(next: () => Promise<Record<string, unknown>>): Promise<Record<string, unknown>[]> {
  const events: Record<string, unknown>[] = [];
  for (;;) {
    const event = await next();
    events.push(event);
    if (event.type === 'response.completed' || event.type === 'error') return events;
  }
}

describe('Responses WebSocket: the socket and its rules', () => {
  it('refuses the upgrade as a plain HTTP answer when the key is missing or the Origin is foreign', async () => {
    const noKey = await refusedUpgrade({});
    expect(noKey.status).toBe(401);
    expect((noKey.body.error as { type: string }).type).toBe('authentication_error');
    const foreign = await refusedUpgrade({ authorization: `Bearer ${keys.openai}`, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect((foreign.body.error as { message: string }).message).toMatch(/another origin/);
  });

  it('answers bad JSON with an error event and stays usable', async () => {
    const { ws, next } = await rawSocket(keys.openai);
    try {
      ws.send('{"type":"response.create",');
      const error = await next();
      expect(error).toMatchObject({ type: 'error', status: 400, error: { code: 'invalid_json' } });
      ws.send(JSON.stringify({ type: 'response.create', model: 'gpt-5-codex', store: false, input: 'still here' }));
      const events = await untilFinal(next);
      expect(events.at(-1)!.type).toBe('response.completed');
    } finally {
      ws.close();
    }
  });

  it('refuses a second response.create while one runs, and serves the next one after it', async () => {
    const held = holdStreamTail(
      sse([{ event: 'message_start', data: { type: 'message_start', message: { id: 'msg_held', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 0 } } } }]),
      sse([
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'done' } } },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } } },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ]),
      'text/event-stream',
    );
    anthropic.enqueue(held.behaviour);
    const { ws, next } = await rawSocket(keys.anthropic);
    try {
      const create = JSON.stringify({ type: 'response.create', model: 'claude-sonnet-4-5', store: false, input: 'slow' });
      ws.send(create);
      const created = await next();
      expect(created.type).toBe('response.created');
      ws.send(create);
      let refusal = await next();
      while (refusal.type !== 'error') refusal = await next();
      expect(refusal).toMatchObject({ type: 'error', status: 409, error: { code: 'response_already_in_flight' } });
      held.release();
      expect((await untilFinal(next)).at(-1)!.type).toBe('response.completed');
      ws.send(JSON.stringify({ type: 'response.create', model: 'claude-sonnet-4-5', store: false, input: 'after' }));
      expect((await untilFinal(next)).at(-1)!.type).toBe('response.completed');
    } finally {
      ws.close();
    }
  });

  it('caps a message at the POST body cap: a larger one closes the socket with 1009', async () => {
    const { ws, closed } = await rawSocket(keys.openai);
    ws.send(JSON.stringify({ type: 'response.create', model: 'gpt-5-codex', input: 'x'.repeat(MAX_BODY_BYTES) }));
    expect((await closed).code).toBe(1009);
  });

  it('closes a socket idle for its bound', async () => {
    const { closed } = await rawSocket(keys.openai);
    const started = Date.now();
    const { code } = await closed;
    expect(code).toBe(1000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(IDLE_MS - 100);
  });

  it('answers a warm-up (generate: false) without calling the provider; a turn continuing from it carries its input', async () => {
    const before = responses.requests.length;
    const { ws, next } = await rawSocket(keys.openai);
    try {
      ws.send(JSON.stringify({ type: 'response.create', model: 'gpt-5-codex', store: false, generate: false, input: [userText('context')] }));
      const warm = await untilFinal(next);
      expect(warm.map((event) => event.type)).toEqual(['response.created', 'response.completed']);
      const warmed = warm[1].response as { id: string; output: unknown[] };
      expect(warmed.output).toEqual([]);
      expect(responses.requests.length).toBe(before);
      ws.send(JSON.stringify({ type: 'response.create', model: 'gpt-5-codex', store: false, previous_response_id: warmed.id, input: [userText('go')] }));
      expect((await untilFinal(next)).at(-1)!.type).toBe('response.completed');
      expect((responses.requests.at(-1)!.json.input as { content: unknown }[]).map((item) => texts(item.content))).toEqual(['context', 'go']);
    } finally {
      ws.close();
    }
  });

  it("serves Codex 0.171's own sequence: a warm-up with its instructions, a turn continuing from it, then a tool result alone", async () => {
    // The recorded first request of Codex 0.171 (HTTP), as its WebSocket transport splits it: what it knows
    // before the user's prompt as a warm-up, then the prompt, then the tool's output, each continuing the last.
    const recorded = (await import('../fixtures/codex-0.171-responses-request.json', { with: { type: 'json' } })).default.body as Record<string, unknown> & { input: unknown[] };
    const { stream: _stream, input, ...fields } = recorded;
    const { ws, next } = await rawSocket(keys.openai, { 'openai-beta': 'responses_websockets=2026-02-06' });
    try {
      ws.send(JSON.stringify({ type: 'response.create', ...fields, generate: false, input: input.slice(0, 1) }));
      const warmed = (await untilFinal(next)).at(-1)!.response as { id: string };
      ws.send(JSON.stringify({ type: 'response.create', ...fields, previous_response_id: warmed.id, input: input.slice(1) }));
      const first = (await untilFinal(next)).at(-1)!;
      const call = (first.response as { id: string; output: { type: string; call_id: string }[] }).output.find((item) => item.type === 'function_call');
      expect(call, JSON.stringify(first)).toBeDefined();
      ws.send(JSON.stringify({ type: 'response.create', ...fields, previous_response_id: (first.response as { id: string }).id, input: [{ type: 'function_call_output', call_id: call!.call_id, output: 'hello' }] }));
      const last = await untilFinal(next);
      expect(last.at(-1)!.type).toBe('response.completed');
      const sent = responses.requests.at(-1)!.json;
      expect(sent.previous_response_id).toBeUndefined();
      expect((sent.input as { type: string }[]).map((item) => item.type)).toEqual([...input.map(() => 'message'), 'function_call', 'function_call_output']);
      expect(sent.generate).toBeUndefined();
    } finally {
      ws.close();
    }
  });

  it('checks the key at every turn: a key revoked while its socket is open gets its next turn refused', async () => {
    const { key, id } = await createVirtualKey({ name: 'ws-revoked', provider: 'openai', secret: 'sk-openai-ws-revoked', customHost: responses.baseUrl });
    const { ws, next } = await rawSocket(key);
    try {
      const create = JSON.stringify({ type: 'response.create', model: 'gpt-5-codex', store: false, input: 'hi' });
      ws.send(create);
      expect((await untilFinal(next)).at(-1)!.type).toBe('response.completed');
      const revoked = await gateway.admin(`/virtual-keys/${id}`, { method: 'DELETE' });
      expect(revoked.status, await revoked.text()).toBeLessThan(300);
      const before = responses.requests.length;
      ws.send(create);
      const refusal = await next();
      expect(refusal).toMatchObject({ type: 'error', status: 401 });
      expect(responses.requests.length).toBe(before);
    } finally {
      ws.close();
    }
  });

  it('makes each turn a log row of /v1/responses with the socket session id, admitted against the key limits', async () => {
    const { key, id } = await createVirtualKey({ name: 'ws-limited', provider: 'openai', secret: 'sk-openai-ws-limited', customHost: responses.baseUrl });
    const limited = await gateway.admin(`/keys/${id}/limits`, { method: 'PUT', body: JSON.stringify({ rpm: 2 }) });
    expect(limited.status, await limited.text()).toBeLessThan(300);
    const traceId = `ws-rows-${Date.now()}`;
    const { ws, next } = await rawSocket(key, { 'session-id': 'codex-session-ws-1', 'x-gateway-trace-id': traceId });
    try {
      const create = JSON.stringify({ type: 'response.create', model: 'gpt-5-codex', store: false, input: 'hi' });
      const finals: Record<string, unknown>[] = [];
      for (let turn = 0; turn < 3; turn++) {
        ws.send(create);
        finals.push((await untilFinal(next)).at(-1)!);
      }
      expect(finals.map((event) => event.type)).toEqual(['response.completed', 'response.completed', 'error']);
      expect(finals[2]).toMatchObject({ status: 429, error: { type: 'rate_limit_error' } });
    } finally {
      ws.close();
    }
    await gateway.flushLog();
    const list = (await (await gateway.admin(`/logs?q=${encodeURIComponent(traceId)}`)).json()) as { items: { id: string }[] };
    const rows = await Promise.all(list.items.map(async (item) => (await (await gateway.admin(`/logs/${item.id}`)).json()) as { path: string; status: number; requestHeaders: Record<string, string> }));
    expect(rows.map((row) => row.status).sort()).toEqual([200, 200, 429]);
    for (const row of rows) {
      expect(row.path).toBe('/v1/responses');
      expect(row.requestHeaders['session-id']).toBe('codex-session-ws-1');
      expect(row.requestHeaders['sec-websocket-key']).toBeUndefined();
    }
  });

  it('stopping the gateway closes its open sockets (going away) instead of waiting on them', async () => {
    const own = await startGateway();
    try {
      const key = (await (await own.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'ws-stop', provider: 'openai', secret: 'sk-openai-ws-stop', customHost: responses.baseUrl }) })).json()) as { key: string };
      const ws = new WebSocket(`${own.baseUrl.replace('http:', 'ws:')}/v1/responses`, { headers: { authorization: `Bearer ${key.key}` } });
      const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
      await new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject));
      const started = Date.now();
      await own.close();
      expect(await closed).toBe(1001);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await own.close().catch(() => {});
    }
  });
});
