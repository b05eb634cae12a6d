// The MCP gateway: the upstream servers (one supervised connection each, shared by every session), the
// client sessions of /mcp and /mcp/{server}, and the hub between them — who may use which server, where
// a server's own requests and notifications go, and the log row of every call. The HTTP side is in
// endpoint.ts; the admin API asks this class for status, tools and test calls.
import { ProtocolError, ProtocolErrorCode, type Notification, type Request, type Result, type Tool } from '@modelcontextprotocol/server';
import type { CallRecord } from '../core/call-record.js';
import type { Caller } from '../core/keys.js';
import type { McpOAuthChange, McpServerConnection } from '../core/mcp-servers.js';
import type { McpDefault } from '../core/mcp-access.js';
import { mayUseServer, mayUseTool, RECHECK_INTERVAL_MS, toolGrantText } from './access.js';
import { RefusedMcpCall } from './call-log.js';
import type { McpSession, SessionHub } from './session.js';
import { McpUpstream, type UpstreamStatus } from './upstream.js';
import { PASS_THROUGH } from './wire.js';
import { ModernEndpoints } from './modern.js';
import { HeldCalls } from './held-calls.js';
import { oauthTimeoutMs } from './oauth/http.js';
import { revokeGrant, type Revocation } from './oauth/revoke.js';

/** Sessions idle this long are closed (a client that went away without DELETE). */
const SESSION_IDLE_MS = 60 * 60_000;
/** Sessions at once; past this the least recently used is closed for a new one. */
const MAX_SESSIONS = 1_000;

export interface McpServerState {
  status: UpstreamStatus;
  lastError: string | null;
  toolCount: number | null;
}

export interface McpGatewayOptions {
  version: string;
  /** Where each call's record goes (the request log and metrics, as for model calls). */
  log: (record: CallRecord) => void;
  /** The global default of keys that name no server (the setting mcpKeyDefault), read as it is now; absent = 'allow'. */
  keyDefault?: () => McpDefault;
  /** Keeps a server's changed sign-in (a refresh, a grant that ended) in the store, sealed. */
  saveOAuth?: (server: string, change: McpOAuthChange) => Promise<void>;
}

export class McpGateway implements SessionHub {
  private readonly upstreams = new Map<string, McpUpstream>();
  readonly sessions = new Map<string, McpSession>();
  /** The 2026-07-28 side: no sessions, each request served on its own; its listeners told of changes here. */
  readonly modern = new ModernEndpoints();
  /** The 2026-07-28 requests with a call in flight upstream: a server's own request during one is not sent to another client. */
  readonly statelessCalls = new Set<McpSession>();
  readonly held = new HeldCalls();
  readonly version: string;
  private readonly sweep: NodeJS.Timeout;
  private readonly recheck: NodeJS.Timeout;
  /** Moves at every change of the servers: a session's grant is worked out again only when this or its key changed. */
  private serversVersion = 0;
  private closed = false;

  constructor(private readonly options: McpGatewayOptions) {
    this.version = options.version;
    this.sweep = setInterval(() => this.closeIdleSessions(), 60_000);
    this.sweep.unref();
    // Key changes reach the key store's memory from anywhere (admin API, CLI, another team instance): open
    // sessions are held against it here, a memory lookup per session.
    this.recheck = setInterval(() => this.recheckSessions(), RECHECK_INTERVAL_MS);
    this.recheck.unref();
  }

  log(record: CallRecord): void {
    this.options.log(record);
  }

  /** Takes the configured servers (at start and after every change): new ones added, changed ones reconfigured, removed ones stopped. */
  setServers(servers: readonly McpServerConnection[]): void {
    if (this.closed) return;
    const names = new Set(servers.map((server) => server.name));
    for (const [name, upstream] of this.upstreams) {
      if (!names.has(name)) {
        this.upstreams.delete(name);
        void upstream.stop();
      }
    }
    for (const config of servers) {
      const known = this.upstreams.get(config.name);
      // Removed and added again under the same name between two reads (one watch tick): a new server, not an
      // edit — nothing of the old one (its connection, its failure pause, its sign-in) may carry over.
      if (known && known.settings.createdAt !== config.createdAt) void known.stop();
      if (known && known.settings.createdAt === config.createdAt) known.reconfigure(config);
      else this.upstreams.set(config.name, new McpUpstream(config, this, this.version));
    }
    this.serversVersion++;
    // Sessions that see a server come or go, or a tool switched on or off, are told at once; 2026-07-28
    // listeners (which may each see other servers) are told to list again.
    this.recheckSessions();
    this.modern.listChanged(null, { prompts: true, resources: true });
  }

