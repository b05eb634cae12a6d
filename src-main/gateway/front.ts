// The front of every route group (/v1 and /v1beta, /mcp, the admin API): the browser guard, the
// x-gateway-* headers read once, the caller authenticated (a Gatehouse key, or the admin token), and (for
// calls that reach a provider) no Gatehouse key forwarded. Written once as steps; each group composes them
// where it needs them and shapes their refusals its own way (the dialect's error body, a JSON-RPC error,
// the admin shape).
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { GatewayError, invalidRequest } from '../core/errors.js';
import { VIRTUAL_KEY_PREFIX, type Caller, type KeyDirectory } from '../core/keys.js';
import { boundedMemo } from '../core/bounded-memo.js';
import { isAllowedOrigin, isLoopbackHostHeader, isLoopbackHostname, isSameOriginRemote } from '../core/loopback.js';
import { bearerToken, readGatewayHeaders, type GatewayHeaders } from './gateway-headers.js';
import { authenticate, authenticatedAs, type Authenticated } from './auth.js';
import type { AdminTokenGuard } from './admin-token-guard.js';

// ---- Guard ----------------------------------------------------------------------------------------
// Browsers on /v1: a web page of another origin may POST `text/plain` without a preflight, and a page
// that rebinds its own name to 127.0.0.1 (DNS rebinding) reaches the gateway under that name. Neither
// may use the gateway. SDKs and tools send no Origin, so the usual request costs one header lookup and
// a comparison with the last Host seen.

/** Why a request was refused before it was read: the label of `gatehouse_refused_requests_total`. */
export type BrowserRefusal = 'foreign_origin' | 'foreign_host';

/** `http(s)://` and a loopback name or address with any port: what the UI and a local page send. */
const LOOPBACK_ORIGIN = /^https?:\/\/(\[::1\]|localhost|127(?:\.\d{1,3}){3})(?::\d{1,5})?$/i;

export function isLoopbackOrigin(origin: string): boolean {
  const match = LOOPBACK_ORIGIN.exec(origin);
  // The regex admits 127.999.0.1; the admin API's own check bounds each part.
  return match !== null && isLoopbackHostname(match[1]);
}

/** A client sends the same Host on every request: checked once per distinct value. */
const isLoopbackHost = boundedMemo(64, isLoopbackHostHeader);

/**
 * Why a /v1 request must be refused with 403, or null. `Origin` is checked always (a remote browser is
 * no more welcome than a local one); `Host` unless the server was started with --allow-remote. A request
 * with no Host at all (HTTP/1.0) comes from no browser, which always sends one.
 */
export function browserRefusal(headers: IncomingHttpHeaders, allowRemote: boolean): BrowserRefusal | null {
  const origin = headers.origin;
  if (origin !== undefined && !isLoopbackOrigin(origin)) return 'foreign_origin';
  const host = headers.host;
  if (!allowRemote && host !== undefined && !isLoopbackHost(host)) return 'foreign_host';
  return null;
}

export const BROWSER_REFUSAL_MESSAGES: Record<BrowserRefusal, string> = {
  foreign_origin: 'Gatehouse refuses /v1 requests from web pages of another origin: only pages on http(s)://127.0.0.1, localhost or [::1] may call it',
  foreign_host:
    'Gatehouse answers /v1 only on a loopback address (the Host header must be 127.0.0.1, localhost or [::1]); start it with --allow-remote to serve other names',
};

/** A request a page in a browser sent (a foreign Origin, a Host that is not ours): refused before it is read. */
export class BrowserRefused extends GatewayError {
  constructor(readonly reason: BrowserRefusal) {
    super(403, 'permission_error', BROWSER_REFUSAL_MESSAGES[reason]);
  }
}

export interface BrowserGuardOptions {
  /** --allow-remote: any Host is answered (a foreign Origin is still refused). */
  allowRemote?: boolean;
  /** Told of each refusal (never logged: a page could flood the log). */
  onBrowserRefused?: (reason: BrowserRefusal) => void;
}

/** Guard: throws BrowserRefused for a request a browser page sent; the value goes on unchanged otherwise. */
export function guardBrowser(options: BrowserGuardOptions): <T extends { req: IncomingMessage }>(call: T) => T {
  const allowRemote = options.allowRemote === true;
  return (call) => {
    const refusal = browserRefusal(call.req.headers, allowRemote);
    if (refusal) {
      options.onBrowserRefused?.(refusal);
      throw new BrowserRefused(refusal);
    }
    return call;
  };
}

