// Sends the provider's answer on to the client: OpenAI-format providers byte for byte, others through
// their adapter's mapping. Streams are written event by event, the moment each arrives.
import type { AbortLike } from './request-abort.js';
import type { ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { GatewayError, errorBody } from './errors.js';
import type { ModelListing, ProviderAdapter, ProviderCall, StreamTranslator, UpstreamEvent } from './providers/types.js';
import { ProviderStreamError } from './providers/types.js';
import type { UpstreamResponse } from './upstream.js';
import { describeConnectionError, timeoutFailure } from './upstream.js';
import { readSseEvents, sseData, SSE_DONE } from './sse.js';
import { readEventStreamFrames } from './aws-eventstream.js';
import { redactSecrets } from './redact.js';
import { countsOf, type TokenCounts } from './openai-usage.js';

export interface RelayOutcome {
  status: number;
  ttfbMs: number | null;
  error: string | null;
  /** What the client received (capped), for the log. */
  responseBody: string | null;
  /** Known when the gateway assembled the answer itself. */
  usage?: TokenCounts;
}

export interface RelayOptions {
  adapter: ProviderAdapter;
  stream: boolean;
  started: number;
  signal: AbortLike;
  secrets: readonly string[];
}

/** Upstream headers worth passing on: request ids and rate-limit figures help clients. */
const RELAYED_RESPONSE_HEADERS = /^(x-request-id|request-id|x-ratelimit-.*|anthropic-ratelimit-.*|retry-after|openai-.*|x-amzn-requestid|apim-request-id)$/;

/** Keeps what the client received for the log: the head, and the tail where a stream's usage is. */
class BodyCapture {
  private head = '';
  private tail = '';
  private skipped = 0;
  constructor(private readonly limit = 1024 * 1024) {}
  add(text: string): void {
    if (this.head.length < this.limit) {
      this.head += text;
      return;
    }
    this.tail = (this.tail + text).slice(-16 * 1024);
    this.skipped += text.length;
  }
  text(): string {
    return this.skipped ? `${this.head}\n… [middle of the answer not kept]\n${this.tail}` : this.head;
  }
}

/**
 * Writes, then waits while the client's buffers are full. A client that stops reading must not hold the
 * call forever: the wait also ends when the connection closes or the call is aborted (timeout, shutdown).
 */
async function write(res: ServerResponse, data: string | Buffer, signal: AbortLike): Promise<void> {
  if (res.write(data) || res.destroyed) return;
  await new Promise<void>((resolve, reject) => {
    const finish = (error?: unknown) => {
      res.off('drain', onDrain);
      res.off('close', onDrain);
      signal.removeEventListener('abort', onAbort);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onDrain = () => finish();
    const onAbort = () => finish(signal.reason);
    if (signal.aborted) return onAbort();
    res.once('drain', onDrain);
    res.once('close', onDrain);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function relayedHeaders(upstream: UpstreamResponse): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(upstream.headers)) {
    if (value !== undefined && RELAYED_RESPONSE_HEADERS.test(name)) result[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return result;
}

/**
 * The provider's content-length, for a JSON answer relayed unchanged: the client then gets the body in
 * one write, with no chunked framing and no extra write for the closing chunk.
 */
function passedLength(upstream: UpstreamResponse, isEventStream: boolean): Record<string, string> {
  const length = upstream.headers['content-length'];
  if (isEventStream || typeof length !== 'string' || upstream.headers['content-encoding'] !== undefined) return {};
  return { 'content-length': length };
}

const streamHeaders = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

/** Error bodies are short: past this, the head says all there is to say and the rest is not read. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** An answer the gateway must hold whole to translate it; a provider must not be able to fill our memory. */
const MAX_HELD_BODY_BYTES = 32 * 1024 * 1024;

/** Reads a provider body up to `maxBytes`; `complete` is false when the rest was left unread (the body is then destroyed). */
async function readUpTo(body: UpstreamResponse['body'], maxBytes: number): Promise<{ text: string; complete: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      return { text: Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'), complete: false };
    }
  }
  return { text: Buffer.concat(chunks).toString('utf8'), complete: true };
}

/** A body the gateway holds whole (to translate it), or a 502 when the provider sends more than anyone should. */
async function readHeldBody(upstream: UpstreamResponse, provider: string): Promise<string> {
  const { text, complete } = await readUpTo(upstream.body, MAX_HELD_BODY_BYTES);
  if (!complete) {
    throw new GatewayError(502, 'gateway_error', `Provider '${provider}' answered with a body over ${MAX_HELD_BODY_BYTES} bytes`, null, 'bad_provider_response', provider);
  }
  return text;
}

/**
 * A body held whole and parsed. A read that fails is reported as what it was (the timeout as 504, a
 * broken connection or an oversized body as 502); only a body that is not JSON is called that.
 */
async function readHeldJson(upstream: UpstreamResponse, options: RelayOptions, answered: string): Promise<unknown> {
  const provider = options.adapter.slug;
  let text: string;
  try {
    text = await readHeldBody(upstream, provider);
  } catch (error) {
    throw streamFailure(error, options.signal, provider);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new GatewayError(502, 'gateway_error', `Provider '${provider}' ${answered} with a body that is not JSON`, null, 'bad_provider_response', provider);
  }
}

/** The provider's error, in the contract's shape, with its status and name. */
async function relayProviderError(res: ServerResponse, upstream: UpstreamResponse, options: RelayOptions): Promise<RelayOutcome> {
  const { text } = await readUpTo(upstream.body, MAX_ERROR_BODY_BYTES);
  const mapped = options.adapter.mapError(upstream.status, text, upstream.headers);
  const message = redactSecrets(mapped.message, options.secrets);
  const body = errorBody(mapped.type, message, mapped.param ?? null, mapped.code, options.adapter.slug);
  const json = JSON.stringify(body);
  res.writeHead(upstream.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json), ...relayedHeaders(upstream) });
  res.end(json);
  return { status: upstream.status, ttfbMs: performance.now() - options.started, error: message, responseBody: json };
}

/** Why a stream stopped early, as the message of the error event the client gets. */
function streamFailure(error: unknown, signal: AbortLike, provider: string): GatewayError {
  const timedOut = timeoutFailure(error, signal, provider);
  if (timedOut) return timedOut;
  if (error instanceof ProviderStreamError) return new GatewayError(502, error.type, error.message, null, error.code, provider);
  if (error instanceof GatewayError) return error;
  return new GatewayError(502, 'gateway_error', `The provider stream broke off: ${describeConnectionError(error)}`, null, 'stream_interrupted', provider);
}

/**
 * Writes each chunk of a provider body to the client as it arrives, pausing the body while the client's
 * buffers are full. Events rather than `for await`: the async iterator and a promise per chunk were a few
 * percent of a proxied call. Ends with the body; fails when the body does (a broken connection, or the
 * abort that a client leaving or the timeout sets off, which destroys the body).
 */
function pipeChunks(body: UpstreamResponse['body'], res: ServerResponse, onChunk: (chunk: Buffer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const resume = () => {
      res.off('drain', resume);
      res.off('close', resume);
      body.resume();
    };
    const onData = (chunk: Buffer) => {
      onChunk(chunk);
      if (!res.write(chunk) && !res.destroyed) {
        body.pause();
        res.once('drain', resume);
        // A client that leaves while we wait: the abort destroys the body, and 'error' settles this.
        res.once('close', resume);
      }
    };
    const settle = (error?: Error) => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      res.off('drain', resume);
      res.off('close', resume);
      if (error) reject(error);
      else resolve();
    };
    const onEnd = () => settle();
    const onError = (error: Error) => settle(error);
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', onError);
  });
}

