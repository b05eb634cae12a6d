// The complexity suite: every function that handles request or response bytes on the serving thread is timed
// at size n and 8n on the shapes an attacker (or a long agent session) sends, and fails when its time grows
// faster than n·log n (test/helpers/complexity.ts says how). One table of rows; a new path is one row, and the
// codec rows are made from the registries, so a new dialect or provider format joins the suite by existing
// (the last describe checks that it did).
import { appendFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { GROWTH_LIMIT, MIN_LARGE_MS, chunked, cut, describeGrowth, measureGrowth, type ComplexityRow } from '../../helpers/complexity.js';
import { readBody } from '../../../src-main/core/http-io.js';
import { scanJson } from '../../../src-main/core/json-scan.js';
import { parseJsonBody, readGeneration, readRawBody } from '../../../src-main/gateway/request-body.js';
import { readSseEvents } from '../../../src-main/gateway/sse.js';
import { readEventStreamFrames } from '../../../src-main/gateway/aws-eventstream.js';
import { LineLength, MAX_STREAM_FRAME_BYTES } from '../../../src-main/gateway/stream-bounds.js';
import { answeredModel, StreamUsage, usageFromBody } from '../../../src-main/codecs/usage-from-body.js';
import { estimatedUsage } from '../../../src-main/gateway/limits/usage-estimate.js';
import { redactHeaders, redactSecrets, redactUrl } from '../../../src-main/core/redact.js';
import { countTokens } from '../../../src-main/gateway/token-count.js';
import { estimateInputTokens } from '../../../src-main/gateway/token-estimate.js';
import { answerEvents, type CanonicalAnswer, type CanonicalEvent, type CanonicalRequest, type ContentPart, type Dialect, type EncodeTarget, type ProviderCodec, type Turn, type UpstreamEvent, type WireFormat } from '../../../src-main/codecs/canonical.js';
import { PROVIDER_CODECS, providerCodec } from '../../../src-main/codecs/registry.js';
import { GENERATION_ROUTES, PATH_MODEL_DIALECTS } from '../../../src-main/gateway/ingress/registry.js';
import { readGeminiPath } from '../../../src-main/gateway/ingress/gemini.js';
import type { GenerationRoute, Ingress, PathRequest } from '../../../src-main/gateway/ingress/types.js';
import { upstreamSseEvents as parseSse } from '../../helpers/sse.js';
import { EMBEDDING_FORMATS, type EmbeddingFormat, type EmbeddingRequest } from '../../../src-main/codecs/embeddings/canonical.js';
import { embeddingCodec } from '../../../src-main/codecs/embeddings/registry.js';
import { geminiEmbeddingsIngress, openaiEmbeddingsIngress } from '../../../src-main/gateway/embeddings/embeddings-ingress.js';
import { readEmbeddings } from '../../../src-main/gateway/embeddings/embeddings-body.js';
import { worstCaseCostUsd } from '../../../src-main/gateway/limits/worst-case-cost.js';
import { openaiChatIngress } from '../../../src-main/gateway/ingress/openai.js';
import { mcpCallRecord } from '../../../src-main/mcp/call-log.js';
import type { Caller } from '../../../src-main/core/keys.js';
import { PROFILES } from '../codecs/conformance-fixtures.js';
import { startGateway, TEST_GATEWAY_KEY, type TestGateway } from '../../helpers/gateway.js';
import { startMcpHttpServer, type McpHttpTestServer } from '../../fakes/mcp-tools.js';
import { addMcpServer, connectMcp, textOf } from '../../helpers/mcp.js';

// ---- Shapes --------------------------------------------------------------------------------------------------

/** Text that is mostly JSON escapes once serialised: quotes, backslashes, newlines, control characters. */
const escapy = (length: number): string => '"\\\n\t\u0001/'.repeat(Math.ceil(length / 6)).slice(0, length);
const words = (count: number): string => Array.from({ length: count }, (_, i) => `w${i % 97}`).join(' ');
const CALLER: Caller = { kind: 'gateway-key', keyId: null };
const TARGET: EncodeTarget = { provider: 'complexity', modelInBody: true };

const base = (turns: Turn[], extra: Partial<CanonicalRequest> = {}): CanonicalRequest => ({
  dialect: 'openai-chat',
  onUnsupported: 'drop',
  model: 'model-1',
  system: [{ type: 'text', text: 'Be brief.' }],
  turns,
  maxOutputTokens: 1000,
  stream: false,
  extensions: {},
  ...extra,
});

const tool = (i: number) => ({ name: `tool_${i}`, description: `Tool number ${i}`, parameters: { type: 'object', properties: { [`q${i}`]: { type: 'string' }, limit: { type: 'integer' } }, required: [`q${i}`] } });

/** The canonical requests an attacker or a long agent session sends, at size n. */
const REQUEST_SHAPES: { shape: string; n: number; build(n: number): CanonicalRequest }[] = [
  {
    shape: 'many messages',
    n: 1500,
    build: (n) => base(Array.from({ length: n }, (_, i): Turn => ({ role: i % 2 === 0 ? 'user' : 'assistant', parts: [{ type: 'text', text: `word${i}` }] })).concat(n % 2 ? [] : [{ role: 'user', parts: [{ type: 'text', text: 'end' }] }])),
  },
  {
    shape: 'many tools',
    n: 500,
    build: (n) => base([{ role: 'user', parts: [{ type: 'text', text: 'Use a tool.' }] }], { tools: Array.from({ length: n }, (_, i) => tool(i)), toolChoice: { mode: 'auto' } }),
  },
  {
    shape: 'many content parts',
    n: 1500,
    build: (n) => base([{ role: 'user', parts: Array.from({ length: n }, (_, i): ContentPart => ({ type: 'text', text: `part ${i}` })) }]),
  },
  {
    shape: 'many tool calls and results',
    n: 400,
    build: (n) => {
      const turns: Turn[] = [{ role: 'user', parts: [{ type: 'text', text: 'Go.' }] }];
      for (let i = 0; i < n; i++) {
        turns.push({ role: 'assistant', parts: [{ type: 'tool_call', id: `call_${i}`, name: 'tool_0', arguments: `{"q0":"x${i}"}` }] });
        turns.push({ role: 'user', parts: [{ type: 'tool_result', callId: `call_${i}`, name: 'tool_0', content: `result ${i}` }] });
      }
      turns.push({ role: 'user', parts: [{ type: 'text', text: 'Done?' }] });
      return base(turns, { tools: [tool(0)] });
    },
  },
  {
    shape: 'many parallel tool calls, each result its own turn',
    n: 400,
    build: (n) => {
      const calls = Array.from({ length: n }, (_, i): ContentPart => ({ type: 'tool_call', id: `call_${i}`, name: 'tool_0', arguments: `{"q0":"x${i}"}` }));
      const results = Array.from({ length: n }, (_, i): Turn => ({ role: 'user', parts: [{ type: 'tool_result', callId: `call_${i}`, name: 'tool_0', content: `result ${i}` }] }));
      return base([{ role: 'user', parts: [{ type: 'text', text: 'Go.' }] }, { role: 'assistant', parts: calls }, ...results, { role: 'user', parts: [{ type: 'text', text: 'Done?' }] }], { tools: [tool(0)] });
    },
  },
  { shape: 'one long string', n: 100_000, build: (n) => base([{ role: 'user', parts: [{ type: 'text', text: words(n / 4) }] }]) },
  { shape: 'a string full of escapes', n: 30_000, build: (n) => base([{ role: 'user', parts: [{ type: 'text', text: escapy(n) }] }]) },
];

/** The answers and streams a provider (or a misbehaving one) sends, at size n. */
const ANSWER_SHAPES: { shape: string; n: number; build(n: number): CanonicalAnswer }[] = [
  { shape: 'long text', n: 30_000, build: (n) => ({ id: 'a1', model: 'model-1', content: [{ type: 'text', text: escapy(n) }], finishReason: 'stop', usage: { inputTokens: 10, outputTokens: n } }) },
  {
    shape: 'many tool calls',
    n: 300,
    build: (n) => ({
      id: 'a2',
      model: 'model-1',
      content: Array.from({ length: n }, (_, i) => ({ type: 'tool_call' as const, id: `call_${i}`, name: `tool_${i}`, arguments: `{"q":"${i}"}` })),
      finishReason: 'tool_calls',
      usage: { inputTokens: 10, outputTokens: n },
    }),
  },
];

/** Stream events one token at a time: what every stream encoder and decoder sees most. */
function tokenEvents(n: number): CanonicalEvent[] {
  const events: CanonicalEvent[] = [{ type: 'start', id: 's1', model: 'model-1' }];
  for (let i = 0; i < n; i++) events.push({ type: 'text', text: ` w${i % 50}` });
  events.push({ type: 'tool_call_start', index: 0, id: 'call_0', name: 'tool_0' });
  for (let i = 0; i < n; i++) events.push({ type: 'tool_call_delta', index: 0, arguments: i === 0 ? '{"q":"' : 'x' });
  events.push({ type: 'tool_call_delta', index: 0, arguments: '"}' }, { type: 'tool_call_end', index: 0 });
  events.push({ type: 'usage', usage: { inputTokens: 5, outputTokens: 2 * n } }, { type: 'finish', reason: 'tool_calls' });
  return events;
}

// ---- The codec halves the registries name -------------------------------------------------------------------

interface Front {
  name: string;
  route: GenerationRoute;
  ingress: Ingress;
}

/** Every front door: the exact paths, and one for each dialect whose path names the model. */
const FRONTS: Front[] = [
  ...[...GENERATION_ROUTES].map(([path, route]) => ({ name: path, route, ingress: route.ingress })),
  ...PATH_MODEL_DIALECTS.map(({ ingress }) => {
    const path: PathRequest = { model: 'model-1', stream: false };
    return { name: `${ingress.dialect} (model in the path)`, route: { ingress, operation: 'generate' as const, path }, ingress };
  }),
];

/** A client body in `dialect` for a canonical request: written by the format's own encoder (Completions has none). */
function dialectBody(dialect: Dialect, request: CanonicalRequest): Record<string, unknown> {
  if (dialect === 'openai-completions') {
    const text = request.turns.flatMap((turn) => turn.parts.map((part) => (part.type === 'text' ? part.text : ''))).join('\n');
    return { model: 'model-1', prompt: request.turns.length > 1 ? request.turns.map((turn) => turn.parts.map((part) => (part.type === 'text' ? part.text : '')).join(' ')) : text, max_tokens: 100 };
  }
  const body = providerCodec(dialect).encodeRequest({ ...request, dialect }, TARGET).body;
  return JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
}


const answerRequest = (format: WireFormat): CanonicalRequest => ({
  ...base([{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }]),
  dialect: (FRONTS.some((front) => front.ingress.dialect === format) ? format : 'openai-chat') as Dialect,
  stream: true,
  includeUsage: true,
});

/** How a provider format's answers and streams are written: its own dialect's encoders, else the conformance suite's reference writer. */
function providerWire(format: WireFormat): { whole(answer: CanonicalAnswer): unknown; stream(events: CanonicalEvent[]): UpstreamEvent[] } | undefined {
  const dialect = FRONTS.find((front) => front.ingress.dialect === format)?.ingress.codec;
  if (dialect) {
    return {
      whole: (answer) => JSON.parse(JSON.stringify(dialect.encodeResponse(answer, answerRequest(format)))) as unknown,
      stream: (events) => {
        const encoder = dialect.createStreamEncoder(answerRequest(format));
        return parseSse(events.map((event) => encoder.onEvent(event)).join('') + encoder.onEnd());
      },
    };
  }
  const reference = PROFILES[format]?.answer?.reference;
  if (!reference) return undefined;
  return {
    whole: (answer) => reference.whole(answer),
    // The reference writer writes whole answers: the token stream is folded into one first.
    stream: (events) => reference.stream(foldTokens(events)),
  };
}

function foldTokens(events: CanonicalEvent[]): CanonicalAnswer {
  const content: CanonicalAnswer['content'] = [];
  for (const event of events) {
    if (event.type === 'text') content.push({ type: 'text', text: event.text });
    if (event.type === 'tool_call_start') content.push({ type: 'tool_call', id: event.id, name: event.name, arguments: '{}' });
  }
  return { id: 's1', model: 'model-1', content, finishReason: 'stop', usage: { inputTokens: 5, outputTokens: 5 } };
}

// ---- The rows --------------------------------------------------------------------------------------------------

type Row = ComplexityRow<any> & { covers?: string[] };
const rows: Row[] = [];
const row = <Input>(r: ComplexityRow<Input> & { covers?: string[] }): void => void rows.push(r as Row);

/** A JSON body with `n` one-word messages: the 2.5 MB chat request at n = 80,000. */
const messagesBody = (n: number): Buffer => Buffer.from(JSON.stringify({ model: 'model-1', messages: Array.from({ length: n }, (_, i) => ({ role: 'user', content: `w${i}` })) }));

function fakeRequest(chunks: readonly Buffer[], headers: Record<string, string> = {}): IncomingMessage {
  const stream = Readable.from(chunks, { objectMode: false }) as unknown as IncomingMessage;
  (stream as { headers: Record<string, string> }).headers = { 'content-type': 'application/json', ...headers };
  return stream;
}

// Body read.
row({ path: 'readBody: many tiny chunks', n: 20_000, build: (n) => cut(Buffer.alloc(n * 16, 0x61), 16), run: (chunks) => readBody(fakeRequest(chunks), 1 << 30) });
row({ path: 'readRawBody: a large body (UTF-8 check, content type)', n: 1 << 20, build: (n) => cut(Buffer.from('é'.repeat(n / 2)), 64 * 1024), run: (chunks) => readRawBody(fakeRequest(chunks), 1 << 30) });

// JSON scan and parse.
row({ path: 'scanJson: many member names (one-word messages)', n: 10_000, build: messagesBody, run: scanJson });
row({ path: 'scanJson: many member names in one object', n: 10_000, build: (n) => Buffer.from(JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`name_${i}`, i])))), run: scanJson });
row({ path: 'scanJson: escaped member names', n: 5_000, build: (n) => Buffer.from(`{${Array.from({ length: n }, (_, i) => `"n\\u0061me_${i}":${i}`).join(',')}}`), run: scanJson });
row({
  path: 'scanJson: nesting to the limit, many times over',
  n: 500,
  build: (n) => Buffer.from(`[${Array.from({ length: n }, (_, i) => `${'{"a":['.repeat(31)}${i}${']}'.repeat(31)}`).join(',')}]`),
  run: scanJson,
});
row({ path: 'scanJson: a long string', n: 1 << 20, repeat: 10, build: (n) => Buffer.from(JSON.stringify({ text: 'a'.repeat(n) })), run: scanJson });
row({ path: 'scanJson: strings full of escapes and backslashes', n: 50_000, repeat: 4, build: (n) => Buffer.from(JSON.stringify({ text: escapy(n), more: '\\'.repeat(n) })), run: scanJson });
row({ path: 'scanJson: many short strings with escaped quotes', n: 20_000, build: (n) => Buffer.from(JSON.stringify(Array.from({ length: n }, (_, i) => `\\"${i}\\"`))), run: scanJson });
row({ path: 'parseJsonBody: many member names (one-word messages)', n: 4_000, build: (n) => { const bytes = messagesBody(n); return { bytes, text: bytes.toString() }; }, run: ({ bytes, text }) => parseJsonBody(bytes, text) });

