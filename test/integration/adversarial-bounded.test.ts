// Issue 21, bounded work: one request, one provider or one socket cannot take the gateway down.
// - A 10 MiB run of one letter on every path that counts tokens answers within about a second, while a
//   small request sent meanwhile keeps its normal latency (the count was quadratic on the serving thread).
// - A provider stream whose line, event or frame grows past 16 MiB ends with the client dialect's error
//   event, and the gateway's memory stays bounded (an endless `data:` line grew RSS to 764 MB).
// - A silent socket is closed after the first-byte timeout, an idle keep-alive one after its timeout,
//   and a connection over the cap gets a 503 it can read.
// - `gatehouse serve` stops on SIGTERM within 5 s while it counts such a word.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type Socket } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ServerResponse } from 'node:http';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic.js';
import { encodeFrame, eventFrame, startBedrockFake, type AwsTestCredentials, type BedrockFake } from '../fakes/bedrock.js';
import { MAX_STREAM_FRAME_BYTES } from '../../src-main/gateway/stream-bounds.js';

const MiB = 1024 * 1024;
/** The issue asks for 1 s; measured here at about 0.3 to 0.5 s. The bound leaves room for a slow CI machine. */
const ANSWER_BOUND_MS = 2_000;
/**
 * A small request while a big count runs: tens of ms here when the count is off the serving thread (the
 * 10 MiB body is still parsed on it); seconds to minutes when it was not. Room left for a slow CI machine.
 */
const CONTROL_BOUND_MS = 750;
/**
 * The longest stall of the serving thread meanwhile: reading and parsing a 10 MiB body takes it some
 * 100 to 200 ms here (linear work); a count on it took seconds for 100k letters.
 */
const BLOCK_BOUND_MS = 600;
const AWS: AwsTestCredentials = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };

let gateway: TestGateway;
let openai: OpenAIFake;
let anthropic: AnthropicFake;
let bedrock: BedrockFake;

beforeAll(async () => {
  [gateway, openai, anthropic, bedrock] = await Promise.all([
    // A body of 10 MiB of text plus its JSON around it.
    startGateway({ maxBodyBytes: 12 * MiB }),
    startOpenAIFake(),
    startAnthropicFake(),
    startBedrockFake({ region: 'us-west-2', credentials: [AWS] }),
  ]);
});
afterAll(async () => {
  await Promise.all([gateway?.close(), openai?.close(), anthropic?.close(), bedrock?.close()]);
});

