// The provider double of the benchmark: as cheap as a node:http server can be, so that what is measured
// is the proxy in front of it. POST …/completions answers one fixed completion, or — when the body asks
// for a stream — STREAM_CHUNKS small SSE events (a path starting `/chunks/N/` asks for N instead; one
// starting `/tiny/N/` for the stream as N writes of 8 bytes, bench/chunk-cost.ts).
// …/messages, …/chat/completions and …/embeddings answer one fixed Anthropic message, chat completion
// and embedding; a chat completion asked for as a stream answers a Chat stream. Gemini's
// `/v1beta/models/{m}:generateContent` and `:streamGenerateContent?alt=sse` answer as Gemini does
// (bench/gemini-answers.ts): a key in `x-goog-api-key` required, errors in Google's shape.
// Run as its own process; prints `listening <port>` when ready.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CHAT_STREAM_END, chatStreamEvent, GEMINI_RESPONSE, GEMINI_STREAM_FRAGMENTS, geminiStreamEvent } from './gemini-answers.js';

const DEFAULT_STREAM_CHUNKS = 10;

const completion = JSON.stringify({
  id: 'cmpl-bench',
  object: 'text_completion',
  created: 1700000000,
  model: 'gpt-3.5-turbo-instruct',
  choices: [{ index: 0, text: '\n\nThis is a test of the local gateway benchmark.', logprobs: null, finish_reason: 'stop' }],
  usage: { prompt_tokens: 5, completion_tokens: 12, total_tokens: 17 },
});

const chunkEvent = (index: number) =>
  `data: {"id":"cmpl-bench","object":"text_completion","created":1700000000,"model":"gpt-3.5-turbo-instruct","choices":[{"index":0,"text":" t${index}","logprobs":null,"finish_reason":null}]}\n\n`;
const lastEvents =
  'data: {"id":"cmpl-bench","object":"text_completion","created":1700000000,"model":"gpt-3.5-turbo-instruct","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":10,"total_tokens":15}}\n\ndata: [DONE]\n\n';

const STREAM_FLAG = Buffer.from('"stream":true');

// The dialect rows: an Anthropic Messages answer (passthrough) and a Chat Completions one (what a
// translated Messages request turns into).
const message = JSON.stringify({
  id: 'msg_bench',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [{ type: 'text', text: 'This is a test of the local gateway benchmark.' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 5, output_tokens: 12 },
});
const chatCompletion = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1700000000,
  model: 'claude-sonnet-4-5',
  choices: [{ index: 0, message: { role: 'assistant', content: 'This is a test of the local gateway benchmark.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 5, completion_tokens: 12, total_tokens: 17 },
});
// The embeddings row: one vector of text-embedding-3-small's 1536 dimensions, as floats (about 30 kB).
const embedding = JSON.stringify({
  object: 'list',
  data: [{ object: 'embedding', index: 0, embedding: Array.from({ length: 1536 }, (_value, index) => Math.round(Math.sin(index) * 1e6) / 1e6) }],
  model: 'text-embedding-3-small',
  usage: { prompt_tokens: 5, total_tokens: 5 },
});
const JSON_ANSWERS: [suffix: string, body: string][] = [
  ['/messages', message],
  ['/chat/completions', chatCompletion],
  ['/embeddings', embedding],
];

/** Writes `total` events, each in its own turn of the event loop (as a model's tokens come), then `end`. */
function writeEvents(res: ServerResponse, total: number, event: (index: number) => string, end = ''): void {
  let index = 0;
  const writeNext = () => {
    if (res.destroyed) return;
    if (index === total) {
      res.end(end);
      return;
    }
    res.write(event(index++));
    setImmediate(writeNext);
  };
  writeNext();
}

const TINY_WRITE_BYTES = 8;

/**
 * The chunk-path row (bench/chunk-cost.ts): a completion stream written `writes` times 8 bytes, many writes per
 * turn of the event loop (as fast as a provider can), so each proxy relays that many tiny chunks.
 */
function writeTiny(res: ServerResponse, writes: number): void {
  const events: string[] = [];
  let length = lastEvents.length;
  for (let index = 0; length < writes * TINY_WRITE_BYTES; index++) {
    events.push(chunkEvent(index));
    length += events[index].length;
  }
  const bytes = Buffer.from(events.join('') + lastEvents);
  const total = Math.ceil(bytes.length / TINY_WRITE_BYTES);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': 'req_bench', 'x-bench-writes': String(total) });
  let at = 0;
  const writeSome = () => {
    if (res.destroyed) return;
    for (let n = 0; n < 256 && at < bytes.length; n++, at += TINY_WRITE_BYTES) res.write(bytes.subarray(at, at + TINY_WRITE_BYTES));
    if (at < bytes.length) setImmediate(writeSome);
    else res.end();
  };
  writeSome();
}

const GEMINI_METHOD = /^\/v1beta\/models\/[^/:]+:(generateContent|streamGenerateContent)(\?alt=sse)?$/;

function googleError(res: ServerResponse, code: number, status: string, message: string): void {
  const body = JSON.stringify({ error: { code, message, status } });
  res.writeHead(code, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Gemini's API as AI Studio answers it; only the SSE stream form, the one Gatehouse asks for. */
function answerGemini(path: string, apiKey: string | string[] | undefined, res: ServerResponse): void {
  const method = GEMINI_METHOD.exec(path);
  if (!method || (method[1] === 'streamGenerateContent') !== (method[2] !== undefined)) return googleError(res, 404, 'NOT_FOUND', `Requested entity was not found: ${path}`);
  if (!apiKey) return googleError(res, 403, 'PERMISSION_DENIED', "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.");
  if (method[1] === 'generateContent') {
    res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(GEMINI_RESPONSE) });
    res.end(GEMINI_RESPONSE);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  writeEvents(res, GEMINI_STREAM_FRAGMENTS, geminiStreamEvent);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    const path = req.url ?? '';
    if (path.startsWith('/v1beta/')) return answerGemini(path, req.headers['x-goog-api-key'], res);
    if (path.endsWith('/chat/completions') && body.includes(STREAM_FLAG)) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': 'req_bench' });
      writeEvents(res, DEFAULT_STREAM_CHUNKS, (index) => chatStreamEvent(index, DEFAULT_STREAM_CHUNKS), CHAT_STREAM_END);
      return;
    }
    const other = JSON_ANSWERS.find(([suffix]) => path.endsWith(suffix));
    if (other) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(other[1]), 'x-request-id': 'req_bench' });
      res.end(other[1]);
      return;
    }
    if (!body.includes(STREAM_FLAG)) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(completion), 'x-request-id': 'req_bench' });
      res.end(completion);
      return;
    }
    const tiny = /^\/tiny\/(\d+)\//.exec(path);
    if (tiny) return writeTiny(res, Number(tiny[1]));
    const requested = /^\/chunks\/(\d+)\//.exec(req.url ?? '');
    const total = requested ? Number(requested[1]) : DEFAULT_STREAM_CHUNKS;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': 'req_bench' });
    // Each event goes out in its own turn of the event loop, as a model's tokens would, so the proxy
    // relays many small chunks rather than one coalesced buffer.
    writeEvents(res, total, chunkEvent, lastEvents);
  });
});
server.keepAliveTimeout = 120_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