// SSE, Bedrock frames, the line bound.
const sseEvents = (n: number): Buffer => Buffer.from(Array.from({ length: n }, (_, i) => `data: {"choices":[{"delta":{"content":"w${i}"}}]}\n\n`).join(''));
const drain = async (events: AsyncIterable<unknown>): Promise<number> => {
  let count = 0;
  for await (const _ of events) count++;
  return count;
};
row({ path: 'readSseEvents: many events in tiny chunks', n: 500, build: (n) => cut(sseEvents(n), 8), run: (chunks) => drain(readSseEvents(chunked(chunks))) });
row({ path: 'readSseEvents: one long line in tiny chunks', n: 5_000, build: (n) => cut(Buffer.from(`data: ${'x'.repeat(n * 8)}\n\n`), 8), run: (chunks) => drain(readSseEvents(chunked(chunks))) });
row({ path: 'readSseEvents: many events in one chunk', n: 3_000, build: (n) => [sseEvents(n)], run: (chunks) => drain(readSseEvents(chunked(chunks))) });
row({ path: 'readSseEvents: one event of many data lines', n: 20_000, build: (n) => [Buffer.from(`${'data: x\n'.repeat(n)}\n`)], run: (chunks) => drain(readSseEvents(chunked(chunks))) });

const frameCodec = new EventStreamCodec(toUtf8, fromUtf8);
const frame = (payload: string): Buffer =>
  Buffer.from(
    frameCodec.encode({
      headers: { ':event-type': { type: 'string', value: 'contentBlockDelta' }, ':content-type': { type: 'string', value: 'application/json' }, ':message-type': { type: 'string', value: 'event' } },
      body: fromUtf8(payload),
    }),
  );
