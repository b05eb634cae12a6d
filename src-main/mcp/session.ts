// One client session on /mcp or /mcp/{server} — a 2025-era session on the SDK's Streamable HTTP transport, or
// one stateless 2026-07-28 request on the SDK's per-request transport — the SDK's Server, its
// handlers relaying each request to the upstream server(s) the key may use. On /mcp/{server} names pass
// as the server has them; on /mcp every server's tools and prompts are listed under prefixed names and
// resources are found by their URI. Each tools/call, resources/read and prompts/get becomes a log row.
import { randomUUID } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  UriTemplate,
  WebStandardStreamableHTTPServerTransport,
  type Notification,
  type Request,
  type Result,
  type ServerCapabilities,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import type { Caller } from '../core/keys.js';
import type { CallRecord } from '../core/call-record.js';
import { mayUseTool, revokedKey, toolNotAllowed, type SessionKey } from './access.js';
import type { McpDefault } from '../core/mcp-access.js';
import { mcpCallRecord, RefusedMcpCall } from './call-log.js';
import { prefixed, splitPrefixed } from './names.js';
import { UNAVAILABLE } from './wire.js';
import type { CallerEra, McpUpstream } from './upstream.js';
import { HeldCalls, type HeldCall, type HeldIdentity, type PendingAsk } from './held-calls.js';


/** What a session needs of the hub (gateway.ts). */
export interface SessionHub {
  /** The upstream of a name this caller may use (enabled, allowed), or a refusal naming why not. */
  upstreamFor(caller: Caller, server: string): McpUpstream;
  /** Every upstream this caller may use. */
  visibleUpstreams(caller: Caller): McpUpstream[];
  /** Whether the caller may use a server (its key's grant, whatever the server's state). */
  mayUse(caller: Caller, server: string): boolean;
  log(record: CallRecord): void;
  version: string;
  /** The 2026-07-28 requests (sessions without a transport) with a call in flight. */
  readonly statelessCalls: Set<McpSession>;
  /** 2026-07-28 clients' calls waiting for their answer to a 2025-era server's own request. */
  readonly held: HeldCalls;
}

/** A request of this session in flight on one server: where the server's own requests and logs go meanwhile. */
export interface ActiveCall {
  server: string;
  /** The tool of a tools/call (a key narrowed to other tools loses the call). */
  tool?: string;
  ctx: ServerContext;
  /** Aborted when the session's key may no longer use the server (noteGrant): the call is cancelled upstream. */
  lost: AbortController;
  /** When it began: a server's own request goes to the newest call to it. */
  startedAt: number;
  /** A 2026-07-28 client's call: takes a server's own request, answered when the client retries (held-calls.ts). */
  hold?: (request: Request, signal: AbortSignal) => Promise<Result>;
}

/** Capabilities of the combined endpoint: everything the relay carries. */
const COMBINED_CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  logging: {},
  completions: {},
};

/** What a single server's endpoint offers when its server cannot be reached at the start: its calls then answer with the reason. */
const UNREACHED_CAPABILITIES: ServerCapabilities = { tools: { listChanged: true } };

export class McpSession {
  readonly server: Server;
  /** The session's transport (a 2025-era session); undefined for one 2026-07-28 request, which the SDK's per-request transport serves. */
  readonly transport: WebStandardStreamableHTTPServerTransport | undefined;
  lastActive = Date.now();
  readonly activeCalls: ActiveCall[] = [];
  /** Resource URIs this session subscribed to, with their server. */
  readonly subscriptions = new Map<string, string>();
  /** Resource URIs seen in this session's listings on /mcp, with their server. */
  private readonly resourceServers = new Map<string, string>();
  private readonly templates: { server: string; template: UriTemplate; text: string }[] = [];
  /** Aborted when the session ends: its calls still running upstream are cancelled (a client may hang up before its cancellation arrives). */
  private readonly ended = new AbortController();
  /** What this endpoint offers the client (which list_changed notifications it may be sent). */
  private readonly offered: ServerCapabilities;
  /** What the grant below was worked out from (McpGateway.recheckSessions). */
  grantBasis: { caller: Caller | undefined; serversVersion: number; keyDefault: McpDefault | undefined } = { caller: undefined, serversVersion: -1, keyDefault: undefined };
  /** What the session's key may see, as compared between two checks: the servers, then each server's switched-off tools. */
  private grant: { servers: string; tools: string } | undefined;

