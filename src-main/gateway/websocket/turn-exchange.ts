// One turn of a Responses WebSocket as the HTTP pipeline sees it: a request whose body is the turn's
// `response.create` made a streamed POST body, with the upgrade's headers, and a response whose writes become
// WebSocket messages. The pipeline (proxy.ts: authenticate, admit, read, decode, serve, relay, record) runs
// unchanged on these two, so a turn is a call in every respect: the same steps, limits, log row and relays.
//
// TurnResponse stands in for the members of ServerResponse the pipeline uses (writeHead, setHeader,
// headersSent, write/end with backpressure, destroy, 'drain' and 'close'); `satisfies` below checks that they are there.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Readable, Writable } from 'node:stream';
import { SseLineReader, type SseEvent } from '../../core/sse-reader.js';
import { errorEvent } from './socket-events.js';

/** The turn's request: the body bytes, and the upgrade's headers with the body's own length and type. */
export function turnRequest(upgradeHeaders: IncomingHttpHeaders, body: Buffer): IncomingMessage {
  const headers: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(upgradeHeaders)) {
    // The handshake's own headers describe the socket, not a call.
    if (name === 'connection' || name === 'upgrade' || name.startsWith('sec-websocket-') || name === 'content-length' || name === 'transfer-encoding') continue;
    headers[name] = value;
  }
  headers['content-type'] = 'application/json';
  headers['content-length'] = String(body.length);
  const request = new Readable({ read() {} });
  request.push(body);
  request.push(null);
  return Object.assign(request, { headers }) as unknown as IncomingMessage;
}

/** What a socket takes from a turn: each message to send, and when the send has left (for backpressure). */
export interface TurnSink {
  send(message: string, sent: (error?: Error) => void): void;
  /** Bytes queued on the socket and not yet written. */
  readonly bufferedAmount: number;
}

/** The final event of a Responses stream: the response a later turn may continue from. */
const FINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** Past this much queued on the socket, a write waits until its messages have left (a client that stops reading slows the relay). */
const HIGH_WATER_BYTES = 1024 * 1024;

/**
 * The turn's response. A stream (`text/event-stream`) is read event by event and each event's data sent as
 * one message, as given (`[DONE]` left out); an answer with an error status (a refusal before the stream
 * began: 400, 401, 413, 429 …) is sent as one `error` event carrying that status and the error object.
 */
export class TurnResponse extends Writable {
  statusCode = 200;
  headersSent = false;
  /** The final response of the stream (`response.completed` and its kin), when one passed. */
  finalResponse: Record<string, unknown> | undefined;
  private eventStream = false;
  private readonly held: string[] = [];
  private readonly sse = new SseLineReader((event) => this.onEvent(event));
  private readonly pending: string[] = [];

  constructor(private readonly sink: TurnSink) {
    super({ decodeStrings: false });
  }

  setHeader(): this {
    return this;
  }

  writeHead(status: number, headers?: Record<string, string | number | string[] | undefined>): this {
    this.statusCode = status;
    this.headersSent = true;
    const type = headers?.['content-type'];
    this.eventStream = status < 400 && typeof type === 'string' && type.startsWith('text/event-stream');
    return this;
  }

  override _write(chunk: string | Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    if (!this.eventStream) {
      this.held.push(text);
      return done();
    }
    this.sse.feed(text);
    this.flush(done);
  }

  override _final(done: (error?: Error | null) => void): void {
    if (this.eventStream) {
      this.sse.feed('\n\n');
      return this.flush(done);
    }
    this.pending.push(this.answerAsMessage(this.held.join('')));
    this.flush(done);
  }

  private onEvent(event: SseEvent): void {
    const { data } = event;
    if (data === '' || data === '[DONE]') return;
    // Only the last event is read here: the others go on as the provider or the encoder wrote them.
    const name = event.event ?? (data.includes('"type":"response.') ? (parseObject(data)?.type as string | undefined) : undefined);
    if (name && FINAL_EVENTS.has(name)) {
      const response = parseObject(data)?.response;
      if (typeof response === 'object' && response !== null) this.finalResponse = response as Record<string, unknown>;
    }
    this.pending.push(data);
  }

  /** A whole (non-stream) answer: an error status as the WebSocket error event; anything else as it is. */
  private answerAsMessage(text: string): string {
    if (this.statusCode < 400) return text;
    let error: Record<string, unknown> = { type: 'api_error', message: text };
    try {
      const parsed = JSON.parse(text) as { error?: Record<string, unknown> };
      if (parsed && typeof parsed.error === 'object' && parsed.error !== null) error = parsed.error;
    } catch {
      // Not JSON: its text is the message.
    }
    return errorEvent(this.statusCode, error);
  }

  /** Sends what the last write made; calls `done` at once, or once the socket's queue has room again. */
  private flush(done: (error?: Error | null) => void): void {
    const messages = this.pending.splice(0);
    if (messages.length === 0) return done();
    const wait = this.sink.bufferedAmount > HIGH_WATER_BYTES;
    for (let i = 0; i < messages.length; i++) {
      const last = i === messages.length - 1;
      this.sink.send(messages[i], last && wait ? (error) => done(error) : () => {});
    }
    if (!wait) done();
  }
}

/** An event's data as an object, or undefined (a provider's malformed event goes on as it came). */
function parseObject(data: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(data);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

// The members of ServerResponse the pipeline reaches for, checked against the stand-in.
type UsedMembers = Pick<ServerResponse, 'writeHead' | 'setHeader' | 'headersSent' | 'write' | 'end' | 'destroy' | 'destroyed' | 'writableEnded' | 'writableFinished' | 'writableNeedDrain' | 'on' | 'once' | 'off'>;
export const asServerResponse = (response: TurnResponse): ServerResponse => (response satisfies { [K in keyof UsedMembers]: unknown }) as unknown as ServerResponse;
