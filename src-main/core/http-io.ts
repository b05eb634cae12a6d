// Reading a request body and writing a JSON answer over Node's http, the same way for the gateway and
// the admin API: bounded bodies, refused bodies drained so the client reads the refusal, whatever its
// `Connection` header.
import { ServerResponse, type IncomingMessage } from 'node:http';
import { GatewayError } from './errors.js';

/** How much of a refused body is read and discarded, so a client still sending it can read the 413. */
export const REFUSED_BODY_DRAIN_BYTES = 64 * 1024 * 1024;
/** A refused body that stops arriving for this long is not waited for: the connection is cut. */
export const REFUSED_BODY_STALL_MS = 5_000;

/** Whether the request says it carries a body (a length above 0, or chunks). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Every response of the gateway's server (`createServer({ ServerResponse: BodyDrainingResponse })`): one
 * that ends while its request's body is still arriving (a 413, a refusal before the body was read: 401,
 * 403, 404, 429 …) is written in full at once, but ended only once the rest of the body has been read
 * and discarded. Node closes a connection as soon as its answer is written when the client sent
 * `Connection: close`, and a close with unread bytes resets the connection: a client still sending its
 * body would get EPIPE or ECONNRESET instead of the answer. What arrives is discarded while it keeps
 * arriving, up to a byte bound; past the bound or after a stall the connection is cut. A body drained to
 * its end leaves the connection as any other (keep-alive when the client asked for it).
 */
export class BodyDrainingResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  override end(cb?: () => void): this;
  override end(chunk: unknown, cb?: () => void): this;
  override end(chunk: unknown, encoding: BufferEncoding, cb?: () => void): this;
  override end(chunk?: unknown, encoding?: unknown, cb?: unknown): this {
    const req = this.req;
    if (req.complete || this.writableEnded || this.destroyed || !hasBody(req)) {
      return super.end(chunk as string, encoding as BufferEncoding, cb as () => void);
    }
    if (typeof chunk === 'function') [cb, chunk] = [chunk, undefined];
    else if (typeof encoding === 'function') [cb, encoding] = [encoding, undefined];
    const done = cb as (() => void) | undefined;
    if (chunk !== undefined && chunk !== null) {
      // The length, as end() would have set it: the client can read the whole answer before the drain ends.
      if (!this.headersSent && !this.hasHeader('content-length') && !this.hasHeader('transfer-encoding')) {
        this.setHeader('content-length', typeof chunk === 'string' ? Buffer.byteLength(chunk, encoding as BufferEncoding | undefined) : (chunk as Uint8Array).byteLength);
      }
      this.write(chunk as string, (encoding as BufferEncoding | undefined) ?? 'utf8');
    } else if (!this.headersSent) {
      this.flushHeaders();
    }
    drainThen(req, () => super.end(done));
    return this;
  }
}

/** Reads and discards the rest of a body, then calls `whenRead`; past the byte bound or after a stall, cuts the connection instead. */
function drainThen(req: IncomingMessage, whenRead: () => void): void {
  let drained = 0;
  const socket = req.socket;
  const stop = () => {
    clearTimeout(stall);
    socket.off('close', stop);
  };
  const cut = () => {
    stop();
    socket.destroy();
  };
  const stall = setTimeout(cut, REFUSED_BODY_STALL_MS);
  stall.unref();
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > REFUSED_BODY_DRAIN_BYTES) cut();
    else stall.refresh();
  });
  req.once('end', () => {
    stop();
    whenRead();
  });
  // A keep-alive connection carries many requests: the listener goes with its request, not with the socket.
  socket.once('close', stop);
  req.resume();
}

export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = () => new GatewayError(413, 'invalid_request_error', `The request body is larger than the limit of ${maxBytes} bytes`);
  const declared = Number(req.headers['content-length']);
  // The refusal's answer reads the rest of the body before it ends (BodyDrainingResponse).
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off('data', onData);
        req.off('end', onEnd);
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    req.on('data', onData);
    req.on('end', onEnd);
    // A client that hangs up mid-body is an ordinary event, not a gateway fault to report with a stack.
    req.on('error', () => reject(new GatewayError(499, 'invalid_request_error', 'The client closed the connection before its body arrived')));
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, extraHeaders: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...extraHeaders });
  res.end(text);
}

export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError(500, 'api_error', 'Internal gateway error');
}

/** Percent-decodes a path or path part; a malformed escape (`%zz`) is the client's error, not ours. */
export function decodePath(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new GatewayError(400, 'invalid_request_error', 'The path holds a malformed percent-escape');
  }
}
