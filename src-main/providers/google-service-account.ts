// Access tokens for Vertex AI from a service account key (the JSON file Google Cloud hands out), so a
// virtual key keeps working past the hour an access token lives. The OAuth 2.0 JWT bearer flow: a
// JWT signed with the account's private key (RS256) is exchanged at the key's `token_uri` for an access
// token, which is kept until shortly before it expires and shared by concurrent requests. Only that
// short-lived token is kept in memory (under a hash of the key file); the key file itself is decrypted
// per request like every stored secret, and the private key never leaves this process.
import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { GatewayError, invalidRequest } from '../core/errors.js';
import { optional, optionalText } from './json-fields.js';
import { upstreamAgent, describeConnectionError } from './upstream.js';

/** The fields of a service account key the flow needs. */
export interface ServiceAccount {
  clientEmail: string;
  privateKey: KeyObject;
  tokenUri: string;
}

const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
/** Google's upper bound for the assertion's lifetime. */
const ASSERTION_LIFETIME_S = 3600;
/** A token this close to its expiry is renewed, so no request goes out with one that runs out on the way. */
const RENEW_BEFORE_EXPIRY_MS = 5 * 60_000;
const TOKEN_REQUEST_TIMEOUT_MS = 15_000;

/** A service account key file, as far as it is read. */
const ServiceAccountKey = z.object({ type: z.literal('service_account'), client_email: optionalText, private_key: optionalText, token_uri: optionalText });

/** Reads and checks a service account key; `param` names the credential field in errors. */
export function parseServiceAccount(json: string, param: string): ServiceAccount {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw invalidRequest('The service account key is not JSON: paste the whole key file Google Cloud gave you', param);
  }
  const key = ServiceAccountKey.safeParse(parsed);
  if (!key.success) throw invalidRequest('The service account key must be a key file of "type": "service_account"', param);
  const { client_email: clientEmail, private_key: privateKeyPem, token_uri: tokenUri } = key.data;
  if (!clientEmail) throw invalidRequest('The service account key has no client_email', param);
  if (privateKeyPem === undefined) throw invalidRequest('The service account key has no private_key', param);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(privateKeyPem);
  } catch {
    throw invalidRequest('The private_key of the service account key cannot be read', param);
  }
  if (privateKey.asymmetricKeyType !== 'rsa') throw invalidRequest('The private_key of the service account key is not an RSA key', param);
  const uri = tokenUri || GOOGLE_TOKEN_URI;
  if (!/^https?:\/\//.test(uri)) throw invalidRequest('The token_uri of the service account key is not an http(s) URL', param);
  return { clientEmail, privateKey, tokenUri: uri };
}

const base64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/** The signed JWT that asks for a token with the cloud-platform scope. */
export function signedAssertion(account: ServiceAccount, nowMs = Date.now()): string {
  const issuedAt = Math.floor(nowMs / 1000);
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const claims = base64url(
    JSON.stringify({ iss: account.clientEmail, scope: CLOUD_PLATFORM_SCOPE, aud: account.tokenUri, iat: issuedAt, exp: issuedAt + ASSERTION_LIFETIME_S }),
  );
  const signature = sign('RSA-SHA256', Buffer.from(`${header}.${claims}`), account.privateKey);
  return `${header}.${claims}.${base64url(signature)}`;
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

/** Google's token answer, or its refusal (`{error, error_description}`), as far as it is read. */
const TokenAnswer = z.object({ access_token: optionalText, expires_in: optional(z.number()), error: optionalText, error_description: optionalText });
type TokenAnswer = z.infer<typeof TokenAnswer>;

/** Tokens (or the request for one) by account and key, so a rotated key never gets the old key's token. */
const tokens = new Map<string, CachedToken | Promise<CachedToken>>();

function cacheKey(serviceAccountJson: string): string {
  return createHash('sha256').update(serviceAccountJson).digest('base64');
}

async function requestToken(account: ServiceAccount): Promise<CachedToken> {
  const requestedAt = Date.now();
  const body = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: signedAssertion(account, requestedAt) }).toString();
  const url = new URL(account.tokenUri);
  let status: number;
  let text: string;
  try {
    const response = await upstreamAgent.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      headersTimeout: TOKEN_REQUEST_TIMEOUT_MS,
      bodyTimeout: TOKEN_REQUEST_TIMEOUT_MS,
    });
    status = response.statusCode;
    text = await response.body.text();
  } catch (error) {
    throw new GatewayError(502, 'gateway_error', `Could not reach Google's token endpoint for the service account: ${describeConnectionError(error)}`, null, 'provider_unreachable', 'vertex-ai');
  }
  let answer: TokenAnswer = {};
  try {
    answer = TokenAnswer.safeParse(JSON.parse(text)).data ?? {};
  } catch {
    // Described below by its status.
  }
  if (status !== 200 || answer.access_token === undefined) {
    const reason = answer.error_description ?? answer.error ?? `status ${status}`;
    throw new GatewayError(401, 'authentication_error', `Google refused a token for service account ${account.clientEmail}: ${reason}`, null, 'invalid_service_account', 'vertex-ai');
  }
  const lifetimeS = answer.expires_in !== undefined && answer.expires_in > 0 ? answer.expires_in : ASSERTION_LIFETIME_S;
  return { token: answer.access_token, expiresAt: requestedAt + lifetimeS * 1000 };
}

/** A valid access token for the service account key, from the cache or freshly requested. */
export async function serviceAccountToken(serviceAccountJson: string, param: string): Promise<string> {
  const key = cacheKey(serviceAccountJson);
  const cached = tokens.get(key);
  if (cached && !(cached instanceof Promise) && cached.expiresAt - RENEW_BEFORE_EXPIRY_MS > Date.now()) return cached.token;
  if (cached instanceof Promise) return (await cached).token;
  const pending = requestToken(parseServiceAccount(serviceAccountJson, param));
  tokens.set(key, pending);
  try {
    const fresh = await pending;
    tokens.set(key, fresh);
    return fresh.token;
  } catch (error) {
    tokens.delete(key);
    throw error;
  }
}