const providerHeaders = {
  openai: () => ({ 'x-gateway-api-key': gateway.apiKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': openai.baseUrl, authorization: 'Bearer sk-test-0123456789' }),
  anthropic: () => ({ 'x-gateway-api-key': gateway.apiKey, 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': anthropic.baseUrl, 'x-api-key': 'sk-ant-test-0123456789' }),
  bedrock: () => ({
    'x-gateway-api-key': gateway.apiKey,
    'x-gateway-provider': 'bedrock',
    'x-gateway-custom-host': bedrock.baseUrl,
    'x-gateway-cloud-c-access-key-id': AWS.accessKeyId,
    'x-gateway-cloud-c-secret-access-key': AWS.secretAccessKey,
    'x-gateway-cloud-c-region': 'us-west-2',
  }),
};

function post(path: string, headers: Record<string, string>, body: string): Promise<Response> {
  return fetch(`${gateway.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

/** A small chat call through the OpenAI double, timed: what every other client of the gateway sees. */
async function controlLatency(): Promise<number> {
  const started = performance.now();
  const response = await post('/v1/chat/completions', providerHeaders.openai(), JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }));
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  return performance.now() - started;
}

interface Meanwhile<T> {
  result: T;
  slowestControlMs: number;
  controls: number;
  /** The longest the serving thread (this process's, the gateway runs in it) was kept from other work. */
  longestBlockMs: number;
}

/** Runs `work` while control calls go on one after another, watching the event loop meanwhile. */
async function withControls<T>(work: () => Promise<T>): Promise<Meanwhile<T>> {
  let done = false;
  let slowest = 0;
  let controls = 0;
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const controlling = (async () => {
    while (!done) {
      slowest = Math.max(slowest, await controlLatency());
      controls++;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  let result: T;
  try {
    result = await work();
  } finally {
    done = true;
    await controlling;
    loop.disable();
  }
  return { result, slowestControlMs: slowest, controls, longestBlockMs: loop.max / 1e6 };
}

const TEN_MIB_OF_A = 'a'.repeat(10 * MiB);

interface LongWordCase {
  path: string;
  headers: () => Record<string, string>;
  body: string;
  /** What the gateway answers: the context check's refusal, or its own count. */
  expectAnswer: (response: Response, text: string) => void;
}

const contextRefusal = (response: Response, text: string) => {
  expect(response.status, text.slice(0, 300)).toBe(400);
  // OpenAI's shape names the code; Anthropic's has no code, only the message.
  expect(text).toMatch(/context_length_exceeded|maximum context length is \d+ tokens/);
};

const LONG_WORD_CASES: Record<string, LongWordCase> = {
  'POST /v1/chat/completions (gpt-4o)': {
    path: '/v1/chat/completions',
    headers: providerHeaders.openai,
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: TEN_MIB_OF_A }] }),
    expectAnswer: contextRefusal,
  },
  'POST /v1/messages (Claude)': {
    path: '/v1/messages',
    headers: providerHeaders.anthropic,
    body: JSON.stringify({ model: 'claude-sonnet-4-20250514', max_tokens: 1024, messages: [{ role: 'user', content: TEN_MIB_OF_A }] }),
    expectAnswer: contextRefusal,
  },
  'POST /v1/messages/count_tokens (counted by the gateway)': {
    path: '/v1/messages/count_tokens',
    headers: providerHeaders.openai,
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: TEN_MIB_OF_A }] }),
    expectAnswer: (response, text) => {
      expect(response.status, text.slice(0, 300)).toBe(200);
      expect(response.headers.get('x-gateway-token-count')).toBe('estimate');
      // o200k makes 8 letters a token of a run of 'a': about 1.3 million, counted or extrapolated.
      const { input_tokens } = JSON.parse(text) as { input_tokens: number };
      expect(input_tokens).toBeGreaterThan(1_000_000);
      expect(input_tokens).toBeLessThan(3_000_000);
    },
  },
  'POST /v1/responses (gpt-4o)': {
    path: '/v1/responses',
    headers: providerHeaders.openai,
    body: JSON.stringify({ model: 'gpt-4o', input: TEN_MIB_OF_A }),
    expectAnswer: contextRefusal,
  },
};

describe('token counts of one long word', () => {
  beforeAll(async () => {
    // The first calls through a fresh gateway load their modules: not what the controls are to measure.
    for (let i = 0; i < 3; i++) await controlLatency();
    // The tokenizer's vocabulary loads once, in about a second, on the counting thread: a first count
    // pays it. The serving thread stays free meanwhile, which the control calls show.
    const { result, slowestControlMs, longestBlockMs } = await withControls(() =>
      post('/v1/messages/count_tokens', providerHeaders.openai(), JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'b'.repeat(100_000) }] })),
    );
    expect(result.status).toBe(200);
    expect(slowestControlMs).toBeLessThan(CONTROL_BOUND_MS);
    expect(longestBlockMs).toBeLessThan(BLOCK_BOUND_MS);
    // A body of 256 KiB or more is prepared off the serving thread (gateway/prepare/): the first one starts a
    // preparing thread (from source, through tsx: seconds) and that thread loads its own vocabulary. Paid
    // here once, as a running gateway has: the cases below measure the bound, not the start.
    const warm = await post('/v1/messages/count_tokens', providerHeaders.openai(), JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'b'.repeat(300_000) }] }));
    expect(warm.status, await warm.text()).toBe(200);
  }, 60_000);

  it.each(Object.entries(LONG_WORD_CASES))('%s: a 10 MiB run of one letter is answered fast, and other calls go on meanwhile', async (_name, testCase) => {
    const providerCalls = openai.requests.length + anthropic.requests.length;
    const { result, slowestControlMs, controls, longestBlockMs } = await withControls(async () => {
      const started = performance.now();
      const response = await post(testCase.path, testCase.headers(), testCase.body);
      const text = await response.text();
      return { response, text, elapsedMs: performance.now() - started };
    });
    testCase.expectAnswer(result.response, result.text);
    expect(result.elapsedMs).toBeLessThan(ANSWER_BOUND_MS);
    expect(controls).toBeGreaterThan(0);
    expect(slowestControlMs).toBeLessThan(CONTROL_BOUND_MS);
    expect(longestBlockMs).toBeLessThan(BLOCK_BOUND_MS);
    // Only the control calls reached a provider: the long word was answered by the gateway itself.
    expect(openai.requests.length + anthropic.requests.length - providerCalls).toBe(controls);
  }, 20_000);

  it('250,000 random letters in one word get a count, not a 500 (the tokenizer overflowed its stack)', async () => {
    let word = '';
    for (let i = 0; i < 250_000; i++) word += String.fromCharCode(97 + ((i * 7919) % 26));
    const response = await post('/v1/messages/count_tokens', providerHeaders.openai(), JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: word }] }));
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect((JSON.parse(text) as { input_tokens: number }).input_tokens).toBeGreaterThan(10_000);
  }, 20_000);
});

// ---- Provider streams that never end a line or declare a giant frame ---------------------------------

/** How much a double sends at most of its endless line: far past the bound, so an unbounded gateway shows it. */
const ENDLESS_LINE_BYTES = 192 * MiB;

function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Writes `head`, then letters with no line end until the gateway hangs up (or ENDLESS_LINE_BYTES). */
function endlessLine(contentType: string, head: string) {
  return async (_request: unknown, res: ServerResponse): Promise<void> => {
    res.writeHead(200, { 'content-type': contentType });
    res.write(head);
    const chunk = Buffer.alloc(256 * 1024, 'a');
    let sent = 0;
    let closed = false;
    res.on('close', () => (closed = true));
    while (!closed && sent < ENDLESS_LINE_BYTES) {
      sent += chunk.length;
      if (!res.write(chunk)) await drainedOrClosed(res);
    }
    res.end();
  };
}

/** The highest RSS of this process (gateway and doubles) while `work` runs, above where it started. */
async function rssGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  global.gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, growthMb: (peak - base) / MiB };
  } finally {
    clearInterval(sampler);
  }
}

/** Reads a whole stream, keeping only its last 64 KiB (the passthrough relays the 16 MiB line first). */
async function streamTail(response: Response): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let tail = '';
  for (;;) {
    const part = await reader.read();
    if (part.done) break;
    tail = (tail + decoder.decode(part.value, { stream: true })).slice(-64 * 1024);
  }
  return tail;
}

/** Bound on RSS growth: the 16 MiB held (as bytes and as text) and the chunks in flight, with room for GC timing. */
const RSS_BOUND_MB = 150;
const OVER_LIMIT = new RegExp(`over the ${MAX_STREAM_FRAME_BYTES}-byte limit`);

const anthropicStart = (model: string) =>
  `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_big', type: 'message', role: 'assistant', content: [], model, stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } } })}\n\n` +
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`;

describe('provider streams past 16 MiB of one line, event or frame', () => {
  it('passthrough Chat Completions: an endless data line ends with the OpenAI error event', async () => {
    openai.enqueue(endlessLine('text/event-stream', `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant' } }] })}\n\ndata: {"x":"`));
    const { result: tail, growthMb } = await rssGrowth(async () => {
      const response = await post('/v1/chat/completions', providerHeaders.openai(), JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] }));
      expect(response.status).toBe(200);
      return streamTail(response);
    });
    const last = tail.trimEnd().split('\n').at(-1)!;
    expect(last.startsWith('data: {"error"'), last.slice(0, 200)).toBe(true);
    expect((JSON.parse(last.slice(6)) as { error: { message: string; type: string } }).error).toMatchObject({ type: 'gateway_error', message: expect.stringMatching(OVER_LIMIT) });
    expect(growthMb).toBeLessThan(RSS_BOUND_MB);
  }, 30_000);

  it('passthrough Messages: an endless data line ends with `event: error`', async () => {
    anthropic.enqueue(endlessLine('text/event-stream', anthropicStart('claude-sonnet-4-20250514')));
    const response = await post('/v1/messages', providerHeaders.anthropic(), JSON.stringify({ model: 'claude-sonnet-4-20250514', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] }));
    expect(response.status).toBe(200);
    const tail = await streamTail(response);
    expect(tail).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"api_error","message":"The provider stream sent a line of \d+ bytes or more, over the 16777216-byte limit"\}\}\n\n$/);
  }, 30_000);

  it('translated (Anthropic to Chat Completions): an endless line ends with the OpenAI error event, memory bounded', async () => {
    anthropic.enqueue(endlessLine('text/event-stream', anthropicStart('claude-sonnet-4-20250514')));
    const { result: text, growthMb } = await rssGrowth(async () => {
      const response = await post('/v1/chat/completions', providerHeaders.anthropic(), JSON.stringify({ model: 'claude-sonnet-4-20250514', stream: true, messages: [{ role: 'user', content: 'hi' }] }));
      expect(response.status).toBe(200);
      return response.text();
    });
    const last = text.trimEnd().split('\n').at(-1)!;
    expect((JSON.parse(last.slice(6)) as { error: { message: string; type: string } }).error).toMatchObject({ type: 'gateway_error', message: expect.stringMatching(OVER_LIMIT) });
    expect(growthMb).toBeLessThan(RSS_BOUND_MB);
  }, 30_000);

  it('translated (Anthropic to Responses): an endless line ends with the Responses error event', async () => {
    anthropic.enqueue(endlessLine('text/event-stream', anthropicStart('claude-sonnet-4-20250514')));
    const response = await post('/v1/responses', providerHeaders.anthropic(), JSON.stringify({ model: 'claude-sonnet-4-20250514', stream: true, input: 'hi' }));
    expect(response.status).toBe(200);
    const text = await response.text();
    const events = text.trimEnd().split('\n\n');
    const last = events.at(-1)!;
    expect(last.split('\n')[0]).toMatch(/^event: (error|response\.failed)$/);
    expect(last).toMatch(OVER_LIMIT);
  }, 30_000);

  it('Bedrock: a frame declaring 1.6 GB is refused at its prelude, ending the Messages stream with `event: error`', async () => {
    const prelude = Buffer.alloc(12);
    prelude.writeUInt32BE(1_600_000_000, 0);
    prelude.writeUInt32BE(0, 4);
    let sentAfterPrelude = 0;
    bedrock.enqueue(async (_request, res) => {
      res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
      res.write(eventFrame('messageStart', { role: 'assistant' }));
      res.write(eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hello' } }));
      res.write(prelude);
      // Then the frame's body, slowly: a gateway that waits for the whole frame waits here.
      let closed = false;
      res.on('close', () => (closed = true));
      const chunk = Buffer.alloc(64 * 1024, 1);
      while (!closed && sentAfterPrelude < 64 * MiB) {
        res.write(chunk);
        sentAfterPrelude += chunk.length;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      res.end();
    });
    const started = performance.now();
    const response = await post('/v1/messages', providerHeaders.bedrock(), JSON.stringify({ model: 'anthropic.claude-3-5-sonnet-20240620-v1:0', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] }));
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('Hello');
    expect(text).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"api_error","message":"The provider stream sent an event-stream frame of 1600000000 bytes or more, over the 16777216-byte limit"\}\}\n\n$/);
    // Refused on the prelude, not after 64 MiB at 3 MiB a second.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(sentAfterPrelude).toBeLessThan(16 * MiB);
  }, 30_000);

  it('Bedrock: frames split across many small chunks still decode (the frames are cut from a list, not a growing buffer)', async () => {
    const frames = Buffer.concat([
      eventFrame('messageStart', { role: 'assistant' }),
      eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'piece by piece' } }),
      eventFrame('contentBlockStop', { contentBlockIndex: 0 }),
      eventFrame('messageStop', { stopReason: 'end_turn' }),
      encodeFrame({ ':message-type': 'event', ':event-type': 'metadata', ':content-type': 'application/json' }, Buffer.from(JSON.stringify({ usage: { inputTokens: 1, outputTokens: 3, totalTokens: 4 }, metrics: { latencyMs: 1 } }))),
    ]);
    bedrock.enqueue(async (_request, res) => {
      res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
      // Three bytes at a time: preludes, headers and CRCs all cut across chunks.
      for (let at = 0; at < frames.length; at += 3) {
        res.write(frames.subarray(at, at + 3));
        if (at % 96 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
    });
    const response = await post('/v1/chat/completions', providerHeaders.bedrock(), JSON.stringify({ model: 'anthropic.claude-3-5-sonnet-20240620-v1:0', stream: true, messages: [{ role: 'user', content: 'hi' }] }));
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).toContain('piece by piece');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  }, 30_000);
});