export async function relayPassthrough(res: ServerResponse, upstream: UpstreamResponse, options: RelayOptions): Promise<RelayOutcome> {
  if (upstream.status >= 400) return relayProviderError(res, upstream, options);
  const contentType = String(upstream.headers['content-type'] ?? (options.stream ? 'text/event-stream' : 'application/json'));
  const isEventStream = contentType.startsWith('text/event-stream');
  res.writeHead(upstream.status, { ...(isEventStream ? streamHeaders : {}), 'content-type': contentType, ...passedLength(upstream, isEventStream), ...relayedHeaders(upstream) });
  const capture = new BodyCapture();
  let ttfbMs: number | null = null;
  let endsOnEventBoundary = true;
  const decoder = new StringDecoder('utf8');
  try {
    await pipeChunks(upstream.body, res, (chunk) => {
      ttfbMs ??= performance.now() - options.started;
      // The decoder holds back a character split between chunks until its last bytes arrive.
      const text = decoder.write(chunk);
      capture.add(text);
      endsOnEventBoundary = text.endsWith('\n\n');
    });
    capture.add(decoder.end());
  } catch (error) {
    if (res.destroyed) return { status: 499, ttfbMs, error: 'The client closed the connection', responseBody: capture.text() };
    const failure = streamFailure(error, options.signal, options.adapter.slug);
    if (!isEventStream || res.writableNeedDrain) {
      // A JSON answer cut in half cannot be repaired, and a client that stopped reading would never see an
      // error event: closing the connection tells either one that the answer failed.
      res.destroy();
      return { status: failure.status, ttfbMs, error: failure.message, responseBody: capture.text() };
    }
    const event = (endsOnEventBoundary ? '' : '\n\n') + sseData(JSON.stringify(failure.toBody()));
    capture.add(event);
    res.end(event);
    return { status: failure.status, ttfbMs, error: failure.message, responseBody: capture.text() };
  }
  res.end();
  return { status: upstream.status, ttfbMs, error: null, responseBody: capture.text() };
}

