// Who may talk to Gatehouse from a browser or by name: loopback hosts and same-origin pages only.
// Shared by the gateway (/v1, the UI, /metrics) and the admin API.

const LOOPBACK_HOSTNAMES = new Set(['localhost', '[::1]', '::1']);

/** Exactly a loopback name or address: `127.0.0.1.evil.com` and `localhost.evil.com` are not. */
export function isLoopbackHostname(hostname: string): boolean {
  const lower = hostname.toLowerCase();
  if (LOOPBACK_HOSTNAMES.has(lower)) return true;
  const parts = lower.split('.');
  return parts.length === 4 && parts[0] === '127' && parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255);
}

/** The hostname of a Host header value (`127.0.0.1:8787`, `[::1]:8787`, `localhost`). */
export function hostnameOf(hostHeader: string): string | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:\[\]]+)(?::(\d{1,5}))?$/.exec(hostHeader.trim());
  return match ? match[1] : null;
}

export function isLoopbackHostHeader(hostHeader: string | undefined): boolean {
  if (!hostHeader) return false;
  const hostname = hostnameOf(hostHeader);
  return hostname !== null && isLoopbackHostname(hostname);
}

/** An Origin header's scheme and host, or null when it is not a URL. */
function parseOrigin(origin: string): URL | null {
  try {
    return new URL(origin);
  } catch {
    return null;
  }
}

/** A browser page of another origin must not use the admin API, even on loopback. */
export function isAllowedOrigin(origin: string | undefined, hostHeader: string | undefined): boolean {
  if (origin === undefined) return true;
  const url = parseOrigin(origin);
  return url !== null && url.protocol === 'http:' && url.host === hostHeader && isLoopbackHostHeader(url.host);
}

/**
 * With --allow-remote the admin API also answers the names it is served under (a team's own address,
 * behind the operator's TLS): a page may use it only from that same origin, http or https. The admin
 * token is still required, so a page that rebinds a name cannot use it without knowing the token.
 */
export function isSameOriginRemote(origin: string | undefined, hostHeader: string | undefined): boolean {
  if (origin === undefined) return true;
  const url = parseOrigin(origin);
  return url !== null && (url.protocol === 'https:' || url.protocol === 'http:') && hostHeader !== undefined && url.host === hostHeader.toLowerCase();
}