// ---- Sockets ------------------------------------------------------------------------------------------

describe('sockets', () => {
  let small: TestGateway;
  const FIRST_BYTE_MS = 300;
  const KEEP_ALIVE_MS = 300;
  const MAX_CONNECTIONS = 4;

  beforeAll(async () => {
    small = await startGateway({ connectionLimits: { firstByteTimeoutMs: FIRST_BYTE_MS, maxConnections: MAX_CONNECTIONS }, clientTimeouts: { keepAliveTimeoutMs: KEEP_ALIVE_MS } });
  });
  afterAll(async () => {
    await small?.close();
  });

  function open(): Promise<Socket> {
    const { port } = new URL(small.baseUrl);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => resolve(socket));
      socket.on('error', reject);
    });
  }

  /** Milliseconds until the gateway closes the socket (or `limitMs` passes: then Infinity). */
  function closedWithin(socket: Socket, limitMs: number): Promise<{ ms: number; received: string }> {
    const started = performance.now();
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ ms: Infinity, received }), limitMs);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve({ ms: performance.now() - started, received });
      });
    });
  }

  it('a connection that sends nothing is closed after the first-byte timeout', async () => {
    const socket = await open();
    const { ms, received } = await closedWithin(socket, 5_000);
    // Not at once (the timer, not a refusal); the client's clock starts a little after the server's.
    expect(ms).toBeGreaterThanOrEqual(FIRST_BYTE_MS / 3);
    expect(ms).toBeLessThan(3_000);
    expect(received).toBe('');
  });

  it('a keep-alive connection idle after its answer is closed after the keep-alive timeout', async () => {
    const socket = await open();
    const closing = closedWithin(socket, 5_000);
    socket.write(`GET /v1/no-such-path HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    const { ms, received } = await closing;
    expect(received).toMatch(/^HTTP\/1\.1 404 /);
    expect(received.toLowerCase()).toContain('keep-alive: timeout=');
    expect(ms).toBeLessThan(3_000);
  });

  it('connections over the cap get a 503 in the contract shape with connection: close; once one closes, new ones are served', async () => {
    // Connections that have started a request (so the first-byte timeout leaves them open).
    const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => open()));
    for (const socket of held) socket.write('GET /v1/models HTTP/1.1\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));

    const refused = await open();
    const closing = closedWithin(refused, 5_000);
    refused.write(`GET /v1/no-such-path HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    const { ms, received } = await closing;
    expect(ms).toBeLessThan(3_000);
    const [head, body] = received.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 503 /);
    expect(head.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(body)).toEqual({ error: { message: expect.stringMatching(/too many connections/i), type: 'gateway_error', param: null, code: 'too_many_connections' } });

    held[0].destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const response = await fetch(`${small.baseUrl}/v1/no-such-path`);
    expect(response.status).toBe(404);
    for (const socket of held) socket.destroy();
  });
});

