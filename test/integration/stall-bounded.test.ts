// Issue 35, linear work: while one worst-shaped maximal request is served, a small call on the same gateway
// instance still answers within 250 ms, on every path that reads a JSON body (/v1/chat/completions passed
// through and translated, /v1/messages, /v1/responses, Gemini's generateContent, /v1/embeddings, Gemini's
// embedContent, /mcp, the admin API) and while a provider streams its answer as very many tiny writes
// (passed through, and translated).
// Before the fixes: a body of many member names held the serving thread for seconds (the duplicate-name
// scan searched for a backslash to the end of the body from every name), a stream of 8-byte writes cost
// tens of CPU-seconds (undici re-parsed the socket's unread remainder for every chunk read), and a 10 MiB
// body's parse, checks and decode held the thread 0.6–1.5 s (now done by the preparing threads, prepare/).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

const MiB = 1024 * 1024;
/** What the issue asks: a small call answers within this while the large one is served. */
const STALL_BOUND_MS = 250;
/** The size of each large body: just under the gateway's 10 MiB cap. */
const LARGE_BODY_BYTES = 10 * MiB - 64 * 1024;
/** The admin API takes at most 1 MiB (admin/router.ts): its largest body is just under that. */
const ADMIN_BODY_BYTES = MiB - 1024;
/** Runs of one case: the quickest of them must meet the bound (a loaded CI machine can stall any one run). */
const RUNS = 3;

let gateway: TestGateway;
let sink: Server;
let sinkUrl: string;
let tinyProvider: { url: string; process: ChildProcess; writes: number } | undefined;
const keys: Record<string, string> = {};

// ---- A provider that reads a large body without parsing it ---------------------------------------------------
// The strict doubles (test/fakes/) parse what they receive, on this same thread: their parse would be counted
// against the gateway. This one reads the bytes, discards them and gives each path's smallest valid answer.

const usage = { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 };
function sinkAnswer(path: string): unknown {
  if (path.endsWith('/chat/completions')) {
    return { id: 'c', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage };
  }
  if (path.endsWith('/messages')) {
    return { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } };
  }
  if (path.endsWith('/responses')) {
    return {
      id: 'resp_1', object: 'response', created_at: 1, status: 'completed', model: 'gpt-4o-mini',
      output: [{ type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'ok', annotations: [] }] }],
      usage: { input_tokens: 5, output_tokens: 1, total_tokens: 6 },
    };
  }
  if (path.includes(':generateContent')) {
    return { candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 1, totalTokenCount: 6 }, modelVersion: 'gemini-2.5-flash' };
  }
  if (path.endsWith(':batchEmbedContents')) return { embeddings: [{ values: [0.1, 0.2] }] };
  if (path.endsWith('/embeddings')) return { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }], model: 'text-embedding-3-small', usage: { prompt_tokens: 1, total_tokens: 1 } };
  return { error: { message: `no ${path}`, type: 'invalid_request_error', param: null, code: null } };
}

