// One MCP server Gatehouse connects to, as a client (the official SDK's Client): started when first
// needed, shared by every session that uses it, and supervised — a stdio server that crashes is started
// again with a growing pause, one that cannot start answers at once with its error (never a hang), and
// its stderr is kept in a bounded buffer. Requests the server sends back (sampling, elicitation, roots)
// and its notifications go to the hub (gateway.ts), which knows the sessions.
import {
  Client,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type Notification,
  type Request,
  type RequestOptions,
  type Result,
  type ServerCapabilities,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { PASS_THROUGH, TIMED_OUT, UNAVAILABLE } from './wire.js';
import { redactSecrets } from '../core/redact.js';
import type { McpOAuthChange, McpOAuthGrant, McpServerConnection } from '../core/mcp-servers.js';
import { wantsOAuth } from './oauth/detect.js';
import { oauthTimeoutMs } from './oauth/http.js';
import { UpstreamAuth } from './oauth/upstream-auth.js';

export type UpstreamStatus = 'stopped' | 'starting' | 'running' | 'restarting' | 'failed' | 'disabled';

/**
 * The protocol era a call comes from: a 2025-era session ('legacy') or a 2026-07-28 request ('modern'). A server
 * that speaks both is called in the caller's own era, as a direct connection would be; only a server that lacks
 * it is called in the other, and the relay translates (an `input_required` answer fulfilled through the
 * session's client).
 */
export type CallerEra = 'legacy' | 'modern';

/** How a request is sent on: the caller's era and, for a 2026-07-28 caller, its `input_required` answers handed back. */
export type UpstreamRequestOptions = Pick<RequestOptions, 'signal' | 'onprogress'> & { era?: CallerEra };

/** What the hub does with what a server sends on its own. */
export interface UpstreamEvents {
  /** A request of the server to the client (sampling, elicitation, roots): answered by a session's client. */
  onServerRequest(server: string, request: Request, signal: AbortSignal): Promise<Result>;
  onServerNotification(server: string, notification: Notification): void;
  /** The server's sign-in changed (a refresh, a grant that ended, a server found to want OAuth): to be kept in the store. */
  onOAuthChange?(server: string, change: McpOAuthChange): void;
}

/** The JSON-RPC error of every call to a server that needs a sign-in first: at once, never a wait. */
export function signInNeeded(name: string): ProtocolError {
  return new ProtocolError(UNAVAILABLE, `MCP server '${name}' needs sign-in: run 'gatehouse mcp login ${name}', or use Sign in on the MCP servers page`, { signIn: 'needed', server: name });
}

export const STDERR_LINES = 200;
const STDERR_LINE_CHARS = 2_000;
/** A server that failed to start is not tried again for this long: its callers get the error at once. */
const START_COOLDOWN_MS = 3_000;
const FIRST_RESTART_DELAY_MS = 250;
const MAX_RESTART_DELAY_MS = 30_000;
/** Running this long without crashing resets the restart pause. */
const STABLE_AFTER_MS = 10_000;
/** Crashes in a row (each restart that failed to start counted) before supervision gives up until the next need. */
const MAX_RESTARTS_IN_A_ROW = 6;

/** A server that cannot start must answer its callers, never keep them waiting. */
function startTimeout(config: McpServerConnection): number {
  return Math.min(Math.max(config.timeoutMs, 5_000), 120_000);
}

/** A wait its caller may give up on (a client that cancels while its server is still starting). */
function abortable<T>(waiting: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return waiting;
  if (signal.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    signal.addEventListener('abort', onAbort, { once: true });
    waiting.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** The fields that decide how a server is reached: a change to any of them means a new connection. */
function connectionIdentity(config: McpServerConnection): string {
  return JSON.stringify([config.transport, config.command, config.args, config.env, config.secretEnvValues, config.url, config.headers, config.secretHeaderValues]);
}

export class McpUpstream {
  status: UpstreamStatus = 'stopped';
  lastError: string | null = null;
  toolCount: number | null = null;
  private readonly stderrLines: string[] = [];
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  /**
   * A second connection in the 2025 era, for 2025-era sessions, when the first one (asked `server/discover`)
   * reached the server in 2026-07-28: such a session's `logging/setLevel`, `resources/subscribe` and
   * mid-call elicitation or sampling only exist in its own era. Made when first needed; `false` once the
   * server refused the 2025 handshake (a 2026-only server: those sessions are translated instead).
   */
  private legacyTwin: Client | false | undefined;
  private legacyTwinConnecting: Promise<Client | undefined> | undefined;
  private failedAt = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private restartsInARow = 0;
  private runningSince = 0;
  private stopped = false;
  private toolsCache: Tool[] | undefined;
  /** The sign-in in use: the store's, or this process's own newer one (a refresh not yet read back). */
  private oauthGrant: McpOAuthGrant | null;

  constructor(
    private config: McpServerConnection,
    private readonly events: UpstreamEvents,
    private readonly version: string,
  ) {
    if (!config.enabled) this.status = 'disabled';
    this.oauthGrant = config.oauthGrant;
  }

  get name(): string {
    return this.config.name;
  }

  get settings(): McpServerConnection {
    return this.config;
  }

  /** The server's secret values: blanked out of its stderr, its errors and the log. Listed once per configuration, not per call. */
  get secrets(): readonly string[] {
    if (this.secretsOf?.config !== this.config) {
      this.secretsOf = { config: this.config, values: [...Object.values(this.config.secretEnvValues), ...Object.values(this.config.secretHeaderValues)] };
    }
    const grant = this.oauthGrant;
    if (!grant) return this.secretsOf.values;
    return [...this.secretsOf.values, grant.tokens?.access_token, grant.tokens?.refresh_token, grant.client?.client_secret].filter((value): value is string => !!value);
  }

  private secretsOf: { config: McpServerConnection; values: readonly string[] } | undefined;

  /** The sign-in in use (for revocation when the server is removed). */
  get grant(): McpOAuthGrant | null {
    return this.oauthGrant;
  }

  get stderr(): string[] {
    return [...this.stderrLines];
  }

  /** Takes a changed configuration; a change to how it is reached (or switching it off) closes the connection. */
  reconfigure(config: McpServerConnection): void {
    const reconnect = connectionIdentity(config) !== connectionIdentity(this.config) || (this.config.enabled && !config.enabled);
    this.config = config;
    this.adoptGrant(config.oauthGrant);
    if (reconnect) {
      void this.disconnect();
      this.failedAt = 0;
      this.lastError = null;
      this.toolCount = null;
    }
    if (!config.enabled) this.status = 'disabled';
    else if (this.status === 'disabled') this.status = 'stopped';
  }

  /** The connected client, started if need be; rejects with an SDK error when the server cannot be reached. */
  async connected(): Promise<Client> {
    if (this.stopped) throw new ProtocolError(UNAVAILABLE, `MCP server '${this.name}' is shutting down`);
    if (!this.config.enabled) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `MCP server '${this.name}' is switched off`);
    if (this.config.oauth && !this.oauthGrant?.tokens) throw signInNeeded(this.name);
    if (this.client) return this.client;
    if (this.connecting) return this.connecting;
    if (this.status === 'failed' && Date.now() - this.failedAt < START_COOLDOWN_MS) {
      throw new ProtocolError(UNAVAILABLE, `MCP server '${this.name}' could not be started: ${this.lastError ?? 'unknown error'}`);
    }
    return this.start();
  }

  /** The protocol revision this server was reached in (e.g. 2025-11-25, 2026-07-28); null until connected. */
  get protocolVersion(): string | null {
    return this.client?.getNegotiatedProtocolVersion() ?? null;
  }

  /** The server's capabilities once connected, as it states them to a caller of that era. */
  async capabilities(era?: CallerEra): Promise<{ capabilities: ServerCapabilities; instructions?: string; serverInfo?: { name: string; version: string } }> {
    const client = await this.clientFor(era);
    return { capabilities: client.getServerCapabilities() ?? {}, instructions: client.getInstructions(), serverInfo: client.getServerVersion() };
  }

  /**
   * A request forwarded as it is, its answer returned as the server sent it; the server's call timeout applies.
   * Sent in the caller's era where the server speaks it; a 2026-07-28 caller reached in that era gets the
   * server's `input_required` answers as they are (its client fulfils them and asks again).
   */
  async request(request: Request, options: UpstreamRequestOptions = {}): Promise<Result> {
    const { era, ...sendOptions } = options;
    const client = await abortable(this.clientFor(era), options.signal);
    const handBack = era === 'modern' && client.getProtocolEra() === 'modern';
    try {
      return await client.request(request, PASS_THROUGH, { ...sendOptions, timeout: this.config.timeoutMs, ...(handBack ? { allowInputRequired: true } : {}) });
    } catch (error) {
      // The SDK reports every abort as a timeout: a call its caller gave up on fails with the caller's reason.
      if (options.signal?.aborted && options.signal.reason instanceof Error) throw options.signal.reason;
      if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
        throw new ProtocolError(TIMED_OUT, `MCP server '${this.name}' did not answer ${request.method} within ${this.config.timeoutMs} ms`);
      }
      if (this.isAuthFailure(error)) throw signInNeeded(this.name);
      throw error;
    }
  }

  /** A client's notification, on every open connection to the server (both eras' sessions may depend on it). */
  async notify(notification: Notification): Promise<void> {
    const client = await this.connected();
    const twin = this.legacyTwin;
    await Promise.all([client.notification(notification), twin ? twin.notification(notification) : undefined]);
  }

  /** The connection a caller of an era is served on: the 2025-era twin for a 2025 session when the first one is 2026-07-28. */
  private async clientFor(era: CallerEra | undefined): Promise<Client> {
    const client = await this.connected();
    if (era !== 'legacy' || client.getProtocolEra() !== 'modern' || this.config.transport !== 'http') return client;
    return (await this.legacyConnection()) ?? client;
  }

  private legacyConnection(): Promise<Client | undefined> {
    if (this.legacyTwin !== undefined) return Promise.resolve(this.legacyTwin || undefined);
    if (this.legacyTwinConnecting) return this.legacyTwinConnecting;
    const config = this.config;
    const identity = connectionIdentity(config);
    const attempt = (async () => {
      const client = this.newClient(config, 'legacy');
      try {
        await client.connect(this.transportFor(config), { timeout: startTimeout(config) });
      } catch {
        // It answers 2026-07-28 and not the 2025 handshake: its 2025 callers are translated on the first connection.
        await client.close().catch(() => undefined);
        if (identity === connectionIdentity(this.config)) this.legacyTwin = false;
        return undefined;
      }
      if (this.stopped || identity !== connectionIdentity(this.config) || !this.config.enabled) {
        await client.close().catch(() => undefined);
        throw new ProtocolError(UNAVAILABLE, `MCP server '${this.name}' was changed while it started; try again`);
      }
      client.onclose = () => {
        if (this.legacyTwin === client) this.legacyTwin = undefined;
      };
      this.legacyTwin = client;
      return client;
    })();
    this.legacyTwinConnecting = attempt;
    const done = () => {
      if (this.legacyTwinConnecting === attempt) this.legacyTwinConnecting = undefined;
    };
    attempt.then(done, done);
    return attempt;
  }

  /** Every tool of the server (all pages), remembered until it says its list changed. */
  async tools(): Promise<Tool[]> {
    if (this.toolsCache) return this.toolsCache;
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = (await this.request({ method: 'tools/list', params: cursor ? { cursor } : {} })) as { tools?: Tool[]; nextCursor?: string };
      tools.push(...(page.tools ?? []));
      cursor = page.nextCursor;
    } while (cursor && tools.length < 10_000);
    this.toolsCache = tools;
    this.toolCount = tools.length;
    return tools;
  }

  forgetTools(): void {
    this.toolsCache = undefined;
  }

  /** Stops the server for good (Gatehouse is stopping, or the server was removed). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.disconnect();
    this.status = 'stopped';
  }

  // ---- internals ----

  private start(): Promise<Client> {
    this.status = this.status === 'restarting' ? 'restarting' : 'starting';
    const attempt = this.connect();
    this.connecting = attempt;
    attempt.then(
      () => {
        if (this.connecting === attempt) this.connecting = undefined;
      },
      () => {
        if (this.connecting === attempt) this.connecting = undefined;
      },
    );
    return attempt;
  }

  /**
   * A client of the server with Gatehouse's handlers. `auto`: a Streamable HTTP server is asked `server/discover`
   * first — one that speaks 2026-07-28 is called in that era, any other falls back to initialize; `legacy`: the
   * 2025 handshake only. A stdio server is started in the 2025 era (probing would start a second process of it
   * for every connection).
   */
  private newClient(config: McpServerConnection, mode: 'auto' | 'legacy'): Client {
    const client = new Client(
      { name: 'gatehouse', version: this.version },
      {
        capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } },
        versionNegotiation: { mode },
      },
    );
    for (const method of ['sampling/createMessage', 'elicitation/create', 'roots/list'] as const) {
      client.setRequestHandler(method, (request, ctx) => this.events.onServerRequest(this.name, request as Request, ctx.mcpReq.signal) as never);
    }
    client.fallbackNotificationHandler = async (notification) => {
      if (notification.method === 'notifications/tools/list_changed') this.forgetTools();
      this.events.onServerNotification(this.name, notification);
    };
    return client;
  }

  private async connect(): Promise<Client> {
    const config = this.config;
    const identity = connectionIdentity(config);
    const client = this.newClient(config, config.transport === 'http' ? 'auto' : 'legacy');
    const transport = this.transportFor(config);
    try {
      await client.connect(transport, { timeout: startTimeout(config) });
    } catch (error) {
      await client.close().catch(() => undefined);
      if (this.isAuthFailure(error)) {
        this.lastError = 'sign-in needed';
        this.status = 'failed';
        this.failedAt = Date.now();
        throw signInNeeded(this.name);
      }
      if (!config.oauth && config.transport !== 'stdio' && (error as { data?: { status?: unknown } }).data?.status === 401) await this.checkForOAuth(config);
      const reason = this.describe(error);
      this.failedAt = Date.now();
      this.lastError = reason;
      this.status = 'failed';
      if (this.restartsInARow > 0 && this.restartsInARow < MAX_RESTARTS_IN_A_ROW && !this.stopped) this.scheduleRestart();
      throw new ProtocolError(UNAVAILABLE, `MCP server '${this.name}' could not be started: ${reason}`);
    }
    // Reconfigured or stopped while it started: this connection is not wanted any more.
    if (this.stopped || identity !== connectionIdentity(this.config) || !this.config.enabled) {
      await client.close().catch(() => undefined);
      throw new ProtocolError(UNAVAILABLE, `MCP server '${this.name}' was changed while it started; try again`);
    }
    client.onclose = () => this.closed(client);
    this.client = client;
    this.status = 'running';
    this.lastError = null;
    this.runningSince = Date.now();
    return client;
  }

  private transportFor(config: McpServerConnection): Transport {
    if (config.transport === 'stdio') {
      const transport = new StdioClientTransport({
        command: config.command ?? '',
        args: config.args,
        env: { ...getDefaultEnvironment(), ...config.env, ...config.secretEnvValues },
        stderr: 'pipe',
      });
      let partial = '';
      transport.stderr?.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString('utf8')).split(/\r?\n/);
        partial = lines.pop() ?? '';
        if (partial.length > STDERR_LINE_CHARS) partial = partial.slice(0, STDERR_LINE_CHARS);
        for (const line of lines) this.keepStderr(line);
      });
      return transport;
    }
    const headers = { ...config.headers, ...config.secretHeaderValues };
    const url = new URL(config.url ?? '');
    const authProvider = config.oauth ? new UpstreamAuth(url.href, () => this.oauthGrant, async (change) => this.keepOAuth(change), oauthTimeoutMs()) : undefined;
    return config.transport === 'sse'
      ? new SSEClientTransport(url, { requestInit: { headers }, authProvider })
      : new StreamableHTTPClientTransport(url, { requestInit: { headers }, authProvider });
  }

  /** A sign-in change made here: used at once, and handed to the hub to be sealed in the store. */
  private keepOAuth(change: McpOAuthChange): void {
    this.oauthGrant = change.grant;
    this.events.onOAuthChange?.(this.name, change);
  }

  /**
   * The store's grant replaces this process's only when it is as new or newer: a store read from before this
   * process's own refresh must not bring back a refresh token the server has rotated away.
   */
  private adoptGrant(stored: McpOAuthGrant | null): void {
    const mine = this.oauthGrant;
    if (!stored || !mine?.tokens || (stored.receivedAt ?? 0) >= (mine.receivedAt ?? 0)) {
      const signedInAgain = !mine?.tokens && !!stored?.tokens;
      this.oauthGrant = stored;
      if (signedInAgain) this.failedAt = 0;
    }
  }

  /** A 401 the SDK's OAuth could not cure, from the transport (its UnauthorizedError or its 401-after-retry). */
  private isAuthFailure(error: unknown): boolean {
    if (!this.config.oauth) return false;
    return UnauthorizedError.isInstance(error) || (error instanceof SdkError && error.code === SdkErrorCode.ClientHttpAuthentication);
  }

  /** A server that took no OAuth answered 401: if it now asks for OAuth, it is marked "sign-in needed". */
  private async checkForOAuth(config: McpServerConnection): Promise<void> {
    if (await wantsOAuth(config.url ?? '', { ...config.headers, ...config.secretHeaderValues }, oauthTimeoutMs())) {
      this.events.onOAuthChange?.(this.name, { state: 'sign-in-needed', grant: null });
    }
  }

  private keepStderr(line: string): void {
    if (line === '') return;
    const clean = redactSecrets(line.length > STDERR_LINE_CHARS ? `${line.slice(0, STDERR_LINE_CHARS)}…` : line, this.secrets);
    this.stderrLines.push(clean);
    if (this.stderrLines.length > STDERR_LINES) this.stderrLines.splice(0, this.stderrLines.length - STDERR_LINES);
  }

  /** The connection ended: on purpose (nothing to do), or a crash, which supervision restarts. */
  private closed(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.forgetTools();
    if (this.stopped) return;
    const lastLine = this.stderrLines.at(-1);
    this.lastError = `the server exited${lastLine ? `: ${lastLine}` : ''}`;
    if (Date.now() - this.runningSince > STABLE_AFTER_MS) this.restartsInARow = 0;
    if (this.restartsInARow >= MAX_RESTARTS_IN_A_ROW) {
      this.status = 'failed';
      this.failedAt = Date.now();
      return;
    }
    this.status = 'restarting';
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    if (this.restartTimer) return;
    const delay = Math.min(FIRST_RESTART_DELAY_MS * 2 ** this.restartsInARow, MAX_RESTART_DELAY_MS);
    this.restartsInARow++;
    this.status = 'restarting';
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.stopped || this.client || this.connecting || !this.config.enabled) return;
      this.start().then(
        () => undefined,
        () => undefined,
      );
    }, delay);
    this.restartTimer.unref();
  }

  private async disconnect(): Promise<void> {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    this.restartsInARow = 0;
    const client = this.client;
    const twin = this.legacyTwin;
    this.client = undefined;
    this.connecting = undefined;
    this.legacyTwin = undefined;
    this.legacyTwinConnecting = undefined;
    this.forgetTools();
    if (twin) await twin.close().catch(() => undefined);
    if (this.status === 'running' || this.status === 'restarting' || this.status === 'starting') this.status = 'stopped';
    // The SDK's stdio transport ends the child: stdin closed, then SIGTERM, then SIGKILL.
    if (client) await client.close().catch(() => undefined);
  }

  private describe(error: unknown): string {
    const message = error instanceof Error ? error.message : String(error);
    const lastLine = this.stderrLines.at(-1);
    const detail = message.replace(/^MCP error -?\d+: /, '');
    return redactSecrets(lastLine && !detail.includes(lastLine) ? `${detail} (stderr: ${lastLine})` : detail, this.secrets);
  }
}
