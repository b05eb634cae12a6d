// A provider that speaks the client's format: its answer goes on byte for byte, a stream chunk by chunk as
// each arrives; a provider's quirk (Azure's) puts its answers right on the way, event by event.
import type { ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type { AnswerQuirk, ProviderCall } from '../../providers/types.js';
import type { UpstreamResponse } from '../../providers/upstream.js';
import { StreamUsage, usageFromBody } from '../../codecs/usage-from-body.js';
import { sseData, SSE_DONE } from '../sse.js';
import { LineLength, MAX_STREAM_FRAME_BYTES, oversizedStreamPiece } from '../stream-bounds.js';
import { readHeldJson, relayedHeaders, relayProviderError, streamFailure, upstreamEvents } from './provider-answer.js';
import { BodyCapture, failStream, streamHeaders, StreamWriter } from './client-writer.js';
import type { RelayOptions, RelayOutcome } from './types.js';

/**
 * The provider's content-length, for a JSON answer relayed unchanged: the client then gets the body in
 * one write, with no chunked framing and no extra write for the closing chunk.
 */
function passedLength(upstream: UpstreamResponse, isEventStream: boolean): string | undefined {
  const length = upstream.headers['content-length'];
  if (isEventStream || typeof length !== 'string' || upstream.headers['content-encoding'] !== undefined) return undefined;
  return length;
}

/**
 * Writes a provider body to the client as it arrives, waiting while the client's buffers are full. The body
 * is read with `read()` on 'readable', which takes everything buffered at once: with 'data' and pause/resume,
 * a body held at its high-water mark took one tiny chunk per read, and each such read made undici parse the
 * socket's whole unread remainder again (400k writes of 8 bytes cost 34 CPU-seconds; now linear). Events
 * rather than `for await`: the async iterator and a promise per chunk were a few percent of a proxied call.
 * Ends with the body; fails when the body does (a broken connection, or the abort that a client leaving or
 * the timeout sets off, which destroys the body).
 */
function pipeChunks(body: UpstreamResponse['body'], res: ServerResponse, onChunk: (chunk: Buffer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let waiting = false;
    const pump = () => {
      if (waiting) return;
      for (let chunk = body.read() as Buffer | null; chunk !== null; chunk = body.read() as Buffer | null) {
        onChunk(chunk);
        if (!res.write(chunk) && !res.destroyed) {
          waiting = true;
          res.once('drain', resume);
          // A client that leaves while we wait: the abort destroys the body, and 'error' settles this.
          res.once('close', resume);
          return;
        }
      }
    };
    const resume = () => {
      res.off('drain', resume);
      res.off('close', resume);
      waiting = false;
      pump();
    };
    const settle = (error?: Error) => {
      body.off('readable', pump);
      body.off('end', onEnd);
      body.off('error', onError);
      res.off('drain', resume);
      res.off('close', resume);
      if (error) reject(error);
      else resolve();
    };
    const onEnd = () => settle();
    const onError = (error: Error) => settle(error);
    body.on('readable', pump);
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
  const dialect = options.ingress?.dialect ?? null;
  // An SSE stream's usage is read as it passes, never by reading the captured text again at its end.
  const usage = isEventStream && options.stream ? new StreamUsage(dialect, MAX_STREAM_FRAME_BYTES) : undefined;
  try {
    await pipeChunks(upstream.body, res, (chunk) => {
      ttfbMs ??= performance.now() - options.started;
      // Destroyed with the reason, the body fails the pipe: the client gets the error event below.
      if (line?.overAfter(chunk)) upstream.body.destroy(oversizedStreamPiece('a line', MAX_STREAM_FRAME_BYTES, options.adapter.slug));
      // The decoder holds back a character split between chunks until its last bytes arrive.
      const text = decoder.write(chunk);
      capture.add(text);
      usage?.feed(text);
      endsOnEventBoundary = text.endsWith('\n\n');
    });
    const rest = decoder.end();
    capture.add(rest);
    usage?.feed(rest);
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
  // A whole answer (or a stream that is no SSE: Gemini's JSON array) is read once, here.
  return { status: upstream.status, ttfbMs, error: null, responseBody, usage: usage ? usage.end() : usageFromBody(responseBody, options.stream, dialect) };
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
