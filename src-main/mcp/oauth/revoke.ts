// Revoking a grant at its authorization server (RFC 7009) when its MCP server is removed: the refresh
// token first (which ends the grant), then the access token, each with the client's identity. A server
// that offers no revocation endpoint is said so; its tokens are forgotten with the row either way.
import { assertSecureTokenEndpoint, type FetchLike } from '@modelcontextprotocol/client';
import type { McpOAuthGrant } from '../../core/mcp-servers.js';
import { boundedFetch, oauthFailure } from './http.js';

export type Revocation = 'revoked' | 'not-offered' | 'nothing-to-revoke';

export async function revokeGrant(grant: McpOAuthGrant | null, timeoutMs: number, fetchFn: FetchLike = boundedFetch(timeoutMs)): Promise<Revocation> {
  const tokens = grant?.tokens;
  if (!tokens || !grant.client) return 'nothing-to-revoke';
  const metadata = (grant.discovery as { authorizationServerMetadata?: { revocation_endpoint?: unknown } } | undefined)?.authorizationServerMetadata;
  if (typeof metadata?.revocation_endpoint !== 'string') return 'not-offered';
  const endpoint = assertSecureTokenEndpoint(metadata.revocation_endpoint);
  const secrets = [tokens.access_token, tokens.refresh_token ?? '', grant.client.client_secret ?? ''];
  for (const [token, hint] of [
    [tokens.refresh_token, 'refresh_token'],
    [tokens.access_token, 'access_token'],
  ] as const) {
    if (!token) continue;
    const body = new URLSearchParams({ token, token_type_hint: hint, client_id: grant.client.client_id });
    if (grant.client.client_secret) body.set('client_secret', grant.client.client_secret);
    let response: Response;
    try {
      response = await fetchFn(endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    } catch (error) {
      throw new Error(`The revocation endpoint failed: ${oauthFailure(error, secrets)}`);
    }
    if (!response.ok) throw new Error(`The revocation endpoint answered ${response.status}`);
  }
  return 'revoked';
}
