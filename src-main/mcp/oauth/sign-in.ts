// One sign-in to an MCP server, on the SDK's auth(): discovery (protected-resource and authorization-server
// metadata), the client identity (the id and secret the user gave, else dynamic registration), the
// authorization URL with PKCE, `state` and the RFC 8707 resource, then the code exchanged for tokens. The
// answer's `state` is checked here, once, for every callback (the CLI's loopback port and any other).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { auth } from '@modelcontextprotocol/client';
import type { McpOAuthGrant } from '../../core/mcp-servers.js';
import { GrantProvider } from './grant-provider.js';
import { boundedFetch, oauthFailure } from './http.js';

/** A callback whose `state` is not this sign-in's: answered and ignored, the sign-in goes on waiting. */
export class WrongStateError extends Error {
  constructor() {
    super('This answer does not carry the state of the sign-in under way, so it was ignored (a stale or forged redirect).');
    this.name = 'WrongStateError';
  }
}

export interface PendingSignIn {
  authorizationUrl: URL;
  /** Takes the redirect's query; resolves with the grant to keep, or rejects (WrongStateError: not this sign-in's answer). */
  finish(callback: URLSearchParams): Promise<McpOAuthGrant>;
}

export interface SignInOptions {
  server: string;
  serverUrl: string;
  redirectUrl: string;
  /** A client the user registered themselves; without it the server must offer dynamic registration. */
  client?: { client_id: string; client_secret?: string };
  timeoutMs: number;
}

export async function beginSignIn(options: SignInOptions): Promise<PendingSignIn> {
  const state = randomBytes(32).toString('base64url');
  let authorizationUrl: URL | undefined;
  const provider = new GrantProvider({
    grant: options.client ? { client: options.client } : {},
    redirectUrl: options.redirectUrl,
    persist: async () => undefined,
    onRedirect: async (url) => void (authorizationUrl = url),
    state,
  });
  const fetchFn = boundedFetch(options.timeoutMs);
  const secrets = options.client?.client_secret ? [options.client.client_secret] : [];
  const failed = (error: unknown) => new Error(`Signing in to MCP server '${options.server}' failed: ${oauthFailure(error, secrets)}`);
  try {
    const result = await auth(provider, { serverUrl: options.serverUrl, fetchFn });
    if (result !== 'REDIRECT' || !authorizationUrl) throw new Error('the authorization server gave no authorization address');
  } catch (error) {
    throw failed(error);
  }
  let finished = false;
  return {
    authorizationUrl,
    finish: async (callback) => {
      const given = Buffer.from(callback.get('state') ?? '');
      const expected = Buffer.from(state);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new WrongStateError();
      if (finished) throw new Error('This sign-in has finished already');
      finished = true;
      // The error fields of a redirect are the authorization server's (or an attacker's) words: only the code is shown.
      const refused = callback.get('error');
      if (refused !== null) throw new Error(`Signing in to MCP server '${options.server}' was refused by its authorization server (${refused.replace(/[^a-z_]/gi, '').slice(0, 40) || 'no reason'})`);
      const code = callback.get('code');
      if (!code) throw new Error(`Signing in to MCP server '${options.server}' failed: the answer carried no authorization code`);
      try {
        const result = await auth(provider, { serverUrl: options.serverUrl, authorizationCode: code, iss: callback.get('iss') ?? undefined, fetchFn });
        if (result !== 'AUTHORIZED' || !provider.grant.tokens) throw new Error('the authorization server gave no tokens');
      } catch (error) {
        throw failed(error);
      }
      return provider.grant;
    },
  };
}