row({ path: 'readEventStreamFrames: many frames in tiny chunks', n: 250, build: (n) => cut(Buffer.concat(Array.from({ length: n }, (_, i) => frame(`{"delta":{"text":"w${i}"}}`))), 8), run: (chunks) => drain(readEventStreamFrames(chunked(chunks))) });
row({ path: 'readEventStreamFrames: one large frame in tiny chunks', n: 3_000, build: (n) => cut(frame(JSON.stringify({ delta: { text: 'x'.repeat(n * 8) } })), 8), run: (chunks) => drain(readEventStreamFrames(chunked(chunks))) });
row({ path: 'readEventStreamFrames: many frames in one chunk', n: 600, build: (n) => [Buffer.concat(Array.from({ length: n }, (_, i) => frame(`{"delta":{"text":"w${i}"}}`)))], run: (chunks) => drain(readEventStreamFrames(chunked(chunks))) });
row({
  path: 'LineLength: many tiny chunks of one line',
  n: 20_000,
  build: (n) => cut(Buffer.alloc(n * 8, 0x61), 8),
  run: (chunks: Buffer[]) => {
    const line = new LineLength();
    for (const chunk of chunks) line.overAfter(chunk);
  },
});
row({
  path: 'LineLength: chunks of carriage returns',
  n: 2_000,
  build: (n) => Array.from({ length: n }, () => Buffer.from(`\n${'\r'.repeat(4096)}x`)),
  run: (chunks: Buffer[]) => {
    const line = new LineLength();
    for (const chunk of chunks) line.overAfter(chunk);
  },
});

