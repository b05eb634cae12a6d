// Sends the provider's answer on to the client: OpenAI-format providers byte for byte, others through
// their adapter's mapping. Streams are written event by event, the moment each arrives.
import type { AbortLike } from '../core/request-abort.js';
import type { ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { GatewayError } from '../core/errors.js';
import type { AnswerQuirk, ModelListing, ProviderAdapter, ProviderCall } from '../providers/types.js';
import { ProviderStreamError } from '../providers/types.js';
import { readListedModels, type ListedModels } from '../providers/model-list.js';
import { routeModelEntry, shapedModelList, type ModelListRequest } from './model-list-shapes.js';
import { addUsage, type CanonicalAnswer, type CanonicalRequest, type DialectCodec, type ProviderCodec, type StreamDecoder, type UpstreamEvent, type Usage } from '../codecs/canonical.js';
import type { Ingress } from './ingress/types.js';
import type { UpstreamResponse } from '../providers/upstream.js';
import { describeConnectionError, timeoutFailure } from '../providers/upstream.js';
import { readSseEvents, sseData, SSE_DONE } from './sse.js';
import { readEventStreamFrames } from './aws-eventstream.js';
import { LineLength, MAX_STREAM_FRAME_BYTES, oversizedStreamPiece } from './stream-bounds.js';
import { redactSecrets } from '../core/redact.js';
import { boundedMemo } from '../core/bounded-memo.js';
import { usageFromBody } from '../codecs/usage-from-body.js';

export interface RelayOutcome {
  status: number;
  ttfbMs: number | null;
  error: string | null;
  /** What the client received (capped), for the log. */
  responseBody: string | null;
  /**
   * What the answer reported it used, read once, by the relay: from the events it translated, or from the
   * answer it passed through (usage-from-body.ts); undefined when it reported none.
   */
  usage?: Usage;
}

export interface RelayOptions {
  adapter: ProviderAdapter;
  stream: boolean;
  started: number;
  signal: AbortLike;
  secrets: readonly string[];
  /** The client's dialect, whose shape errors take; absent for model lists (OpenAI's shape). */
  ingress: Ingress | undefined;
}

/** An error body in the client's dialect (the contract's shape for the OpenAI paths and model lists). */
function renderError(options: RelayOptions, error: GatewayError): object {
  return options.ingress ? options.ingress.errorBody(error) : error.toBody();
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

/** Whether a header name is relayed, remembered per name: a provider sends the same dozen names on every answer. */
const isRelayedHeader = boundedMemo(512, (name) => RELAYED_RESPONSE_HEADERS.test(name));

/** The provider's headers a client may see (added to `result` when given). */
function relayedHeaders(upstream: UpstreamResponse, result: Record<string, string> = {}): Record<string, string> {
  const headers = upstream.headers;
  // for…in rather than Object.entries: no array of pairs per answer.
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    const value = headers[name];
    if (value !== undefined && isRelayedHeader(name)) result[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return result;
}

/**
 * The provider's content-length, for a JSON answer relayed unchanged: the client then gets the body in
 * one write, with no chunked framing and no extra write for the closing chunk.
 */
function passedLength(upstream: UpstreamResponse, isEventStream: boolean): string | undefined {
  const length = upstream.headers['content-length'];
  if (isEventStream || typeof length !== 'string' || upstream.headers['content-encoding'] !== undefined) return undefined;
  return length;
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
  const body = renderError(options, new GatewayError(upstream.status, mapped.type, message, mapped.param ?? null, mapped.code, options.adapter.slug));
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

export async function relayPassthrough(res: ServerResponse, upstream: UpstreamResponse, options: RelayOptions, call?: ProviderCall): Promise<RelayOutcome> {
  if (upstream.status >= 400) return relayProviderError(res, upstream, options);
  // Checked once per answer: a provider without a quirk is relayed byte for byte, at no cost per chunk.
  const quirk = call && options.adapter.answerQuirk?.(call);
  if (quirk) return options.stream ? passQuirkyStream(res, upstream, options, quirk) : passQuirkyAnswer(res, upstream, options, quirk);
  const contentType = String(upstream.headers['content-type'] ?? (options.stream ? 'text/event-stream' : 'application/json'));
  const isEventStream = contentType.startsWith('text/event-stream');
  // One object filled in place: spreading three header objects into one was a µs of every answer.
  const head: Record<string, string> = isEventStream ? { ...streamHeaders, 'content-type': contentType } : { 'content-type': contentType };
  const length = passedLength(upstream, isEventStream);
  if (length !== undefined) head['content-length'] = length;
  res.writeHead(upstream.status, relayedHeaders(upstream, head));
  const capture = new BodyCapture();
  let ttfbMs: number | null = null;
  let endsOnEventBoundary = true;
  const decoder = new StringDecoder('utf8');
  const line = isEventStream ? new LineLength() : undefined;
  try {
    await pipeChunks(upstream.body, res, (chunk) => {
      ttfbMs ??= performance.now() - options.started;
      // Destroyed with the reason, the body fails the pipe: the client gets the error event below.
      if (line?.overAfter(chunk)) upstream.body.destroy(oversizedStreamPiece('a line', MAX_STREAM_FRAME_BYTES, options.adapter.slug));
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
    const event = (endsOnEventBoundary ? '' : '\n\n') + (options.ingress ? options.ingress.streamErrorEvent(failure) : sseData(JSON.stringify(failure.toBody())));
    capture.add(event);
    res.end(event);
    return { status: failure.status, ttfbMs, error: failure.message, responseBody: capture.text() };
  }
  res.end();
  const responseBody = capture.text();
  return { status: upstream.status, ttfbMs, error: null, responseBody, usage: usageFromBody(responseBody, options.stream, options.ingress?.dialect ?? null) };
}

function upstreamEvents(body: AsyncIterable<Buffer>, framing: StreamDecoder['framing']): AsyncIterable<UpstreamEvent> {
  if (framing === 'aws-eventstream') return readEventStreamFrames(body);
  return (async function* () {
    for await (const event of readSseEvents(body)) yield { kind: 'sse' as const, event: event.event, data: event.data };
  })();
}

/** Writes an SSE stream the gateway makes itself, keeping what was sent for the log. */
class StreamWriter {
  readonly capture = new BodyCapture();
  ttfbMs: number | null = null;
  constructor(
    private readonly res: ServerResponse,
    private readonly options: RelayOptions,
  ) {}
  async write(text: string): Promise<void> {
    if (!text) return;
    this.ttfbMs ??= performance.now() - this.options.started;
    this.capture.add(text);
    await write(this.res, text, this.options.signal);
  }
  end(text: string): void {
    if (text) {
      this.ttfbMs ??= performance.now() - this.options.started;
      this.capture.add(text);
    }
    this.res.end(text);
  }
}

/** A whole answer the provider's quirk puts right (Azure's blank model): parsed, put right, sent. */
async function passQuirkyAnswer(res: ServerResponse, upstream: UpstreamResponse, options: RelayOptions, quirk: AnswerQuirk): Promise<RelayOutcome> {
  const text = JSON.stringify(quirk.answer(await readHeldJson(upstream, options, 'answered')));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...relayedHeaders(upstream) });
  res.end(text);
  return { status: 200, ttfbMs: performance.now() - options.started, error: null, responseBody: text, usage: usageFromBody(text, false, options.ingress?.dialect ?? null) };
}

/** A stream the provider's quirk puts right (Azure's annotation-only chunks), event by event as each arrives. */
async function passQuirkyStream(res: ServerResponse, upstream: UpstreamResponse, options: RelayOptions, quirk: AnswerQuirk): Promise<RelayOutcome> {
  res.writeHead(200, { ...streamHeaders, ...relayedHeaders(upstream) });
  const writer = new StreamWriter(res, options);
  try {
    for await (const event of upstreamEvents(upstream.body as AsyncIterable<Buffer>, 'sse')) {
      for (const chunk of quirk.onEvent(event)) await writer.write(sseData(JSON.stringify(chunk)));
    }
  } catch (error) {
    return failStream(res, [upstream], writer, options, error, undefined);
  }
  writer.end(SSE_DONE);
  const responseBody = writer.capture.text();
  return { status: 200, ttfbMs: writer.ttfbMs, error: null, responseBody, usage: usageFromBody(responseBody, true, options.ingress?.dialect ?? null) };
}

/** A stream that failed after it began: the dialect's error event when the client still reads, else a cut connection. */
function failStream(
  res: ServerResponse,
  open: UpstreamResponse[],
  writer: StreamWriter,
  options: RelayOptions,
  error: unknown,
  errorEvent: ((failure: GatewayError) => string) | undefined,
  usage?: Usage,
): RelayOutcome {
  for (const upstream of open) upstream.body.destroy();
  if (res.destroyed) return { status: 499, ttfbMs: writer.ttfbMs, error: 'The client closed the connection', responseBody: writer.capture.text(), usage };
  const raw = streamFailure(error, options.signal, options.adapter.slug);
  const failure = new GatewayError(raw.status, raw.type, redactSecrets(raw.message, options.secrets), null, raw.code, options.adapter.slug);
  if (res.writableNeedDrain) {
    // The client stopped reading: it would never see an error event, so the cut connection tells it.
    res.destroy();
    return { status: failure.status, ttfbMs: writer.ttfbMs, error: failure.message, responseBody: writer.capture.text(), usage };
  }
  const event = errorEvent ? errorEvent(failure) : options.ingress ? options.ingress.streamErrorEvent(failure) : sseData(JSON.stringify(failure.toBody()));
  writer.end(event);
  return { status: failure.status, ttfbMs: writer.ttfbMs, error: failure.message, responseBody: writer.capture.text(), usage };
}

export interface TranslatedRelayOptions extends RelayOptions {
  /** The request as the provider codec encoded it (one choice per call when fanned out). */
  request: CanonicalRequest;
  providerCodec: ProviderCodec;
  dialectCodec: DialectCodec;
}

/** Merges the answers of n single-choice calls into one answer with choices 0..n-1 (Chat and Completions' `n`, Gemini's `candidates`). */
function mergeChoices(answers: object[]): object {
  if (answers.length === 1) return answers[0];
  type WithChoices = Record<string, unknown>;
  const merged = { ...(answers[0] as WithChoices) };
  const key = 'candidates' in merged ? 'candidates' : 'choices';
  merged[key] = answers.flatMap((answer, index) => (((answer as WithChoices)[key] as object[] | undefined) ?? []).map((choice) => ({ ...choice, index })));
  return merged;
}

/**
 * Answers from a provider whose format is not the client's: each upstream event is decoded to canonical
 * events and encoded in the client's dialect the moment it arrives; a whole answer is decoded, then encoded.
 * With n calls (formats without `n`), their answers or streams are merged into one.
 */
export async function relayTranslated(
  res: ServerResponse,
  calls: ProviderCall[],
  send: (call: ProviderCall) => Promise<UpstreamResponse>,
  options: TranslatedRelayOptions,
): Promise<RelayOutcome> {
  const { request, providerCodec, dialectCodec } = options;
  const all = await Promise.all(calls.map(send));
  const failed = all.find((upstream) => upstream.status >= 400);
  if (failed) {
    for (const other of all) if (other !== failed) other.body.destroy();
    return relayProviderError(res, failed, options);
  }

  if (!options.stream) {
    const answers: CanonicalAnswer[] = await Promise.all(all.map(async (upstream) => providerCodec.decodeResponse(await readHeldJson(upstream, options, 'answered'), request)));
    let usage: Usage | undefined;
    for (const answer of answers) usage = addUsage(usage, answer.usage);
    const encoded = answers.map((answer) => dialectCodec.encodeResponse(answer, request));
    const merged = mergeChoices(encoded);
    if (answers.length > 1 && usage) Object.assign(merged, summedUsage(dialectCodec, request, answers[0], usage));
    const json = JSON.stringify(merged);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json), ...relayedHeaders(all[0]) });
    res.end(json);
    return { status: 200, ttfbMs: performance.now() - options.started, error: null, responseBody: json, usage };
  }

  // Gemini's stream without `alt=sse` is one JSON array written piece by piece, not SSE.
  const head = request.streamFraming === 'json-array' ? { ...streamHeaders, 'content-type': 'application/json; charset=utf-8' } : streamHeaders;
  res.writeHead(200, { ...head, ...relayedHeaders(all[0]) });
  const writer = new StreamWriter(res, options);
  const fanOut = all.length > 1;
  const encoders = all.map((_, index) => dialectCodec.createStreamEncoder(request, fanOut ? { index, of: all.length } : undefined));
  const usages: (Usage | undefined)[] = all.map(() => undefined);
  try {
    await Promise.all(
      all.map(async (upstream, index) => {
        const decoder = providerCodec.createStreamDecoder(request);
        const encoder = encoders[index];
        const pass = async (events: ReturnType<StreamDecoder['onEvent']>) => {
          for (const event of events) {
            if (event.type === 'usage') usages[index] = event.usage;
            await writer.write(encoder.onEvent(event));
          }
        };
        for await (const event of upstreamEvents(upstream.body as AsyncIterable<Buffer>, decoder.framing)) await pass(decoder.onEvent(event));
        await pass(decoder.onEnd());
        if (fanOut) await writer.write(encoder.onEnd());
        else writer.end(encoder.onEnd());
      }),
    );
  } catch (error) {
    return failStream(res, all, writer, options, error, (failure) => encoders[0].onError(failure), sumUsages(usages));
  }
  const usage = sumUsages(usages);
  if (fanOut) writer.end(dialectCodec.fanOutTail ? dialectCodec.fanOutTail(request, usage) : SSE_DONE);
  return { status: 200, ttfbMs: writer.ttfbMs, error: null, responseBody: writer.capture.text(), usage };
}

function sumUsages(usages: (Usage | undefined)[]): Usage | undefined {
  let total: Usage | undefined;
  for (const usage of usages) total = addUsage(total, usage);
  return total;
}

/** The dialect's usage field for a summed usage (`usage`, Gemini's `usageMetadata`): encoded as an empty answer of that usage, and read back. */
function summedUsage(dialectCodec: DialectCodec, request: CanonicalRequest, template: CanonicalAnswer, usage: Usage): Record<string, unknown> {
  const encoded = dialectCodec.encodeResponse({ ...template, content: [], usage }, request) as Record<string, unknown>;
  return 'usageMetadata' in encoded ? { usageMetadata: encoded.usageMetadata } : { usage: encoded.usage };
}

/** `GET /v1/models`: OpenAI-format lists pass through; other providers' lists are mapped to OpenAI's shape. */
export async function relayModelList(
  res: ServerResponse,
  upstream: UpstreamResponse,
  listing: ModelListing,
  request: ModelListRequest,
  options: RelayOptions,
  /** Route names, listed beside the provider's models (owned by "gatehouse-route"). */
  routeNames?: readonly string[],
): Promise<RelayOutcome> {
  if (!listing.map && request.shape === 'openai' && request.model === undefined && !routeNames?.length) return relayPassthrough(res, upstream, options);
  if (upstream.status >= 400) return relayProviderError(res, upstream, options);
  const json = await readHeldJson(upstream, options, 'answered its model list');
  const mapped = listedModels(json, listing);
  const list: ListedModels = routeNames?.length
    ? { ...mapped, data: [...mapped.data, ...routeNames.map(routeModelEntry)] }
    : mapped;
  const text = JSON.stringify(shapedModelList(list, request));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...relayedHeaders(upstream) });
  res.end(text);
  return { status: 200, ttfbMs: performance.now() - options.started, error: null, responseBody: text };
}

/**
 * A provider's model list read rather than relayed (the admin Playground offers it in its Model field),
 * in OpenAI's shape; a provider's refusal is thrown in the contract's words, secrets redacted.
 */
export async function readModelList(upstream: UpstreamResponse, listing: ModelListing, options: RelayOptions): Promise<ListedModels> {
  if (upstream.status >= 400) {
    const { text } = await readUpTo(upstream.body, MAX_ERROR_BODY_BYTES);
    const mapped = options.adapter.mapError(upstream.status, text, upstream.headers);
    throw new GatewayError(upstream.status, mapped.type, redactSecrets(mapped.message, options.secrets), mapped.param ?? null, mapped.code, options.adapter.slug);
  }
  const json = await readHeldJson(upstream, options, 'answered its model list');
  return listedModels(json, listing);
}

/** A provider's list in OpenAI's shape: mapped by its listing, or read as it came. */
function listedModels(json: unknown, listing: ModelListing): ListedModels {
  return listing.map ? listing.map(json) : readListedModels(json);
}
