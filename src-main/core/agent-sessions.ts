// Agent sessions as the admin API reads them: a session is the log rows that share a session id
// (gateway/agent-session.ts gives each row one), summed, and one session's calls in order with the gaps
// between them. Each backend answers from its request log (store/session-queries.ts, store-postgres/sessions.ts).
import type { AttemptRecord } from './call-record.js';

/** Sessions newest first (by their latest call); the filters pick sessions with at least one matching call. */
export interface SessionQuery {
  /** At most this many sessions (1 to 200; default 50). */
  limit?: number;
  /** The `next` cursor: sessions whose latest call is before it (epoch ms). */
  before?: number;
  /** The caller's key id. */
  key?: string;
  /** The client tool (store/usage-client.ts: claude-cli, codex …). */
  client?: string;
  /** Epoch ms: only sessions with a call at or after it / before it. */
  since?: number;
  until?: number;
}

export interface SessionSummary {
  id: string;
  /** The client tool of its first model call (else of its first call). */
  client: string | null;
  /** The key of its first call. */
  keyId: string | null;
  startedAt: string;
  /** From its first call's start to its last call's end. */
  durationMs: number;
  modelCalls: number;
  toolCalls: number;
  /** Calls answered with a status of 400 or more. */
  errors: number;
  promptTokens: number;
  completionTokens: number;
  /** USD over the calls that were priced; null when none was. */
  costUsd: number | null;
}

/** One call of a session, in the order they started. */
export interface SessionCall {
  /** Its log entry (GET /admin/api/logs/{id}). */
  id: string;
  kind: 'model' | 'mcp';
  createdAt: string;
  /** Since the calls before it had all ended (the agent or its person thinking); 0 when it overlapped one. */
  gapMs: number;
  status: number;
  latencyMs: number;
  ttfbMs: number | null;
  error: string | null;
  /** Model calls: what was asked for and what served it, its usage, cost and provider attempts. */
  model: string | null;
  servedModel: string | null;
  provider: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  costUsd: number | null;
  attempts: number;
  routeTarget: string | null;
  attemptLog: AttemptRecord[];
  /** MCP calls: the server and tool. */
  server: string | null;
  tool: string | null;
}

export interface SessionDetail extends SessionSummary {
  calls: SessionCall[];
  /** More calls than MAX_SESSION_CALLS: the first ones are listed. */
  truncated: boolean;
}

/** One session's answer lists at most this many calls: a client may name one id for every call it makes. */
export const MAX_SESSION_CALLS = 5000;
export const DEFAULT_SESSIONS = 50;
export const MAX_SESSIONS = 200;

export interface SessionRepository {
  list(query: SessionQuery): Promise<{ items: SessionSummary[]; next: number | null }>;
  get(id: string): Promise<SessionDetail | undefined>;
}
