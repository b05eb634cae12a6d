// MCP servers in SQLite (migration 14): plain settings as JSON columns, secret env values and headers
// sealed to the data key (the same sealing as provider secrets, through the key store's ValueSealer),
// their names kept in the clear for display. A running server is told of every change, whoever made it.
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
  type McpServerConnection,
  type McpServerRepository,
  type McpTransport,
  type NewMcpServer,
} from '../core/mcp-servers.js';
import type { SqliteDatabase } from './database.js';
import type { ValueSealer } from './keys/key-store.js';
import type { SecretContext } from './secret-box.js';

interface McpServerRow {
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
}

type SecretField = 'secret_env' | 'secret_headers';
const context = (name: string, field: SecretField): SecretContext => ({ table: 'mcp_servers', rowId: name, field });
const iso = (ms: number) => new Date(ms).toISOString();

function toConfig(row: McpServerRow): McpServerConfig {
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
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
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

export class McpServerStore implements McpServerRepository {
  private readonly listeners = new Set<(servers: McpServerConnection[]) => void>();

  constructor(
    private readonly db: SqliteDatabase,
    private readonly sealer: ValueSealer,
  ) {}

  list(): McpServerConfig[] {
    return this.rows().map(toConfig);
  }

  get(name: string): McpServerConfig {
    return toConfig(this.row(name));
  }

  create(input: NewMcpServer): McpServerConfig {
    const name = validServerName(input.name);
    const transport = validTransport(input.transport ?? (input.url ? 'http' : 'stdio'));
    if (this.db.prepare('SELECT 1 FROM mcp_servers WHERE name = ?').get(name)) {
      throw new GatewayError(409, 'invalid_request_error', `An MCP server named '${name}' exists already`, 'name');
    }
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
    const now = Date.now();
    this.db
      .prepare(
        `INSERT INTO mcp_servers (name, transport, command, args, env, secret_env_names, secret_env, url, headers, secret_header_names, secret_headers, enabled, timeout_ms, disabled_tools, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        name,
        transport,
        command,
        JSON.stringify(validStringList(input.args ?? [], 'args')),
        JSON.stringify(validValueMap(input.env ?? {}, 'env', 'env')),
        JSON.stringify(Object.keys(secretEnv)),
        this.sealMap(name, 'secret_env', secretEnv),
        url,
        JSON.stringify(validValueMap(input.headers ?? {}, 'headers', 'header')),
        JSON.stringify(Object.keys(secretHeaders)),
        this.sealMap(name, 'secret_headers', secretHeaders),
        input.enabled === false ? 0 : 1,
        input.timeoutMs === undefined ? DEFAULT_MCP_TIMEOUT_MS : validTimeout(input.timeoutMs),
        JSON.stringify(validStringList(input.disabledTools ?? [], 'disabledTools')),
        now,
        now,
      );
    this.notify();
    return this.get(name);
  }

  update(name: string, change: McpServerChange): McpServerConfig {
    const row = this.row(name);
    const stdio = row.transport === 'stdio';
    if (stdio && (change.url !== undefined || change.headers !== undefined || change.secretHeaders !== undefined)) throw invalidRequest('A stdio server has no url or headers', 'url');
    if (!stdio && (change.command !== undefined || change.args !== undefined || change.env !== undefined || change.secretEnv !== undefined)) {
      throw invalidRequest(`An ${row.transport} server has no command, args or env`, 'command');
    }
    let secretEnv = row.secret_env;
    let secretEnvNames = row.secret_env_names;
    if (change.secretEnv !== undefined) {
      const values = merged(this.openMap(row, 'secret_env'), validValueMap(change.secretEnv, 'secretEnv', 'env'));
      secretEnv = this.sealMap(name, 'secret_env', values);
      secretEnvNames = JSON.stringify(Object.keys(values));
    }
    let secretHeaders = row.secret_headers;
    let secretHeaderNames = row.secret_header_names;
    if (change.secretHeaders !== undefined) {
      const values = merged(this.openMap(row, 'secret_headers'), validValueMap(change.secretHeaders, 'secretHeaders', 'header'));
      secretHeaders = this.sealMap(name, 'secret_headers', values);
      secretHeaderNames = JSON.stringify(Object.keys(values));
    }
    if (change.enabled !== undefined && typeof change.enabled !== 'boolean') throw invalidRequest("'enabled' must be true or false", 'enabled');
    this.db
      .prepare(
        `UPDATE mcp_servers SET command = ?, args = ?, env = ?, secret_env_names = ?, secret_env = ?, url = ?, headers = ?, secret_header_names = ?, secret_headers = ?,
           enabled = ?, timeout_ms = ?, disabled_tools = ?, updated_at = ? WHERE name = ?`,
      )
      .run(
        change.command === undefined ? row.command : validCommand(change.command),
        change.args === undefined ? row.args : JSON.stringify(validStringList(change.args, 'args')),
        change.env === undefined ? row.env : JSON.stringify(validValueMap(change.env, 'env', 'env')),
        secretEnvNames,
        secretEnv,
        change.url === undefined ? row.url : validUrl(change.url),
        change.headers === undefined ? row.headers : JSON.stringify(validValueMap(change.headers, 'headers', 'header')),
        secretHeaderNames,
        secretHeaders,
        change.enabled === undefined ? row.enabled : change.enabled ? 1 : 0,
        change.timeoutMs === undefined ? row.timeout_ms : validTimeout(change.timeoutMs),
        change.disabledTools === undefined ? row.disabled_tools : JSON.stringify(validStringList(change.disabledTools, 'disabledTools')),
        Date.now(),
        name,
      );
    this.notify();
    return this.get(name);
  }

  remove(name: string): void {
    this.row(name);
    this.db.prepare('DELETE FROM mcp_servers WHERE name = ?').run(name);
    this.notify();
  }

  connections(): McpServerConnection[] {
    return this.rows().map((row) => ({
      ...toConfig(row),
      secretEnvValues: this.openMap(row, 'secret_env'),
      secretHeaderValues: this.openMap(row, 'secret_headers'),
    }));
  }

  watch(listener: (servers: McpServerConnection[]) => void, intervalMs = 500): () => void {
    // This process's own changes reach the listener at once (notify); other processes' on the next tick.
    this.listeners.add(listener);
    const generation = this.db.prepare('SELECT value FROM mcp_server_generation WHERE id = 1');
    const read = () => (generation.get() as { value: number }).value;
    let dataVersion = this.db.pragma('data_version', { simple: true }) as number;
    let seen = read();
    const timer = setInterval(() => {
      if (!this.db.open) {
        clearInterval(timer);
        return;
      }
      try {
        const version = this.db.pragma('data_version', { simple: true }) as number;
        if (version === dataVersion) return;
        dataVersion = version;
        const current = read();
        if (current === seen) return;
        seen = current;
        listener(this.connections());
      } catch {
        // A busy or closing database: the next tick tries again.
      }
    }, intervalMs);
    timer.unref();
    return () => {
      clearInterval(timer);
      this.listeners.delete(listener);
    };
  }

  private notify(): void {
    if (this.listeners.size === 0) return;
    const servers = this.connections();
    for (const listener of this.listeners) listener(servers);
  }

  private sealMap(name: string, field: SecretField, values: Record<string, string>): Buffer | null {
    return Object.keys(values).length === 0 ? null : this.sealer.seal(context(name, field), JSON.stringify(values));
  }

  private openMap(row: McpServerRow, field: SecretField): Record<string, string> {
    const sealed = row[field];
    if (!sealed) return {};
    try {
      return JSON.parse(this.sealer.open(context(row.name, field), sealed)) as Record<string, string>;
    } catch (error) {
      throw new GatewayError(500, 'api_error', `The sealed secrets of MCP server '${row.name}' cannot be opened (${(error as Error).message}); set them again.`);
    }
  }

  private rows(): McpServerRow[] {
    return this.db.prepare('SELECT * FROM mcp_servers ORDER BY name').all() as McpServerRow[];
  }

  private row(name: string): McpServerRow {
    const row = this.db.prepare('SELECT * FROM mcp_servers WHERE name = ?').get(name) as McpServerRow | undefined;
    if (!row) throw new GatewayError(404, 'not_found_error', `No MCP server named '${name}'`, 'name');
    return row;
  }
}
