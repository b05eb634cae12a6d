// The 2026-07-28 side of /mcp and /mcp/{server}: no session and no initialize — each request carries its
// protocol version, client info and capabilities in `_meta`, and is served on its own by a fresh SDK
// Server (the same handlers a 2025-era session has, McpSession) made for the key that request presented,
// authorized on its own before (access.ts). The SDK's entry (createMcpHandler, modern-only) does the
// validation ladder, `server/discover`, the `Mcp-Method`/`Mcp-Name` header checks and the
// `subscriptions/listen` streams; one entry per endpoint, so a listener of /mcp/{server} hears only of
// that server.
import { createMcpHandler, isLegacyRequest, type McpHttpHandler, type Server } from '@modelcontextprotocol/server';

/** Where the endpoint hands the per-request Server to the SDK's factory (it travels with the request, never shared). */
const OPEN = 'gatehouse.open';

export class ModernEndpoints {
  private readonly handlers = new Map<string | null, McpHttpHandler>();

  /** Whether a request speaks 2026-07-28 (a `_meta` envelope, or a modern version header): the SDK's own classification. */
  async speaksModern(request: Request, body: unknown): Promise<boolean> {
    return !(await isLegacyRequest(request, body));
  }

  /** Serves one request with the Server `open` makes for it. */
  serve(scope: string | null, request: Request, body: unknown, open: () => Server): Promise<Response> {
    return this.handlerFor(scope).fetch(request, { parsedBody: body, authInfo: { token: '', clientId: '', scopes: [], extra: { [OPEN]: open } } });
  }

  /** Tells the open `subscriptions/listen` streams of an endpoint (every one, for null) that its tools (and more) changed. */
  listChanged(scope: string | null, what: { prompts?: boolean; resources?: boolean } = {}): void {
    for (const [endpoint, handler] of this.handlers) {
      if (scope !== null && endpoint !== null && endpoint !== scope) continue;
      handler.notify.toolsChanged();
      if (what.prompts) handler.notify.promptsChanged();
      if (what.resources) handler.notify.resourcesChanged();
    }
  }

  /** A resource's change, to the streams that subscribed to its URI. */
  resourceUpdated(scope: string, uri: string): void {
    for (const [endpoint, handler] of this.handlers) if (endpoint === null || endpoint === scope) handler.notify.resourceUpdated(uri);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.handlers.values()].map((handler) => handler.close()));
    this.handlers.clear();
  }

  private handlerFor(scope: string | null): McpHttpHandler {
    let handler = this.handlers.get(scope);
    if (!handler) {
      handler = createMcpHandler(
        (context) => {
          const open = context.authInfo?.extra?.[OPEN];
          if (typeof open !== 'function') throw new Error('a 2026-07-28 request reached the SDK without its server');
          return (open as () => Server)();
        },
        // The body was read within the gateway's cap and is handed over parsed: the SDK reads nothing itself.
        { legacy: 'reject', onerror: () => undefined },
      );
      this.handlers.set(scope, handler);
    }
    return handler;
  }
}