  constructor(
    private readonly hub: SessionHub,
    /** The session's key, read as it is now at every question (access.ts): never the authorization it had at initialize. */
    readonly key: SessionKey,
    /** The one server of /mcp/{server}; null for /mcp. */
    readonly scope: string | null,
    readonly path: string,
    capabilities: ServerCapabilities | undefined,
    upstreamInfo: { instructions?: string; serverInfo?: { name: string; version: string } },
    /** A 2025-era session's hooks: told its id once initialize made it, and when it ends. Absent for a stateless 2026-07-28 request. */
    stateful?: { onSessionId: (id: string) => void; onClosed: () => void },
  ) {
    const offered = scope === null ? COMBINED_CAPABILITIES : relayedCapabilities(capabilities);
    this.offered = offered;
    this.server = new Server(scope === null || !upstreamInfo.serverInfo ? { name: scope === null ? 'gatehouse' : `gatehouse-${scope}`, version: hub.version } : upstreamInfo.serverInfo, {
      capabilities: offered,
      ...(upstreamInfo.instructions ? { instructions: upstreamInfo.instructions } : {}),
    });
    const end = () => this.ended.abort(new ProtocolError(UNAVAILABLE, 'The client session ended'));
    if (stateful) {
      this.transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: stateful.onSessionId,
      });
      this.transport.onclose = () => {
        end();
        stateful.onClosed();
      };
    } else {
      this.transport = undefined;
      // One request's instance is closed when its answer is over (or its client went): its upstream calls end with it.
      this.server.onclose = end;
    }
    this.registerHandlers(offered);
  }

  /**
   * The key as it is now: every check of a server or tool in this session's handlers asks with it (the hub's
   * upstreamFor and visibleUpstreams), so a narrowed key is narrowed for the next message. A revoked key's
   * message is refused here (its session is closed by the hub within a second, its HTTP requests refused before).
   */
  get caller(): Caller {
    const caller = this.key.now();
    if (!caller) throw revokedKey();
    return caller;
  }

  /**
   * Takes what the key may see now (McpGateway.recheckSessions); when it differs from what the client was
   * last told, the client is told to list again: tools when a tool or server came or went, prompts and
   * resources too when a server did (each only where this endpoint offers it).
   */
  noteGrant(visible: readonly string[], tools: string, mayCallTool: (server: string, tool: string) => boolean): void {
    const before = this.grant;
    const grant = { servers: visible.join('\n'), tools };
    this.grant = grant;
    // A call in flight to a server the key lost is cancelled, not left to finish with the old grant.
    for (const call of this.activeCalls) {
      if (!visible.includes(call.server)) {
        call.lost.abort(new RefusedMcpCall(403, ProtocolErrorCode.InvalidParams, `MCP server '${call.server}' is no longer this key's to use (the key was narrowed, or the server switched off or removed): the call was cancelled`));
      } else if (call.tool !== undefined && !mayCallTool(call.server, call.tool)) {
        call.lost.abort(new RefusedMcpCall(403, ProtocolErrorCode.InvalidParams, `Tool '${call.tool}' of MCP server '${call.server}' is no longer this key's to use (the key was narrowed, or the tool switched off): the call was cancelled`));
      }
    }
    if (before === undefined || (before.servers === grant.servers && before.tools === grant.tools)) return;
    const offered = this.offered;
    const changed: string[] = [];
    if (offered.tools) changed.push('notifications/tools/list_changed');
    if (before.servers !== grant.servers) {
      if (offered.prompts) changed.push('notifications/prompts/list_changed');
      if (offered.resources) changed.push('notifications/resources/list_changed');
    }
    for (const method of changed) void this.server.notification({ method }).catch(() => undefined);
  }

  get clientName(): string | null {
    return this.server.getClientVersion()?.name ?? null;
  }

  /** Whether this session sees a server (its scope and its key as it is now): where a server's notifications and requests may go. */
  sees(server: string): boolean {
    if (this.scope !== null && this.scope !== server) return false;
    const caller = this.key.now();
    return caller !== undefined && this.hub.mayUse(caller, server);
  }

  async close(): Promise<void> {
    this.ended.abort(new ProtocolError(UNAVAILABLE, 'The client session ended'));
    await this.server.close().catch(() => undefined);
  }

  /** Sends a notification of a server on to this session's client (on the call's stream while a call runs). */
  relayNotification(server: string, notification: Notification): void {
    const call = this.activeCalls.findLast((active) => active.server === server);
    const send = call ? call.ctx.mcpReq.notify(notification) : this.server.notification(notification);
    send.catch(() => undefined);
  }

  // ---- handlers ----

  private registerHandlers(offered: ServerCapabilities): void {
    const s = this.server;
    if (offered.tools) {
      s.setRequestHandler('tools/list', (request) => (this.scope === null ? this.listAllTools() : this.listServerTools(request)) as never);
      s.setRequestHandler('tools/call', (request, ctx) => this.callTool(request as Request, ctx) as never);
    }
    if (offered.prompts) {
      s.setRequestHandler('prompts/list', (request) => (this.scope === null ? this.listAll('prompts/list', 'prompts', 'name') : this.forward(this.scope, request as Request)) as never);
      s.setRequestHandler('prompts/get', (request, ctx) => {
        const { server, name } = this.target(request.params.name, 'prompt');
        return this.recorded(server, name, { ...request, params: { ...request.params, name } } as Request, ctx) as never;
      });
    }
    if (offered.resources) {
      s.setRequestHandler('resources/list', (request) => (this.scope === null ? this.listAll('resources/list', 'resources', 'name') : this.forward(this.scope, request as Request)) as never);
      s.setRequestHandler('resources/templates/list', (request) =>
        (this.scope === null ? this.listAll('resources/templates/list', 'resourceTemplates', 'name') : this.forward(this.scope, request as Request)) as never,
      );
      s.setRequestHandler('resources/read', (request, ctx) => this.recorded(this.resourceServer(request.params.uri), request.params.uri, request as Request, ctx) as never);
      if (offered.resources.subscribe) {
        s.setRequestHandler('resources/subscribe', async (request, ctx) => {
          const server = this.resourceServer(request.params.uri);
          const result = await this.forward(server, request as Request, ctx);
          this.subscriptions.set(request.params.uri, server);
          return result;
        });
        s.setRequestHandler('resources/unsubscribe', async (request, ctx) => {
          const server = this.resourceServer(request.params.uri);
          this.subscriptions.delete(request.params.uri);
          return this.forward(server, request as Request, ctx);
        });
      }
    }
    if (offered.completions) {
      s.setRequestHandler('completion/complete', (request, ctx) => {
        const ref = request.params.ref;
        if (ref.type === 'ref/prompt') {
          const { server, name } = this.target(ref.name, 'prompt');
          return this.forward(server, { ...request, params: { ...request.params, ref: { ...ref, name } } } as Request, ctx) as never;
        }
        return this.forward(this.resourceServer(ref.uri), request as Request, ctx) as never;
      });
    }
    if (offered.logging) {
      s.setRequestHandler('logging/setLevel', async (request, ctx) => {
        if (this.scope !== null) return this.forward(this.scope, request as Request, ctx);
        await Promise.allSettled(this.visible().map(async (upstream) => ((await upstream.capabilities(this.era)).capabilities.logging ? upstream.request(request as Request, { era: this.era }) : undefined)));
        return {};
      });
    }
    s.setNotificationHandler('notifications/roots/list_changed', async (notification) => {
      for (const upstream of this.visible()) if (upstream.status === 'running') void upstream.notify(notification).catch(() => undefined);
    });
  }

  /** The era this session's client speaks: a 2025-era session has a transport, a 2026-07-28 request none. */
  private get era(): CallerEra {
    return this.transport ? 'legacy' : 'modern';
  }

  private visible(): McpUpstream[] {
    return this.scope === null ? this.hub.visibleUpstreams(this.caller) : [this.hub.upstreamFor(this.caller, this.scope)];
  }

  private async listServerTools(request: { params?: unknown }): Promise<Result> {
    const caller = this.caller;
    const upstream = this.hub.upstreamFor(caller, this.scope!);
    const result = (await upstream.request({ method: 'tools/list', params: (request.params ?? {}) as Request['params'] }, { era: this.era })) as { tools?: Tool[] };
    return { ...result, tools: usableTools(caller, upstream, result.tools ?? []) };
  }

  private async listAllTools(): Promise<Result> {
    const caller = this.caller;
    const lists = await Promise.all(
      this.visible().map(async (upstream) => {
        try {
          return usableTools(caller, upstream, await upstream.tools()).map((tool) => ({ ...tool, name: prefixed(upstream.name, tool.name) }));
        } catch {
          // A server that cannot be reached lists nothing here; calling one of its tools names the reason.
          return [];
        }
      }),
    );
    return { tools: lists.flat() };
  }

  /** Every page of a list from every server that offers it, names prefixed; resources remembered by URI. */
  private async listAll(method: string, field: string, nameField: string): Promise<Result> {
    const lists = await Promise.all(
      this.visible().map(async (upstream) => {
        try {
          const { capabilities } = await upstream.capabilities(this.era);
          if (method.startsWith('prompts') ? !capabilities.prompts : !capabilities.resources) return [];
          const items: Record<string, unknown>[] = [];
          let cursor: string | undefined;
          do {
            const page = (await upstream.request({ method, params: cursor ? { cursor } : {} }, { era: this.era })) as Record<string, unknown>;
            items.push(...((page[field] as Record<string, unknown>[] | undefined) ?? []));
            cursor = page.nextCursor as string | undefined;
          } while (cursor && items.length < 10_000);
          for (const item of items) {
            if (typeof item.uri === 'string') this.resourceServers.set(item.uri, upstream.name);
            if (typeof item.uriTemplate === 'string') this.rememberTemplate(upstream.name, item.uriTemplate);
          }
          return items.map((item) => ({ ...item, [nameField]: prefixed(upstream.name, String(item[nameField])) }));
        } catch {
          return [];
        }
      }),
    );
    return { [field]: lists.flat() };
  }

  private rememberTemplate(server: string, text: string): void {
    if (this.templates.some((known) => known.server === server && known.text === text)) return;
    try {
      this.templates.push({ server, text, template: new UriTemplate(text) });
    } catch {
      // A template the SDK cannot parse cannot be matched; its resources are still found once listed.
    }
  }

  /** The server a resource URI (or a template's text) belongs to. */
  private resourceServer(uri: string): string {
    if (this.scope !== null) return this.scope;
    const known = this.resourceServers.get(uri) ?? this.templates.find((entry) => entry.text === uri || entry.template.match(uri) !== null)?.server;
    if (!known) throw new RefusedMcpCall(404, ProtocolErrorCode.InvalidParams, `No MCP server behind /mcp lists the resource '${uri}': list resources (or templates) first`);
    return known;
  }

  /** The server and the server's own name of a tool or prompt name as this endpoint shows it. */
  private target(shownName: string, what: 'tool' | 'prompt'): { server: string; name: string } {
    if (this.scope !== null) return { server: this.scope, name: shownName };
    const split = splitPrefixed(shownName);
    if (!split) throw new RefusedMcpCall(404, ProtocolErrorCode.InvalidParams, `Unknown ${what} '${shownName}': names on /mcp are <server>__<name>`);
    return split;
  }

  private async callTool(request: Request, ctx: ServerContext): Promise<Result> {
    const params = request.params as { name: string };
    let target: { server: string; name: string };
    try {
      target = this.target(params.name, 'tool');
    } catch (error) {
      this.logRefusal(params.name.split('__')[0] ?? '', params.name, request, ctx, error);
      throw error;
    }
    return this.recorded(target.server, target.name, { ...request, params: { ...params, name: target.name } } as Request, ctx, () => {
      const caller = this.caller;
      const upstream = this.hub.upstreamFor(caller, target.server);
      if (upstream.settings.disabledTools.includes(target.name)) {
        throw new RefusedMcpCall(403, ProtocolErrorCode.InvalidParams, `Tool '${target.name}' of MCP server '${target.server}' is switched off in Gatehouse`);
      }
      if (!mayUseTool(caller, target.server, target.name)) throw toolNotAllowed(target.server, target.name);
    });
  }

  /** A call that is logged: forwarded, its outcome (answer, error, cancellation) written as one row. */
  private async recorded(server: string, tool: string, request: Request, ctx: ServerContext, check?: () => void): Promise<Result> {
    const createdAt = Date.now();
    const startedAt = performance.now();
    const facts = { createdAt, startedAt, path: this.path, caller: this.key.seen, server, tool, client: this.clientName, method: request.method, params: request.params, headers: headersOf(ctx) };
    let secrets: readonly string[] = [];
    try {
      check?.();
      secrets = this.hub.upstreamFor(this.caller, server).secrets;
      const result = await this.forward(server, request, ctx);
      this.hub.log(mcpCallRecord({ ...facts, result, secrets }));
      return result;
    } catch (error) {
      this.hub.log(mcpCallRecord({ ...facts, error, cancelled: ctx.mcpReq.signal.aborted || this.ended.signal.aborted, secrets }));
      throw error;
    }
  }

  private logRefusal(server: string, tool: string, request: Request, ctx: ServerContext, error: unknown): void {
    this.hub.log(
      mcpCallRecord({
        createdAt: Date.now(),
        startedAt: performance.now(),
        path: this.path,
        caller: this.key.seen,
        server,
        tool,
        client: this.clientName,
        method: request.method,
        params: request.params,
        headers: headersOf(ctx),
        error,
        secrets: [],
      }),
    );
  }

  /**
   * A request sent on to a server as it came (its own names), with the client's cancellation and the
   * server's progress carried across; the server's requests and logs go to this call's stream meanwhile.
   */
  private async forward(server: string, request: Request, ctx?: ServerContext): Promise<Result> {
    const upstream = this.hub.upstreamFor(this.caller, server);
    const params = { ...(request.params ?? {}) } as Record<string, unknown>;
    const meta = params._meta as { progressToken?: string | number } | undefined;
    const progressToken = meta?.progressToken;
    if (meta) {
      const { progressToken: _dropped, ...rest } = meta;
      if (Object.keys(rest).length) params._meta = rest;
      else delete params._meta;
    }
    if (ctx && this.era === 'modern') {
      const state = ctx.mcpReq.requestState();
      if (HeldCalls.owns(state)) return this.resume(server, request.method, params, ctx, state, progressToken);
      putBackLifted(ctx, params);
      return this.modernCall(server, upstream, request.method, params, ctx, progressToken);
    }
    const tool = request.method === 'tools/call' && typeof params.name === 'string' ? params.name : undefined;
    const active: ActiveCall | undefined = ctx ? { server, tool, ctx, lost: new AbortController(), startedAt: performance.now() } : undefined;
    if (active) this.activeCalls.push(active);
    if (active && !this.transport) this.hub.statelessCalls.add(this);
    try {
      return await upstream.request(
        { method: request.method, params } as Request,
        {
          era: this.era,
          signal: active ? AbortSignal.any([active.ctx.mcpReq.signal, this.ended.signal, active.lost.signal]) : this.ended.signal,
          onprogress:
            progressToken !== undefined && ctx
              ? (progress) => void ctx.mcpReq.notify({ method: 'notifications/progress', params: { ...progress, progressToken } }).catch(() => undefined)
              : undefined,
        },
      );
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      throw new ProtocolError(ProtocolErrorCode.InternalError, `MCP server '${server}': ${(error as Error).message}`);
    } finally {
      if (active) this.activeCalls.splice(this.activeCalls.indexOf(active), 1);
      if (!this.activeCalls.length) this.hub.statelessCalls.delete(this);
    }
  }

  // ---- a 2026-07-28 client's call: rounds ----

  /**
   * A 2026-07-28 client's call: sent on, and answered with the server's result — or, when a 2025-era server
   * asks its own request meanwhile (which this client cannot be asked mid-call), with `input_required`
   * carrying that request while the call is held (held-calls.ts) for the client's retry.
   */
  private modernCall(server: string, upstream: McpUpstream, method: string, params: Record<string, unknown>, ctx: ServerContext, progressToken: string | number | undefined): Promise<Result> {
    const controller = new AbortController();
    const progressSink: HeldCall['progressSink'] = {};
    const call = upstream.request({ method, params } as Request, {
      era: 'modern',
      signal: controller.signal,
      onprogress: progressToken === undefined ? undefined : (progress) => progressSink.current?.(progress as Record<string, unknown>),
    });
    // Awaited by this round or, once held, by the round that resumes it: never left unobserved meanwhile.
    call.catch(() => undefined);
    return this.round(server, heldIdentity(this.caller, server, method, params), { call, controller, progressSink }, ctx, progressToken);
  }

  /** A retry naming a held call: the client's answer goes to the server's waiting request, and the call goes on. */
  private resume(server: string, method: string, params: Record<string, unknown>, ctx: ServerContext, state: string, progressToken: string | number | undefined): Promise<Result> {
    const identity = heldIdentity(this.caller, server, method, params);
    const held = this.hub.held.take(state, identity);
    if (!held) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'The requestState names no call Gatehouse holds for this key and request (it expired, was used already, or is not this key’s)');
    }
    const answer = ctx.mcpReq.inputResponses?.[held.ask.id];
    // No answer to what was asked: asked again, the call still held.
    if (answer === undefined) return Promise.resolve(this.askClient(held, held.ask));
    const round = this.round(server, identity, held, ctx, progressToken);
    held.ask.answer(answer as Result);
    return round;
  }

  /** One round: until the server answers (the result) or asks (input_required, the call held). */
  private async round(
    server: string,
    identity: HeldIdentity,
    parts: Pick<HeldCall, 'call' | 'controller' | 'progressSink'>,
    ctx: ServerContext,
    progressToken: string | number | undefined,
  ): Promise<Result> {
    let asked!: (outcome: PendingAsk | Error) => void;
    const askedNow = new Promise<PendingAsk | Error>((resolve) => (asked = resolve));
    const active: ActiveCall = {
      server,
      tool: identity.method === 'tools/call' ? identity.target : undefined,
      ctx,
      lost: new AbortController(),
      startedAt: performance.now(),
      hold: (request, signal) =>
        new Promise<Result>((answer, refuse) => {
          const missing = missingCapability(ctx, request.method);
          if (missing) {
            const refusal = new MissingRequiredClientCapabilityError({ requiredCapabilities: { [missing]: {} } });
            refuse(refusal);
            asked(refusal);
            return;
          }
          signal.addEventListener('abort', () => refuse(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason))), { once: true });
          asked({ id: `gatehouse-${randomUUID()}`, request, answer, refuse });
        }),
    };
    parts.progressSink.current =
      progressToken === undefined ? undefined : (progress) => void ctx.mcpReq.notify({ method: 'notifications/progress', params: { ...progress, progressToken } }).catch(() => undefined);
    // While this round runs, its client's cancellation (or the key losing the server) cancels the call upstream.
    const stop = AbortSignal.any([ctx.mcpReq.signal, this.ended.signal, active.lost.signal]);
    const cancel = () => parts.controller.abort(stop.reason);
    stop.addEventListener('abort', cancel, { once: true });
    if (stop.aborted) cancel();
    this.activeCalls.push(active);
    this.hub.statelessCalls.add(this);
    try {
      const outcome = await Promise.race([parts.call.then((result) => ({ result })), askedNow.then((ask) => ({ ask }))]);
      if ('result' in outcome) return outcome.result;
      if (outcome.ask instanceof Error) {
        parts.controller.abort(outcome.ask);
        throw outcome.ask;
      }
      return this.askClient({ ...identity, ...parts, ask: outcome.ask }, outcome.ask);
    } catch (error) {
      if (ctx.mcpReq.signal.aborted && ctx.mcpReq.signal.reason instanceof Error) throw ctx.mcpReq.signal.reason;
      if (error instanceof ProtocolError) throw error;
      throw new ProtocolError(ProtocolErrorCode.InternalError, `MCP server '${server}': ${(error as Error).message}`);
    } finally {
      stop.removeEventListener('abort', cancel);
      parts.progressSink.current = undefined;
      this.activeCalls.splice(this.activeCalls.indexOf(active), 1);
      if (!this.activeCalls.length) this.hub.statelessCalls.delete(this);
    }
  }

  /** The call held and the client answered input_required with the server's request. */
  private askClient(held: HeldCall, ask: PendingAsk): Result {
    const requestState = this.hub.held.hold(held);
    return { resultType: 'input_required', inputRequests: { [ask.id]: { method: ask.request.method, params: ask.request.params ?? {} } }, requestState } as Result;
  }
}

