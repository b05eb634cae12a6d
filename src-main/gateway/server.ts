// The HTTP server: routes each request to the proxy, the admin API or the UI's static files.
// It only wires the stages; each stage is a plain function of what the previous one produced.
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { GatewayError, errorBody, invalidRequest } from '../core/errors.js';
import { handleProxy, type EmbeddingsRoute, type ProxyDependencies } from './proxy.js';
import { openaiEmbeddingsIngress } from './embeddings/embeddings-ingress.js';
import { BodyDrainingResponse, decodePath, sendJson } from '../core/http-io.js';
import { anthropicMessagesIngress } from './ingress/anthropic-messages.js';
import { GENERATION_ROUTES } from './ingress/registry.js';
import { routeGeminiPath, isGeminiKeyed, mayBeGeminiPath } from './gemini-routes.js';
import { isLoopbackHostHeader } from '../core/loopback.js';
import { BROWSER_REFUSAL_MESSAGES, browserRefusal, type BrowserRefusal } from './browser-guard.js';
import { DEFAULT_CONNECTION_LIMITS, guardConnections, type ConnectionLimits } from './connection-guard.js';

export interface GatewayServerOptions extends ProxyDependencies {
  handleAdmin: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;
  /** GET /metrics (metrics.ts), which checks who asks; without it the path is unknown. */
  handleMetrics?: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** /mcp and /mcp/{server}, the MCP gateway (mcp/endpoint.ts), which checks Origin, Host and keys itself; without it the paths are unknown. */
  handleMcp?: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;
  /** The built UI (out/renderer); absent in tests that need no UI. */
  uiDir?: string;
  /** Told of each request's handling, settled once it is done (logged included): shutdown waits on these. */
  trackRequest?: (handled: Promise<void>) => void;
  clientTimeouts?: Partial<ClientTimeouts>;
  /** --allow-remote: /v1 answers any Host (a foreign Origin is still refused). */
  allowRemote?: boolean;
  /** Told of each /v1 request refused before it was read (never logged: a page could flood the log). */
  onBrowserRefused?: (reason: BrowserRefusal) => void;
  /** Tests lower these to prove silent and surplus connections are closed. */
  connectionLimits?: Partial<ConnectionLimits>;
}

/** How long a client may take to send its request; a slow or stalled client cannot pin a connection longer. */
export interface ClientTimeouts {
  headersTimeoutMs: number;
  /** The whole request, body included (not the answer: streams may run long). */
  requestTimeoutMs: number;
  /** How often Node checks the two above. */
  checkIntervalMs: number;
  /**
   * How long a connection may idle between requests. Longer than the idle expiry of the usual clients
   * (undici 4 s, httpx 5 s), so they close first and never send on a connection being closed.
   */
  keepAliveTimeoutMs: number;
}

