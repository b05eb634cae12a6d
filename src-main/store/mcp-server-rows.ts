// An MCP server's row as both stores keep it (SQLite's mcp_servers, migration 14; PostgreSQL's, schema
// version 4): plain settings as JSON text, secret env values and headers as one sealed JSON map each
// (sealed to the data key, the same sealing as provider secrets, context table mcp_servers / row name /
// column), their names in the clear beside them. Building, changing and reading a row is here, once, so
// both backends check input alike and seal byte-compatibly (`gatehouse migrate` copies rows as they are).
import { GatewayError, invalidRequest } from '../core/errors.js';
import {
  DEFAULT_MCP_TIMEOUT_MS,
  validCommand,
  validServerName,
  validStringList,
  validTimeout,
  validTransport,
  validUrl,
  validValueMap,
  type McpServerChange,
  type McpServerConfig,
  type McpOAuthChange,
  type McpOAuthGrant,
  type McpOAuthState,
  type McpServerConnection,
  type McpTransport,
  type NewMcpServer,
} from '../core/mcp-servers.js';
import type { ValueSealer } from './keys/key-store.js';
import type { SecretContext } from './secret-box.js';

export interface McpServerRow {
  name: string;
  transport: McpTransport;
  command: string | null;
  args: string;
  env: string;
  secret_env_names: string;
  secret_env: Buffer | null;
  url: string | null;
  headers: string;
  secret_header_names: string;
  secret_headers: Buffer | null;
  enabled: number;
  timeout_ms: number;
  disabled_tools: string;
  created_at: number;
  updated_at: number;
  oauth_state: McpOAuthState | null;
  oauth_grant: Buffer | null;
  oauth_expires_at: number | null;
}

/** The columns, in the order both stores write them. */
export const MCP_SERVER_COLUMNS = [
  'name', 'transport', 'command', 'args', 'env', 'secret_env_names', 'secret_env', 'url', 'headers', 'secret_header_names', 'secret_headers',
  'enabled', 'timeout_ms', 'disabled_tools', 'created_at', 'updated_at', 'oauth_state', 'oauth_grant', 'oauth_expires_at',
] as const satisfies readonly (keyof McpServerRow)[];

/** The sign-in columns: written only by saveOAuth (oauthColumns), never by a settings change. */
export const MCP_OAUTH_COLUMNS = ['oauth_state', 'oauth_grant', 'oauth_expires_at'] as const satisfies readonly (keyof McpServerRow)[];

/** The columns a settings change writes. */
export const MCP_SETTINGS_COLUMNS = MCP_SERVER_COLUMNS.filter(
  (column) => column !== 'name' && column !== 'created_at' && !(MCP_OAUTH_COLUMNS as readonly string[]).includes(column),
);

type SecretField = 'secret_env' | 'secret_headers' | 'oauth_grant';
const context = (name: string, field: SecretField): SecretContext => ({ table: 'mcp_servers', rowId: name, field });
const iso = (ms: number) => new Date(ms).toISOString();