/** What a retry must match to resume a held call: the key, the server, the method and what it names. */
function heldIdentity(caller: Caller, server: string, method: string, params: Record<string, unknown>): HeldIdentity {
  const target = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : '';
  return { owner: `${caller.kind}:${caller.keyId ?? ''}`, server, method, target };
}

/** The capability a server's own request needs of the client, when the 2026-07-28 client did not declare it. */
function missingCapability(ctx: ServerContext, method: string): string | undefined {
  const needed = method === 'elicitation/create' ? 'elicitation' : method === 'sampling/createMessage' ? 'sampling' : method === 'roots/list' ? 'roots' : undefined;
  if (!needed) return undefined;
  const declared = ((ctx.mcpReq.envelope ?? {}) as Record<string, unknown>)[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown> | undefined;
  return declared?.[needed] === undefined ? needed : undefined;
}

/**
 * What the SDK lifted off a 2026-07-28 request before its handler saw it, put back for the server: the client's
 * own capabilities and log level (the server decides what it may ask of this client, not of Gatehouse, whose
 * connection declares everything), and a retry's input responses and request state, byte for byte (the state is
 * the server's to verify; the key is authorized again on every round).
 */
function putBackLifted(ctx: ServerContext, params: Record<string, unknown>): void {
  const envelope = (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
  const carried: Record<string, unknown> = {};
  for (const key of [CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY]) if (envelope[key] !== undefined) carried[key] = envelope[key];
  if (Object.keys(carried).length) params._meta = { ...((params._meta as Record<string, unknown> | undefined) ?? {}), ...carried };
  if (ctx.mcpReq.inputResponses) params.inputResponses = ctx.mcpReq.inputResponses;
  const state = ctx.mcpReq.requestState();
  if (typeof state === 'string') params.requestState = state;
}

/** The tools of a server a key may list: those switched on in Gatehouse that the key may use. */
function usableTools(caller: Caller, upstream: McpUpstream, tools: Tool[]): Tool[] {
  const off = new Set(upstream.settings.disabledTools);
  return tools.filter((tool) => !off.has(tool.name) && mayUseTool(caller, upstream.name, tool.name));
}

/** The client's HTTP request headers of a call, for its log row (redacted there). */
function headersOf(ctx: ServerContext): Record<string, string> {
  const headers = ctx.http?.req?.headers;
  return headers ? Object.fromEntries(headers) : {};
}

/** The capabilities of a server this relay carries (its experimental ones and tasks are not relayed). */
function relayedCapabilities(capabilities: ServerCapabilities | undefined): ServerCapabilities {
  if (!capabilities) return UNREACHED_CAPABILITIES;
  const offered: ServerCapabilities = {};
  for (const name of ['tools', 'prompts', 'resources', 'logging', 'completions'] as const) {
    if (capabilities[name]) (offered as Record<string, unknown>)[name] = capabilities[name];
  }
  return offered;
}