// Usage and model read back from what the client received.
const chatStream = (n: number, usageEvery: boolean): string =>
  Array.from({ length: n }, (_, i) => `data: {"id":"c","model":"m","choices":[{"delta":{"content":"w${i}"}}]${usageEvery ? ',"usage":null' : ''}}\n\n`).join('') +
  'data: {"id":"c","model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}\n\ndata: [DONE]\n\n';
const messagesStream = (n: number): string =>
  `event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":3,"output_tokens":1}}}\n\n${Array.from({ length: n }, (_, i) => `event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":${i}}}\n\n`).join('')}`;
const responsesStream = (n: number): string =>
  `${Array.from({ length: n }, (_, i) => `event: response.in_progress\ndata: {"type":"response.in_progress","response":{"usage":null,"n":${i}}}\n\n`).join('')}event: response.completed\ndata: {"type":"response.completed","response":{"usage":{"input_tokens":3,"output_tokens":4}}}\n\n`;
const geminiArrayStream = (n: number): string => `[${Array.from({ length: n }, (_, i) => `{"candidates":[{"content":{"parts":[{"text":"w${i}"}]}}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":${i}}}`).join(',\n')}]`;
row({ path: 'usageFromBody (Chat stream): "usage":null in every chunk', n: 10_000, repeat: 20, build: (n) => chatStream(n, true), run: (body) => usageFromBody(body, true, 'openai-chat') });
row({ path: 'usageFromBody (Chat stream): no usage anywhere', n: 1_000, build: (n) => chatStream(n, true).replace(/"usage":\{[^}]*\}/, '"usage":null'), run: (body) => usageFromBody(body, true, 'openai-chat') });
row({ path: 'usageFromBody (Messages stream): usage in every event', n: 2_000, build: messagesStream, run: (body) => usageFromBody(body, true, 'anthropic-messages') });
row({ path: 'usageFromBody (Responses stream): usage:null in every event', n: 1_000, build: (n) => responsesStream(n).replace(/"usage":\{[^}]*\}\}/, '"usage":null}'), run: (body) => usageFromBody(body, true, 'openai-responses') });
row({ path: 'usageFromBody (Gemini, one JSON array)', n: 2_000, build: geminiArrayStream, run: (body) => usageFromBody(body, true, 'gemini') });
row({ path: 'usageFromBody (Chat stream): "usage" on one long line many times', n: 20_000, build: (n) => `data: ${'"usage"'.repeat(n)}\n\n`, run: (body) => usageFromBody(body, true, 'openai-chat') });
row({ path: 'answeredModel (Chat stream): "usage":null in every chunk', n: 10_000, repeat: 20, build: (n) => chatStream(n, true), run: (body) => answeredModel(body, true) });
row({ path: 'usageFromBody (Chat stream): "usage":null in every chunk, lines ended by CR alone', n: 1_000, build: (n) => chatStream(n, true).replace(/"usage":\{[^}]*\}/, '"usage":null').replace(/\n/g, '\r'), run: (body) => usageFromBody(body, true, 'openai-chat') });
/** Reads a stream's usage as the passthrough relay does, piece by piece as the chunks arrive. */
const streamUsageOf = (dialect: string, pieces: string[]) => {
  const reader = new StreamUsage(dialect, MAX_STREAM_FRAME_BYTES);
  for (const piece of pieces) reader.feed(piece);
  return reader.end();
};
const eventPieces = (text: string): string[] => text.split(/(?<=\n\n)/);
row({ path: 'StreamUsage (Chat stream, as it passes): "usage":null in every chunk', n: 2_000, build: (n) => eventPieces(chatStream(n, true)), run: (pieces) => streamUsageOf('openai-chat', pieces) });
row({ path: 'StreamUsage (Messages stream, as it passes): usage in every event', n: 2_000, build: (n) => eventPieces(messagesStream(n)), run: (pieces) => streamUsageOf('anthropic-messages', pieces) });
row({ path: 'StreamUsage (Chat stream, as it passes): 8-byte pieces', n: 1_000, build: (n) => cut(Buffer.from(chatStream(n, true)), 8).map(String), run: (pieces) => streamUsageOf('openai-chat', pieces) });
row({ path: 'estimatedUsage (Chat stream): text in every chunk', n: 2_000, build: (n) => chatStream(n, false), run: (body) => estimatedUsage(1000, body, true) });

