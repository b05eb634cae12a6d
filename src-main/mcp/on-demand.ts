// The MCP gateway, loaded the first time it is needed. The MCP SDK costs a fresh process about 28 MB
// (its schemas are built when it loads), which a Gatehouse with no MCP server configured and no MCP
// client should not spend: configured servers load it at start, otherwise the first /mcp request or the
// first admin call about a server does.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServerConnection } from '../core/mcp-servers.js';
import type { McpEndpointOptions } from './endpoint.js';
import type { McpGateway, McpGatewayOptions, McpServerState } from './gateway.js';

type McpHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;

interface Loaded {
  gateway: McpGateway;
  handle: McpHandler;
}

/** What the admin API asks of the running MCP gateway. */
export type McpStatus = Pick<McpGateway, 'state' | 'stderr' | 'tools' | 'callTool' | 'has' | 'revokeSignIn'> & Pick<OnDemandMcpGateway, 'wantsOAuth'>;

export class OnDemandMcpGateway implements McpStatus {
  private loading: Promise<Loaded> | undefined;
  private loaded: Loaded | undefined;
  private servers: readonly McpServerConnection[] = [];

  constructor(
    private readonly options: McpGatewayOptions,
    private readonly endpoint: Omit<McpEndpointOptions, 'gateway'>,
    /** Told when loading the gateway failed (it is tried again at the next need). */
    private readonly warn: (message: string) => void,
  ) {}

  /** The configured servers (at start and after every change); the first one loads the gateway. */
  setServers(servers: readonly McpServerConnection[]): void {
    this.servers = servers;
    if (this.loaded) this.loaded.gateway.setServers(servers);
    else if (servers.length > 0) this.load().catch((error: unknown) => this.warn(`MCP servers not loaded: ${(error as Error).message}`));
  }

  /** A server not started yet (the gateway still loading) reads as stopped, as a new upstream does. */
  state(name: string): McpServerState {
    return this.loaded?.gateway.state(name) ?? { status: 'stopped', lastError: null, toolCount: null };
  }

  /** Whether the running gateway has a server of that name (none before it is loaded). */
  has(name: string): boolean {
    return this.loaded?.gateway.has(name) ?? false;
  }

  stderr(name: string): string[] {
    return this.loaded?.gateway.stderr(name) ?? [];
  }

  async tools(name: string): ReturnType<McpGateway['tools']> {
    return (await this.load()).gateway.tools(name);
  }

  async callTool(name: string, tool: string, args: Record<string, unknown>): ReturnType<McpGateway['callTool']> {
    return (await this.load()).gateway.callTool(name, tool, args);
  }

  /** Revokes a server's grant at its authorization server; null when it has none (or the gateway never loaded it). */
  async revokeSignIn(name: string): ReturnType<McpGateway['revokeSignIn']> {
    return this.loaded ? this.loaded.gateway.revokeSignIn(name) : null;
  }

  /** Whether a remote server asks for OAuth sign-in (asked when it is added); loads only the OAuth client. */
  async wantsOAuth(url: string, headers: Record<string, string>): Promise<boolean> {
    const [{ wantsOAuth }, { oauthTimeoutMs }] = await Promise.all([import('./oauth/detect.js'), import('./oauth/http.js')]);
    return wantsOAuth(url, headers, oauthTimeoutMs());
  }

  /** The /mcp endpoint; a request before the gateway is loaded waits for it (its body stays unread meanwhile). */
  readonly handle: McpHandler = async (req, res, url) => (this.loaded ?? (await this.load())).handle(req, res, url);

  async close(): Promise<void> {
    const loaded = this.loaded ?? (await this.loading?.catch(() => undefined));
    await loaded?.gateway.close();
  }

  private load(): Promise<Loaded> {
    this.loading ??= (async () => {
      const [{ McpGateway }, { createMcpHandler }] = await Promise.all([import('./gateway.js'), import('./endpoint.js')]);
      const gateway = new McpGateway(this.options);
      gateway.setServers(this.servers);
      this.loaded = { gateway, handle: createMcpHandler({ ...this.endpoint, gateway }) };
      return this.loaded;
    })();
    // A failed load is tried again next time rather than failing every later call the same way.
    this.loading.catch(() => (this.loading = undefined));
    return this.loading;
  }
}
