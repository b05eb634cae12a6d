// Amazon Bedrock ("Cloud C") through the Converse API: SigV4-signed from the Cloud C credentials (or sent
// with a Bedrock API key as a bearer token). Bodies and streams are codecs/bedrock-converse.ts's business.
import type { Sha256 } from '@aws-crypto/sha256-js';
import type { SignatureV4 } from '@smithy/signature-v4';
import { GatewayError, errorTypeForStatus, invalidRequest } from '../core/errors.js';
import { z } from 'zod';
import { optionalText } from './json-fields.js';
import { joinUrl } from './openai-compatible.js';
import { refuseDotSegments } from './model-path.js';
import type { CredentialField, EmbeddingCall, MappedProviderError, ProviderAdapter, ProviderCall, UpstreamRequest } from './types.js';
import type { EmbeddingFormat } from '../codecs/embeddings/canonical.js';

/** What a Bedrock URL and its signing are made from: a Converse call or an embeddings call. */
type BedrockCall = Pick<ProviderCall | EmbeddingCall, 'credentials' | 'customHost' | 'forwardHeaders' | 'model'>;

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

function regionOf(call: BedrockCall, required: boolean): string | undefined {
  const region = call.credentials.bedrock?.region;
  if (!region) {
    if (required) throw missingSetting(BEDROCK_HEADERS.region, 'AWS region');
    return undefined;
  }
  if (!REGION.test(region)) throw invalidRequest(`'${BEDROCK_HEADERS.region}' must be an AWS region such as us-east-1`, BEDROCK_HEADERS.region);
  return region;
}

export function bedrockUrl(call: ProviderCall): string {
  const base = call.customHost ?? `https://bedrock-runtime.${regionOf(call, true)}.amazonaws.com`;
  return joinUrl(base, `/model/${encodeModelId(call.model)}/${call.stream ? 'converse-stream' : 'converse'}`);
}

interface SigningCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** SigV4 keys when the call has them; a half-given pair is a mistake worth naming. */
function signingCredentials(call: BedrockCall): SigningCredentials | undefined {
  const { accessKeyId, secretAccessKey, sessionToken } = call.credentials.bedrock ?? {};
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

function buildRequest(call: ProviderCall): Promise<UpstreamRequest> {
  return signedRequest(call, new URL(bedrockUrl(call)), call.stream ? 'application/vnd.amazon.eventstream' : 'application/json');
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

/** InvokeModel (`/model/{id}/invoke`), signed like Converse: one call per body. */
function buildEmbeddingRequest(call: EmbeddingCall): Promise<UpstreamRequest> {
  const base = call.customHost ?? `https://bedrock-runtime.${regionOf(call, true)}.amazonaws.com`;
  return signedRequest(call, new URL(joinUrl(base, `/model/${encodeModelId(call.model)}/invoke`)), 'application/json');
}

async function signedRequest(call: BedrockCall & { body: Buffer | string }, url: URL, accept: string): Promise<UpstreamRequest> {
  const body = typeof call.body === 'string' ? Buffer.from(call.body, 'utf8') : call.body;
  const credentials = signingCredentials(call);
  let headers: Record<string, string>;
  if (credentials) {
    headers = await signedHeaders(url, body, regionOf(call, true)!, credentials, accept);
  } else if (call.credentials.token) {
    // A Bedrock API key; any other bearer token cannot stand in for SigV4.
    headers = { 'content-type': 'application/json', accept, authorization: `Bearer ${call.credentials.token}` };
  } else {
    throw new GatewayError(
      401,
      'authentication_error',
      `Provider '${SLUG}' needs AWS credentials: send '${BEDROCK_HEADERS.accessKeyId}' and '${BEDROCK_HEADERS.secretAccessKey}' (and '${BEDROCK_HEADERS.region}'), a Bedrock API key as 'Authorization: Bearer', or use a virtual key`,
      null,
      null,
      SLUG,
    );
  }
  // Forwarded headers go along unsigned (SigV4 allows that); ours win over any of the same name.
  return { url: url.toString(), method: 'POST', headers: { ...call.forwardHeaders, ...headers }, body };
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
  buildRequest,
  embeddings: { format: embeddingFormat, buildRequest: buildEmbeddingRequest },
  mapError: mapBedrockError,
};