function upstreamEvents(body: AsyncIterable<Buffer>, framing: StreamTranslator['framing']): AsyncIterable<UpstreamEvent> {
  if (framing === 'aws-eventstream') return readEventStreamFrames(body);
  return (async function* () {
    for await (const event of readSseEvents(body)) yield { kind: 'sse' as const, event: event.event, data: event.data };
  })();
}

interface UsageLike {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
}

interface ChunkLike {
  choices?: { index?: number }[];
  usage?: UsageLike | null;
}

function addUsage(total: UsageLike | null, usage: UsageLike): UsageLike {
  if (!total) return { ...usage };
  return {
    ...total,
    prompt_tokens: (total.prompt_tokens ?? 0) + (usage.prompt_tokens ?? 0),
    completion_tokens: (total.completion_tokens ?? 0) + (usage.completion_tokens ?? 0),
    total_tokens: (total.total_tokens ?? 0) + (usage.total_tokens ?? 0),
  };
}

/** Merges the answers of n single-choice calls into one answer with choices 0..n-1. */
function mergeAnswers(answers: object[]): object {
  if (answers.length === 1) return answers[0];
  const merged = { ...(answers[0] as ChunkLike) } as ChunkLike & Record<string, unknown>;
  merged.choices = answers.flatMap((answer, index) => ((answer as ChunkLike).choices ?? []).map((choice) => ({ ...choice, index })));
  let usage: UsageLike | null = null;
  for (const answer of answers) if ((answer as ChunkLike).usage) usage = addUsage(usage, (answer as ChunkLike).usage!);
  if (usage) merged.usage = usage;
  return merged;
}

