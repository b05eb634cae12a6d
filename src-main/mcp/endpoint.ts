// /mcp and /mcp/{server} over HTTP (Streamable HTTP, the SDK's server transport): the /v1 rules first
// (a foreign Origin or Host refused, a gateway key or virtual key required), then the body read within
// its cap and parsed once, then the session of its Mcp-Session-Id — or a new one for an `initialize`.
// Anything else without a session (Claude Code's `server/discover`, a stray call) gets a 400 and a
// JSON-RPC error, so clients that probe fall back to `initialize`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KeyDirectory } from '../core/keys.js';
import type { Caller } from '../core/keys.js';
import { GatewayError } from '../core/errors.js';
import { readBody } from '../core/http-io.js';
import { refuseUnsafeJson } from '../core/json-scan.js';
import { authenticate } from '../gateway/auth.js';
import { BROWSER_REFUSAL_MESSAGES, browserRefusal, type BrowserRefusal } from '../gateway/browser-guard.js';
import { readGatewayHeaders } from '../gateway/gateway-headers.js';
import type { McpGateway } from './gateway.js';
import { McpSession } from './session.js';

export interface McpEndpointOptions {
  gateway: McpGateway;
  keys: KeyDirectory;
  maxBodyBytes: number;
  allowRemote?: boolean;
  onBrowserRefused?: (reason: BrowserRefusal) => void;
}

/** The path of one server's endpoint: /mcp/{name}. */
const SERVER_PATH = /^\/mcp\/([^/]+)\/?$/;

/** A JSON-RPC error as an HTTP answer (no id: it answers no request that could be read). */
function sendRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  const text = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

const isInitialize = (body: unknown): boolean =>
  typeof body === 'object' && body !== null && !Array.isArray(body) && (body as { method?: unknown }).method === 'initialize' && 'id' in body;

/** The handler the gateway server calls for /mcp and /mcp/…. */
export function createMcpHandler(options: McpEndpointOptions): (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> {
  const { gateway } = options;
  return async (req, res, url) => {
    const refusal = browserRefusal(req.headers, options.allowRemote === true);
    if (refusal) {
      options.onBrowserRefused?.(refusal);
      return sendRpcError(res, 403, -32000, BROWSER_REFUSAL_MESSAGES[refusal].replaceAll('/v1', '/mcp'));
    }
    let scope: string | null = null;
    if (url.pathname !== '/mcp' && url.pathname !== '/mcp/') {
      const match = SERVER_PATH.exec(url.pathname);
      if (!match) return sendRpcError(res, 404, -32000, `No such path: ${url.pathname}; MCP is served at /mcp and /mcp/{server}`);
      scope = match[1];
    }
    let caller: Caller;
    try {
      caller = authenticate(readGatewayHeaders(req.headers), options.keys);
    } catch (error) {
      const status = error instanceof GatewayError ? error.status : 401;
      return sendRpcError(res, status, -32000, (error as Error).message.replace('x-gateway-api-key', 'x-gateway-api-key or Authorization: Bearer'));
    }
    if (scope !== null) {
      if (!gateway.has(scope)) return sendRpcError(res, 404, -32000, `No MCP server named '${scope}'`);
      try {
        gateway.upstreamFor(caller, scope);
      } catch (error) {
        return sendRpcError(res, 403, -32000, (error as Error).message.replace(/^MCP error -?\d+: /, ''));
      }
    }
    const path = scope === null ? '/mcp' : `/mcp/${scope}`;

    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
      return sendRpcError(res, 405, -32000, `Use POST, GET or DELETE for ${path}`, { allow: 'POST, GET, DELETE' });
    }
    let body: unknown;
    if (req.method === 'POST') {
      try {
        const raw = await readBody(req, options.maxBodyBytes);
        refuseUnsafeJson(raw);
        body = JSON.parse(raw.toString('utf8'));
      } catch (error) {
        if (error instanceof GatewayError && error.status !== 400) return sendRpcError(res, error.status, -32600, error.message);
        return sendRpcError(res, 400, -32700, `Parse error: the body is not valid JSON${error instanceof GatewayError ? ` (${error.message})` : ''}`);
      }
    }

    const sessionHeader = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    if (sessionId !== undefined) {
      const session = gateway.sessions.get(sessionId);
      // Another key's session, or one for another endpoint, is as unknown as one that never was.
      if (!session || session.caller.keyId !== caller.keyId || session.caller.kind !== caller.kind || session.scope !== scope) {
        return sendRpcError(res, 404, -32001, 'Session not found: it ended or was never made; send initialize again');
      }
      session.lastActive = Date.now();
      return session.transport.handleRequest(req, res, body);
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
    let upstreamInfo: Awaited<ReturnType<ReturnType<McpGateway['upstreamFor']>['capabilities']>> | undefined;
    if (scope !== null) upstreamInfo = await gateway.upstreamFor(caller, scope).capabilities().catch(() => undefined);
    let id: string | undefined;
    const session: McpSession = new McpSession(
      gateway,
      caller,
      scope,
      path,
      upstreamInfo?.capabilities,
      { instructions: upstreamInfo?.instructions, serverInfo: upstreamInfo?.serverInfo },
      (newId) => {
        id = newId;
        gateway.addSession(newId, session);
      },
      () => {
        if (id !== undefined && gateway.sessions.get(id) === session) gateway.sessions.delete(id);
      },
    );
    await session.server.connect(session.transport);
    await session.transport.handleRequest(req, res, body);
    // An initialize the transport refused made no session: nothing is kept for it.
    if (id === undefined) void session.close();
  };
}