function answerSink(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  req.on('end', () => {
    const text = JSON.stringify(sinkAnswer((req.url ?? '').split('?')[0]));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
}

// ---- A provider that streams its answer as very many tiny writes -----------------------------------------------

/** Writes of this many bytes: each reaches the gateway as its own chunk (chunked transfer encoding frames each). */
const TINY_WRITE_BYTES = 8;
/** Lines of the stream: some 100k writes of 8 bytes. */
const STREAM_LINES = 5_000;

/**
 * A provider in its own process (its writes must not share this thread, and it must be able to write faster
 * than the gateway reads, as a real one can): each request is answered with `text` in TINY_WRITE_BYTES writes.
 */
const TINY_PROVIDER = `
const { createServer } = require('node:http');
const lines = Number(process.env.STREAM_LINES);
const size = Number(process.env.WRITE_BYTES);
const chunk = (content, finish = null) =>
  'data: ' + JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content }, finish_reason: finish }] }) + '\\n\\n';
// An OpenAI chat stream of one word a line, then usage and [DONE].
const text = [];
for (let i = 0; i < lines; i++) text.push(chunk('w' + i + ' '));
text.push(chunk('', 'stop'));
text.push('data: ' + JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 5, completion_tokens: lines, total_tokens: lines + 5 } }) + '\\n\\n');
text.push('data: [DONE]\\n\\n');
const bytes = Buffer.from(text.join(''));
process.stdout.write(bytes.length + ' ');
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let at = 0;
    const pump = () => {
      for (let n = 0; n < 256 && at < bytes.length; n++, at += size) res.write(bytes.subarray(at, at + size));
      if (at < bytes.length) setImmediate(pump);
      else res.end();
    };
    pump();
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

async function startTinyProvider(): Promise<{ url: string; process: ChildProcess; writes: number }> {
  const child = spawn(process.execPath, ['-e', TINY_PROVIDER], { env: { ...process.env, STREAM_LINES: String(STREAM_LINES), WRITE_BYTES: String(TINY_WRITE_BYTES) }, stdio: ['ignore', 'pipe', 'inherit'] });
  let said = '';
  const [bytes, port] = await new Promise<string[]>((resolve, reject) => {
    child.stdout!.on('data', (data: Buffer) => {
      said += String(data);
      if (said.endsWith('\n')) resolve(said.trim().split(' '));
    });
    child.once('exit', (code) => reject(new Error(`the tiny-writes provider exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/v1`, process: child, writes: Math.ceil(Number(bytes) / TINY_WRITE_BYTES) };
}

// ---- Worst shapes -------------------------------------------------------------------------------------------

/** `count` copies of `item` joined by commas: the body is built as text, not by stringifying a large object. */
const repeated = (item: string, count: number): string => Array(count).fill(item).join(',');
/** How many `item`s fill the large body (or one of `bytes`). */
const fill = (item: string, bytes = LARGE_BODY_BYTES): number => Math.floor(bytes / (item.length + 1));

/** Many messages of one short word: two member names every 33 bytes. */
const MESSAGE = '{"role":"user","content":"a"}';
/** Many one-member objects: a member name every 8 bytes, in a field the gateway passes on. */
const TINY = '{"a":1}';

interface BodyCase {
  name: string;
  path: string;
  headers: () => Record<string, string>;
  body: () => string;
  /** The answer the large call gets (it is served, or refused for a reason of its own after it was read). */
  expectStatus: number[];
}

const keyHeader = (name: string) => () => ({ authorization: `Bearer ${keys[name]}` });

/** Sent once before the cases, unmeasured: a running gateway has compiled its large-body paths and started its preparing threads. */
// Too large for gpt-4o-mini's window (a 400 once counted): the catalog knows the model, so the window is checked.
const CHAT_MANY_MESSAGES: BodyCase = { name: 'POST /v1/chat/completions, many messages', path: '/v1/chat/completions', headers: keyHeader('openai'), body: () => `{"model":"gpt-4o-mini","messages":[${repeated(MESSAGE, fill(MESSAGE))}]}`, expectStatus: [400] };

const GEMINI_CONTENT = '{"role":"user","parts":[{"text":"a"}]}';
const BODY_CASES: BodyCase[] = [
  { name: 'POST /v1/chat/completions, many member names', path: '/v1/chat/completions', headers: keyHeader('openai'), body: () => `{"model":"gpt-4o-mini","messages":[${MESSAGE}],"metadata_list":[${repeated(TINY, fill(TINY))}]}`, expectStatus: [200] },
  CHAT_MANY_MESSAGES,
  // Translated: decoded and encoded for the provider by a preparing thread, sent as the bytes it made (a
  // model the catalog does not know, so no window refuses it first).
  { name: 'POST /v1/chat/completions to an Anthropic key, many messages', path: '/v1/chat/completions', headers: keyHeader('anthropic'), body: () => `{"model":"stall-claude","max_tokens":16,"messages":[${repeated(MESSAGE, fill(MESSAGE))}]}`, expectStatus: [200] },
  { name: 'POST /v1/messages, many messages', path: '/v1/messages', headers: keyHeader('anthropic'), body: () => `{"model":"claude-sonnet-4-5","max_tokens":16,"messages":[${repeated(MESSAGE, fill(MESSAGE))}]}`, expectStatus: [200, 400] },
  { name: 'POST /v1/responses, many input items', path: '/v1/responses', headers: keyHeader('openai'), body: () => `{"model":"gpt-4o-mini","input":[${repeated(MESSAGE, fill(MESSAGE))}]}`, expectStatus: [200, 400] },
  {
    name: 'POST /v1beta/models/…:generateContent, many contents',
    path: '/v1beta/models/gemini-2.5-flash:generateContent',
    headers: () => ({ 'x-goog-api-key': keys.google }),
    body: () => `{"contents":[${repeated(GEMINI_CONTENT, fill(GEMINI_CONTENT))}]}`,
    expectStatus: [200, 400],
  },
  { name: 'POST /v1/embeddings, many member names', path: '/v1/embeddings', headers: keyHeader('openai'), body: () => `{"model":"text-embedding-3-small","input":"hi","metadata_list":[${repeated(TINY, fill(TINY))}]}`, expectStatus: [200, 400] },
  {
    name: 'POST /v1beta/models/…:embedContent, many parts',
    path: '/v1beta/models/text-embedding-004:embedContent',
    headers: () => ({ 'x-goog-api-key': keys.google }),
    body: () => `{"content":{"parts":[${repeated('{"text":"a"}', fill('{"text":"a"}'))}]}}`,
    expectStatus: [200, 400],
  },
  {
    name: 'POST /admin/api/virtual-keys, many member names (the admin API\'s 1 MiB cap)',
    path: '/admin/api/virtual-keys',
    headers: () => ({ authorization: `Bearer ${gateway.adminToken}` }),
    body: () => `{"name":"large","provider":"openai","secret":"sk-large-0123456789","metadata_list":[${repeated(TINY, fill(TINY, ADMIN_BODY_BYTES))}]}`,
    // More JSON values than an object built on the serving thread may hold: refused once a preparing thread counted them.
    expectStatus: [413],
  },
  // Too many values for an object built on the serving thread (the SDK reads it): refused after a preparing thread counted them.
  { name: 'POST /mcp, many member names', path: '/mcp', headers: keyHeader('openai'), body: () => `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"list":[${repeated(TINY, fill(TINY))}]}}`, expectStatus: [413] },
  // Few values in many bytes: parsed on the serving thread once measured (no session: 400 or 404).
  { name: 'POST /mcp, one long string', path: '/mcp', headers: keyHeader('openai'), body: () => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"text":"${'a'.repeat(LARGE_BODY_BYTES - 200)}"}}}`, expectStatus: [400, 404] },
];

