// /mcp and /mcp/{server} over HTTP (Streamable HTTP, the SDK's server transport): the /v1 rules first
// (a foreign Origin or Host refused, a gateway key or virtual key required), then every request — whatever
// message it carries — authorized against the key as it is now (access.ts), the body read within its cap
// and parsed once, its calls admitted against the key's limits as model calls are, then the session of its
// Mcp-Session-Id — or a new one for an `initialize` — served by the SDK's web-standard transport (web-http.ts).
// A 2026-07-28 request (its version in `_meta`, no session) is served on its own (modern.ts). Anything else
// without a session (a stray call with no `_meta`) gets a 400 and a JSON-RPC error.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KeyDirectory } from '../core/keys.js';
import type { Caller } from '../core/keys.js';
import { GatewayError } from '../core/errors.js';
import { readBody } from '../core/http-io.js';
import { parseLargeJson } from '../gateway/prepare/prepare-pool.js';
import { refuseUnsafeJson } from '../core/json-scan.js';
import { BrowserRefused, guardBrowser, withCaller, withHeaders, type BrowserRefusal } from '../gateway/front.js';
import type { KeyLimiter } from '../gateway/limits/limiter.js';
import { admitCalls, authorizeMessage, SESSION_NOT_FOUND, SessionKey } from './access.js';
import { mcpCallRecord } from './call-log.js';
import type { McpGateway } from './gateway.js';
import { McpSession } from './session.js';
import { sendWebResponse, toWebRequest } from './web-http.js';
import type { CallerEra } from './upstream.js';

export interface McpEndpointOptions {
  gateway: McpGateway;
  keys: KeyDirectory;
  maxBodyBytes: number;
  /** The keys' limits, as model calls are admitted (in this process or in Redis): each call counts against the key's rpm. */
  limits?: KeyLimiter;
  allowRemote?: boolean;
  onBrowserRefused?: (reason: BrowserRefusal) => void;
}

/** The path of one server's endpoint: /mcp/{name}. */
const SERVER_PATH = /^\/mcp\/([^/]+)\/?$/;

