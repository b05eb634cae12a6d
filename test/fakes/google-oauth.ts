// A local stand-in for Google's OAuth 2.0 token endpoint (oauth2.googleapis.com/token) as service
// accounts use it: a form-encoded POST with grant_type jwt-bearer and an RS256-signed assertion, checked
// against the account's public key, answered with {access_token, expires_in, token_type}.
import { createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { startRecordingServer, type RecordedRequest, type RecordingServer } from './recording-server.js';

export interface ServiceAccountFixture {
  /** The key file's content, as Google Cloud hands it out, with token_uri pointing at the double. */
  json: string;
  clientEmail: string;
}

export interface GoogleOAuthFake extends RecordingServer {
  tokenUri: string;
  /** A new service account whose key the double accepts. */
  serviceAccount(name?: string): ServiceAccountFixture;
  /** Access tokens handed out, in order. */
  issued: string[];
}

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

function decodePart(part: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}

export async function startGoogleOAuthFake(): Promise<GoogleOAuthFake> {
  const publicKeys = new Map<string, KeyObject>();
  const issued: string[] = [];
  let tokenUri = '';
  const refuse = (res: import('node:http').ServerResponse, error: string, description: string) => {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error, error_description: description }));
  };
  const server = await startRecordingServer((request: RecordedRequest, res) => {
    const form = new URLSearchParams(request.body.toString('utf8'));
    if (request.method !== 'POST' || request.headers['content-type'] !== 'application/x-www-form-urlencoded') return refuse(res, 'invalid_request', 'POST a form');
    if (form.get('grant_type') !== JWT_BEARER) return refuse(res, 'unsupported_grant_type', 'Invalid grant_type');
    const [header, claims, signature] = (form.get('assertion') ?? '').split('.');
    if (!header || !claims || !signature) return refuse(res, 'invalid_grant', 'Invalid JWT');
    const { alg } = decodePart(header);
    const { iss, aud, scope, iat, exp } = decodePart(claims);
    const publicKey = publicKeys.get(String(iss));
    if (alg !== 'RS256' || !publicKey) return refuse(res, 'invalid_grant', 'Invalid JWT: unknown account');
    if (!verify('RSA-SHA256', Buffer.from(`${header}.${claims}`), publicKey, Buffer.from(signature, 'base64url'))) {
      return refuse(res, 'invalid_grant', 'Invalid JWT Signature.');
    }
    if (aud !== tokenUri || scope !== 'https://www.googleapis.com/auth/cloud-platform') return refuse(res, 'invalid_grant', 'Invalid JWT: audience or scope');
    // Seconds, issued now (within Google's allowed skew), valid for at most an hour.
    const now = Date.now() / 1000;
    if (typeof iat !== 'number' || typeof exp !== 'number' || exp <= iat || exp - iat > 3600 || Math.abs(iat - now) > 300) {
      return refuse(res, 'invalid_grant', 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.');
    }
    const token = `ya29.minted-${issued.length + 1}`;
    issued.push(token);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ access_token: token, expires_in: 3599, token_type: 'Bearer' }));
  });
  tokenUri = `${server.origin}/token`;
  return {
    ...server,
    tokenUri,
    issued,
    serviceAccount(name = 'gatehouse-test') {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const clientEmail = `${name}@test-project.iam.gserviceaccount.com`;
      publicKeys.set(clientEmail, createPublicKey(publicKey.export({ type: 'spki', format: 'pem' })));
      const json = JSON.stringify(
        {
          type: 'service_account',
          project_id: 'test-project',
          private_key_id: '0123456789abcdef',
          private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
          client_email: clientEmail,
          client_id: '100000000000000000001',
          token_uri: tokenUri,
        },
        null,
        2,
      );
      return { json, clientEmail };
    },
  };
}
