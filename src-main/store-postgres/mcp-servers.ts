// MCP servers in PostgreSQL (schema version 4): the same rows as SQLite's (store/mcp-server-rows.ts), the
// secrets sealed with the team's data key exactly as the SQLite store seals them, so `gatehouse migrate`
// copies them as they are. This instance's changes reach its MCP gateway at once; another instance's
// within moments of the NOTIFY 'mcp_servers' its trigger sends (open.ts calls reload()).
import type { McpOAuthChange, McpServerChange, McpServerConfig, McpServerConnection, McpServerRepository, NewMcpServer } from '../core/mcp-servers.js';
import type { ValueSealer } from '../store/keys/key-store.js';
import {
  changedMcpServerRow,
  MCP_OAUTH_COLUMNS,
  MCP_SERVER_COLUMNS,
  MCP_SETTINGS_COLUMNS,
  mcpServerNameTaken,
  mcpServerNotFound,
  newMcpServerRow,
  oauthColumns,
  toConfig,
  toConnection,
  type McpServerRow,
} from '../store/mcp-server-rows.js';
import { bytes, type PgBridge } from './pg-bridge.js';

const SELECT_ALL = 'SELECT * FROM mcp_servers ORDER BY name';
const INSERT = `INSERT INTO mcp_servers (${MCP_SERVER_COLUMNS.join(', ')}) VALUES (${MCP_SERVER_COLUMNS.map((_, index) => `$${index + 1}`).join(', ')})
  ON CONFLICT (name) DO NOTHING RETURNING name`;
const CHANGED = MCP_SETTINGS_COLUMNS;
const UPDATE = `UPDATE mcp_servers SET ${CHANGED.map((column, index) => `${column} = $${index + 1}`).join(', ')} WHERE name = $${CHANGED.length + 1} RETURNING name`;
const SAVE_OAUTH = `UPDATE mcp_servers SET ${[...MCP_OAUTH_COLUMNS, 'updated_at'].map((column, index) => `${column} = $${index + 1}`).join(', ')} WHERE name = $${MCP_OAUTH_COLUMNS.length + 2} RETURNING name`;

/** A row as the bridge hands it over (bytea as bytes of any kind) in the shape the shared row code reads. */
function mcpRow(row: Record<string, unknown>): McpServerRow {
  return {
    ...(row as unknown as McpServerRow),
    secret_env: row.secret_env == null ? null : bytes(row.secret_env),
    secret_headers: row.secret_headers == null ? null : bytes(row.secret_headers),
    oauth_grant: row.oauth_grant == null ? null : bytes(row.oauth_grant),
    oauth_expires_at: row.oauth_expires_at == null ? null : Number(row.oauth_expires_at),
  };
}

export class PgMcpServerStore implements McpServerRepository {
  private readonly listeners = new Set<(servers: McpServerConnection[]) => void>();
  /** Bumped per read for the listeners: a slower reload started earlier never replaces a newer read. */
  private reads = 0;
  private applied = 0;

  constructor(
    private readonly bridge: PgBridge,
    private readonly sealer: ValueSealer,
  ) {}

  async list(): Promise<McpServerConfig[]> {
    return (await this.rows()).map(toConfig);
  }

  async get(name: string): Promise<McpServerConfig> {
    return toConfig(await this.row(name));
  }

  async create(input: NewMcpServer): Promise<McpServerConfig> {
    const row = newMcpServerRow(input, this.sealer);
    // One statement decides: two instances adding the same name at once get one row and one 409.
    const inserted = await this.bridge.queryForAdmin(INSERT, MCP_SERVER_COLUMNS.map((column) => row[column]));
    if (inserted.length === 0) throw mcpServerNameTaken(row.name);
    await this.afterChange();
    return this.get(row.name);
  }

  async update(name: string, change: McpServerChange): Promise<McpServerConfig> {
    const row = changedMcpServerRow(await this.row(name), change, this.sealer);
    const updated = await this.bridge.queryForAdmin(UPDATE, [...CHANGED.map((column) => row[column]), name]);
    if (updated.length === 0) throw mcpServerNotFound(name);
    await this.afterChange();
    return this.get(name);
  }

  async remove(name: string): Promise<void> {
    if ((await this.bridge.queryForAdmin('DELETE FROM mcp_servers WHERE name = $1 RETURNING name', [name])).length === 0) throw mcpServerNotFound(name);
    await this.afterChange();
  }

  async saveOAuth(name: string, change: McpOAuthChange): Promise<void> {
    const columns = oauthColumns(name, change, this.sealer);
    const saved = await this.bridge.queryForAdmin(SAVE_OAUTH, [...MCP_OAUTH_COLUMNS.map((column) => columns[column]), Date.now(), name]);
    if (saved.length === 0) throw mcpServerNotFound(name);
    await this.afterChange();
  }

  async connections(): Promise<McpServerConnection[]> {
    return (await this.rows()).map((row) => toConnection(row, this.sealer));
  }

  /** Listeners hear this instance's changes at once and other instances' on reload(); the interval is SQLite's business. */
  watch(listener: (servers: McpServerConnection[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Rereads the servers off this thread (another instance changed them, or PostgreSQL is back) and tells the listeners. */
  async reload(): Promise<void> {
    if (this.listeners.size === 0) return;
    const ticket = ++this.reads;
    const rows = (await this.bridge.query(SELECT_ALL)).map(mcpRow);
    if (ticket < this.applied) return;
    this.publish(ticket, rows);
  }

  // ---- internals ----

  private async afterChange(): Promise<void> {
    if (this.listeners.size === 0) return;
    const ticket = ++this.reads;
    const rows = await this.rows();
    if (ticket < this.applied) return;
    this.publish(ticket, rows);
  }

  private publish(ticket: number, rows: McpServerRow[]): void {
    this.applied = ticket;
    const servers = rows.map((row) => toConnection(row, this.sealer));
    for (const listener of this.listeners) listener(servers);
  }

  private async rows(): Promise<McpServerRow[]> {
    return (await this.bridge.queryForAdmin(SELECT_ALL)).map(mcpRow);
  }

  private async row(name: string): Promise<McpServerRow> {
    const row = (await this.bridge.queryForAdmin('SELECT * FROM mcp_servers WHERE name = $1', [name]))[0];
    if (!row) throw mcpServerNotFound(name);
    return mcpRow(row);
  }
}
