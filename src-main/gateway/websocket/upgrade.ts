// `GET /v1/responses` with `Upgrade: websocket` (OpenAI's Responses WebSocket mode, what Codex tries first):
// the same front as a POST — the /v1 browser guard (Origin, Host), the x-gateway-* headers, the key — decided
// before the upgrade, so a refusal is a plain HTTP answer in OpenAI's error shape; then `ws` (noServer) takes
// the socket. The key is not kept from here: every turn authenticates again (responses-socket.ts).
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { GatewayError } from '../../core/errors.js';
import { guardBrowser, withHeaders, withProviderCaller, type BrowserGuardOptions } from '../front.js';
import type { ProxyDependencies } from '../proxy.js';
import { RESPONSES_PATH, ResponsesSocket } from './responses-socket.js';
import type { HistoryBounds } from './socket-history.js';

export interface ResponsesUpgradeOptions extends ProxyDependencies, BrowserGuardOptions {
  trackRequest?: (handled: Promise<void>) => void;
  /** A socket with no turn and no message for this long is closed (default 5 min). */
  idleMs?: number;
  history?: Partial<HistoryBounds>;
}

export const DEFAULT_SOCKET_IDLE_MS = 5 * 60_000;
/** Responses a socket keeps for `previous_response_id`: a chain of turns needs only its latest; a few forks fit. */
const DEFAULT_HISTORY_RESPONSES = 16;
/** What all sockets keep together (a warm-up keeps its input without a provider call, so each key holder could fill it). */
const DEFAULT_HISTORY_SHARED_CHARS = 256 * 1024 * 1024;

export interface ResponsesUpgrades {
  /** The server's `upgrade` listener. */
  handle(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Stopping: idle sockets close now, running turns first finish. */
  closeWhenIdle(): void;
  terminateAll(): void;
  /** Sockets open now. */
  readonly open: number;
}

export function responsesUpgrades(options: ResponsesUpgradeOptions): ResponsesUpgrades {
  // The same cap as a POST body: no message may be larger than the body it becomes.
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxBodyBytes, perMessageDeflate: false, clientTracking: false });
  const guard = guardBrowser(options);
  const sockets = new Set<ResponsesSocket>();
  const socketOptions = {
    deps: options,
    idleMs: options.idleMs ?? DEFAULT_SOCKET_IDLE_MS,
    // Per socket: a chain is sent whole within the body cap, and its last output comes on top.
    history: { maxResponses: DEFAULT_HISTORY_RESPONSES, maxChars: 2 * options.maxBodyBytes, shared: { used: 0, max: DEFAULT_HISTORY_SHARED_CHARS }, ...options.history },
    trackRequest: options.trackRequest,
  };
  return {
    handle(req, socket, head) {
      socket.on('error', () => {});
      try {
        if (req.headers.host === undefined && req.httpVersionMinor >= 1) throw new GatewayError(400, 'invalid_request_error', 'An HTTP/1.1 request needs a Host header');
        const path = (req.url ?? '/').split('?', 1)[0];
        if (path !== RESPONSES_PATH) throw new GatewayError(404, 'not_found_error', `No WebSocket at ${path}: Gatehouse serves OpenAI's Responses WebSocket mode at ${RESPONSES_PATH}`);
        if (req.method !== 'GET' || req.headers.upgrade?.toLowerCase() !== 'websocket') {
          throw new GatewayError(400, 'invalid_request_error', `Only a GET upgrade to websocket is served at ${RESPONSES_PATH}; send other requests without an Upgrade header`);
        }
        guard({ req });
        withProviderCaller(withHeaders({ req }), options);
      } catch (error) {
        return refuse(socket, error instanceof GatewayError ? error : new GatewayError(500, 'api_error', 'Internal gateway error'));
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        const open = new ResponsesSocket(ws, req.headers, socketOptions);
        sockets.add(open);
        ws.once('close', () => sockets.delete(open));
      });
    },
    closeWhenIdle() {
      for (const socket of sockets) socket.closeWhenIdle();
    },
    terminateAll() {
      for (const socket of sockets) socket.terminate();
    },
    get open() {
      return sockets.size;
    },
  };
}

/** A refused upgrade: an HTTP answer in OpenAI's error shape, and the connection closed. */
function refuse(socket: Duplex, error: GatewayError): void {
  const body = JSON.stringify(error.toBody());
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
