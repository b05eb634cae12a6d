// Agent sessions read from the request log (core/agent-sessions.ts), on SQLite; the walk and the shapes are
// shared with PostgreSQL (store-postgres/sessions.ts), which gives the same three reads in its own SQL.
// The newest sessions: the log's session rows walked newest first on a covering index (time, session, key,
// client; migration 22), a chunk at a time, until enough distinct sessions are seen; then each one's
// totals and first call from the other covering index (session, time, and the figures summed). So a
// list costs the rows of the sessions it shows, not the log.
import type { SqliteDatabase } from './database.js';
import type { AttemptRecord } from '../core/call-record.js';
import {
  DEFAULT_SESSIONS,
  MAX_SESSION_CALLS,
  MAX_SESSIONS,
  type SessionCall,
  type SessionDetail,
  type SessionQuery,
  type SessionRepository,
  type SessionSummary,
} from '../core/agent-sessions.js';

/** Session rows, newest first: what the walk reads. */
export interface SeenRow {
  session_id: string;
  created_at: number;
  id: number;
}

/** One session's sums, as both backends select them (numbers as numbers). */
export interface TotalsRow {
  id: string;
  first_at: number;
  last_end: number;
  model_calls: number;
  tool_calls: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number | null;
  key_id: string | null;
  client: string | null;
}

export interface CallRow {
  id: number | string;
  kind: string | null;
  created_at: number;
  status: number;
  latency_ms: number;
  ttfb_ms: number | null;
  error: string | null;
  model: string | null;
  served_model: string | null;
  provider: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  cost_usd: number | null;
  attempts: number;
  route_target: string | null;
  attempt_log: string | null;
  mcp_server: string | null;
  mcp_tool: string | null;
}

/** What a backend reads; the rest (the walk, the shapes, the gaps) is shared. */
export interface SessionReads {
  /** Session rows matching the filters, before (created_at, id), newest first. */
  seen(query: SessionQuery, before: { at: number; id: number }, limit: number): Promise<SeenRow[]>;
  /** Whether the session has a row matching the filters after `at` (it was listed on an earlier page). */
  seenAfter(sessionId: string, query: SessionQuery, at: number): Promise<boolean>;
  totals(ids: readonly string[]): Promise<TotalsRow[]>;
  calls(id: string, limit: number): Promise<CallRow[]>;
}

/** Rows read per chunk of the walk. */
const CHUNK = 2000;

export function toSummary(row: TotalsRow): SessionSummary {
  return {
    id: row.id,
    client: row.client,
    keyId: row.key_id,
    startedAt: new Date(Number(row.first_at)).toISOString(),
    durationMs: Math.max(0, Math.round(Number(row.last_end) - Number(row.first_at))),
    modelCalls: Number(row.model_calls),
    toolCalls: Number(row.tool_calls),
    errors: Number(row.errors),
    promptTokens: Number(row.prompt_tokens),
    completionTokens: Number(row.completion_tokens),
    costUsd: row.cost_usd === null ? null : Number(row.cost_usd),
  };
}

/** The newest sessions matching the query: walked as the file's head says. */
export async function listSessions(reads: SessionReads, query: SessionQuery): Promise<{ items: SessionSummary[]; next: number | null }> {
  const limit = Math.min(Math.max(1, query.limit ?? DEFAULT_SESSIONS), MAX_SESSIONS);
  // Each session once, at its newest matching row: the order they are listed in.
  const found = new Map<string, number>();
  let cursor = { at: query.before ?? Number.MAX_SAFE_INTEGER, id: Number.MAX_SAFE_INTEGER };
  // A session that has matching rows after the cursor was listed on an earlier page.
  const listedBefore = new Set<string>();
  while (found.size <= limit) {
    const rows = await reads.seen(query, cursor, CHUNK);
    for (const row of rows) {
      const id = row.session_id;
      if (found.has(id) || listedBefore.has(id)) continue;
      if (query.before !== undefined && (await reads.seenAfter(id, query, query.before))) {
        listedBefore.add(id);
        continue;
      }
      found.set(id, Number(row.created_at));
      if (found.size > limit) break;
    }
    if (rows.length < CHUNK) break;
    const last = rows[rows.length - 1];
    cursor = { at: Number(last.created_at), id: Number(last.id) };
  }
  const ids = [...found.keys()];
  const shown = ids.slice(0, limit);
  const totals = new Map((await reads.totals(shown)).map((row) => [row.id, row]));
  const items = shown.map((id) => totals.get(id)).filter((row): row is TotalsRow => row !== undefined).map(toSummary);
  return { items, next: ids.length > limit ? found.get(ids[limit])! : null };
}

