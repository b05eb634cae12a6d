// The admin API under /admin/api/ (CONTRACT §5): loopback Host only (any Host with --allow-remote),
// same-origin only, admin token required, JSON in and out. Routes are a plain table; each module contributes its rows.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError, GatewayErrorList, errorBody } from '../core/errors.js';
import { decodePath, readBody, sendJson, toGatewayError } from '../core/http-io.js';
import { parseLargeJson } from '../gateway/prepare/prepare-pool.js';
import type { AppServices } from '../app-services.js';
import { refuseUnsafeJson } from '../core/json-scan.js';
import { isAllowedOrigin, isLoopbackHostHeader, isSameOriginRemote } from '../core/loopback.js';
import { AdminTokenGuard, AdminTokenThrottled } from '../gateway/admin-token-guard.js';

export interface AdminRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  services: AppServices;
  /** For routes that answer with a stream (the live log). */
  raw: { req: IncomingMessage; res: ServerResponse };
}

/** `body: STREAMED` means the route wrote the response itself. */
export interface AdminReply {
  status: number;
  body: unknown;
}

export const STREAMED = Symbol('streamed');

export interface AdminRoute {
  /** ANY: every method (the team relay hands each on as it came). */
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'ANY';
  /** Relative to /admin/api, with `:name` parameters: `/virtual-keys/:id`; a last `:name*` takes the rest of the path. */
  path: string;
  handle(request: AdminRequest): AdminReply | Promise<AdminReply>;
  /** The route reads the request body itself from `raw.req` (it hands the request on to the gateway). */
  ownsBody?: boolean;
}

interface CompiledRoute {
  route: AdminRoute;
  pattern: RegExp;
  names: string[];
}

export interface AdminHandlerOptions {
  /** --allow-remote: the admin API answers the names it is served under, not only loopback ones. */
  allowRemote?: boolean;
  /** The one check of the admin token (throttled per address); app.ts shares it with /metrics. */
  tokenGuard?: AdminTokenGuard;
}

export function createAdminHandler(routes: readonly AdminRoute[], services: AppServices, options: AdminHandlerOptions = {}) {
  const allowRemote = options.allowRemote === true;
  const tokenGuard = options.tokenGuard ?? new AdminTokenGuard(services.adminToken, services.proxy.log);
  const compiled: CompiledRoute[] = routes.map((route) => {
    const names: string[] = [];
    const source = route.path.replace(/:([a-zA-Z]+)(\*?)/g, (_, name: string, rest: string) => {
      names.push(name);
      return rest ? '(.*)' : '([^/]+)';
    });
    return { route, pattern: new RegExp(`^${source}$`), names };
  });

  return async function handleAdmin(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    try {
      const origin = req.headers.origin as string | undefined;
      const local = isLoopbackHostHeader(req.headers.host);
      if (!local && !allowRemote) throw new GatewayError(403, 'permission_error', 'The admin API answers only on a loopback address (start Gatehouse with --allow-remote to serve other names)');
      if (local ? !isAllowedOrigin(origin, req.headers.host) : !isSameOriginRemote(origin, req.headers.host)) {
        throw new GatewayError(403, 'permission_error', 'Cross-origin requests to the admin API are refused');
      }
      const authorization = req.headers.authorization ?? '';
      const token = /^Bearer\s+(.+)$/i.exec(authorization)?.[1];
      if (!tokenGuard.verify(req, token, '/admin/api')) throw new GatewayError(401, 'authentication_error', 'Missing or wrong admin token');

      const subPath = url.pathname.slice('/admin/api'.length) || '/';
      let matched: { route: AdminRoute; params: Record<string, string> } | undefined;
      let pathExists = false;
      for (const candidate of compiled) {
        const match = candidate.pattern.exec(subPath);
        if (!match) continue;
        pathExists = true;
        if (candidate.route.method !== req.method && candidate.route.method !== 'ANY') continue;
        matched = { route: candidate.route, params: Object.fromEntries(candidate.names.map((name, i) => [name, decodePath(match[i + 1])])) };
        break;
      }
      if (!matched) {
        throw pathExists
          ? new GatewayError(405, 'invalid_request_error', `${req.method} is not allowed on ${url.pathname}`)
          : new GatewayError(404, 'not_found_error', `No admin endpoint ${url.pathname}`);
      }
      let body: unknown = undefined;
      if ((req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH') && !matched.route.ownsBody) {
        const raw = await readBody(req, 1024 * 1024);
        if (raw.length) {
          try {
            // A large body is scanned and its values counted off the serving thread before it is parsed here.
            body = await parseLargeJson(raw, (bytes) => {
              refuseUnsafeJson(bytes);
              return JSON.parse(bytes.toString('utf8'));
            });
          } catch (error) {
            if (error instanceof GatewayError) throw error;
            throw new GatewayError(400, 'invalid_request_error', 'The request body is not valid JSON');
          }
        }
      }
      const reply = await matched.route.handle({ params: matched.params, query: url.searchParams, body, services, raw: { req, res } });
      if (reply.body === STREAMED) return;
      if (reply.status === 204) {
        res.writeHead(204).end();
        return;
      }
      sendJson(res, reply.status, reply.body, { 'cache-control': 'no-store' });
    } catch (error) {
      const failure = toGatewayError(error);
      if (!(error instanceof GatewayError)) console.error('Gatehouse: admin API error', error);
      const headers = failure instanceof AdminTokenThrottled ? failure.headers : {};
      if (!res.headersSent) sendJson(res, failure.status, failure instanceof GatewayErrorList ? failure.toBody() : errorBody(failure.type, failure.message, failure.param, failure.code), headers);
      else res.end();
    }
  };
}