export async function relayTranslated(
  res: ServerResponse,
  calls: ProviderCall[],
  send: (call: ProviderCall) => Promise<UpstreamResponse>,
  options: RelayOptions,
): Promise<RelayOutcome> {
  const { adapter } = options;
  const upstreams = await Promise.all(calls.map(send));
  const failed = upstreams.find((upstream) => upstream.status >= 400);
  if (failed) {
    for (const other of upstreams) if (other !== failed) other.body.destroy();
    return relayProviderError(res, failed, options);
  }

  if (!options.stream) {
    const answers = await Promise.all(
      upstreams.map(async (upstream, index) => {
        const json = await readHeldJson(upstream, options, 'answered');
        return adapter.mapResponse!(calls[index], json);
      }),
    );
    const answer = mergeAnswers(answers);
    const json = JSON.stringify(answer);
    const ttfbMs = performance.now() - options.started;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json), ...relayedHeaders(upstreams[0]) });
    res.end(json);
    return { status: 200, ttfbMs, error: null, responseBody: json, usage: countsOf((answer as ChunkLike).usage) };
  }

  res.writeHead(200, { ...streamHeaders, ...relayedHeaders(upstreams[0]) });
  const capture = new BodyCapture();
  let ttfbMs: number | null = null;
  let usage: UsageLike | null = null;
  // What the translators counted, for the log when the client asked for no usage chunk.
  let reportedUsage: UsageLike | null = null;
  const fanOut = calls.length > 1;
  const emit = async (chunk: object, index: number) => {
    const typed = chunk as ChunkLike;
    if (typed.usage && typed.choices?.length === 0 && fanOut) {
      // With n calls, their usage chunks are summed into one at the end.
      usage = addUsage(usage, typed.usage);
      return;
    }
    if (typed.usage) usage = fanOut ? addUsage(usage, typed.usage) : typed.usage;
    if (fanOut && typed.choices) typed.choices = typed.choices.map((choice) => ({ ...choice, index }));
    const line = sseData(JSON.stringify(chunk));
    ttfbMs ??= performance.now() - options.started;
    capture.add(line);
    await write(res, line, options.signal);
  };
  const finalChunks: object[] = [];
  try {
    await Promise.all(
      upstreams.map(async (upstream, index) => {
        const translator = adapter.createStreamTranslator!(calls[index]);
        for await (const event of upstreamEvents(upstream.body as AsyncIterable<Buffer>, translator.framing)) {
          for (const chunk of translator.onEvent(event)) await emit(chunk, index);
        }
        for (const chunk of translator.onEnd()) {
          if (fanOut && (chunk as ChunkLike).usage && (chunk as ChunkLike).choices?.length === 0) usage = addUsage(usage, (chunk as ChunkLike).usage!);
          else if (fanOut) finalChunks.push(chunk);
          else await emit(chunk, index);
        }
        const reported = translator.usage?.();
        if (reported) reportedUsage = addUsage(reportedUsage, reported);
      }),
    );
    for (const chunk of finalChunks) await emit(chunk, 0);
    if (fanOut && usage && calls[0].body.stream_options?.include_usage) {
      const template = { id: '', object: calls[0].endpoint === 'chat' ? 'chat.completion.chunk' : 'text_completion', created: Math.floor(Date.now() / 1000), model: calls[0].body.model };
      const line = sseData(JSON.stringify({ ...template, choices: [], usage }));
      capture.add(line);
      await write(res, line, options.signal);
    }
  } catch (error) {
    for (const upstream of upstreams) upstream.body.destroy();
    if (res.destroyed) return { status: 499, ttfbMs, error: 'The client closed the connection', responseBody: capture.text(), usage: countsOf(usage) };
    const failure = streamFailure(error, options.signal, adapter.slug);
    if (res.writableNeedDrain) {
      // The client stopped reading: it would never see an error event, so the cut connection tells it.
      res.destroy();
      return { status: failure.status, ttfbMs, error: redactSecrets(failure.message, options.secrets), responseBody: capture.text(), usage: countsOf(usage) };
    }
    const body = errorBody(failure.type, redactSecrets(failure.message, options.secrets), null, failure.code, adapter.slug);
    const event = sseData(JSON.stringify(body));
    capture.add(event);
    res.end(event);
    return { status: failure.status, ttfbMs, error: body.error.message, responseBody: capture.text(), usage: countsOf(usage) };
  }
  capture.add(SSE_DONE);
  res.end(SSE_DONE);
  return { status: 200, ttfbMs, error: null, responseBody: capture.text(), usage: countsOf(usage ?? reportedUsage) };
}

/** `GET /v1/models`: OpenAI-format lists pass through; other providers' lists are mapped to OpenAI's shape. */
export async function relayModelList(res: ServerResponse, upstream: UpstreamResponse, listing: ModelListing, options: RelayOptions): Promise<RelayOutcome> {
  if (!listing.map) return relayPassthrough(res, upstream, options);
  if (upstream.status >= 400) return relayProviderError(res, upstream, options);
  const json = await readHeldJson(upstream, options, 'answered its model list');
  const text = JSON.stringify(listing.map(json));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...relayedHeaders(upstream) });
  res.end(text);
  return { status: 200, ttfbMs: performance.now() - options.started, error: null, responseBody: text };
}