  /**
   * Every open session held against its key and the servers as they are now: a session whose key was revoked
   * (or whose /mcp/{server} the key may no longer use) is closed; one whose visible servers or switched-off
   * tools changed is told to list again (McpSession.noteGrant). Runs every RECHECK_INTERVAL_MS and after each
   * change of the servers.
   */
  recheckSessions(): void {
    for (const [id, session] of this.sessions) this.recheckSession(id, session);
  }

  private recheckSession(id: string, session: McpSession): void {
    const caller = session.key.now();
    // A key store replaces a key's Caller whenever it rereads its keys: the same object and the same servers
    // mean the same grant (about 3 µs a session, against some 15 µs for working the grant out again).
    const keyDefault = this.keyDefault();
    if (caller !== undefined && session.grantBasis.caller === caller && session.grantBasis.serversVersion === this.serversVersion && session.grantBasis.keyDefault === keyDefault) return;
    session.grantBasis = { caller, serversVersion: this.serversVersion, keyDefault };
    let visible: McpUpstream[];
    try {
      if (caller === undefined) throw new Error('revoked');
      visible = session.scope === null ? this.visibleUpstreams(caller) : [this.upstreamFor(caller, session.scope)];
    } catch {
      this.dropSession(id);
      return;
    }
    session.noteGrant(
      visible.map((upstream) => upstream.name),
      visible.map((upstream) => `${upstream.settings.disabledTools.join('\t')}|${toolGrantText(caller!, upstream.name)}`).join('\n'),
      (server, tool) => !this.upstreams.get(server)?.settings.disabledTools.includes(tool) && mayUseTool(caller!, server, tool),
    );
  }

  state(name: string): McpServerState {
    const upstream = this.upstreams.get(name);
    if (!upstream) return { status: 'stopped', lastError: null, toolCount: null };
    return { status: upstream.status, lastError: upstream.lastError, toolCount: upstream.toolCount };
  }

  stderr(name: string): string[] {
    return this.upstreams.get(name)?.stderr ?? [];
  }

  /** A server's tools as it lists them, each with whether it is switched on (starts the server if need be). */
  async tools(name: string): Promise<(Tool & { enabled: boolean })[]> {
    const upstream = this.known(name);
    const off = new Set(upstream.settings.disabledTools);
    return (await upstream.tools()).map((tool) => ({ ...tool, enabled: !off.has(tool.name) }));
  }

  /** A tool called from the admin API ("Try a tool"): answered as the server sent it. */
  async callTool(name: string, tool: string, args: Record<string, unknown>): Promise<{ result: Result; durationMs: number }> {
    const upstream = this.known(name);
    const started = performance.now();
    const result = await upstream.request({ method: 'tools/call', params: { name: tool, arguments: args } });
    return { result, durationMs: Math.round(performance.now() - started) };
  }

  // ---- the hub (SessionHub) ----

  upstreamFor(caller: Caller, server: string): McpUpstream {
    const upstream = this.upstreams.get(server);
    if (!upstream) throw new RefusedMcpCall(404, ProtocolErrorCode.InvalidParams, `No MCP server named '${server}'`);
    if (!this.mayUse(caller, server)) {
      throw new RefusedMcpCall(403, ProtocolErrorCode.InvalidParams, `This key may not use MCP server '${server}'`);
    }
    if (!upstream.settings.enabled) throw new RefusedMcpCall(403, ProtocolErrorCode.InvalidParams, `MCP server '${server}' is switched off in Gatehouse`);
    return upstream;
  }

  visibleUpstreams(caller: Caller): McpUpstream[] {
    return [...this.upstreams.values()].filter((upstream) => upstream.settings.enabled && this.mayUse(caller, upstream.name));
  }

  /** Whether the key may use a server (whatever the server's own state): access.ts's rule with the global default as it is now. */
  mayUse(caller: Caller, server: string): boolean {
    return mayUseServer(caller, server, this.keyDefault());
  }

  private keyDefault(): McpDefault {
    return this.options.keyDefault?.() ?? 'allow';
  }

  /** Whether a server exists; used by the endpoint before a session is made. */
  has(server: string): boolean {
    return this.upstreams.has(server);
  }

