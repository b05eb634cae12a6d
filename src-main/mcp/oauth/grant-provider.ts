// The SDK's OAuthClientProvider over one MCP server's grant (core/mcp-servers.ts McpOAuthGrant): the
// client registration, the tokens and the discovered metadata are kept together, in memory here and
// sealed at rest by whoever passes `persist`. The sign-in (sign-in.ts) and the gateway's connection
// (upstream-auth.ts) both drive the SDK's auth() through it; they differ only in what a request for the
// user's approval does (`onRedirect`): the sign-in shows the URL, the gateway marks the server "sign-in needed".
import { randomBytes } from 'node:crypto';
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { McpOAuthGrant } from '../../core/mcp-servers.js';

/** How Gatehouse describes itself to an authorization server (dynamic registration): a public client with PKCE. */
export function clientMetadata(redirectUrl: string): OAuthClientMetadata {
  return {
    client_name: 'Gatehouse',
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

export interface GrantProviderOptions {
  grant: McpOAuthGrant;
  redirectUrl: string;
  /** Called with the grant after every change the SDK makes (tokens, registration, discovery). */
  persist: (grant: McpOAuthGrant) => Promise<void>;
  /** The SDK asks for the user's approval at this URL. */
  onRedirect: (authorizationUrl: URL) => Promise<void>;
  /** The `state` the sign-in checks on its callback. */
  state?: string;
}

export class GrantProvider implements OAuthClientProvider {
  grant: McpOAuthGrant;
  private verifier: string | undefined;

  constructor(private readonly options: GrantProviderOptions) {
    this.grant = options.grant;
  }

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    // A client id the user gave may come with a secret: then it authenticates at the token endpoint.
    const given = this.grant.client;
    return { ...clientMetadata(this.options.redirectUrl), ...(given?.client_secret ? { token_endpoint_auth_method: 'client_secret_post' } : {}) };
  }

  /** The sign-in's own state; the gateway, which only drops the URL the SDK builds, gets a throwaway one. */
  state(): string {
    return this.options.state ?? randomBytes(16).toString('base64url');
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.grant.client as StoredOAuthClientInformation | undefined;
  }

  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    await this.change({ client: client as McpOAuthGrant['client'] });
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.grant.tokens as StoredOAuthTokens | undefined;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    await this.change({ tokens: tokens as McpOAuthGrant['tokens'], receivedAt: Date.now() });
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    await this.options.onRedirect(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('No sign-in is under way (no PKCE verifier)');
    return this.verifier;
  }

  saveResourceUrl(resource: string): Promise<void> {
    return this.change({ resource });
  }

  resourceUrl(): string | undefined {
    return this.grant.resource;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.change({ discovery: state as unknown as Record<string, unknown> });
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.grant.discovery as unknown as OAuthDiscoveryState | undefined;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') this.verifier = undefined;
    else if (scope === 'tokens') await this.change({ tokens: undefined, receivedAt: undefined });
    else if (scope === 'client') await this.change({ client: undefined });
    else if (scope === 'discovery') await this.change({ discovery: undefined });
    else await this.change({ client: undefined, tokens: undefined, receivedAt: undefined, discovery: undefined });
  }

  private async change(part: Partial<McpOAuthGrant>): Promise<void> {
    this.grant = { ...this.grant, ...part };
    await this.options.persist(this.grant);
  }
}