export const DEFAULT_CLIENT_TIMEOUTS: ClientTimeouts = { headersTimeoutMs: 30_000, requestTimeoutMs: 120_000, checkIntervalMs: 5_000, keepAliveTimeoutMs: 10_000 };

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** The UI loads only its own scripts and talks only to this origin. */
export const UI_CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const UI_HEADERS = {
  'content-security-policy': UI_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

async function serveUi(uiDir: string | undefined, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  if (!uiDir) return sendJson(res, 404, errorBody('not_found_error', 'The UI is not built: run `npm run build`'));
  if (!isLoopbackHostHeader(req.headers.host)) {
    return sendJson(res, 403, errorBody('permission_error', 'The UI answers only on a loopback address'));
  }
  let decoded: string;
  try {
    decoded = decodePath(url.pathname);
  } catch (error) {
    return sendJson(res, 400, (error as GatewayError).toBody());
  }
  const requested = normalize(decoded).replace(/^([/\\])+/, '');
  const file = join(uiDir, requested);
  // A path that climbs out of the UI folder is not ours to serve.
  const isInside = file === uiDir || file.startsWith(uiDir.endsWith(sep) ? uiDir : uiDir + sep);
  const candidates = isInside && extname(requested) ? [file] : [join(uiDir, 'index.html')];
  for (const candidate of candidates) {
    try {
      const content = await readFile(candidate);
      const type = CONTENT_TYPES[extname(candidate)] ?? 'application/octet-stream';
      const cache = candidate.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache';
      res.writeHead(200, { ...UI_HEADERS, 'content-type': type, 'content-length': content.length, 'cache-control': cache });
      res.end(req.method === 'HEAD' ? undefined : content);
      return;
    } catch {
      // Fall through to 404.
    }
  }
  sendJson(res, 404, errorBody('not_found_error', `No such path: ${url.pathname}`));
}


/** `/v1/embeddings`, in OpenAI's shape (POST only). */
const EMBEDDINGS_PATH = '/v1/embeddings';
const EMBEDDINGS_ROUTE: EmbeddingsRoute = { embeddings: openaiEmbeddingsIngress };

/** A response OpenAI stored, by id (and its input items); an id is letters, digits, `_` and `-` only. */
const STORED_RESPONSE_PATH = /^\/v1\/responses\/[A-Za-z0-9_-]+(?:\/input_items)?$/;

/** The handling of a request answered on the spot (nothing left to wait for). */
const SETTLED: Promise<void> = Promise.resolve();

/** Parsed once and shared: requests on these paths go to the proxy, which reads only the path. */
const PLAIN_PROXY_URLS = new Map([...GENERATION_ROUTES.keys(), EMBEDDINGS_PATH].map((path) => [path, new URL(path, 'http://gatehouse.invalid')]));

export function createGatewayServer(options: GatewayServerOptions): Server {
  const timeouts = { ...DEFAULT_CLIENT_TIMEOUTS, ...options.clientTimeouts };
  const allowRemote = options.allowRemote === true;
  const server = createServer(
    {
      // Slow or stuck clients cannot pin the server (CONTRACT: bad input never hurts the gateway).
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      // Node would answer a missing Host with an empty 400 of its own; the check below answers in the contract's shape.
      requireHostHeader: false,
      maxHeaderSize: 64 * 1024,
      // Every answer, refusals above all, ends only once the request's body has arrived (read and
      // discarded up to a bound): a client that sends its whole body first reads its answer even on a
      // connection it asked to close.
      ServerResponse: BodyDrainingResponse,
    },
    (req, res) => {
      // Its 503 is sent already; nothing of this request is read or answered.
      if (connections.refused(req.socket)) return;
      if (req.headers.host === undefined && req.httpVersionMinor >= 1) {
        sendJson(res, 400, errorBody('invalid_request_error', 'An HTTP/1.1 request needs a Host header'));
        return;
      }
      // The two generation paths, sent as they usually are, need no URL parsing (about 2 µs a request):
      // only the admin API and the UI read the parsed URL.
      const rawUrl = req.url ?? '/';
      let url = PLAIN_PROXY_URLS.get(rawUrl);
      if (!url) {
        try {
          url = new URL(rawUrl, 'http://gatehouse.invalid');
        } catch {
          sendJson(res, 400, errorBody('invalid_request_error', 'Malformed request URL'));
          return;
        }
      }
      const path = url.pathname;
      const route = (): Promise<void> | void => {
        const generation = GENERATION_ROUTES.get(path);
        // Gemini's paths name the model: read only when no exact path matched.
        const gemini = generation === undefined && mayBeGeminiPath(path);
        if (path.startsWith('/v1/') || path === '/v1' || gemini) {
          const refusal = browserRefusal(req.headers, allowRemote);
          if (refusal) {
            options.onBrowserRefused?.(refusal);
            const error = new GatewayError(403, 'permission_error', BROWSER_REFUSAL_MESSAGES[refusal]);
            const shaped = generation ? generation.ingress : req.headers['anthropic-version'] !== undefined ? anthropicMessagesIngress : undefined;
            if (gemini && !shaped) return routeGeminiPath(req, res, path, url, options, error);
            return sendJson(res, 403, shaped ? shaped.errorBody(error) : error.toBody());
          }
        }
        if (gemini) return routeGeminiPath(req, res, path, url, options);
        if (generation) {
          if (req.method !== 'POST') {
            const error = new GatewayError(405, 'invalid_request_error', `Use POST for ${path}`);
            return sendJson(res, 405, generation.ingress.errorBody(error), { allow: 'POST' });
          }
          return handleProxy(req, res, generation, path, options);
        }
        if (path === EMBEDDINGS_PATH) {
          if (req.method !== 'POST') return sendJson(res, 405, errorBody('invalid_request_error', `Use POST for ${path}`), { allow: 'POST' });
          return handleProxy(req, res, EMBEDDINGS_ROUTE, path, options);
        }
        if (path.startsWith('/v1/responses/')) {
          const stored = STORED_RESPONSE_PATH.exec(path);
          if (!stored) {
            const error = invalidRequest(`No such path: ${path}; a stored response is read at /v1/responses/{id} or /v1/responses/{id}/input_items`, 'response_id');
            return sendJson(res, 404, { error: { ...error.toBody().error, type: 'not_found_error' } });
          }
          if (req.method !== 'GET' && req.method !== 'DELETE') {
            return sendJson(res, 405, errorBody('invalid_request_error', `Use GET or DELETE for ${path}`), { allow: 'GET, DELETE' });
          }
          const method = req.method;
          return handleProxy(req, res, { storedResponse: { method, path: path.slice('/v1/responses/'.length), search: url.search } }, path, options);
        }
        if (path === '/v1/models') {
          if (req.method !== 'GET') return sendJson(res, 405, errorBody('invalid_request_error', 'Use GET for /v1/models'), { allow: 'GET' });
          // A key sent Gemini's way (`x-goog-api-key`, `?key=`) asks for Gemini's list shape.
          if (isGeminiKeyed(req, url)) return routeGeminiPath(req, res, path, url, options);
          return handleProxy(req, res, 'models', path, options);
        }
        if (path === '/admin/api' || path.startsWith('/admin/api/')) return options.handleAdmin(req, res, url);
        if (path === '/metrics' && options.handleMetrics) return options.handleMetrics(req, res);
        if ((path === '/mcp' || path.startsWith('/mcp/')) && options.handleMcp) return options.handleMcp(req, res, url);
        if ((req.method === 'GET' || req.method === 'HEAD') && !path.startsWith('/v1/') && !path.startsWith('/admin/')) {
          return serveUi(options.uiDir, req, res, url);
        }
        return sendJson(res, 404, errorBody('not_found_error', `Unknown path: ${req.method} ${path}`));
      };
      const failed = (error: unknown): void => {
        console.error('Gatehouse: unhandled error', error);
        if (!res.headersSent) sendJson(res, 500, errorBody('api_error', 'Internal gateway error'));
        // A half-sent answer must not pass for a whole one; a finished one stays, and so does the
        // keep-alive connection the client sends its next request on.
        else if (!res.writableEnded) res.destroy();
      };
      // Started on this turn rather than from a promise chain: two promises and a microtask less per request.
      let handled: Promise<void>;
      try {
        const routed = route();
        handled = routed ? routed.catch(failed) : SETTLED;
      } catch (error) {
        // As a rejection, like any other failure (a failing error answer must not throw out of the listener).
        handled = Promise.reject(error).catch(failed);
      }
      options.trackRequest?.(handled);
    },
  );
  const connections = guardConnections(server, { ...DEFAULT_CONNECTION_LIMITS, ...options.connectionLimits });
  // A malformed request line or oversize headers: answer in the contract's shape, never crash.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const body = JSON.stringify(errorBody('invalid_request_error', `Bad request: ${error.code ?? error.message}`));
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });
  return server;
}
