// Reading a request body and writing a JSON answer over Node's http, the same way for the gateway and
// the admin API: bounded bodies, refused bodies drained so the client reads the refusal.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from './errors.js';

/** How much of a refused body is read and discarded, so a client still sending it can read the 413. */
export const REFUSED_BODY_DRAIN_BYTES = 64 * 1024 * 1024;
/** A refused body that stops arriving for this long is not waited for: the connection is cut. */
export const REFUSED_BODY_STALL_MS = 5_000;

/**
 * Stops taking a body over the limit without cutting the connection: a client that sends its whole body
 * before it reads (most do) would get a reset instead of the 413. What arrives is discarded while it keeps
 * arriving, up to a byte bound; past the bound or after a stall the connection is cut. A body drained to
 * its end leaves the connection as any other (keep-alive): the 413 carries no `connection: close`, which
 * would make Node close the socket as soon as the answer is written.
 */
function refuseRemainingBody(req: IncomingMessage): void {
  let drained = 0;
  const cut = () => req.socket.destroy();
  const stall = setTimeout(cut, REFUSED_BODY_STALL_MS);
  stall.unref();
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > REFUSED_BODY_DRAIN_BYTES) {
      clearTimeout(stall);
      cut();
    } else stall.refresh();
  });
  req.once('end', () => clearTimeout(stall));
  req.socket.once('close', () => clearTimeout(stall));
  req.resume();
}

export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = () => new GatewayError(413, 'invalid_request_error', `The request body is larger than the limit of ${maxBytes} bytes`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    refuseRemainingBody(req);
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off('data', onData);
        req.off('end', onEnd);
        refuseRemainingBody(req);
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
