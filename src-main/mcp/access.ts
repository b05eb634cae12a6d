// Authorization on every message of /mcp and /mcp/{server}. A session never keeps the authorization it
// had at `initialize`: it keeps how to find its key (SessionKey), and every check reads the key as it is
// now, in memory, as the key store holds it (changed by the admin API, the CLI, or — in team mode — another
// instance through PostgreSQL's change feed). Three places read it, each the only one of its kind:
// - authorizeMessage(): every HTTP request of a client (initialize, any request, notification or response,
//   the GET stream, DELETE) passes it before the SDK's transport sees the message;
// - McpSession.caller: every handler's check of a server or tool (the hub's upstreamFor, visibleUpstreams)
//   is asked with the key as it is now;
// - McpGateway.recheckSessions(): open sessions whose key was revoked are closed, and those whose visible
//   servers or tools changed are told so (notifications/tools/list_changed), within a second.
// Which servers and tools a key may use is decided by mayUseServer() and mayUseTool() below, and only there.
import type { Caller, KeyDirectory } from '../core/keys.js';
import { hashKey } from '../core/keys.js';
import { GatewayError } from '../core/errors.js';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { LimitExceeded, type KeyLimiter, type LimitTicket } from '../gateway/limits/limiter.js';
import { RefusedMcpCall } from './call-log.js';
import { splitPrefixed } from './names.js';
import type { McpDefault } from '../core/mcp-access.js';
import type { McpSession } from './session.js';

/** How often open sessions are held against their key and the servers (a change reaches them within a second). */
export const RECHECK_INTERVAL_MS = 250;

/**
 * A session's key: found again in the key directory at each question, by the key the client presented (held
 * in memory for the session, as the request's own headers are; never written anywhere) and its hash.
 */
export class SessionKey {
  private readonly hash: Buffer;
  private seenAs: Caller;

  constructor(
    private readonly directory: KeyDirectory,
    private readonly presented: string,
    caller: Caller,
  ) {
    this.hash = hashKey(presented);
    this.seenAs = caller;
  }

  /** The key as it is now; undefined once revoked (or replaced by a regenerated key string). */
  now(): Caller | undefined {
    const caller = this.directory.resolve(this.presented, this.hash);
    if (caller === undefined || caller.kind !== this.seenAs.kind || caller.keyId !== this.seenAs.keyId) return undefined;
    this.seenAs = caller;
    return caller;
  }

  /** The key as it was last seen: names the key in a log row even after it was revoked. */
  get seen(): Caller {
    return this.seenAs;
  }

  /** Whether a caller authenticated now is this session's key. */
  isKeyOf(caller: Caller): boolean {
    return caller.kind === this.seenAs.kind && caller.keyId === this.seenAs.keyId;
  }
}

/**
 * Whether a key may use a server: the servers it names; else, where it names none, every server or none as
 * its own default (mcpDefault) says, else as the global one (the setting mcpKeyDefault).
 */
export function mayUseServer(caller: Caller, server: string, globalDefault: McpDefault): boolean {
  if (caller.mcpServers !== undefined) return caller.mcpServers.includes(server);
  return (caller.mcpDefault ?? globalDefault) === 'allow';
}

/** Whether a key may list and call a tool of a server it may use: the tools its mcpTools names there, else all of them. */
export function mayUseTool(caller: Caller, server: string, tool: string): boolean {
  // hasOwn: a server may be named like an Object member ('constructor'), which a plain lookup would find.
  if (!caller.mcpTools || !Object.hasOwn(caller.mcpTools, server)) return true;
  return caller.mcpTools[server].includes(tool);
}

/** What of a server's tools a key may see, as a string compared between two rechecks ('*' = all). */
export function toolGrantText(caller: Caller, server: string): string {
  return caller.mcpTools && Object.hasOwn(caller.mcpTools, server) ? caller.mcpTools[server].join('\t') : '*';
}

/** The refusal of a tool the key may not use (it is not listed either). */
export function toolNotAllowed(server: string, tool: string): RefusedMcpCall {
  return new RefusedMcpCall(403, ProtocolErrorCode.InvalidParams, `This key may not use tool '${tool}' of MCP server '${server}'`);
}

/** The refusal a revoked key's session gets inside a handler (its HTTP requests are refused with 401 before). */
export function revokedKey(): RefusedMcpCall {
  return new RefusedMcpCall(401, ProtocolErrorCode.InvalidRequest, 'The key of this session was revoked: the session is closed');
}

/** What the endpoint answers instead of handing the message to the session. */
export interface MessageRefusal {
  status: number;
  code: number;
  message: string;
}

