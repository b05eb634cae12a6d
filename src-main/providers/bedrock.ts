// Amazon Bedrock ("Cloud C") through the Converse API: SigV4-signed from the Cloud C credentials (or sent
// with a Bedrock API key as a bearer token). Bodies and streams are codecs/bedrock-converse.ts's business.
import type { Sha256 } from '@aws-crypto/sha256-js';
import type { SignatureV4 } from '@smithy/signature-v4';
import { GatewayError, errorTypeForStatus, invalidRequest } from '../core/errors.js';
import { z } from 'zod';
import { optionalText } from './json-fields.js';
import { joinUrl } from './openai-compatible.js';
import { refuseDotSegments } from './model-path.js';
import { bearerHeaders, noSuchEndpoint } from './provider-request.js';
import type { CredentialField, MappedProviderError, ProviderAdapter, ProviderEndpoint, ProviderTarget, UpstreamRequest } from './types.js';
import type { EmbeddingFormat } from '../codecs/embeddings/canonical.js';

const SLUG = 'bedrock';

export const BEDROCK_HEADERS = {
  accessKeyId: 'x-gateway-cloud-c-access-key-id',
  secretAccessKey: 'x-gateway-cloud-c-secret-access-key',
  sessionToken: 'x-gateway-cloud-c-session-token',
  region: 'x-gateway-cloud-c-region',
} as const;

// The secret access key is the first secret field: a virtual key's bare "secret" fills it.
const credentialFields: readonly CredentialField[] = [
  { name: 'bedrock.secretAccessKey', label: 'Secret access key', secret: true, required: true, header: BEDROCK_HEADERS.secretAccessKey },
  { name: 'bedrock.accessKeyId', label: 'Access key ID', secret: false, required: true, header: BEDROCK_HEADERS.accessKeyId, placeholder: 'AKIA…' },
  { name: 'bedrock.region', label: 'Region', secret: false, required: true, header: BEDROCK_HEADERS.region, placeholder: 'us-east-1' },
  { name: 'bedrock.sessionToken', label: 'Session token', secret: true, required: false, header: BEDROCK_HEADERS.sessionToken },
];

const REGION = /^[a-z0-9-]{1,32}$/;

function missingSetting(header: string, what: string): GatewayError {
  return new GatewayError(400, 'invalid_request_error', `Provider '${SLUG}' needs the ${what}: send '${header}' or use a virtual key that stores it`, header, 'missing_provider_setting', SLUG);
}

/**
 * A model id is one path segment: `:` (versioned ids), `/` (ARNs) and the characters encodeURIComponent
 * leaves alone are escaped, as the AWS SDKs do for path labels.
 */
export function encodeModelId(modelId: string): string {
  return encodeURIComponent(refuseDotSegments(modelId)).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

function regionOf(target: ProviderTarget): string {
  const region = target.credentials.bedrock?.region;
  if (!region) throw missingSetting(BEDROCK_HEADERS.region, 'AWS region');
  if (!REGION.test(region)) throw invalidRequest(`'${BEDROCK_HEADERS.region}' must be an AWS region such as us-east-1`, BEDROCK_HEADERS.region);
  return region;
}

/** Converse (`/converse`, `/converse-stream`) for generations; InvokeModel (`/invoke`) for embeddings, one call per body. */
function bedrockUrl(endpoint: ProviderEndpoint, target: ProviderTarget): string {
  if (endpoint.kind !== 'generate' && endpoint.kind !== 'embeddings') throw noSuchEndpoint(SLUG, endpoint);
  const base = target.customHost ?? `https://bedrock-runtime.${regionOf(target)}.amazonaws.com`;
  const action = endpoint.kind === 'embeddings' ? 'invoke' : endpoint.call.stream ? 'converse-stream' : 'converse';
  return joinUrl(base, `/model/${encodeModelId(endpoint.call.model)}/${action}`);
}

interface SigningCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** SigV4 keys when the call has them; a half-given pair is a mistake worth naming. */
function signingCredentials(target: ProviderTarget): SigningCredentials | undefined {
  const { accessKeyId, secretAccessKey, sessionToken } = target.credentials.bedrock ?? {};
  if (!accessKeyId && !secretAccessKey) return undefined;
  if (!accessKeyId) throw missingSetting(BEDROCK_HEADERS.accessKeyId, 'AWS access key ID that goes with the secret access key');
  if (!secretAccessKey) throw missingSetting(BEDROCK_HEADERS.secretAccessKey, 'AWS secret access key that goes with the access key ID');
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    query[key] = values.length === 1 ? values[0] : values;
  }
  return query;
}

interface AwsSigning {
  SignatureV4: typeof SignatureV4;
  Sha256: typeof Sha256;
}

let awsSigning: Promise<AwsSigning> | undefined;

/** The AWS signer is loaded with the first Bedrock call: with the event-stream codec, ~6 MB of RSS that users of other providers never pay for. */
function loadAwsSigning(): Promise<AwsSigning> {
  awsSigning ??= Promise.all([import('@smithy/signature-v4'), import('@aws-crypto/sha256-js')]).then(([signer, hash]) => ({
    SignatureV4: signer.SignatureV4,
    Sha256: hash.Sha256,
  }));
  return awsSigning;
}

