// One MCP call (tools/call, resources/read, prompts/get) as a request log row: kind "mcp", the server,
// the tool (prompt name, resource URI), the key and the client tool; its arguments and result are the
// row's bodies, kept or dropped by the same "store bodies" setting. Every column is redacted the same way
// as model calls' by the log's one redaction step (core/redacted-record.ts), the server's own secret values
// (`secrets`) blanked wherever they appear: its error text, its tool output.
import { newTraceId } from '../gateway/gateway-headers.js';
import { namedSessionId } from '../gateway/agent-session.js';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { CallRecord } from '../core/call-record.js';
import type { Caller } from '../core/keys.js';
import { TIMED_OUT } from './wire.js';

/** A ProtocolError that also says which HTTP-like status its log row gets. */
export class RefusedMcpCall extends ProtocolError {
  constructor(
    readonly status: number,
    code: number,
    message: string,
  ) {
    super(code, message);
  }
}

/**
 * The status of a call's log row: 200 answered, 422 the tool's own `isError` answer, 499 cancelled by the
 * client, 504 timed out, 502 the server failed or could not be reached, or a refusal's own status (400,
 * 403, 404).
 */
export function statusOf(outcome: { result?: unknown; error?: unknown; cancelled?: boolean }): number {
  if (outcome.cancelled) return 499;
  if (outcome.error === undefined) return (outcome.result as { isError?: unknown } | undefined)?.isError === true ? 422 : 200;
  if (outcome.error instanceof RefusedMcpCall) return outcome.error.status;
  if (outcome.error instanceof ProtocolError) {
    if (outcome.error.code === TIMED_OUT) return 504;
    if (outcome.error.code === ProtocolErrorCode.InvalidParams || outcome.error.code === ProtocolErrorCode.MethodNotFound) return 400;
  }
  return 502;
}

export interface McpCallFacts {
  createdAt: number;
  startedAt: number;
  path: string;
  caller: Caller;
  server: string;
  tool: string;
  client: string | null;
  method: string;
  params: unknown;
  headers: Record<string, string | string[] | undefined>;
  result?: unknown;
  error?: unknown;
  cancelled?: boolean;
  secrets: readonly string[];
}

function errorText(facts: McpCallFacts, status: number): string | null {
  if (facts.cancelled) return 'cancelled by the client';
  if (facts.error !== undefined) return facts.error instanceof Error ? facts.error.message.replace(/^MCP error -?\d+: /, '') : String(facts.error);
  if (status === 422) {
    const content = (facts.result as { content?: { type?: string; text?: string }[] } | undefined)?.content;
    const text = content?.find((part) => part.type === 'text')?.text;
    return `the tool answered with an error${text ? `: ${text.slice(0, 500)}` : ''}`;
  }
  return null;
}

/** A 2026-07-28 request's trace context (`_meta.traceparent`), which names its agent session. */
function metaTraceparent(params: unknown): string | undefined {
  const meta = (params as { _meta?: { traceparent?: unknown } } | null | undefined)?._meta;
  return typeof meta?.traceparent === 'string' ? meta.traceparent : undefined;
}

export function mcpCallRecord(facts: McpCallFacts): CallRecord {
  const status = statusOf(facts);
  const error = facts.error;
  return {
    createdAt: facts.createdAt,
    traceId: newTraceId(),
    metadata: {},
    keyId: facts.caller.keyId,
    provider: null,
    model: null,
    path: facts.path,
    status,
    latencyMs: performance.now() - facts.startedAt,
    ttfbMs: null,
    stream: false,
    error: errorText(facts, status),
    attempts: 1,
    dialect: null,
    // Every column, the server's own secret values too, is redacted when the log takes the record (core/redacted-record.ts).
    requestHeaders: facts.headers,
    requestBody: JSON.stringify({ method: facts.method, params: facts.params }),
    responseBody:
      error !== undefined
        ? JSON.stringify({ error: { code: error instanceof ProtocolError ? error.code : ProtocolErrorCode.InternalError, message: error instanceof Error ? error.message : String(error) } })
        : facts.result === undefined
          ? null
          : JSON.stringify(facts.result),
    secrets: facts.secrets,
    mcp: { server: facts.server, tool: facts.tool, client: facts.client },
    // The id the request names, if any; else the log sink's AgentSessions joins it to its agent's session.
    sessionId: namedSessionId(facts.headers, metaTraceparent(facts.params)),
  };
}
