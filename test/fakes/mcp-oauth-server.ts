// An OAuth-protected MCP server with its own authorization server, standards-following and strict, for the
// sign-in tests: RFC 9728 protected-resource metadata (and a 401 naming it), RFC 8414 metadata, RFC 7591
// dynamic registration, the authorization code with PKCE S256 only, RFC 8707 `resource` required and
// checked, refresh tokens that rotate, RFC 7009 revocation. The MCP side is the tools of mcp-tools.ts.
// Faults for the bad-input tests: metadata that is garbage, and a token endpoint that never answers.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { buildMcpTestServer } from './mcp-tools.js';

export interface OAuthServerOptions {
  /** Lifetime of access tokens, seconds. */
  accessTokenSeconds?: number;
  /** Allow dynamic registration (else only the client below is known). */
  registration?: boolean;
  /** A client registered by hand (id and secret): the user gives these to `mcp login`. */
  fixedClient?: { id: string; secret: string };
  fault?: 'garbage-metadata' | 'hanging-token';
}

interface Grant {
  clientId: string;
  refreshToken: string;
  revoked: boolean;
}

export interface OAuthMcpTestServer {
  /** The MCP endpoint (the protected resource). */
  url: string;
  origin: string;
  /** Every token and client secret it ever issued: none may appear in Gatehouse's log, data dir or output. */
  issuedSecrets(): string[];
  counts: { registrations: number; codeExchanges: number; refreshes: number; revocations: number; mcpCalls: number; unauthorized: number };
  /** Ends every grant at once, as a user revoking Gatehouse's access at the provider would. */
  revokeAll(): void;
  close(): Promise<void>;
}

const form = async (req: IncomingMessage): Promise<URLSearchParams> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
};
const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
const token = (prefix: string) => `${prefix}-${randomBytes(24).toString('base64url')}`;