/** A session that ended (or never was), or that is another key's or another endpoint's. */
export const SESSION_NOT_FOUND: MessageRefusal = { status: 404, code: -32001, message: 'Session not found: it ended or was never made; send initialize again' };

/** What authorizeMessage needs of the hub. */
export interface AccessHub {
  has(server: string): boolean;
  upstreamFor(caller: Caller, server: string): unknown;
  readonly sessions: ReadonlyMap<string, McpSession>;
}

/**
 * The one check every HTTP message of a client passes, whatever it carries. `caller` is the key the request
 * presented, authenticated now (a revoked key is refused with 401 before, by authenticate(); its sessions are
 * closed by McpGateway.recheckSessions); `sessionId` the session it names (absent for an initialize). Refused: the
 * endpoint's server deleted (404), not this key's or switched off (403), a session that is not this key's or
 * this endpoint's (404, as one that never was).
 */
export function authorizeMessage(hub: AccessHub, caller: Caller, scope: string | null, sessionId: string | undefined): { session?: McpSession } | MessageRefusal {
  if (scope !== null) {
    if (!hub.has(scope)) return { status: 404, code: -32000, message: `No MCP server named '${scope}'` };
    try {
      hub.upstreamFor(caller, scope);
    } catch (error) {
      return { status: 403, code: -32000, message: (error as Error).message.replace(/^MCP error -?\d+: /, '') };
    }
  }
  if (sessionId === undefined) return {};
  const session = hub.sessions.get(sessionId);
  // Another key's session, or one for another endpoint, is as unknown as one that never was.
  if (!session || !session.key.isKeyOf(caller) || session.scope !== scope) {
    return SESSION_NOT_FOUND;
  }
  return { session };
}

/**
 * The messages that are calls — each a log row and a unit of work on a server — count one request each
 * against the key's rpm, as a model call does. Listing, initialize, ping, notifications and responses do not:
 * a client lists again after every list_changed, and counting that would spend a small limit on bookkeeping.
 */
export const COUNTED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'resources/read', 'prompts/get']);

/** A counted call as the body carries it, named as its log row names it. */
export interface CountedCall {
  id: string | number | null;
  method: string;
  params: unknown;
  /** The server its name says (a prefixed name on /mcp); undefined where only the session can tell (a resource URI). */
  server?: string;
  tool: string;
}

export interface CallRefusal {
  status: number;
  rpcCode: number;
  message: string;
  /** Retry-After (and x-should-retry for a spent budget), as the model path sends them. */
  headers: Record<string, string>;
  /** What the refused call's log row records. */
  error: RefusedMcpCall;
}

function countedCalls(body: unknown): CountedCall[] {
  const messages = Array.isArray(body) ? body : [body];
  const calls: CountedCall[] = [];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null || !('id' in message)) continue;
    const { method, params, id } = message as { method?: unknown; params?: unknown; id?: unknown };
    if (typeof method !== 'string' || !COUNTED_METHODS.has(method)) continue;
    const named = (params ?? {}) as { name?: unknown; uri?: unknown };
    const name = typeof named.name === 'string' ? named.name : typeof named.uri === 'string' ? named.uri : '';
    const split = method === 'resources/read' ? undefined : splitPrefixed(name);
    calls.push({ id: typeof id === 'string' || typeof id === 'number' ? id : null, method, params, server: split?.server, tool: split?.name ?? name });
  }
  return calls;
}

/**
 * Admits each call of a request against the key's limits through the same limiter (and in team mode the same
 * Redis counters) as model calls: a key over its rpm — or with a spent budget — is refused with the model
 * path's 429, its words and its Retry-After. Returns the tickets to give back when the answer is over.
 */
export async function admitCalls(limits: KeyLimiter | undefined, caller: Caller, body: unknown): Promise<{ tickets: LimitTicket[] } | { refused: CallRefusal; call: CountedCall }> {
  const tickets: LimitTicket[] = [];
  if (!limits) return { tickets };
  for (const call of countedCalls(body)) {
    try {
      const admitted = limits.admit(caller.keyId);
      tickets.push(admitted instanceof Promise ? await admitted : admitted);
    } catch (error) {
      for (const ticket of tickets) ticket.release({ tokens: 0, costUsd: null });
      if (!(error instanceof GatewayError)) throw error;
      return {
        call,
        refused: {
          status: error.status,
          rpcCode: -32000,
          message: error.message,
          headers: error instanceof LimitExceeded ? error.headers() : {},
          error: new RefusedMcpCall(error.status, ProtocolErrorCode.InternalError, error.message),
        },
      };
    }
  }
  return { tickets };
}
