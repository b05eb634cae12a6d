// MCP servers in SQLite (migration 14): rows as mcp-server-rows.ts builds them (plain settings as JSON,
// secret env values and headers sealed to the data key through the key store's ValueSealer, their names
// kept in the clear for display). A running server is told of every change, whoever made it.
import type { McpOAuthChange, McpServerChange, McpServerConfig, McpServerConnection, McpServerRepository, NewMcpServer } from '../core/mcp-servers.js';
import type { SqliteDatabase } from './database.js';
import type { ValueSealer } from './keys/key-store.js';
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
} from './mcp-server-rows.js';

const INSERT = `INSERT INTO mcp_servers (${MCP_SERVER_COLUMNS.join(', ')}) VALUES (${MCP_SERVER_COLUMNS.map((column) => `@${column}`).join(', ')})`;
const UPDATE = `UPDATE mcp_servers SET ${MCP_SETTINGS_COLUMNS.map((column) => `${column} = @${column}`).join(', ')} WHERE name = @name`;
const SAVE_OAUTH = `UPDATE mcp_servers SET ${MCP_OAUTH_COLUMNS.map((column) => `${column} = @${column}`).join(', ')}, updated_at = @updated_at WHERE name = @name`;

export class McpServerStore implements McpServerRepository {
  private readonly listeners = new Set<(servers: McpServerConnection[]) => void>();

  constructor(
    private readonly db: SqliteDatabase,
    private readonly sealer: ValueSealer,
  ) {}

  async list(): Promise<McpServerConfig[]> {
    return this.rows().map(toConfig);
  }

  async get(name: string): Promise<McpServerConfig> {
    return toConfig(this.row(name));
  }

  async create(input: NewMcpServer): Promise<McpServerConfig> {
    const row = newMcpServerRow(input, this.sealer);
    if (this.db.prepare('SELECT 1 FROM mcp_servers WHERE name = ?').get(row.name)) throw mcpServerNameTaken(row.name);
    this.db.prepare(INSERT).run(row);
    this.notify();
    return toConfig(this.row(row.name));
  }

  async update(name: string, change: McpServerChange): Promise<McpServerConfig> {
    this.db.prepare(UPDATE).run(changedMcpServerRow(this.row(name), change, this.sealer));
    this.notify();
    return toConfig(this.row(name));
  }

  async remove(name: string): Promise<void> {
    this.row(name);
    this.db.prepare('DELETE FROM mcp_servers WHERE name = ?').run(name);
    this.notify();
  }

  async saveOAuth(name: string, change: McpOAuthChange): Promise<void> {
    this.row(name);
    this.db.prepare(SAVE_OAUTH).run({ name, ...oauthColumns(name, change, this.sealer), updated_at: Date.now() });
    this.notify();
  }

  async connections(): Promise<McpServerConnection[]> {
    return this.openedRows();
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
        listener(this.openedRows());
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
    const servers = this.openedRows();
    for (const listener of this.listeners) listener(servers);
  }

  private openedRows(): McpServerConnection[] {
    return this.rows().map((row) => toConnection(row, this.sealer));
  }

  private rows(): McpServerRow[] {
    return this.db.prepare('SELECT * FROM mcp_servers ORDER BY name').all() as McpServerRow[];
  }

  private row(name: string): McpServerRow {
    const row = this.db.prepare('SELECT * FROM mcp_servers WHERE name = ?').get(name) as McpServerRow | undefined;
    if (!row) throw mcpServerNotFound(name);
    return row;
  }
}