// Redaction.
row({ path: 'redactSecrets: a long text full of key-shaped strings', n: 20_000, build: (n) => Array.from({ length: n }, (_, i) => `sk-${'a'.repeat(11)} AKIA${i} ya29.x gh-vk- AIza sk-ant-`).join(' '), run: (text) => redactSecrets(text, ['a-secret-value-1234', undefined, 'another-secret-5678']) });
row({ path: 'redactSecrets: a long run of key characters', n: 50_000, repeat: 4, build: (n) => `sk-${'-'.repeat(n)}`, run: (text) => redactSecrets(text, []) });
row({ path: 'redactHeaders: many headers', n: 5_000, build: (n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`x-header-${i}`, i % 2 ? `value ${i}` : [`a${i}`, `b${i}`]])), run: (headers) => redactHeaders(headers, new Set(['x-header-1'])) });
row({ path: 'redactUrl: many query parameters', n: 10_000, build: (n) => `https://user:pass@host/v1?${Array.from({ length: n }, (_, i) => `k${i}=v${i}`).join('&')}#frag`, run: redactUrl });
row({ path: 'redactUrl: a long host part with no slashes', n: 50_000, repeat: 4, build: (n) => `${'a:'.repeat(n / 2)}@`, run: redactUrl });

// Token counting (on its worker thread: the serving thread's part is the sample and the hop).
row({ path: 'countTokens: one run of letters', n: 20_000, build: (n) => 'a'.repeat(n), run: (text) => countTokens('o200k_base', [text]) });
row({ path: 'countTokens: many short texts', n: 4_000, build: (n) => Array.from({ length: n }, (_, i) => `word ${i}`), run: (texts) => countTokens('o200k_base', texts) });
for (const shape of REQUEST_SHAPES.filter((s) => s.shape === 'many messages' || s.shape === 'many tools')) {
  row({ path: `estimateInputTokens: ${shape.shape}`, n: shape.n, build: shape.build, run: estimateInputTokens });
}

