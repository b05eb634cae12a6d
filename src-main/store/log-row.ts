// A request log row as SQLite stores it: its columns, the positional values a row is written with, and
// the entry the admin API reads back from it.
import type { LogEntry } from '../core/log-store.js';
import { splitTargetLabel } from '../core/routes/changes.js';

export interface Row {
  id: number;
  created_at: number;
  trace_id: string;
  metadata: string;
  key_id: string | null;
  provider: string | null;
  model: string | null;
  /** The model the provider was sent (migration 18). */
  served_model?: string | null;
  path: string;
  status: number;
  latency_ms: number;
  ttfb_ms: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  stream: number;
  error: string | null;
  attempts: number;
  /** What the row was written with. */
  dialect_given: string | null;
  /** dialect_given, or for rows older than migration 6 the dialect their path names (a generated column). */
  dialect?: string | null;
  provider_format: string | null;
  /** JSON array of field names; NULL when nothing was dropped. */
  dropped: string | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
  route: string | null;
  route_target: string | null;
  target_key_id?: string | null;
  /** NULL = 1 (migration 12). */
  request_count: number | null;
  /** 1: the usage is the gateway's own count (migration 16); NULL: as the provider reported it. */
  usage_estimated?: number | null;
  /** 'mcp' or NULL (a model call), and the MCP call's server and tool (migration 14). */
  kind?: string | null;
  mcp_server?: string | null;
  mcp_tool?: string | null;
  cost_usd: number | null;
  /** The agent session (migration 22); NULL on older rows. */
  session_id?: string | null;
  client: string | null;
  attempt_log: string | null;
  request_headers: string | null;
  request_body: string | null;
  response_body: string | null;
}

/** The columns of a written row, in the order of {@link RowValues}. */
const ROW_COLUMNS = [
  'created_at', 'trace_id', 'metadata', 'key_id', 'provider', 'model', 'path', 'status', 'latency_ms', 'ttfb_ms',
  'prompt_tokens', 'completion_tokens', 'stream', 'error', 'attempts', 'attempt_log', 'request_headers', 'request_body', 'response_body',
  'dialect_given', 'provider_format', 'dropped', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'cost_usd', 'client', 'day', 'route', 'route_target', 'target_key_id',
  'request_count', 'usage_estimated', 'kind', 'mcp_server', 'mcp_tool', 'served_model', 'session_id',
] as const;

/** One row's values, positional: cheaper than an object to build, to bind and to hand to another thread. */
export type RowValues = (string | number | null)[];

export const INSERT_ROW = `INSERT INTO request_log (${ROW_COLUMNS.join(', ')}) VALUES (${ROW_COLUMNS.map(() => '?').join(', ')})`;

/** Each written column's place in {@link RowValues}. */
export const COLUMN_INDEX = Object.fromEntries(ROW_COLUMNS.map((column, index) => [column, index])) as Record<(typeof ROW_COLUMNS)[number], number>;

// Qualified: a text search joins the search index, whose columns share some of these names.
export const LIST_COLUMNS = ['id', 'created_at', 'trace_id', 'metadata', 'provider', 'model', 'path', 'status', 'latency_ms', 'ttfb_ms', 'prompt_tokens', 'completion_tokens', 'stream', 'error', 'attempts',
  'dialect', 'provider_format', 'dropped', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'cost_usd', 'client', 'route', 'route_target', 'request_count', 'usage_estimated', 'key_id',
  'kind', 'mcp_server', 'mcp_tool', 'served_model', 'session_id']
  .map((column) => `request_log.${column}`)
  .join(', ');

/** The served model; for rows from before it was kept, the route target's model, else the model asked for (as migrations.ts dimensionValue). */
function servedModelOf(row: Row): string | null {
  if (row.served_model) return row.served_model;
  const target = row.route_target ? splitTargetLabel(row.route_target).model : '';
  return target || row.model;
}

export function toEntry(row: Row): LogEntry {
  return {
    id: String(row.id),
    createdAt: new Date(row.created_at).toISOString(),
    traceId: row.trace_id,
    metadata: JSON.parse(row.metadata) as Record<string, string>,
    provider: row.provider,
    model: row.model,
    servedModel: servedModelOf(row),
    path: row.path,
    status: row.status,
    latencyMs: row.latency_ms,
    ttfbMs: row.ttfb_ms,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    cacheReadTokens: row.cache_read_tokens ?? null,
    cacheWriteTokens: row.cache_write_tokens ?? null,
    reasoningTokens: row.reasoning_tokens ?? null,
    costUsd: row.cost_usd ?? null,
    client: row.client ?? null,
    stream: row.stream === 1,
    error: row.error,
    attempts: row.attempts,
    // Rows built from written values (for the listeners) have no generated column.
    dialect: row.dialect ?? row.dialect_given ?? null,
    providerFormat: row.provider_format ?? null,
    dropped: row.dropped ? (JSON.parse(row.dropped) as string[]) : [],
    route: row.route ?? null,
    routeTarget: row.route_target ?? null,
    count: row.request_count ?? 1,
    usageEstimated: row.usage_estimated === 1,
    keyId: row.key_id ?? null,
    kind: row.kind === 'mcp' ? 'mcp' : 'model',
    server: row.mcp_server ?? null,
    tool: row.mcp_tool ?? null,
    sessionId: row.session_id ?? null,
  };
}

/** The row the listeners are told of, from the values just written and the id they got. */
export function rowFromValues(id: number, values: RowValues): Row {
  const row: Record<string, unknown> = { id };
  ROW_COLUMNS.forEach((column, index) => {
    row[column] = values[index];
  });
  return row as unknown as Row;
}