// ---- SIGTERM during a count -----------------------------------------------------------------------------

describe('gatehouse serve during a long count', () => {
  const children: ChildProcessWithoutNullStreams[] = [];
  const dirs: string[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('exits on SIGTERM within 5 s while counting a 10 MiB word', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-'));
    dirs.push(dataDir);
    const child = spawn(process.execPath, ['--import', 'tsx', 'src-main/cli.ts', 'serve', '--port', '0', '--data-dir', dataDir], {
      env: { ...process.env, GATEWAY_API_KEY: 'cli-test-key', GATEHOUSE_MASTER_KEY: Buffer.alloc(32, 1).toString('base64') },
    });
    children.push(child);
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', () => {
        const match = /Gatehouse listening on (http:\/\/\S+)/.exec(stdout);
        if (match) resolve(match[1]);
      });
      void exited.then((code) => reject(new Error(`serve exited with ${code}`)));
    });
    // Under the default 10 MiB body limit with its JSON around it.
    const word = 'a'.repeat(10 * MiB - 1024);
    const counting = fetch(`${url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': 'cli-test-key', 'x-gateway-provider': 'openai', authorization: 'Bearer sk-x' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: word }] }),
    }).then(
      (response) => response.status,
      () => 'cut',
    );
    // While the body is read and the count runs.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const signalled = performance.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const stopMs = performance.now() - signalled;
    expect(stopMs).toBeLessThan(5_000);
    // Answered before the stop, or cut by it: never left hanging.
    expect([200, 'cut']).toContain(await counting);
  }, 30_000);
});