// Context window and worst-case cost (they read a few fields of the parsed body: constant time, kept so).
row({
  path: 'checkPromptFits: many messages (counted)',
  n: 1_000,
  build: (n) => {
    const request = REQUEST_SHAPES[0].build(n);
    const body = dialectBody('openai-chat', request);
    return { body, bytes: 10_000_000, decoded: { canonical: () => request } };
  },
  run: ({ body, bytes, decoded }) => openaiChatIngress.checkWindow({ provider: 'openai', model: 'gpt-4o', body, bodyBytes: bytes, decoded }),
});
row({
  path: 'worstCaseCostUsd and answersBilled: many messages',
  n: 1_000,
  repeat: 2_000,
  build: (n) => dialectBody('openai-chat', REQUEST_SHAPES[0].build(n)),
  run: (body) => worstCaseCostUsd({ provider: 'openai', pricedModel: 'gpt-4o', ingress: openaiChatIngress, operation: 'generate', body, bodyBytes: 1_000, calls: 1, choices: openaiChatIngress.answersBilled(body, 1) }),
});

// The Gemini path reader.
row({ path: 'readGeminiPath: a long path of colons', n: 2_000, repeat: 20, build: (n) => `/v1beta/models/${'a:'.repeat(n)}1`, run: (path) => readGeminiPath(path, new URLSearchParams('alt=sse')) });

// Embeddings: the readers of both front doors, and each provider format both ways.
const EMBEDDINGS_SHAPES: { shape: string; n: number; repeat?: number; build(n: number): EmbeddingRequest }[] = [
  { shape: 'many inputs', n: 256, repeat: 10, build: (n) => ({ model: 'e', inputs: Array.from({ length: n }, (_, i) => ({ kind: 'text', text: `text ${i}` })), encoding: 'float', source: 'input' }) },
  { shape: 'one long input', n: 30_000, build: (n) => ({ model: 'e', inputs: [{ kind: 'text', text: escapy(n) }], encoding: 'float', source: 'input' }) },
];
const vectors = (count: number, length: number): number[][] => Array.from({ length: count }, (_, i) => Array.from({ length }, (_, j) => (i + j) / 1000));
/** An answer in each embeddings format, with `count` vectors of `length` numbers. */
const EMBEDDING_ANSWERS: Record<EmbeddingFormat, (count: number, length: number) => unknown> = {
  'openai-embeddings': (count, length) => ({ object: 'list', data: vectors(count, length).map((embedding, index) => ({ object: 'embedding', index, embedding })), model: 'e', usage: { prompt_tokens: 3, total_tokens: 3 } }),
  'gemini-embeddings': (count, length) => ({ embeddings: vectors(count, length).map((values) => ({ values })) }),
  'vertex-predict': (count, length) => ({ predictions: vectors(count, length).map((values) => ({ embeddings: { values, statistics: { token_count: 3 } } })) }),
  'bedrock-titan': (_count, length) => ({ embedding: vectors(1, length)[0], inputTextTokenCount: 3 }),
  'bedrock-cohere': (count, length) => ({ embeddings: { float: vectors(count, length) }, id: 'x', response_type: 'embeddings_by_type' }),
};
for (const format of EMBEDDING_FORMATS) {
  for (const shape of EMBEDDINGS_SHAPES) {
    row({ path: `embeddings ${format} encodeCalls: ${shape.shape}`, covers: [`embeddings:${format}:encodeCalls`], n: shape.n, repeat: shape.repeat, build: shape.build, run: (request) => embeddingCodec(format).encodeCalls(request, 'e', 'complexity') });
  }
  const answer = EMBEDDING_ANSWERS[format];
  row({ path: `embeddings ${format} decodeAnswer: long vectors`, covers: [`embeddings:${format}:decodeAnswer`], n: 20_000, build: (n) => answer(1, n), run: (json) => embeddingCodec(format).decodeAnswer(json, {}, 'complexity') });
}
const rawOf = (json: unknown) => {
  const bytes = Buffer.from(JSON.stringify(json));
  return { bytes, text: bytes.toString() };
};
row({ path: 'readEmbeddings (/v1/embeddings): many inputs', n: 256, build: (n) => rawOf({ model: 'e', input: Array.from({ length: n }, (_, i) => `text ${escapy(40)} ${i}`) }), run: (raw) => readEmbeddings(raw, openaiEmbeddingsIngress, CALLER) });
row({ path: 'readEmbeddings (/v1/embeddings): one long token array', n: 50_000, build: (n) => rawOf({ model: 'e', input: Array.from({ length: n }, (_, i) => i % 50_000) }), run: (raw) => readEmbeddings(raw, openaiEmbeddingsIngress, CALLER) });
row({
  path: 'readEmbeddings (:batchEmbedContents): many requests of many parts',
  n: 200,
  build: (n) => rawOf({ requests: Array.from({ length: n }, (_, i) => ({ model: 'models/e', content: { parts: Array.from({ length: 8 }, (_, j) => ({ text: `part ${i}.${j}` })) } })) }),
  run: (raw) => readEmbeddings(raw, geminiEmbeddingsIngress('e', 'batchEmbedContents'), CALLER),
});
row({ path: 'readEmbeddings (:embedContent): one content of many parts', n: 2_000, build: (n) => rawOf({ content: { parts: Array.from({ length: n }, (_, i) => ({ text: `part ${i}` })) } }), run: (raw) => readEmbeddings(raw, geminiEmbeddingsIngress('e', 'embedContent'), CALLER) });

