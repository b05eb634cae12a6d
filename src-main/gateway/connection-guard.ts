// Bounds on the connections themselves, before any request is read: a socket that connects and sends
// nothing is closed after seconds (Node's headersTimeout only starts with the first byte), and the
// number of open connections stays below the usual desktop limit of 1,024 open files, so the gateway
// always has descriptors left for its database, its providers and the next client. A connection over
// the cap is told so (503 in the contract's shape) rather than dropped without a word.
import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody } from '../core/errors.js';

export interface ConnectionLimits {
  /** How long a new connection may stay silent before its first byte. */
  firstByteTimeoutMs: number;
  /** Connections open at once; the next ones get a 503 and are closed. */
  maxConnections: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { firstByteTimeoutMs: 10_000, maxConnections: 768 };

/** A refused connection is closed this long after its 503, if the client has not closed it itself. */
const REFUSED_LINGER_MS = 1_000;

const REFUSAL_BODY = JSON.stringify(errorBody('gateway_error', 'Too many connections to Gatehouse are open; close some and try again', null, 'too_many_connections'));
const REFUSAL =
  `HTTP/1.1 503 ${STATUS_CODES[503]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(REFUSAL_BODY)}\r\n` +
  `retry-after: 1\r\nconnection: close\r\n\r\n${REFUSAL_BODY}`;

export interface ConnectionGuard {
  /** Whether a request arrived on a connection that was refused (its answer is sent already). */
  refused(socket: Socket): boolean;
}

export function guardConnections(server: Server, limits: ConnectionLimits): ConnectionGuard {
  let open = 0;
  const refusedSockets = new WeakSet<Socket>();
  /** Refused connections not closed yet: while there are none, `refused` costs one comparison. */
  let refusedOpen = 0;
  server.on('connection', (socket: Socket) => {
    if (open >= limits.maxConnections) {
      refusedSockets.add(socket);
      refusedOpen++;
      // Ending (not destroying) lets the client read the answer: a close with its request unread
      // would reset the connection before it does.
      socket.end(REFUSAL);
      const linger = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
      linger.unref();
      socket.once('close', () => {
        clearTimeout(linger);
        refusedOpen--;
      });
      return;
    }
    open++;
    const silent = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, limits.firstByteTimeoutMs);
    silent.unref();
    socket.once('close', () => {
      clearTimeout(silent);
      open--;
    });
  });
  return { refused: (socket) => refusedOpen > 0 && refusedSockets.has(socket) };
}
