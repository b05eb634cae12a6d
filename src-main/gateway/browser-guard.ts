// Browsers on /v1: a web page of another origin may POST `text/plain` without a preflight, and a page
// that rebinds its own name to 127.0.0.1 (DNS rebinding) reaches the gateway under that name. Neither
// may use the gateway. SDKs and tools send no Origin, so the usual request costs one header lookup and
// a comparison with the last Host seen.
import type { IncomingHttpHeaders } from 'node:http';
import { boundedMemo } from '../core/bounded-memo.js';
import { isLoopbackHostHeader, isLoopbackHostname } from '../core/loopback.js';

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
