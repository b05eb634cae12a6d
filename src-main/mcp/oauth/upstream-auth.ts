// The gateway's side of a signed-in MCP server: the bearer token for every request to it, refreshed before
// it expires, and the SDK's answer to a 401 (refresh, else the grant is gone). Whatever ends the grant —
// a refresh refused, a 401 that refreshing cannot cure — leaves the server "sign-in needed", and the
// caller gets an error that says so (UnauthorizedError, turned into a JSON-RPC error by upstream.ts).
import {
  auth,
  extractWWWAuthenticateParams,
  OAuthError,
  OAuthErrorCode,
  refreshAuthorization,
  UnauthorizedError,
  type AuthProvider,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/client';
import type { McpOAuthChange, McpOAuthGrant } from '../../core/mcp-servers.js';
import { GrantProvider } from './grant-provider.js';
import { boundedFetch } from './http.js';

/** A token is refreshed this long before it expires (or in the last fifth of a shorter life). */
const REFRESH_MARGIN_MS = 60_000;
/** The gateway never completes an authorization itself; auth() needs some redirect address to build a URL it then drops. */
const UNUSED_REDIRECT = 'http://127.0.0.1/oauth/callback';

export function expiresAt(grant: McpOAuthGrant | null): number | null {
  const lifetime = grant?.tokens?.expires_in;
  return lifetime === undefined || grant?.receivedAt === undefined ? null : grant.receivedAt + lifetime * 1000;
}

export class UpstreamAuth implements AuthProvider {
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly serverUrl: string,
    /** The grant as it is now (the upstream keeps it, newer of its own and the store's). */
    private readonly grant: () => McpOAuthGrant | null,
    /** Keeps a change: in memory at once, sealed in the store after. */
    private readonly save: (change: McpOAuthChange) => Promise<void>,
    private readonly timeoutMs: number,
  ) {}

  async token(): Promise<string | undefined> {
    await this.refreshIfDue();
    return this.grant()?.tokens?.access_token;
  }

  async onUnauthorized(ctx: Parameters<NonNullable<AuthProvider['onUnauthorized']>>[0]): Promise<void> {
    const provider: GrantProvider = new GrantProvider({
      grant: this.grant() ?? {},
      redirectUrl: UNUSED_REDIRECT,
      persist: (grant) => this.save({ state: grant.tokens ? 'signed-in' : 'sign-in-needed', grant }),
      // The user's approval is needed: the grant is over; keep the registration and metadata for the next sign-in.
      onRedirect: async (): Promise<void> => this.save({ state: 'sign-in-needed', grant: { ...provider.grant, tokens: undefined, receivedAt: undefined } }),
    });
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(ctx.response);
    const result = await auth(provider, { serverUrl: this.serverUrl, resourceMetadataUrl, fetchFn: boundedFetch(this.timeoutMs) });
    if (result !== 'AUTHORIZED') throw new UnauthorizedError('sign-in needed');
  }

  private async refreshIfDue(): Promise<void> {
    const grant = this.grant();
    const until = expiresAt(grant);
    if (!grant?.tokens?.refresh_token || until === null) return;
    const margin = Math.min(REFRESH_MARGIN_MS, ((grant.tokens.expires_in ?? 0) * 1000) / 5);
    if (Date.now() < until - margin) return;
    // One refresh at a time: calls that find the token due all wait for the same one.
    this.refreshing ??= this.refresh(grant).finally(() => (this.refreshing = undefined));
    await this.refreshing;
  }

  private async refresh(grant: McpOAuthGrant): Promise<void> {
    const discovery = grant.discovery as unknown as OAuthDiscoveryState | undefined;
    if (!discovery?.authorizationServerUrl || !grant.client || !grant.tokens?.refresh_token) return;
    try {
      const tokens = await refreshAuthorization(discovery.authorizationServerUrl, {
        metadata: discovery.authorizationServerMetadata,
        clientInformation: grant.client,
        refreshToken: grant.tokens.refresh_token,
        resource: grant.resource,
        fetchFn: boundedFetch(this.timeoutMs),
      });
      // The issuer stamp stays: the SDK drops tokens not stamped with the issuer it finds.
      await this.save({ state: 'signed-in', grant: { ...grant, tokens: { ...tokens, issuer: grant.tokens.issuer }, receivedAt: Date.now() } });
    } catch (error) {
      if (error instanceof OAuthError && (error.code === OAuthErrorCode.InvalidGrant || error.code === OAuthErrorCode.InvalidClient || error.code === OAuthErrorCode.UnauthorizedClient)) {
        await this.save({ state: 'sign-in-needed', grant: { ...grant, tokens: undefined, receivedAt: undefined } });
      }
      // Anything else (the server down, slow): the token may still serve; a 401 then takes the SDK's path.
    }
  }
}
