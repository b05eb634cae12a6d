// The MCP servers Gatehouse connects to, as the admin API, the CLI and the MCP gateway (mcp/) know them:
// the configuration rows, the rules a configuration follows, and the contract of the store that keeps
// them (SQLite in store/mcp-servers.ts). Secret values (env vars, headers) are sealed by the store and
// answered only by name; the running gateway asks for them when it starts a connection.
import { invalidRequest } from './errors.js';

export type McpTransport = 'stdio' | 'http' | 'sse';
export const MCP_TRANSPORTS: readonly McpTransport[] = ['stdio', 'http', 'sse'];

/** Lower-case letters, digits and `-`, at most 32: it prefixes tool names (`github__create_issue`), so never `__`. */
const SERVER_NAME = /^[a-z0-9-]{1,32}$/;
/** Between a server's name and its tool's, prompt's or resource's name on the combined /mcp endpoint. */
export const MCP_NAME_SEPARATOR = '__';
export const DEFAULT_MCP_TIMEOUT_MS = 60_000;
const MAX_TIMEOUT_MS = 3_600_000;
const MIN_TIMEOUT_MS = 100;
const MAX_LIST = 200;
const MAX_VALUE_CHARS = 16_384;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A server as the admin API and the CLI show it; secret values never, only their names. */
export interface McpServerConfig {
  name: string;
  transport: McpTransport;
  command: string | null;
  args: string[];
  env: Record<string, string>;
  secretEnv: string[];
  url: string | null;
  headers: Record<string, string>;
  secretHeaders: string[];
  enabled: boolean;
  timeoutMs: number;
  disabledTools: string[];
  /** OAuth sign-in, for a remote server that asked for it (its 401 and metadata); null = it takes no OAuth. */
  oauth: McpOAuthStatus | null;
  createdAt: string;
  updatedAt: string;
}

/** 'sign-in-needed' until someone signs in, and again when the grant expired or was revoked. */
export type McpOAuthState = 'sign-in-needed' | 'signed-in';

export interface McpOAuthStatus {
  state: McpOAuthState;
  /** When the access token expires (ISO); null when signed out or the server named no expiry. */
  expiresAt: string | null;
}

/**
 * What a sign-in leaves, sealed at rest as one value (mcp/oauth/ reads and writes it in the SDK's own
 * shapes): the client registration (dynamic, or the id and secret the user gave), the tokens, and the
 * discovered metadata that refresh and revocation need.
 */
export interface McpOAuthGrant {
  client?: { client_id: string; client_secret?: string; [field: string]: unknown };
  tokens?: { access_token: string; token_type: string; refresh_token?: string; expires_in?: number; [field: string]: unknown };
  /** When the tokens were received (ms since the epoch): expires_in counts from here. */
  receivedAt?: number;
  discovery?: Record<string, unknown>;
  /** The RFC 8707 resource the tokens were asked for (sent again on refresh). */
  resource?: string;
}

/** A change of a server's sign-in: its state and grant together (null grant: forget the tokens and registration). */
export interface McpOAuthChange {
  state: McpOAuthState | null;
  grant: McpOAuthGrant | null;
}

/** A server with its secret values opened: what the gateway connects with (memory only, never logged). */
export interface McpServerConnection extends McpServerConfig {
  secretEnvValues: Record<string, string>;
  secretHeaderValues: Record<string, string>;
  /** The sealed sign-in opened; null when there is none. */
  oauthGrant: McpOAuthGrant | null;
}

export interface NewMcpServer {
  name: string;
  transport?: McpTransport;
  command?: string | null;
  args?: string[];
  env?: Record<string, string>;
  /** Name → value; sealed at rest. */
  secretEnv?: Record<string, string>;
  url?: string | null;
  headers?: Record<string, string>;
  secretHeaders?: Record<string, string>;
  enabled?: boolean;
  timeoutMs?: number;
  disabledTools?: string[];
  /** Set by whoever added it after asking the server (mcp/oauth/detect.ts): it wants OAuth sign-in. */
  oauth?: boolean;
}

/** Any of these; a secret map adds or replaces the values it names (an empty string removes one). */
export type McpServerChange = Partial<Omit<NewMcpServer, 'name' | 'transport' | 'oauth'>>;