/**
 * The admin API's guard: a loopback Host unless --allow-remote, and no page of another origin (on loopback
 * the UI's own http origin; served remotely, the same origin over http or https). Throws a 403.
 */
export function guardAdmin(options: { allowRemote?: boolean }): <T extends { req: IncomingMessage }>(call: T) => T {
  const allowRemote = options.allowRemote === true;
  return (call) => {
    const { origin, host } = call.req.headers;
    const local = isLoopbackHostHeader(host);
    if (!local && !allowRemote) throw new GatewayError(403, 'permission_error', 'The admin API answers only on a loopback address (start Gatehouse with --allow-remote to serve other names)');
    if (local ? !isAllowedOrigin(origin, host) : !isSameOriginRemote(origin, host)) {
      throw new GatewayError(403, 'permission_error', 'Cross-origin requests to the admin API are refused');
    }
    return call;
  };
}

/** Headers: the request's x-gateway-* headers (and a `?key=` from its URL), read once into plain data. */
export function withHeaders<T extends { req: Pick<IncomingMessage, 'headers'>; queryKey?: string }>(call: T): T & { headers: GatewayHeaders } {
  return { ...call, headers: readGatewayHeaders(call.req.headers, call.queryKey) };
}

/** Who authenticates: the key directory, or a caller someone else authenticated already (the admin Playground). */
export interface KeyCheck {
  keys: KeyDirectory;
  caller?: Caller;
}

/** Authenticate: the caller of the key the request presented. */
export function withCaller<T extends { headers: GatewayHeaders }>(call: T, check: KeyCheck): T & Authenticated {
  const authenticated = check.caller ? authenticatedAs(check.caller, call.headers) : authenticate(call.headers, check.keys);
  return { ...call, ...authenticated };
}

/**
 * The admin API's authenticate step: the admin token as `Authorization: Bearer`, checked by the one
 * throttled guard (shared with /metrics). Throws the 401, or the 429 of an address that guessed too often.
 */
export function withAdminToken(tokenGuard: AdminTokenGuard): <T extends { req: IncomingMessage }>(call: T) => T {
  return (call) => {
    if (!tokenGuard.verify(call.req, bearerToken(call.req.headers.authorization), '/admin/api')) throw new GatewayError(401, 'authentication_error', 'Missing or wrong admin token');
    return call;
  };
}

/** Authenticate a call that reaches a provider: the caller, and no Gatehouse key among the headers it forwards. */
export function withProviderCaller<T extends { headers: GatewayHeaders }>(call: T, check: KeyCheck): T & Authenticated {
  const next = withCaller(call, check);
  refuseForwardedGatewayKeys(call.headers, next.presentedKey, check.keys);
  return next;
}

// ---- Never forwarded ------------------------------------------------------------------------------
// `x-gateway-forward-headers` sends headers to the provider unchanged, but never a Gatehouse key: a client
// that lists `authorization` while it authenticates with `Authorization: Bearer gh-vk-…` (or sends the
// gateway key in `x-api-key`) would otherwise hand its key to whoever runs the provider's host.

/** The token of a header value: `Bearer <token>`, or the value itself. */
function tokenOf(value: string): string {
  const trimmed = value.trim();
  const bearer = /^Bearer\s+(.+)$/i.exec(trimmed);
  return bearer ? bearer[1].trim() : trimmed;
}

/**
 * Throws a 400 naming the forwarded header that carries a Gatehouse key: a virtual key (`gh-vk-`), the key
 * the request authenticated with, or any key the directory knows. Only explicitly forwarded headers are
 * looked at (no others can carry a credential header); most requests name none, and pay one size check.
 */
export function refuseForwardedGatewayKeys(headers: GatewayHeaders, presentedKey: string | undefined, directory: KeyDirectory): void {
  if (headers.sensitiveHeaderNames.size === 0) return;
  for (const name of headers.sensitiveHeaderNames) {
    const value = headers.forwardHeaders[name];
    if (value === undefined) continue;
    const token = tokenOf(value);
    if (token === '') continue;
    if (token.startsWith(VIRTUAL_KEY_PREFIX) || token === presentedKey || directory.resolve(token) !== undefined) {
      throw invalidRequest(
        `'x-gateway-forward-headers' lists '${name}', which carries a Gatehouse key: Gatehouse keys are never sent to a provider. Send the provider's own token there, or leave '${name}' out of the list`,
        'x-gateway-forward-headers',
      );
    }
  }
}