// Each front door: the body read as the gateway reads it (scan, parse, the ingress's check), then decoded whole.
for (const front of FRONTS) {
  const dialect = front.ingress.dialect;
  // (The rounds of calls and results, and the long plain string, are covered by the codec rows below.)
  for (const shape of REQUEST_SHAPES.filter((s) => s.shape !== 'many tool calls and results' && s.shape !== 'one long string')) {
    // A completion's prompt is text: its rows are the many-prompts and the escapes.
    if (dialect === 'openai-completions' && shape.shape !== 'many messages' && shape.shape !== 'a string full of escapes') continue;
    row({
      path: `${front.name} read and decoded: ${shape.shape}`,
      covers: [`ingress:${front.name}`],
      n: shape.n,
      build: (n) => rawOf(dialectBody(dialect, shape.build(n))),
      run: (raw) => readGeneration(raw, front.route, CALLER).canonical(),
    });
  }
}

// Gemini's functionResponses matched to their calls by id, answered last first.
row({
  path: 'gemini (model in the path) read and decoded: many calls of one name answered by id in reverse',
  n: 1_000,
  build: (n) => {
    const calls = Array.from({ length: n }, (_, i) => ({ functionCall: { id: `c${i}`, name: 'tool_0', args: {} } }));
    const responses = Array.from({ length: n }, (_, i) => ({ functionResponse: { id: `c${n - 1 - i}`, name: 'tool_0', response: { output: 'ok' } } }));
    return rawOf({ contents: [{ role: 'user', parts: [{ text: 'Go.' }] }, { role: 'model', parts: calls }, { role: 'user', parts: responses }] });
  },
  run: (raw) => readGeneration(raw, FRONTS.find((front) => front.ingress.dialect === 'gemini')!.route, CALLER).canonical(),
});

// Each dialect's answer encoders, whole and streamed.
const dialects = [...new Map(FRONTS.map((front) => [front.ingress.dialect, front.ingress.codec])).values()];
for (const codec of dialects) {
  for (const shape of ANSWER_SHAPES) {
    row({
      path: `${codec.dialect} encodeResponse: ${shape.shape}`,
      covers: [`dialect:${codec.dialect}:encodeResponse`],
      n: shape.n,
      build: shape.build,
      run: (answer) => JSON.stringify(codec.encodeResponse(answer, answerRequest(codec.dialect))),
    });
  }
  row({
    path: `${codec.dialect} stream encoder: many tiny events`,
    covers: [`dialect:${codec.dialect}:createStreamEncoder`],
    n: 5_000,
    build: tokenEvents,
    run: (events) => {
      const encoder = codec.createStreamEncoder(answerRequest(codec.dialect));
      let length = 0;
      for (const event of events) length += encoder.onEvent(event).length;
      return length + encoder.onEnd().length;
    },
  });
}

