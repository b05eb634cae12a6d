// What MCP a key may use, as the key store keeps it and the admin API and the CLI set it: which servers
// (`mcpServers`), which tools of them (`mcpTools`), and what a key with no server list gets (`mcpDefault`,
// else the global setting `mcpKeyDefault`). The rule that reads these on every message is mcp/access.ts.
import { invalidRequest } from './errors.js';
import { validMcpServerList, validServerName } from './mcp-servers.js';

/** What a key whose server list was never set may use: every server, or none until allowed. */
export type McpDefault = 'allow' | 'deny';
export const MCP_DEFAULTS: readonly McpDefault[] = ['allow', 'deny'];

/** Server → the tool names a key may list and call there; a server not named keeps all its tools. */
export type McpToolGrant = Readonly<Record<string, readonly string[]>>;

/** The MCP fields of a key's Caller (absent = not set). */
export interface McpAccess {
  /** The MCP servers the key may use; absent = the key's default (mcpDefault, else the global one). */
  mcpServers?: readonly string[];
  /** Per server, the tools the key may use; absent = every tool of its servers. */
  mcpTools?: McpToolGrant;
  /** The key's own default; absent = the global setting `mcpKeyDefault`. */
  mcpDefault?: McpDefault;
}

/** The MCP fields of a key as the admin API and the CLI show them (null = not set). */
export interface McpAccessSummary {
  mcpServers: string[] | null;
  mcpTools: Record<string, string[]> | null;
  mcpDefault: McpDefault | null;
}

/** A change of some of them (a field absent stays as it is). */
export type McpAccessChange = Partial<McpAccessSummary>;

const MAX_SERVERS = 200;
const MAX_TOOLS_PER_SERVER = 500;
/** MCP's own bound on a tool name (2025-11-25: 1 to 128 characters). */
const MAX_TOOL_NAME = 128;

/** A key's tool grant: null = every tool; else server name → distinct tool names (each server valid, each list bounded). */
export function validMcpTools(value: unknown): Record<string, string[]> | null {
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidRequest("'mcpTools' must be an object of MCP server names to lists of tool names, or null", 'mcpTools');
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_SERVERS) throw invalidRequest(`'mcpTools' may name at most ${MAX_SERVERS} servers`, 'mcpTools');
  const grant: Record<string, string[]> = {};
  for (const [server, tools] of entries) {
    try {
      validServerName(server);
    } catch {
      throw invalidRequest(`'mcpTools': '${server}' is not a valid MCP server name`, 'mcpTools');
    }
    if (!Array.isArray(tools) || tools.length > MAX_TOOLS_PER_SERVER || tools.some((tool) => typeof tool !== 'string' || tool.length === 0 || tool.length > MAX_TOOL_NAME)) {
      throw invalidRequest(`'mcpTools.${server}' must be a list of at most ${MAX_TOOLS_PER_SERVER} tool names (1 to ${MAX_TOOL_NAME} characters each)`, 'mcpTools');
    }
    grant[server] = [...new Set(tools as string[])];
  }
  return grant;
}

/** A key's own default: null = the global setting. */
export function validMcpDefault(value: unknown): McpDefault | null {
  if (value === null) return null;
  if (typeof value !== 'string' || !MCP_DEFAULTS.includes(value as McpDefault)) throw invalidRequest("'mcpDefault' must be 'allow', 'deny' or null (the global default)", 'mcpDefault');
  return value as McpDefault;
}

/** A change checked field by field; absent fields stay absent. */
export function validMcpAccessChange(change: McpAccessChange): McpAccessChange {
  return {
    ...(change.mcpServers !== undefined ? { mcpServers: validMcpServerList(change.mcpServers) } : {}),
    ...(change.mcpTools !== undefined ? { mcpTools: validMcpTools(change.mcpTools) } : {}),
    ...(change.mcpDefault !== undefined ? { mcpDefault: validMcpDefault(change.mcpDefault) } : {}),
  };
}

/** The three stored columns (SQLite and PostgreSQL alike: JSON text, NULL = not set). */
export interface McpAccessColumns {
  mcp_servers?: string | null;
  mcp_tools?: string | null;
  mcp_default?: string | null;
}

/** The stored columns as the admin API shows them. */
export function mcpAccessSummary(row: McpAccessColumns): McpAccessSummary {
  return {
    mcpServers: row.mcp_servers ? (JSON.parse(row.mcp_servers) as string[]) : null,
    mcpTools: row.mcp_tools ? (JSON.parse(row.mcp_tools) as Record<string, string[]>) : null,
    mcpDefault: row.mcp_default === 'allow' || row.mcp_default === 'deny' ? row.mcp_default : null,
  };
}

/** The stored columns as a Caller's fields (only those set). */
export function mcpAccessOfRow(row: McpAccessColumns): McpAccess {
  const { mcpServers, mcpTools, mcpDefault } = mcpAccessSummary(row);
  return { ...(mcpServers ? { mcpServers } : {}), ...(mcpTools ? { mcpTools } : {}), ...(mcpDefault ? { mcpDefault } : {}) };
}

/** The columns a checked change writes: column → stored value, only for the fields it holds. */
export function storedMcpAccess(change: McpAccessChange): Partial<Record<keyof McpAccessColumns, string | null>> {
  const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
  return {
    ...(change.mcpServers !== undefined ? { mcp_servers: json(change.mcpServers) } : {}),
    ...(change.mcpTools !== undefined ? { mcp_tools: json(change.mcpTools) } : {}),
    ...(change.mcpDefault !== undefined ? { mcp_default: change.mcpDefault } : {}),
  };
}