/**
 * Signs what is actually sent: this URL's host (a custom host included), path and query, and the exact
 * body bytes. The Smithy signer escapes the already-encoded path again, as SigV4 wants for every service
 * but S3 — so a model id's `%3A` is signed as `%253A`.
 */
async function signedHeaders(url: URL, body: Buffer, region: string, credentials: SigningCredentials, accept: string): Promise<Record<string, string>> {
  const aws = await loadAwsSigning();
  const signer = new aws.SignatureV4({ service: 'bedrock', region, credentials, sha256: aws.Sha256 });
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query: queryOf(url),
    headers: { host: url.host, 'content-type': 'application/json', accept },
    body,
  });
  return signed.headers;
}

/** The embedding models Gatehouse reads: Titan (one text a call) and Cohere Embed (texts in batches). */
function embeddingFormat(model: string): EmbeddingFormat {
  // Ids may carry a region prefix (us.cohere.embed-v4:0) or be an ARN: the family is what matters.
  if (/amazon\.titan-embed-(text|g1)/.test(model)) return 'bedrock-titan';
  if (/cohere\.embed-/.test(model)) return 'bedrock-cohere';
  throw new GatewayError(
    400,
    'invalid_request_error',
    `Bedrock model '${model}' is not an embedding model Gatehouse can call: use an Amazon Titan text embedding model (amazon.titan-embed-text-v2:0) or Cohere Embed (cohere.embed-english-v3)`,
    'model',
    'unsupported_model',
    SLUG,
  );
}

/** With AWS keys nothing yet (`sign` signs the finished request); without, a Bedrock API key as a bearer. */
function authHeaders(_endpoint: ProviderEndpoint, target: ProviderTarget): Record<string, string> {
  if (signingCredentials(target)) return {};
  // A Bedrock API key; any other bearer token cannot stand in for SigV4.
  if (target.credentials.token) return bearerHeaders(target.credentials.token);
  throw new GatewayError(
    401,
    'authentication_error',
    `Provider '${SLUG}' needs AWS credentials: send '${BEDROCK_HEADERS.accessKeyId}' and '${BEDROCK_HEADERS.secretAccessKey}' (and '${BEDROCK_HEADERS.region}'), a Bedrock API key as 'Authorization: Bearer', or use a virtual key`,
    null,
    null,
    SLUG,
  );
}

/**
 * The request as Bedrock takes it: the answer's framing in `accept`, and with AWS keys, SigV4 over the
 * exact body bytes. Forwarded headers go along unsigned (SigV4 allows that); ours win over any of the same name.
 */
async function sign(request: UpstreamRequest, endpoint: ProviderEndpoint, target: ProviderTarget): Promise<UpstreamRequest> {
  const body = typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : (request.body ?? Buffer.alloc(0));
  const accept = endpoint.kind === 'generate' && endpoint.call.stream ? 'application/vnd.amazon.eventstream' : 'application/json';
  const credentials = signingCredentials(target);
  const ours = credentials ? await signedHeaders(new URL(request.url), body, regionOf(target), credentials, accept) : { accept };
  return { ...request, headers: { ...request.headers, ...ours }, body };
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** AWS's error body, as far as it is read: the error name and the message (either case). */
const BedrockErrorBody = z.object({ __type: optionalText, message: optionalText, Message: optionalText });
type BedrockErrorBody = z.infer<typeof BedrockErrorBody>;

/** The AWS error name, from `x-amzn-errortype` (`ValidationException:http://internal…`) or the body's `__type`. */
function awsErrorType(headers: Record<string, string | string[] | undefined>, body: BedrockErrorBody): string | undefined {
  const raw = headerValue(headers, 'x-amzn-errortype') ?? body.__type;
  if (!raw) return undefined;
  const name = raw.split(':')[0];
  return name.includes('#') ? name.slice(name.lastIndexOf('#') + 1) : name;
}

const AUTHENTICATION_ERRORS = new Set(['UnrecognizedClientException', 'InvalidSignatureException', 'MissingAuthenticationTokenException', 'ExpiredTokenException', 'IncompleteSignatureException']);

export function mapBedrockError(status: number, text: string, headers: Record<string, string | string[] | undefined>): MappedProviderError {
  let body: BedrockErrorBody = {};
  try {
    body = BedrockErrorBody.safeParse(JSON.parse(text)).data ?? {};
  } catch {
    // Not JSON (a proxy's page, say): its text is the message.
  }
  const errorType = awsErrorType(headers, body);
  const message = body.message ?? body.Message ?? (text.trim().slice(0, 2000) || `Bedrock answered with status ${status}`);
  const type = errorType && AUTHENTICATION_ERRORS.has(errorType) ? 'authentication_error' : errorTypeForStatus(status);
  return { message, type, code: errorType ?? null, param: null };
}

export const bedrock: ProviderAdapter = {
  slug: SLUG,
  name: 'Amazon Bedrock',
  defaultBaseUrl: 'https://bedrock-runtime.{region}.amazonaws.com',
  credentialFields,
  formats: () => ['bedrock-converse'],
  modelInBody: false,
  // Converse generates one answer per call; the core makes n calls.
  supportsN: false,
  url: bedrockUrl,
  authHeaders,
  sign,
  embeddings: { format: embeddingFormat },
  mapError: mapBedrockError,
};