export function toConfig(row: McpServerRow): McpServerConfig {
  return {
    name: row.name,
    transport: row.transport,
    command: row.command,
    args: JSON.parse(row.args) as string[],
    env: JSON.parse(row.env) as Record<string, string>,
    secretEnv: JSON.parse(row.secret_env_names) as string[],
    url: row.url,
    headers: JSON.parse(row.headers) as Record<string, string>,
    secretHeaders: JSON.parse(row.secret_header_names) as string[],
    enabled: row.enabled === 1,
    timeoutMs: row.timeout_ms,
    disabledTools: JSON.parse(row.disabled_tools) as string[],
    oauth: row.oauth_state ? { state: row.oauth_state, expiresAt: row.oauth_state === 'signed-in' && row.oauth_expires_at != null ? iso(Number(row.oauth_expires_at)) : null } : null,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toConnection(row: McpServerRow, sealer: ValueSealer): McpServerConnection {
  return {
    ...toConfig(row),
    secretEnvValues: openMap(row, 'secret_env', sealer),
    secretHeaderValues: openMap(row, 'secret_headers', sealer),
    oauthGrant: row.oauth_grant ? (openJson(row, 'oauth_grant', sealer) as McpOAuthGrant) : null,
  };
}

/** The sign-in columns after a change, the grant sealed; the expiry kept in the clear for display only. */
export function oauthColumns(name: string, change: McpOAuthChange, sealer: ValueSealer): Pick<McpServerRow, (typeof MCP_OAUTH_COLUMNS)[number]> {
  if (change.state !== null && change.state !== 'sign-in-needed' && change.state !== 'signed-in') throw invalidRequest('An OAuth state is sign-in-needed or signed-in');
  const grant = change.grant;
  const tokens = grant?.tokens;
  const expiresAt = tokens?.expires_in !== undefined && grant?.receivedAt !== undefined ? grant.receivedAt + tokens.expires_in * 1000 : null;
  return {
    oauth_state: change.state,
    oauth_grant: grant ? sealer.seal(context(name, 'oauth_grant'), JSON.stringify(grant)) : null,
    oauth_expires_at: change.state === 'signed-in' ? expiresAt : null,
  };
}

export function mcpServerNotFound(name: string): GatewayError {
  return new GatewayError(404, 'not_found_error', `No MCP server named '${name}'`, 'name');
}

export function mcpServerNameTaken(name: string): GatewayError {
  return new GatewayError(409, 'invalid_request_error', `An MCP server named '${name}' exists already`, 'name');
}

/** The row of a new server, checked and sealed (the caller checks the name is free). */
export function newMcpServerRow(input: NewMcpServer, sealer: ValueSealer, now = Date.now()): McpServerRow {
  const name = validServerName(input.name);
  const transport = validTransport(input.transport ?? (input.url ? 'http' : 'stdio'));
  const stdio = transport === 'stdio';
  const command = stdio ? validCommand(input.command) : null;
  const url = stdio ? null : validUrl(input.url);
  const given = (value: unknown) => value !== undefined && value !== null && value !== '' && !(typeof value === 'object' && Object.keys(value).length === 0);
  if (stdio && (given(input.url) || given(input.headers) || given(input.secretHeaders))) throw invalidRequest('A stdio server takes command, args and env, not url or headers', 'url');
  if (!stdio && (given(input.command) || given(input.args) || given(input.env) || given(input.secretEnv))) {
    throw invalidRequest(`An ${transport} server takes url and headers, not command, args or env`, 'command');
  }
  const secretEnv = validValueMap(input.secretEnv ?? {}, 'secretEnv', 'env');
  const secretHeaders = validValueMap(input.secretHeaders ?? {}, 'secretHeaders', 'header');
  return {
    name,
    transport,
    command,
    args: JSON.stringify(validStringList(input.args ?? [], 'args')),
    env: JSON.stringify(validValueMap(input.env ?? {}, 'env', 'env')),
    secret_env_names: JSON.stringify(Object.keys(secretEnv)),
    secret_env: sealMap(name, 'secret_env', secretEnv, sealer),
    url,
    headers: JSON.stringify(validValueMap(input.headers ?? {}, 'headers', 'header')),
    secret_header_names: JSON.stringify(Object.keys(secretHeaders)),
    secret_headers: sealMap(name, 'secret_headers', secretHeaders, sealer),
    enabled: input.enabled === false ? 0 : 1,
    timeout_ms: input.timeoutMs === undefined ? DEFAULT_MCP_TIMEOUT_MS : validTimeout(input.timeoutMs),
    disabled_tools: JSON.stringify(validStringList(input.disabledTools ?? [], 'disabledTools')),
    created_at: now,
    updated_at: now,
    oauth_state: input.oauth === true && !stdio ? 'sign-in-needed' : null,
    oauth_grant: null,
    oauth_expires_at: null,
  };
}

/** The row after a change, checked; a secret map adds or replaces values (an empty string removes one), resealed. */
export function changedMcpServerRow(row: McpServerRow, change: McpServerChange, sealer: ValueSealer, now = Date.now()): McpServerRow {
  const stdio = row.transport === 'stdio';
  if (stdio && (change.url !== undefined || change.headers !== undefined || change.secretHeaders !== undefined)) throw invalidRequest('A stdio server has no url or headers', 'url');
  if (!stdio && (change.command !== undefined || change.args !== undefined || change.env !== undefined || change.secretEnv !== undefined)) {
    throw invalidRequest(`An ${row.transport} server has no command, args or env`, 'command');
  }
  const next = { ...row };
  if (change.secretEnv !== undefined) {
    const values = merged(openMap(row, 'secret_env', sealer), validValueMap(change.secretEnv, 'secretEnv', 'env'));
    next.secret_env = sealMap(row.name, 'secret_env', values, sealer);
    next.secret_env_names = JSON.stringify(Object.keys(values));
  }
  if (change.secretHeaders !== undefined) {
    const values = merged(openMap(row, 'secret_headers', sealer), validValueMap(change.secretHeaders, 'secretHeaders', 'header'));
    next.secret_headers = sealMap(row.name, 'secret_headers', values, sealer);
    next.secret_header_names = JSON.stringify(Object.keys(values));
  }
  if (change.enabled !== undefined && typeof change.enabled !== 'boolean') throw invalidRequest("'enabled' must be true or false", 'enabled');
  if (change.command !== undefined) next.command = validCommand(change.command);
  if (change.args !== undefined) next.args = JSON.stringify(validStringList(change.args, 'args'));
  if (change.env !== undefined) next.env = JSON.stringify(validValueMap(change.env, 'env', 'env'));
  if (change.url !== undefined) next.url = validUrl(change.url);
  if (change.headers !== undefined) next.headers = JSON.stringify(validValueMap(change.headers, 'headers', 'header'));
  if (change.enabled !== undefined) next.enabled = change.enabled ? 1 : 0;
  if (change.timeoutMs !== undefined) next.timeout_ms = validTimeout(change.timeoutMs);
  if (change.disabledTools !== undefined) next.disabled_tools = JSON.stringify(validStringList(change.disabledTools, 'disabledTools'));
  next.updated_at = now;
  return next;
}

/** A secret map merged with a change: a value replaces, an empty string removes. */
function merged(current: Record<string, string>, change: Record<string, string>): Record<string, string> {
  const result = { ...current };
  for (const [name, value] of Object.entries(change)) {
    if (value === '') delete result[name];
    else result[name] = value;
  }
  return result;
}

function sealMap(name: string, field: SecretField, values: Record<string, string>, sealer: ValueSealer): Buffer | null {
  return Object.keys(values).length === 0 ? null : sealer.seal(context(name, field), JSON.stringify(values));
}

function openMap(row: McpServerRow, field: SecretField, sealer: ValueSealer): Record<string, string> {
  return row[field] ? (openJson(row, field, sealer) as Record<string, string>) : {};
}

function openJson(row: McpServerRow, field: SecretField, sealer: ValueSealer): unknown {
  const sealed = row[field]!;
  try {
    return JSON.parse(sealer.open(context(row.name, field), sealed));
  } catch (error) {
    throw new GatewayError(500, 'api_error', `The sealed secrets of MCP server '${row.name}' cannot be opened (${(error as Error).message}); set them again.`);
  }
}
