// The agent session each call belongs to, given once to every log row as the log takes it (app.ts's one
// log sink: /v1 calls, MCP calls, a WebSocket's turns alike). What real tools send is in
// docs/agent-sessions.md. The rule, first match wins:
//   1. An id the request names: `x-gateway-trace-id` as the client sent it, a W3C `traceparent`'s trace id
//      (the header, or an MCP request's `_meta.traceparent`), then the tool's own header (Claude Code's
//      `x-claude-code-session-id`, Codex's `session-id`, OpenCode's `x-session-id`).
//   2. An MCP call of an MCP session (`Mcp-Session-Id`) seen before: that session's calls stay together.
//   3. The session of the same key and client tool (read from the user-agent) whose last call ended at most
//      SESSION_IDLE_MS before this one started: an agent's MCP tool calls (no tool ties them to its model
//      calls) and the calls of tools that name nothing (Gemini CLI).
//   4. Else a new session.
// A row without an accepted key belongs to no session. The open sessions are kept in this process only
// (team instances behind a balancer each keep their own), bounded to MAX_OPEN of each.
import { randomUUID } from 'node:crypto';
import type { CallRecord } from '../core/call-record.js';

/** How long an agent may sit idle (thinking, waiting for its person) and its next call still join the same session. */
export const SESSION_IDLE_MS = 30 * 60_000;
/** Open sessions remembered (key + client tool slots, MCP sessions): the oldest go first beyond it. */
const MAX_OPEN = 10_000;
/** A client-named id is stored and grouped by: short, plain characters only (anything else is not taken as an id). */
const NAMED_ID = /^[A-Za-z0-9._:@-]{1,128}$/;
/** W3C trace context: version-traceid-parentid-flags. */
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;
const ZERO_TRACE = '0'.repeat(32);
/** The tools' own session headers, in the order they are read. */
const TOOL_SESSION_HEADERS = ['x-claude-code-session-id', 'session-id', 'x-session-id'] as const;

type Headers = Readonly<Record<string, string | string[] | undefined>>;

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A W3C `traceparent`'s trace id, or null when it is not one (an all-zero trace id is invalid). */
export function traceIdOf(traceparent: string | undefined): string | null {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent.trim().toLowerCase());
  return match && match[1] !== ZERO_TRACE ? match[1] : null;
}

function named(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed !== undefined && NAMED_ID.test(trimmed) ? trimmed : null;
}

/**
 * The session a request names itself (rule 1), or null. `metaTraceparent`: an MCP request's
 * `_meta.traceparent` (2026-07-28), read like the header. What a WebSocket's turns call with their upgrade's headers.
 */
export function namedSessionId(headers: Headers, metaTraceparent?: string): string | null {
  const gatewayTrace = named(single(headers['x-gateway-trace-id']));
  if (gatewayTrace) return gatewayTrace;
  const trace = traceIdOf(single(headers.traceparent)) ?? traceIdOf(metaTraceparent);
  if (trace) return trace;
  for (const name of TOOL_SESSION_HEADERS) {
    const id = named(single(headers[name]));
    if (id) return id;
  }
  return null;
}

interface Open {
  sessionId: string;
  /** Epoch ms the session's last call ended. */
  lastAt: number;
}

/** A Map as a bounded recency list: a key set again moves to the end; beyond the bound the oldest go. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_OPEN) map.delete(map.keys().next().value!);
}

export class AgentSessions {
  /** key id + client tool → its latest session. */
  private readonly slots = new Map<string, Open>();
  /** Mcp-Session-Id → the session its first logged call joined. */
  private readonly mcpSessions = new Map<string, string>();

  constructor(
    /** The client tool of a user-agent (store/usage-client.ts clientOf), so an agent's MCP calls meet its model calls. */
    private readonly clientOf: (userAgent: string | undefined) => string,
    private readonly idleMs: number = SESSION_IDLE_MS,
  ) {}

  /**
   * The session of one finished call. `named`: an id its maker read already (an MCP call's `_meta`); else
   * its headers are read. Calls are told in the order they finish; `createdAt` is when it started.
   */
  sessionOf(call: { keyId: string | null; createdAt: number; latencyMs: number; requestHeaders: Headers; named?: string | null }): string | null {
    if (call.keyId === null) return null;
    const headers = call.requestHeaders;
    const slot = `${call.keyId}\u0000${this.clientOf(single(headers['user-agent']))}`;
    const mcpSession = single(headers['mcp-session-id']);
    const open = this.slots.get(slot);
    const endedAt = call.createdAt + Math.max(0, call.latencyMs);
    const named = call.named ?? namedSessionId(headers);
    // An MCP connection opened by an earlier run stays with it: it does not make that run the slot's again.
    const ofMcpSession = named === null && mcpSession !== undefined ? this.mcpSessions.get(mcpSession) : undefined;
    if (ofMcpSession !== undefined) {
      if (open?.sessionId === ofMcpSession) open.lastAt = Math.max(open.lastAt, endedAt);
      return ofMcpSession;
    }
    const sessionId = named ?? (open !== undefined && call.createdAt - open.lastAt <= this.idleMs ? open.sessionId : randomUUID());
    remember(this.slots, slot, { sessionId, lastAt: open?.sessionId === sessionId ? Math.max(open.lastAt, endedAt) : endedAt });
    if (mcpSession !== undefined && NAMED_ID.test(mcpSession)) remember(this.mcpSessions, mcpSession, sessionId);
    return sessionId;
  }

  /** The record with its session: what the log sink hands on. */
  stamp(record: CallRecord): CallRecord {
    return { ...record, sessionId: this.sessionOf({ ...record, named: record.sessionId }) };
  }
}
