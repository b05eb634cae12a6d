// The admin API under /admin/api/ (CONTRACT §5): loopback Host only (any Host with --allow-remote),
// same-origin only, admin token required, JSON in and out. A chain of steps like every route group: the
// shared front's guard and admin-token check (gateway/front.ts), then the route, the body and the handler;
// one error shaper answers in the admin shape. Routes are a plain table; each module contributes its rows.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError, GatewayErrorList, errorBody } from '../core/errors.js';
import { decodePath, readBody, sendJson, toGatewayError } from '../core/http-io.js';
import { parseLargeJson } from '../gateway/prepare/prepare-pool.js';
import type { AdminServices } from './services.js';
import { refuseUnsafeJson } from '../core/json-scan.js';
import { AdminTokenGuard, AdminTokenThrottled } from '../gateway/admin-token-guard.js';
import { guardAdmin, withAdminToken } from '../gateway/front.js';
import { chain, type Step } from '../gateway/steps.js';

export interface AdminRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  services: AdminServices;
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

export function createAdminHandler(routes: readonly AdminRoute[], services: AdminServices, options: AdminHandlerOptions = {}) {
  const tokenGuard = options.tokenGuard ?? new AdminTokenGuard(services.adminToken, services.proxy.log);
  const compiled: CompiledRoute[] = routes.map((route) => {
    const names: string[] = [];
    const source = route.path.replace(/:([a-zA-Z]+)(\*?)/g, (_, name: string, rest: string) => {
      names.push(name);
      return rest ? '(.*)' : '([^/]+)';
    });
    return { route, pattern: new RegExp(`^${source}$`), names };
  });

  /** Route: the table's row for the path and method (404 for no such path, 405 for another method). */
  const routeStep = (call: Arrived): Matched => {
    const { req, url } = call;
    const subPath = url.pathname.slice('/admin/api'.length) || '/';
    let pathExists = false;
    for (const candidate of compiled) {
      const match = candidate.pattern.exec(subPath);
      if (!match) continue;
      pathExists = true;
      if (candidate.route.method !== req.method && candidate.route.method !== 'ANY') continue;
      return { ...call, route: candidate.route, params: Object.fromEntries(candidate.names.map((name, i) => [name, decodePath(match[i + 1])])) };
    }
    throw pathExists
      ? new GatewayError(405, 'invalid_request_error', `${req.method} is not allowed on ${url.pathname}`)
      : new GatewayError(404, 'not_found_error', `No admin endpoint ${url.pathname}`);
  };

  /** Handle: the route's reply, sent here unless the route wrote the response itself. */
  const handleStep = async (call: BodyRead): Promise<BodyRead> => {
    const { req, res, url, route, params, body } = call;
    const reply = await route.handle({ params, query: url.searchParams, body, services, raw: { req, res } });
    if (reply.body === STREAMED) return call;
    if (reply.status === 204) res.writeHead(204).end();
    else sendJson(res, reply.status, reply.body, { 'cache-control': 'no-store' });
    return call;
  };

  // Composed once: every admin request runs these steps in this order.
  const guardStep: Step<Arrived, Arrived> = guardAdmin(options);
  const authenticateStep: Step<Arrived, Arrived> = withAdminToken(tokenGuard);
  const adminChain = chain(guardStep, authenticateStep, routeStep, bodyStep, handleStep);

  return async function handleAdmin(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const ended = await adminChain({ req, res, url });
    if (!ended.ok) answerFailure(res, ended.failure);
  };
}

/** An admin request as it arrived, and what the steps add to it. */
interface Arrived {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
}
type Matched = Arrived & { route: AdminRoute; params: Record<string, string> };
type BodyRead = Matched & { body: unknown };

/** Body: a write's JSON (at most 1 MiB), unless the route reads the request itself. */
async function bodyStep(call: Matched): Promise<BodyRead> {
  const { req, route } = call;
  if ((req.method !== 'POST' && req.method !== 'PUT' && req.method !== 'PATCH') || route.ownsBody) return { ...call, body: undefined };
  const raw = await readBody(req, 1024 * 1024);
  if (!raw.length) return { ...call, body: undefined };
  try {
    // A large body is scanned and its values counted off the serving thread before it is parsed here.
    const body = await parseLargeJson(raw, (bytes) => {
      refuseUnsafeJson(bytes);
      return JSON.parse(bytes.toString('utf8'));
    });
    return { ...call, body };
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw new GatewayError(400, 'invalid_request_error', 'The request body is not valid JSON');
  }
}

/** The admin group's error shaper: the contract's error body (a list for several field errors), Retry-After for a throttled address. */
function answerFailure(res: ServerResponse, error: unknown): void {
  const failure = toGatewayError(error);
  if (!(error instanceof GatewayError)) console.error('Gatehouse: admin API error', error);
  const headers = failure instanceof AdminTokenThrottled ? failure.headers : {};
  if (!res.headersSent) sendJson(res, failure.status, failure instanceof GatewayErrorList ? failure.toBody() : errorBody(failure.type, failure.message, failure.param, failure.code), headers);
  else res.end();
}