  // ---- what servers send on their own (UpstreamEvents) ----

  /**
   * A server's request to the client (sampling, elicitation, roots) goes to the session whose call to that
   * server is in flight (the newest), else to the session that used the server last. A shared stdio
   * server does not say which call it asks for; the call in flight is the one it is working on. When that
   * call is a 2026-07-28 request's, whose client cannot be asked mid-call, it becomes that client's
   * input_required round (held-calls.ts) — it is never asked of another client.
   */
  async onServerRequest(server: string, request: Request, signal: AbortSignal): Promise<Result> {
    const sessions = [...this.sessions.values()].filter((session) => session.sees(server));
    const calling = [...sessions, ...[...this.statelessCalls].filter((one) => one.sees(server))]
      .flatMap((session) => session.activeCalls.filter((call) => call.server === server).map((call) => ({ session, call })))
      .sort((a, b) => a.call.startedAt - b.call.startedAt)
      .at(-1);
    if (calling && calling.session.transport === undefined) {
      // Turned into the 2026-07-28 client's input_required round (held-calls.ts).
      if (calling.call.hold) return calling.call.hold(request, signal);
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `MCP server '${server}' asked ${request.method} during a call of a 2026-07-28 client, which Gatehouse cannot ask mid-call (that server speaks the 2025 protocol)`,
      );
    }
    if (calling) return calling.call.ctx.mcpReq.send(request, PASS_THROUGH, { signal });
    const recent = sessions.sort((a, b) => b.lastActive - a.lastActive)[0];
    if (!recent) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `No client is connected to MCP server '${server}' through Gatehouse to answer ${request.method}`);
    return recent.server.request(request, PASS_THROUGH, { signal });
  }

  onOAuthChange(server: string, change: McpOAuthChange): void {
    this.options.saveOAuth?.(server, change).catch(() => {
      // The store is away (PostgreSQL down): the grant serves from memory here, and the next change tries again.
    });
  }

  /** Revokes a server's grant at its authorization server (before the server is removed); null when it has none. */
  async revokeSignIn(name: string): Promise<Revocation | null> {
    const upstream = this.upstreams.get(name);
    if (!upstream?.settings.oauth) return null;
    return revokeGrant(upstream.grant, oauthTimeoutMs());
  }

  onServerNotification(server: string, notification: Notification): void {
    if (notification.method === 'notifications/tools/list_changed') this.modern.listChanged(server);
    else if (notification.method === 'notifications/prompts/list_changed') this.modern.listChanged(server, { prompts: true });
    else if (notification.method === 'notifications/resources/list_changed') this.modern.listChanged(server, { resources: true });
    else if (notification.method === 'notifications/resources/updated') {
      const uri = (notification.params as { uri?: unknown } | undefined)?.uri;
      if (typeof uri === 'string') this.modern.resourceUpdated(server, uri);
    }
    for (const session of this.sessions.values()) {
      if (!session.sees(server)) continue;
      if (notification.method === 'notifications/resources/updated') {
        const uri = (notification.params as { uri?: string } | undefined)?.uri;
        if (uri === undefined || session.subscriptions.get(uri) !== server) continue;
      }
      session.relayNotification(server, notification);
    }
  }

  // ---- sessions ----

  addSession(id: string, session: McpSession): void {
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = [...this.sessions.entries()].sort((a, b) => a[1].lastActive - b[1].lastActive)[0];
      if (oldest) this.dropSession(oldest[0]);
    }
    this.sessions.set(id, session);
    // What the client is told of later is measured from what it could see when it began.
    this.recheckSession(id, session);
  }

  dropSession(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    void session.close();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweep);
    clearInterval(this.recheck);
    const sessions = [...this.sessions.keys()];
    for (const id of sessions) this.dropSession(id);
    this.held.clear();
    await this.modern.close();
    await Promise.allSettled([...this.upstreams.values()].map((upstream) => upstream.stop()));
    this.upstreams.clear();
  }

  private known(name: string): McpUpstream {
    const upstream = this.upstreams.get(name);
    if (!upstream) throw new RefusedMcpCall(404, ProtocolErrorCode.InvalidParams, `No MCP server named '${name}'`);
    return upstream;
  }

  private closeIdleSessions(): void {
    const cutoff = Date.now() - SESSION_IDLE_MS;
    for (const [id, session] of this.sessions) if (session.lastActive < cutoff) this.dropSession(id);
  }
}
