// Writing to the client: what it received kept for the log, writes that wait while it is slow to read,
// an SSE stream the gateway makes itself, and a stream that fails after it began.
import type { ServerResponse } from 'node:http';
import type { AbortLike } from '../../core/request-abort.js';
import { GatewayError } from '../../core/errors.js';
import type { Usage } from '../../codecs/canonical.js';
import type { UpstreamResponse } from '../../providers/upstream.js';
import { redactSecrets } from '../../core/redact.js';
import { sseData } from '../sse.js';
import { streamFailure } from './provider-answer.js';
import type { RelayOptions, RelayOutcome } from './types.js';

/** How much of the end of a long answer the log keeps (where a stream's usage is). */
const CAPTURE_TAIL = 16 * 1024;

/**
 * Keeps what the client received for the log: the head, and the tail where a stream's usage is. Each add
 * costs the size of what it adds: the tail is a list of pieces cut back only once it holds twice what is
 * kept (cutting a 16 KB string on every 8-byte chunk copied 16 KB per chunk).
 */
export class BodyCapture {
  private head = '';
  private tail: string[] = [];
  private tailLength = 0;
  private skipped = 0;
  constructor(private readonly limit = 1024 * 1024) {}
  add(text: string): void {
    if (this.head.length < this.limit) {
      this.head += text;
      return;
    }
    this.tail.push(text);
    this.tailLength += text.length;
    this.skipped += text.length;
    if (this.tailLength > 2 * CAPTURE_TAIL && this.tail.length > 1) {
      const kept = this.tail.join('').slice(-CAPTURE_TAIL);
      this.tail = [kept];
      this.tailLength = kept.length;
    }
  }
  text(): string {
    return this.skipped ? `${this.head}\n… [middle of the answer not kept]\n${this.tail.join('').slice(-CAPTURE_TAIL)}` : this.head;
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

export const streamHeaders = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

/** Writes an SSE stream the gateway makes itself, keeping what was sent for the log. */
export class StreamWriter {
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

/** A stream that failed after it began: the dialect's error event when the client still reads, else a cut connection. */
export function failStream(
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