function toCall(row: CallRow, gapMs: number): SessionCall {
  const mcp = row.kind === 'mcp';
  return {
    id: String(row.id),
    kind: mcp ? 'mcp' : 'model',
    createdAt: new Date(Number(row.created_at)).toISOString(),
    gapMs,
    status: row.status,
    latencyMs: Number(row.latency_ms),
    ttfbMs: row.ttfb_ms === null ? null : Number(row.ttfb_ms),
    error: row.error,
    model: row.model,
    servedModel: row.served_model ?? row.model,
    provider: row.provider,
    promptTokens: row.prompt_tokens === null ? null : Number(row.prompt_tokens),
    completionTokens: row.completion_tokens === null ? null : Number(row.completion_tokens),
    costUsd: row.cost_usd === null ? null : Number(row.cost_usd),
    attempts: row.attempts,
    routeTarget: row.route_target,
    attemptLog: row.attempt_log ? (JSON.parse(row.attempt_log) as AttemptRecord[]) : [],
    server: mcp ? row.mcp_server : null,
    tool: mcp ? row.mcp_tool : null,
  };
}

/** One session: its sums and its calls in the order they started, each with the idle time before it. */
export async function getSession(reads: SessionReads, id: string): Promise<SessionDetail | undefined> {
  const [totals] = await reads.totals([id]);
  if (!totals) return undefined;
  const rows = await reads.calls(id, MAX_SESSION_CALLS + 1);
  let endedAt = -Infinity;
  const calls = rows.slice(0, MAX_SESSION_CALLS).map((row) => {
    const start = Number(row.created_at);
    const call = toCall(row, endedAt === -Infinity ? 0 : Math.max(0, Math.round(start - endedAt)));
    endedAt = Math.max(endedAt, start + Number(row.latency_ms));
    return call;
  });
  return { ...toSummary(totals), calls, truncated: rows.length > MAX_SESSION_CALLS };
}

/** The filters as SQL conditions on request_log, with `?` placeholders (PostgreSQL numbers them). */
export function sessionFilters(query: SessionQuery): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (query.key !== undefined) (where.push('key_id = ?'), params.push(query.key));
  if (query.client !== undefined) (where.push('client = ?'), params.push(query.client));
  if (query.since !== undefined) (where.push('created_at >= ?'), params.push(query.since));
  if (query.until !== undefined) (where.push('created_at < ?'), params.push(query.until));
  return { where, params };
}

/** The sums of sessions, and each one's first call's key and client (both backends' SQL). */
export const TOTALS_SELECT = `SELECT session_id AS id, min(created_at) AS first_at, max(created_at + latency_ms) AS last_end,
  sum(CASE WHEN kind IS NULL THEN 1 ELSE 0 END) AS model_calls, sum(CASE WHEN kind = 'mcp' THEN 1 ELSE 0 END) AS tool_calls,
  sum(CASE WHEN status >= 400 THEN 1 ELSE 0 END) AS errors, coalesce(sum(prompt_tokens), 0) AS prompt_tokens,
  coalesce(sum(completion_tokens), 0) AS completion_tokens, sum(cost_usd) AS cost_usd,
  (SELECT f.key_id FROM request_log f WHERE f.session_id = request_log.session_id ORDER BY f.created_at LIMIT 1) AS key_id,
  (SELECT f.client FROM request_log f WHERE f.session_id = request_log.session_id ORDER BY f.created_at LIMIT 1) AS client
  FROM request_log`;

export const CALL_COLUMNS = `id, kind, created_at, status, latency_ms, ttfb_ms, error, model, served_model, provider, prompt_tokens, completion_tokens,
  cost_usd, attempts, route_target, attempt_log, mcp_server, mcp_tool`;

/** The SQLite reads. Synchronous underneath: a read of one page's sessions is milliseconds on the serving thread. */
export class SqliteSessions implements SessionRepository {
  private readonly reads: SessionReads;

  constructor(db: SqliteDatabase) {
    this.reads = {
      seen: async (query, before, limit) => {
        const { where, params } = sessionFilters(query);
        return db
          .prepare(`SELECT session_id, created_at, id FROM request_log INDEXED BY request_log_session_recent
            WHERE session_id IS NOT NULL AND (created_at, id) < (?, ?) ${where.map((w) => `AND ${w}`).join(' ')} ORDER BY created_at DESC, id DESC LIMIT ?`)
          .all(before.at, before.id, ...params, limit) as SeenRow[];
      },
      seenAfter: async (sessionId, query, at) => {
        const { where, params } = sessionFilters(query);
        return (
          db.prepare(`SELECT 1 FROM request_log WHERE session_id = ? AND created_at > ? ${where.map((w) => `AND ${w}`).join(' ')} LIMIT 1`).get(sessionId, at, ...params) !==
          undefined
        );
      },
      totals: async (ids) =>
        ids.length === 0 ? [] : (db.prepare(`${TOTALS_SELECT} WHERE session_id IN (${ids.map(() => '?').join(', ')}) GROUP BY session_id`).all(...ids) as TotalsRow[]),
      calls: async (id, limit) => db.prepare(`SELECT ${CALL_COLUMNS} FROM request_log WHERE session_id = ? ORDER BY created_at, id LIMIT ?`).all(id, limit) as CallRow[],
    };
  }

  list(query: SessionQuery): Promise<{ items: SessionSummary[]; next: number | null }> {
    return listSessions(this.reads, query);
  }

  get(id: string): Promise<SessionDetail | undefined> {
    return getSession(this.reads, id);
  }
}
