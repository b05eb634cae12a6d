// Whether a remote MCP server wants OAuth sign-in, asked once when it is added (and again when a server
// that took none starts answering 401): a request without credentials answered 401 whose WWW-Authenticate
// names protected-resource metadata, or whose RFC 9728 metadata is at the well-known address.
import { discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams } from '@modelcontextprotocol/client';
import { boundedFetch } from './http.js';

export async function wantsOAuth(url: string, headers: Record<string, string>, timeoutMs: number): Promise<boolean> {
  const fetchFn = boundedFetch(timeoutMs);
  let response: Response;
  try {
    // A ping, not initialize: a server that takes no OAuth refuses it without a session being made for nothing.
    response = await fetchFn(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'gatehouse-oauth-probe', method: 'ping' }),
    });
  } catch {
    // Unreachable now: added as it is; a later 401 is asked about again.
    return false;
  }
  if (response.status !== 401) return false;
  if (extractWWWAuthenticateParams(response).resourceMetadataUrl) return true;
  try {
    await discoverOAuthProtectedResourceMetadata(url, {}, fetchFn);
    return true;
  } catch {
    return false;
  }
}
