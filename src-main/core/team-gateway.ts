// The desktop app's team gateway: the address of a team deployment and its admin token, which the local
// admin API relays to (admin/team-relay.ts). The contract of the store that keeps them (SQLite, the token
// sealed like a provider secret) and the rule every address must meet.
import { isLoopbackHostname } from './loopback.js';
import { invalidRequest } from './errors.js';

export interface TeamGatewayConnection {
  /** `https://gatehouse.example.com` (a path prefix allowed), or http on a loopback host; no trailing slash. */
  address: string;
  /** The team deployment's admin token (its GATEHOUSE_ADMIN_TOKEN). Never leaves the local admin API. */
  token: string;
}

/** Where the team gateway is kept. `get` answers from memory: the relay reads it on every call. */
export interface TeamGatewayRepository {
  get(): TeamGatewayConnection | null;
  save(connection: TeamGatewayConnection): void;
  clear(): void;
}

/**
 * A team address as the relay uses it, or a 400 naming `address`: https, or plain http only to this machine
 * (the admin token would otherwise cross the network in the clear); no user, query or fragment.
 */
export function checkTeamAddress(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalidRequest("'address' is required: the team gateway's address, e.g. https://gatehouse.example.com", 'address');
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw invalidRequest(`'address' is not a URL: ${value.trim().slice(0, 200)} (expected https://host[:port])`, 'address');
  }
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const loopback = isLoopbackHostname(hostname) || hostname === '::1';
  if (url.protocol === 'http:' && !loopback) {
    throw invalidRequest(
      `'address' must use https: http://${url.host} would send the team's admin token unencrypted (plain http is allowed only for 127.0.0.1, ::1 or localhost)`,
      'address',
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidRequest(`'address' must start with https:// (got ${url.protocol}//)`, 'address');
  if (url.username || url.password) throw invalidRequest("'address' must not carry a user name or password: the admin token goes in 'token'", 'address');
  if (url.search || url.hash) throw invalidRequest("'address' must not have a query or fragment", 'address');
  const path = url.pathname.replace(/\/+$/, '').replace(/\/admin(\/api)?$/, '');
  return `${url.protocol}//${url.host}${path}`;
}
