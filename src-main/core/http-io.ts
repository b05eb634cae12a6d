// Reading a request body and writing a JSON answer over Node's http, the same way for the gateway and
// the admin API: bounded bodies, refused bodies drained so the client reads the refusal.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from './errors.js';

/** How long a refused body may go on arriving while the 413 is read; then the connection is cut. */
const REFUSED_BODY_DRAIN_MS = 1_000;

/**
 * Stops taking a body over the limit without cutting the connection at once: a client still sending
 * would get a reset instead of the 413. What arrives is discarded, and the socket is closed soon after.
 */
function refuseRemainingBody(req: IncomingMessage): void {
  req.resume();
  const cut = setTimeout(() => req.socket.destroy(), REFUSED_BODY_DRAIN_MS);
  cut.unref();
  req.socket.once('close', () => clearTimeout(cut));
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
  // After a refused body the connection cannot be reused: the rest of that body is still on the wire.
  const connection: Record<string, string> = status === 413 ? { connection: 'close' } : {};
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...connection, ...extraHeaders });
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