/**
 * Where MCP servers are kept. `connections()` runs when the gateway (re)reads its servers and may go to
 * the database; the gateway keeps what it read in memory and is told of changes by `watch`, whichever
 * process made them (the CLI's within a second). Errors are GatewayErrors (400 bad input, 404 unknown
 * name, 409 a name taken).
 */
export interface McpServerRepository {
  list(): Promise<McpServerConfig[]>;
  get(name: string): Promise<McpServerConfig>;
  create(input: NewMcpServer): Promise<McpServerConfig>;
  update(name: string, change: McpServerChange): Promise<McpServerConfig>;
  remove(name: string): Promise<void>;
  /**
   * Records a sign-in (or its loss) on its own, never as part of a settings change: a token refresh must not
   * undo an edit made meanwhile, nor an edit a refresh. Sealed like the other secrets; needs only the public key.
   */
  saveOAuth(name: string, change: McpOAuthChange): Promise<void>;
  /** Every server with its secrets opened (needs the data key: a store opened for writing only rejects). */
  connections(): Promise<McpServerConnection[]>;
  /** Calls the listener with connections() after every change; returns a function that stops. */
  watch(listener: (servers: McpServerConnection[]) => void, intervalMs?: number): () => void;
}

export function validServerName(name: unknown): string {
  if (typeof name !== 'string' || !SERVER_NAME.test(name) || name.includes(MCP_NAME_SEPARATOR)) {
    throw invalidRequest("'name' must be 1 to 32 lower-case letters, digits and '-' (never '__')", 'name');
  }
  return name;
}

export function validTransport(value: unknown): McpTransport {
  if (!MCP_TRANSPORTS.includes(value as McpTransport)) throw invalidRequest(`'transport' must be one of ${MCP_TRANSPORTS.join(', ')}`, 'transport');
  return value as McpTransport;
}

export function validTimeout(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < MIN_TIMEOUT_MS || value > MAX_TIMEOUT_MS) {
    throw invalidRequest(`'timeoutMs' must be a whole number of milliseconds from ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS}`, 'timeoutMs');
  }
  return value;
}

export function validStringList(value: unknown, param: string): string[] {
  if (!Array.isArray(value) || value.length > MAX_LIST || value.some((item) => typeof item !== 'string' || item.length > MAX_VALUE_CHARS)) {
    throw invalidRequest(`'${param}' must be a list of at most ${MAX_LIST} strings`, param);
  }
  return value as string[];
}

/** A name → value map of plain strings, names by `kind`'s rules. */
export function validValueMap(value: unknown, param: string, kind: 'env' | 'header'): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidRequest(`'${param}' must be an object of names to strings`, param);
  const entries = Object.entries(value);
  if (entries.length > MAX_LIST) throw invalidRequest(`'${param}' may hold at most ${MAX_LIST} names`, param);
  const pattern = kind === 'env' ? ENV_NAME : HEADER_NAME;
  for (const [name, item] of entries) {
    if (!pattern.test(name)) throw invalidRequest(`'${param}': '${name}' is not a valid ${kind === 'env' ? 'environment variable' : 'header'} name`, param);
    if (typeof item !== 'string' || item.length > MAX_VALUE_CHARS || /[\r\n\0]/.test(item)) throw invalidRequest(`'${param}.${name}' must be a string on one line`, param);
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

export function validUrl(value: unknown): string {
  if (typeof value !== 'string') throw invalidRequest("'url' must be an http(s) URL", 'url');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidRequest("'url' must be an http(s) URL", 'url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidRequest("'url' must be an http(s) URL", 'url');
  return url.toString();
}

export function validCommand(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 4096) throw invalidRequest("'command' must be the program to start", 'command');
  return value.trim();
}

/** A key's MCP servers: null = every server; else each a valid server name, once. */
export function validMcpServerList(value: unknown): string[] | null {
  if (value === null) return null;
  const names = validStringList(value, 'mcpServers').map((name) => {
    try {
      return validServerName(name);
    } catch {
      throw invalidRequest(`'mcpServers': '${name}' is not a valid MCP server name`, 'mcpServers');
    }
  });
  return [...new Set(names)];
}