beforeAll(async () => {
  gateway = await startGateway();
  sink = createServer(answerSink);
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const create = async (name: string, body: Record<string, unknown>) => {
    const response = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name, ...body }) });
    expect(response.status, await response.clone().text()).toBe(201);
    keys[name] = ((await response.json()) as { key: string }).key;
  };
  await create('openai', { provider: 'openai', secret: 'sk-sink-0123456789', customHost: `${sinkUrl}/v1` });
  await create('anthropic', { provider: 'anthropic', secret: 'sk-ant-sink-0123456789', customHost: `${sinkUrl}/v1` });
  await create('google', { provider: 'google', secret: 'AIza-sink-0123456789', customHost: sinkUrl });
  tinyProvider = await startTinyProvider();
  await create('tiny', { provider: 'openai', secret: 'sk-tiny-0123456789', customHost: tinyProvider.url });
  // Warm every path once, as a running gateway is.
  for (let i = 0; i < 20; i++) await controlLatency();
});
afterAll(async () => {
  tinyProvider?.process.kill();
  await Promise.all([gateway?.close(), new Promise((resolve) => sink?.close(resolve))]);
});

/**
 * A small call, timed: the admin API's health, answered by the instance itself. One hop, so what it measures
 * is how long the serving thread was held, not how many turns of a busy event loop a call through a
 * provider takes (a chat call through the double in this same process varied 110-600 ms on a shared machine).
 */
