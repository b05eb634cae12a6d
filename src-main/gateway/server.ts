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
import { BrowserRefused, guardBrowser, type BrowserRefusal } from './front.js';
import { DEFAULT_CONNECTION_LIMITS, guardConnections, type ConnectionLimits } from './connection-guard.js';
import { DEFAULT_SOCKET_IDLE_MS, responsesUpgrades } from './websocket/upgrade.js';

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
  /** How long a Responses WebSocket may idle (no turn running, no message) before it is closed. */
  webSocketIdleMs: number;
}

export const DEFAULT_CLIENT_TIMEOUTS: ClientTimeouts = { headersTimeoutMs: 30_000, requestTimeoutMs: 120_000, checkIntervalMs: 5_000, keepAliveTimeoutMs: 10_000, webSocketIdleMs: DEFAULT_SOCKET_IDLE_MS };

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


/** One request as the route table sees it. */
interface Routed {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  path: string;
}

type Handle = (request: Routed) => Promise<void> | void;

/** A row of a route table: an exact path, or a test tried in order after the exact paths. */
interface RouteRow {
  path: string | ((path: string) => boolean);
  handle: Handle;
}

/** A route table, indexed once: exact paths by a map lookup, the tests in their order. */
function routeTable(rows: readonly RouteRow[]): (path: string) => Handle | undefined {
  const exact = new Map<string, Handle>();
  const tests: { test: (path: string) => boolean; handle: Handle }[] = [];
  for (const row of rows) {
    if (typeof row.path === 'string') exact.set(row.path, row.handle);
    else tests.push({ test: row.path, handle: row.handle });
  }
  return (path) => exact.get(path) ?? tests.find((row) => row.test(path))?.handle;
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

/** The paths of the /v1 group (with Gemini's /v1beta): its browser guard runs before any of them is routed. */
const inV1Group = (path: string): boolean => path.startsWith('/v1/') || path === '/v1' || mayBeGeminiPath(path);

/** A 405 in the contract's shape unless the method is one of `methods`. */
function refusesMethod({ req, res, path }: Routed, methods: readonly string[], body = (error: GatewayError): object => error.toBody()): boolean {
  if (methods.includes(req.method ?? '')) return false;
  const list = methods.join(' or ');
  sendJson(res, 405, body(new GatewayError(405, 'invalid_request_error', `Use ${list} for ${path}`)), { allow: methods.join(', ') });
  return true;
}

/** The /v1 group's routes: the generation paths of every dialect, embeddings, stored responses, model lists, Gemini's paths. */
function v1Routes(options: GatewayServerOptions): RouteRow[] {
  const generation: RouteRow[] = [...GENERATION_ROUTES].map(([path, route]) => ({
    path,
    handle: (request) => (refusesMethod(request, ['POST'], (error) => route.ingress.errorBody(error)) ? undefined : handleProxy(request.req, request.res, route, path, options)),
  }));
  return [
    ...generation,
    { path: EMBEDDINGS_PATH, handle: (request) => (refusesMethod(request, ['POST']) ? undefined : handleProxy(request.req, request.res, EMBEDDINGS_ROUTE, EMBEDDINGS_PATH, options)) },
    {
      path: '/v1/models',
      handle: (request) => {
        const { req, res, url, path } = request;
        if (refusesMethod(request, ['GET'])) return;
        // A key sent Gemini's way (`x-goog-api-key`, `?key=`) asks for Gemini's list shape.
        if (isGeminiKeyed(req, url)) return routeGeminiPath(req, res, path, url, options);
        return handleProxy(req, res, 'models', path, options);
      },
    },
    {
      path: (path) => path.startsWith('/v1/responses/'),
      handle: (request) => {
        const { req, res, url, path } = request;
        if (!STORED_RESPONSE_PATH.test(path)) {
          const error = invalidRequest(`No such path: ${path}; a stored response is read at /v1/responses/{id} or /v1/responses/{id}/input_items`, 'response_id');
          return sendJson(res, 404, { error: { ...error.toBody().error, type: 'not_found_error' } });
        }
        if (refusesMethod(request, ['GET', 'DELETE'])) return;
        const storedResponse = { method: req.method as 'GET' | 'DELETE', path: path.slice('/v1/responses/'.length), search: url.search };
        return handleProxy(req, res, { storedResponse }, path, options);
      },
    },
    // Gemini's paths name the model: tried only when no exact path matched.
    { path: mayBeGeminiPath, handle: ({ req, res, path, url }) => routeGeminiPath(req, res, path, url, options) },
  ];
}

/** The /v1 group's answer to a browser's request: in the shape of the dialect the path or the request speaks. */
function answerRefusal({ req, res, path, url }: Routed, refused: BrowserRefused, options: GatewayServerOptions): Promise<void> | void {
  const generation = GENERATION_ROUTES.get(path);
  const shaped = generation ? generation.ingress : req.headers['anthropic-version'] !== undefined ? anthropicMessagesIngress : undefined;
  if (!generation && mayBeGeminiPath(path) && !shaped) return routeGeminiPath(req, res, path, url, options, refused);
  return sendJson(res, 403, shaped ? shaped.errorBody(refused) : refused.toBody());
}

/** The server's route table: the /v1 group (behind its guard), the admin API, metrics, MCP, the UI. */
function serverRoutes(options: GatewayServerOptions): (request: Routed) => Promise<void> | void {
  const v1 = routeTable(v1Routes(options));
  const guard = guardBrowser(options);
  const others = routeTable([
    { path: (path) => path === '/admin/api' || path.startsWith('/admin/api/'), handle: ({ req, res, url }) => options.handleAdmin(req, res, url) },
    ...(options.handleMetrics ? [{ path: '/metrics', handle: ({ req, res }: Routed) => options.handleMetrics!(req, res) }] : []),
    ...(options.handleMcp ? [{ path: (path: string) => path === '/mcp' || path.startsWith('/mcp/'), handle: ({ req, res, url }: Routed) => options.handleMcp!(req, res, url) }] : []),
    {
      path: (path) => !path.startsWith('/v1/') && !path.startsWith('/admin/'),
      handle: ({ req, res, url, path }) => ((req.method === 'GET' || req.method === 'HEAD') ? serveUi(options.uiDir, req, res, url) : notFound(res, req, path)),
    },
  ]);
  return (request) => {
    const { path } = request;
    if (inV1Group(path)) {
      try {
        guard(request);
      } catch (error) {
        if (error instanceof BrowserRefused) return answerRefusal(request, error, options);
        throw error;
      }
      const handle = v1(path);
      if (handle) return handle(request);
    }
    const handle = others(path);
    return handle ? handle(request) : notFound(request.res, request.req, path);
  };
}

function notFound(res: ServerResponse, req: IncomingMessage, path: string): void {
  sendJson(res, 404, errorBody('not_found_error', `Unknown path: ${req.method} ${path}`));
}

export function createGatewayServer(options: GatewayServerOptions): Server {
  const timeouts = { ...DEFAULT_CLIENT_TIMEOUTS, ...options.clientTimeouts };
  // Composed once: the table and the /v1 group's guard are built when the server is made.
  const route = serverRoutes(options);
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
      const request: Routed = { req, res, url, path: url.pathname };
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
        const routed = route(request);
        handled = routed ? routed.catch(failed) : SETTLED;
      } catch (error) {
        // As a rejection, like any other failure (a failing error answer must not throw out of the listener).
        handled = Promise.reject(error).catch(failed);
      }
      options.trackRequest?.(handled);
    },
  );
  const connections = guardConnections(server, { ...DEFAULT_CONNECTION_LIMITS, ...options.connectionLimits });
  // OpenAI's Responses WebSocket mode at /v1/responses (websocket/upgrade.ts).
  const upgrades = responsesUpgrades({ ...options, idleMs: timeouts.webSocketIdleMs });
  server.on('upgrade', (req: IncomingMessage, socket, head: Buffer) => {
    if (!connections.refused(req.socket)) upgrades.handle(req, socket, head);
  });
  // An upgraded socket is no longer one of http's connections: stopping closes the open ones itself.
  const close = server.close.bind(server);
  server.close = (callback) => {
    upgrades.closeWhenIdle();
    return close(callback);
  };
  const closeAll = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    upgrades.terminateAll();
    closeAll();
  };
  // A malformed request line or oversize headers: answer in the contract's shape, never crash.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const body = JSON.stringify(errorBody('invalid_request_error', `Bad request: ${error.code ?? error.message}`));
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });
  return server;
}
