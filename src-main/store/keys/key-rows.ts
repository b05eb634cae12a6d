// The key tables' rows as SQLite holds them, and the summaries the admin API and the CLI show of them.
import { mcpAccessSummary, type McpAccessColumns } from '../../core/mcp-access.js';
import type { CredentialValues, GatewayKeySummary, VirtualKeySummary } from '../../core/key-repository.js';

/** Both kinds carry the MCP access columns (mcp_servers, migration 14; mcp_tools and mcp_default, 19). */
export interface VirtualKeyRow extends McpAccessColumns {
  id: string;
  name: string;
  provider: string;
  custom_host: string | null;
  key_hash: Buffer;
  key_prefix: string;
  settings: string;
  credentials: Buffer | null;
  created_at: number;
  updated_at: number;
  revoked_at: number | null;
  default_model: string | null;
  /** JSON object; NULL when empty. */
  model_map: string | null;
  allow_routing: number;
  chat_only: number;
}

export interface GatewayKeyRow extends McpAccessColumns {
  id: string;
  name: string;
  key_hash: Buffer;
  key_prefix: string;
  created_at: number;
  updated_at: number;
  revoked_at: number | null;
}

const isoTime = (ms: number) => new Date(ms).toISOString();
const isoTimeOrNull = (ms: number | null) => (ms === null ? null : isoTime(ms));

export function virtualKeySummary(row: VirtualKeyRow, lastUsedAt: number | null): VirtualKeySummary {
  return {
    id: row.id,
    name: row.name,
    provider: row.provider,
    customHost: row.custom_host,
    keyPrefix: row.key_prefix,
    settings: JSON.parse(row.settings) as CredentialValues,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
    revokedAt: isoTimeOrNull(row.revoked_at),
    lastUsedAt: isoTimeOrNull(lastUsedAt),
    defaultModel: row.default_model ?? null,
    modelMap: row.model_map ? (JSON.parse(row.model_map) as Record<string, string>) : {},
    allowRouting: row.allow_routing === 1,
    chatOnly: row.chat_only === 1,
    ...mcpAccessSummary(row),
  };
}

export function gatewayKeySummary(row: GatewayKeyRow, lastUsedAt: number | null): GatewayKeySummary {
  return {
    id: row.id,
    name: row.name,
    keyPrefix: row.key_prefix,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
    revokedAt: isoTimeOrNull(row.revoked_at),
    lastUsedAt: isoTimeOrNull(lastUsedAt),
    ...mcpAccessSummary(row),
  };
}