/** A JSON-RPC error as an HTTP answer; its id is null unless it answers one request that was read (a call refused by the key's limits). */
function sendRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}, id: string | number | null = null): void {
  const text = JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

const isInitialize = (body: unknown): boolean =>
  typeof body === 'object' && body !== null && !Array.isArray(body) && (body as { method?: unknown }).method === 'initialize' && 'id' in body;

/** The handler the gateway server calls for /mcp and /mcp/…. */
export function createMcpHandler(options: McpEndpointOptions): (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> {
  const { gateway } = options;
  // The front /v1 uses (gateway/front.ts), its refusals answered as JSON-RPC errors.
  const guard = guardBrowser(options);

  /** What one server's endpoint offers is what its server offers in the client's era: it is started now (within its start bound). */
  const serverInfo = async (caller: Caller, scope: string | null, era: CallerEra) =>
    scope === null ? undefined : await gateway.upstreamFor(caller, scope).capabilities(era).catch(() => undefined);

  /** One 2026-07-28 request, served by a Server of its own for the key it presented (read as it is now by every handler). */
  const serveModern = async (web: Request, body: unknown, caller: Caller, presented: string, scope: string | null, path: string): Promise<Response> => {
    const upstreamInfo = await serverInfo(caller, scope, 'modern');
    const key = new SessionKey(options.keys, presented, caller);
    return gateway.modern.serve(scope, web, body, () =>
      new McpSession(gateway, key, scope, path, upstreamInfo?.capabilities, { instructions: upstreamInfo?.instructions, serverInfo: upstreamInfo?.serverInfo }).server,
    );
  };

  return async (req, res, url) => {
    try {
      guard({ req });
    } catch (error) {
      if (!(error instanceof BrowserRefused)) throw error;
      return sendRpcError(res, 403, -32000, error.message.replaceAll('/v1', '/mcp'));
    }
    let scope: string | null = null;
    if (url.pathname !== '/mcp' && url.pathname !== '/mcp/') {
      const match = SERVER_PATH.exec(url.pathname);
      if (!match) return sendRpcError(res, 404, -32000, `No such path: ${url.pathname}; MCP is served at /mcp and /mcp/{server}`);
      scope = match[1];
    }
    const sessionHeader = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    let caller: Caller;
    let presented: string;
    try {
      const authenticated = withCaller(withHeaders({ req }), options);
      caller = authenticated.caller;
      presented = authenticated.presentedKey!;
    } catch (error) {
      const status = error instanceof GatewayError ? error.status : 401;
      return sendRpcError(res, status, -32000, (error as Error).message.replace('x-gateway-api-key', 'x-gateway-api-key or Authorization: Bearer'));
    }
    const authorized = authorizeMessage(gateway, caller, scope, sessionId);
    if ('status' in authorized) return sendRpcError(res, authorized.status, authorized.code, authorized.message);
    const path = scope === null ? '/mcp' : `/mcp/${scope}`;

    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
      return sendRpcError(res, 405, -32000, `Use POST, GET or DELETE for ${path}`, { allow: 'POST, GET, DELETE' });
    }
    let body: unknown;
    let raw: Buffer | undefined;
    if (req.method === 'POST') {
      try {
        raw = await readBody(req, options.maxBodyBytes);
        // A large message is scanned and measured off the serving thread before it is parsed here.
        body = await parseLargeJson(raw, (bytes) => {
          refuseUnsafeJson(bytes);
          return JSON.parse(bytes.toString('utf8'));
        });
      } catch (error) {
        if (error instanceof GatewayError && error.status !== 400) return sendRpcError(res, error.status, -32600, error.message);
        return sendRpcError(res, 400, -32700, `Parse error: the body is not valid JSON${error instanceof GatewayError ? ` (${error.message})` : ''}`);
      }
    }

    const session = authorized.session;
    const web = toWebRequest(req, res, url, raw);
    // A 2026-07-28 request (no session, its version in `_meta`) is served on its own; the rest is a 2025-era session's.
    const modern = !session && sessionId === undefined && req.method === 'POST' && (await gateway.modern.speaksModern(web, body));
    if (session || modern) {
      // Only a session or a 2026-07-28 request serves calls: each is admitted against the key's limits first.
      const admitted = await admitCalls(options.limits, caller, body);
      if ('refused' in admitted) {
        const { refused, call } = admitted;
        gateway.log(
          mcpCallRecord({
            createdAt: Date.now(),
            startedAt: performance.now(),
            path,
            caller,
            server: call.server ?? scope ?? '',
            tool: call.tool,
            client: session?.clientName ?? null,
            method: call.method,
            params: call.params,
            headers: req.headers,
            error: refused.error,
            secrets: [],
          }),
        );
        return sendRpcError(res, refused.status, refused.rpcCode, refused.message, refused.headers, call.id);
      }
      // Each admitted call's ticket is given back when its answer is over (an MCP call spends no tokens or money).
      if (admitted.tickets.length) res.once('close', () => admitted.tickets.forEach((ticket) => ticket.release({ tokens: 0, costUsd: null })));
      if (!session) return sendWebResponse(await serveModern(web, body, caller, presented, scope, path), res);
      // Closed while its body was read or its calls admitted (its key revoked, say): as unknown as one that never was.
      if (gateway.sessions.get(sessionId!) !== session) return sendRpcError(res, SESSION_NOT_FOUND.status, SESSION_NOT_FOUND.code, SESSION_NOT_FOUND.message);
      session.lastActive = Date.now();
      return sendWebResponse(await session.transport!.handleRequest(web, { parsedBody: body }), res);
    }
    if (req.method !== 'POST' || !isInitialize(body)) {
      const method = typeof body === 'object' && body !== null ? (body as { method?: unknown }).method : undefined;
      return sendRpcError(
        res,
        400,
        -32600,
        `No Mcp-Session-Id: ${typeof method === 'string' ? `'${method}' needs` : 'this request needs'} a session; send initialize first`,
      );
    }
    // One server's endpoint offers what its server offers: it is started now (within its start bound).
    const upstreamInfo = await serverInfo(caller, scope, 'legacy');
    let id: string | undefined;
    const created: McpSession = new McpSession(
      gateway,
      new SessionKey(options.keys, presented, caller),
      scope,
      path,
      upstreamInfo?.capabilities,
      { instructions: upstreamInfo?.instructions, serverInfo: upstreamInfo?.serverInfo },
      {
        onSessionId: (newId) => {
          id = newId;
          gateway.addSession(newId, created);
        },
        onClosed: () => {
          if (id !== undefined && gateway.sessions.get(id) === created) gateway.sessions.delete(id);
        },
      },
    );
    await created.server.connect(created.transport!);
    const answer = await created.transport!.handleRequest(web, { parsedBody: body });
    // An initialize the transport refused made no session: nothing is kept for it.
    if (id === undefined) void created.close();
    await sendWebResponse(answer, res);
  };
}