async function controlLatency(): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${gateway.baseUrl}/admin/api/health`, { headers: { authorization: `Bearer ${gateway.adminToken}` } });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return performance.now() - started;
}

/** The slowest small call made one after another while `work` runs. */
async function slowestControlDuring(work: () => Promise<void>): Promise<number> {
  let done = false;
  let slowest = 0;
  const controlling = (async () => {
    while (!done) {
      // Timed from when the call was due, not from when this thread got round to sending it: the client is
      // in the gateway's process, and a thread held between two calls delays the next one's start (timed
      // from its start, a single 450 ms block between calls went unseen).
      const due = performance.now() + 5;
      await new Promise((resolve) => setTimeout(resolve, 5));
      await controlLatency();
      slowest = Math.max(slowest, performance.now() - due);
    }
  })();
  try {
    await work();
  } finally {
    done = true;
    await controlling;
  }
  return slowest;
}

/** The quickest of RUNS runs' slowest control call: a stall the gateway makes shows in every run. */
async function stallOf(work: () => Promise<void>): Promise<number[]> {
  const slowest: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    slowest.push(await slowestControlDuring(work));
    if (Math.min(...slowest) < STALL_BOUND_MS) break;
  }
  return slowest;
}

async function sendLarge(bodyCase: BodyCase, body = bodyCase.body()): Promise<void> {
  const response = await fetch(`${gateway.baseUrl}${bodyCase.path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...bodyCase.headers() }, body });
  const text = await response.text();
  expect(bodyCase.expectStatus, `${response.status} ${text.slice(0, 300)}`).toContain(response.status);
}

describe(`a small call answers within ${STALL_BOUND_MS} ms while a large worst-shaped body is served`, () => {
  // Both shapes once, unmeasured: a running gateway has compiled its large-body paths (and started its preparing threads).
  beforeAll(async () => {
    for (const bodyCase of [CHAT_MANY_MESSAGES, BODY_CASES[0]]) await sendLarge(bodyCase);
  }, 120_000);

  it.each(BODY_CASES)('$name', { timeout: 90_000 }, async (bodyCase) => {
    const body = bodyCase.body();
    expect(body.length).toBeGreaterThan((bodyCase.path.startsWith('/admin/') ? ADMIN_BODY_BYTES : LARGE_BODY_BYTES) * 0.95);
    const slowest = await stallOf(() => sendLarge(bodyCase, body));
    expect(Math.min(...slowest), `the slowest small call of each run: ${slowest.map((ms) => ms.toFixed(0)).join(', ')} ms`).toBeLessThan(STALL_BOUND_MS);
  });
});

interface StreamCase {
  name: string;
  path: string;
  body: string;
  /** The words of the stream, as the client reads them. */
  words: (text: string) => number;
}

const STREAM_CASES: StreamCase[] = [
  {
    name: 'passthrough: an OpenAI stream to /v1/chat/completions',
    path: '/v1/chat/completions',
    body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    words: (text) => text.match(/"content":"w\d+ "/g)?.length ?? 0,
  },
  {
    name: 'translated: an OpenAI stream to /v1/messages',
    path: '/v1/messages',
    body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    words: (text) => text.match(/"text":"w\d+ "/g)?.length ?? 0,
  },
];

describe(`a small call answers within ${STALL_BOUND_MS} ms while a provider streams in ${TINY_WRITE_BYTES}-byte writes`, () => {
  it.each(STREAM_CASES)('$name', async (streamCase) => {
    expect(tinyProvider!.writes).toBeGreaterThan(90_000);
    const slowest = await stallOf(async () => {
      const response = await fetch(`${gateway.baseUrl}${streamCase.path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${keys.tiny}` }, body: streamCase.body });
      const text = await response.text();
      expect(response.status, text.slice(0, 300)).toBe(200);
      // Every word arrived, in the client's dialect.
      expect(streamCase.words(text)).toBe(STREAM_LINES);
    });
    expect(Math.min(...slowest), `the slowest small call of each run: ${slowest.map((ms) => ms.toFixed(0)).join(', ')} ms`).toBeLessThan(STALL_BOUND_MS);
  });
});