export async function startOAuthMcpServer(options: OAuthServerOptions = {}): Promise<OAuthMcpTestServer> {
  const clients = new Map<string, { secret?: string; redirectUris: string[] }>();
  if (options.fixedClient) clients.set(options.fixedClient.id, { secret: options.fixedClient.secret, redirectUris: [] });
  const codes = new Map<string, { clientId: string; redirectUri: string; challenge: string; resource: string; grant?: Grant }>();
  const accessTokens = new Map<string, { grant: Grant; expiresAt: number }>();
  const grantsByRefresh = new Map<string, Grant>();
  const issued: string[] = [];
  const counts = { registrations: 0, codeExchanges: 0, refreshes: 0, revocations: 0, mcpCalls: 0, unauthorized: 0 };
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const hanging = new Set<ServerResponse>();
  let origin = '';
  const resource = () => `${origin}/mcp`;
  const lifetime = options.accessTokenSeconds ?? 3600;

  const issue = (grant: Grant) => {
    const access = token('at');
    issued.push(access, grant.refreshToken);
    accessTokens.set(access, { grant, expiresAt: Date.now() + lifetime * 1000 });
    grantsByRefresh.set(grant.refreshToken, grant);
    return { access_token: access, token_type: 'Bearer', expires_in: lifetime, refresh_token: grant.refreshToken };
  };

  /** The client of a token request: a public client by id, a confidential one by its secret (post or basic). */
  const clientOf = (req: IncomingMessage, body: URLSearchParams): string | null => {
    let id = body.get('client_id');
    let secret = body.get('client_secret');
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    if (basic) [id, secret] = Buffer.from(basic[1], 'base64').toString().split(':').map(decodeURIComponent);
    const client = id ? clients.get(id) : undefined;
    if (!id || !client || (client.secret !== undefined && client.secret !== secret)) return null;
    return id;
  };

  const http = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', origin);
    const path = url.pathname;
    if (path === '/.well-known/oauth-protected-resource/mcp' || path === '/.well-known/oauth-protected-resource') {
      return json(res, 200, { resource: resource(), authorization_servers: [origin], bearer_methods_supported: ['header'] });
    }
    if (path === '/.well-known/oauth-authorization-server') {
      if (options.fault === 'garbage-metadata') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"issuer": 42, "authorization_endpoint": [');
      return json(res, 200, {
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        ...(options.registration === false ? {} : { registration_endpoint: `${origin}/register` }),
        revocation_endpoint: `${origin}/revoke`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
      });
    }
    if (path === '/register' && req.method === 'POST' && options.registration !== false) {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const metadata = JSON.parse(Buffer.concat(chunks).toString()) as { redirect_uris?: string[] };
      if (!Array.isArray(metadata.redirect_uris) || metadata.redirect_uris.length === 0) return json(res, 400, { error: 'invalid_redirect_uri' });
      counts.registrations++;
      const id = token('client');
      clients.set(id, { redirectUris: metadata.redirect_uris });
      return json(res, 201, { ...metadata, client_id: id, client_id_issued_at: Math.floor(Date.now() / 1000), token_endpoint_auth_method: 'none' });
    }
    if (path === '/authorize' && req.method === 'GET') {
      // The user approves at once (the test plays the browser): back to the redirect with a code.
      const q = url.searchParams;
      const client = clients.get(q.get('client_id') ?? '');
      const redirectUri = q.get('redirect_uri') ?? '';
      if (!client || (client.redirectUris.length > 0 && !client.redirectUris.includes(redirectUri))) return json(res, 400, { error: 'invalid_client' });
      if (q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) return json(res, 400, { error: 'invalid_request', error_description: 'PKCE S256 required' });
      if (q.get('resource') !== resource()) return json(res, 400, { error: 'invalid_target' });
      const code = token('code');
      codes.set(code, { clientId: q.get('client_id')!, redirectUri, challenge: q.get('code_challenge')!, resource: q.get('resource')! });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      if (q.get('state') !== null) back.searchParams.set('state', q.get('state')!);
      return res.writeHead(302, { location: back.href }).end();
    }
    if (path === '/token' && req.method === 'POST') {
      if (options.fault === 'hanging-token') {
        hanging.add(res);
        return;
      }
      const body = await form(req);
      const clientId = clientOf(req, body);
      if (!clientId) return json(res, 401, { error: 'invalid_client' });
      if (body.get('grant_type') === 'authorization_code') {
        const code = codes.get(body.get('code') ?? '');
        codes.delete(body.get('code') ?? '');
        const verifier = body.get('code_verifier') ?? '';
        if (!code || code.clientId !== clientId || code.redirectUri !== body.get('redirect_uri')) return json(res, 400, { error: 'invalid_grant' });
        if (createHash('sha256').update(verifier).digest('base64url') !== code.challenge) return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
        if (body.get('resource') !== code.resource) return json(res, 400, { error: 'invalid_target' });
        counts.codeExchanges++;
        return json(res, 200, issue({ clientId, refreshToken: token('rt'), revoked: false }));
      }
      if (body.get('grant_type') === 'refresh_token') {
        const grant = grantsByRefresh.get(body.get('refresh_token') ?? '');
        if (!grant || grant.revoked || grant.clientId !== clientId) return json(res, 400, { error: 'invalid_grant' });
        if (body.get('resource') !== null && body.get('resource') !== resource()) return json(res, 400, { error: 'invalid_target' });
        counts.refreshes++;
        // Rotation: the old refresh token is spent.
        grantsByRefresh.delete(grant.refreshToken);
        grant.refreshToken = token('rt');
        return json(res, 200, issue(grant));
      }
      return json(res, 400, { error: 'unsupported_grant_type' });
    }
    if (path === '/revoke' && req.method === 'POST') {
      const body = await form(req);
      if (!clientOf(req, body)) return json(res, 401, { error: 'invalid_client' });
      const value = body.get('token') ?? '';
      const grant = grantsByRefresh.get(value) ?? accessTokens.get(value)?.grant;
      if (grant) {
        grant.revoked = true;
        counts.revocations++;
      }
      return res.writeHead(200).end();
    }
    if (path === '/mcp') {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const known = bearer ? accessTokens.get(bearer) : undefined;
      if (!known || known.grant.revoked || known.expiresAt <= Date.now()) {
        counts.unauthorized++;
        return res
          .writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`, 'content-type': 'application/json' })
          .end(JSON.stringify({ error: 'invalid_token' }));
      }
      counts.mcpCalls++;
      const id = req.headers['mcp-session-id'];
      const session = typeof id === 'string' ? sessions.get(id) : undefined;
      if (session) return session.handleRequest(req, res);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), onsessioninitialized: (newId) => void sessions.set(newId, transport) });
      await buildMcpTestServer('guarded').connect(transport);
      return transport.handleRequest(req, res);
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url: resource(),
    origin,
    issuedSecrets: () => [...issued, ...[...clients.values()].flatMap((client) => (client.secret ? [client.secret] : []))],
    counts,
    revokeAll: () => {
      for (const grant of grantsByRefresh.values()) grant.revoked = true;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      for (const transport of sessions.values()) await transport.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