// Each provider format: the request encoded, the answer decoded whole and as a stream.
for (const codec of PROVIDER_CODECS) {
  const format = codec.format;
  for (const shape of REQUEST_SHAPES.filter((s) => s.shape !== 'one long string')) {
    row({ path: `${format} encodeRequest: ${shape.shape}`, covers: [`provider:${format}:encodeRequest`], n: shape.n, build: shape.build, run: (request) => JSON.stringify(codec.encodeRequest(request, TARGET).body) });
  }
  const wire = providerWire(format);
  if (!wire) continue;
  // A decoder takes the parsed answer, whose one long text it passes on by reference: that row's time does not
  // depend on n (about 0.2 ms at 30k and at 1.9M characters), so it cannot be timed; its other shapes are.
  for (const shape of ANSWER_SHAPES.filter((s) => s.shape !== 'long text')) {
    row({ path: `${format} decodeResponse: ${shape.shape}`, covers: [`provider:${format}:decodeResponse`], n: shape.n, repeat: 10, build: (n) => wire.whole(shape.build(n)), run: (json) => codec.decodeResponse(json, answerRequest(format)) });
  }
  row({
    path: `${format} stream decoder: many tiny events`,
    covers: [`provider:${format}:createStreamDecoder`],
    n: 3_000,
    build: (n) => wire.stream(tokenEvents(n)),
    run: (events: UpstreamEvent[]) => {
      const decoder = codec.createStreamDecoder(answerRequest(format));
      let count = 0;
      for (const event of events) count += decoder.onEvent(event).length;
      return count + decoder.onEnd().length;
    },
  });
}

// The MCP message path: the log row of a call, and a tools/call through the real gateway to a real MCP server.
row({
  path: 'mcpCallRecord: a call with many arguments',
  n: 5_000,
  build: (n) => ({ arguments: Object.fromEntries(Array.from({ length: n }, (_, i) => [`arg_${i}`, escapy(20)])) }),
  run: (params) => mcpCallRecord({ createdAt: 0, startedAt: 0, path: '/mcp', caller: CALLER, server: 's', tool: 't', client: null, method: 'tools/call', params, headers: { authorization: 'x' }, result: params, secrets: ['a-secret-value-1234'] }),
});
let mcpClient: Client | undefined;
row({
  path: '/mcp tools/call through the gateway: a long argument full of escapes',
  n: 100_000,
  build: escapy,
  run: async (text: string) => {
    const result = await mcpClient!.callTool({ name: 'remote__echo', arguments: { text } });
    if (textOf(result).length < text.length) throw new Error('the echo came back short');
  },
});

// ---- The suite ---------------------------------------------------------------------------------------------------

let gateway: TestGateway | undefined;
let remote: McpHttpTestServer | undefined;

beforeAll(async () => {
  gateway = await startGateway();
  remote = await startMcpHttpServer('remote');
  await addMcpServer(gateway, { name: 'remote', transport: 'http', url: remote.url });
  mcpClient = await connectMcp(gateway, '/mcp', TEST_GATEWAY_KEY);
  // The counting thread loads its vocabulary once (about a second): not part of any row's time.
  await countTokens('o200k_base', ['warm up']);
}, 30_000);

afterAll(async () => {
  await mcpClient?.close();
  await gateway?.close();
  await remote?.close();
});

describe('complexity: time grows at most like n·log n on every byte path', () => {
  for (const r of rows) {
    it(r.path, async () => {
      const growth = await measureGrowth(r);
      // COMPLEXITY_LOG=file: each row's figures, for choosing n.
      if (process.env.COMPLEXITY_LOG) appendFileSync(process.env.COMPLEXITY_LOG, `${r.path}\t${describeGrowth(growth)}\n`);
      expect(growth.largeMs, `${r.path}: ${describeGrowth(growth)}; the row is too small to time, make n larger`).toBeGreaterThanOrEqual(MIN_LARGE_MS);
      expect(growth.ratio, `${r.path}: ${describeGrowth(growth)} from n = ${r.n} to 8n: superlinear`).toBeLessThanOrEqual(GROWTH_LIMIT);
    });
  }
});

describe('complexity: every registered codec and front door has rows', () => {
  const covered = new Set(rows.flatMap((r) => r.covers ?? []));
  it('every provider codec in codecs/registry.ts: its request encoder, answer decoder and stream decoder', () => {
    const missing = PROVIDER_CODECS.flatMap((codec: ProviderCodec) => ['encodeRequest', 'decodeResponse', 'createStreamDecoder'].map((part) => `provider:${codec.format}:${part}`)).filter((tag) => !covered.has(tag));
    expect(missing, 'a provider format without an answer writer here (providerWire) or a reference writer in the conformance profile').toEqual([]);
  });
  it('every ingress in gateway/ingress/registry.ts, and its dialect codec’s answer and stream encoders', () => {
    const missing = FRONTS.flatMap((front) => [`ingress:${front.name}`, `dialect:${front.ingress.dialect}:encodeResponse`, `dialect:${front.ingress.dialect}:createStreamEncoder`]).filter((tag) => !covered.has(tag));
    expect(missing).toEqual([]);
  });
  it('every embeddings format in codecs/embeddings/registry.ts, both ways', () => {
    const missing = EMBEDDING_FORMATS.flatMap((format) => [`embeddings:${format}:encodeCalls`, `embeddings:${format}:decodeAnswer`]).filter((tag) => !covered.has(tag));
    expect(missing).toEqual([]);
  });
});
