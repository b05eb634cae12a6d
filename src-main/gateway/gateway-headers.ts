// Reads the `x-gateway-*` headers of a request once (CONTRACT §3, spec §5) into plain typed data.
import type { IncomingHttpHeaders } from 'node:http';
import { randomUUID } from 'node:crypto';
import { REQUEST_TIMEOUT_BOUND, RETRY_COUNT_BOUND } from '../core/spec-bounds.js';
import { invalidRequest } from '../core/errors.js';
import { parseCustomHost } from '../core/custom-host.js';
import { boundedMemo } from '../core/bounded-memo.js';
import { setCredentialField, type ProviderCredentials } from '../core/credentials.js';
import { CREDENTIAL_FIELD_HEADERS } from '../providers/registry.js';

export interface GatewayHeaders {
  apiKey?: string;
  /** Where `apiKey` was read: the header's name, or `?key=` (the URL); what a refusal of the key names. */
  apiKeySource?: ApiKeySource;
  /** The token of `Authorization: Bearer <token>`. */
  bearer?: string;
  provider?: string;
  customHost?: string;
  cloud: Pick<ProviderCredentials, 'azure' | 'vertex' | 'bedrock'>;
  /** Headers the client asked to send unchanged: lower-cased name → value. */
  forwardHeaders: Record<string, string>;
  /** Names whose values must never be logged. */
  sensitiveHeaderNames: Set<string>;
  retryCount: number;
  timeoutMs: number;
  traceId: string;
  metadata: Record<string, string>;
}

export const MAX_RETRIES = RETRY_COUNT_BOUND.max;
export const DEFAULT_TIMEOUT_MS = REQUEST_TIMEOUT_BOUND.max;

/** Headers never sent to a provider: ours, hop-by-hop ones, and those the gateway sets itself. */
const NEVER_FORWARDED = new Set([
  'host', 'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'trailers',
  'transfer-encoding', 'upgrade', 'content-length', 'content-type', 'authorization', 'accept-encoding', 'cookie',
  'expect', 'origin', 'referer',
]);

/** Credential headers of other providers: they are only sent when the client names them explicitly. */
export const CREDENTIAL_HEADERS = new Set(['api-key', 'x-api-key', 'x-goog-api-key', 'x-amz-security-token', 'x-amz-date']);

function single(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? undefined : text;
}

function parseForwardList(raw: string | undefined): string[] {
  if (!raw) return [];
  const trimmed = raw.trim();
  if (trimmed.startsWith('[')) {
    let list: unknown;
    try {
      list = JSON.parse(trimmed);
    } catch {
      throw invalidRequest("'x-gateway-forward-headers' must be a comma-separated list or a JSON array of header names", 'x-gateway-forward-headers');
    }
    if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) {
      throw invalidRequest("'x-gateway-forward-headers' must be an array of strings", 'x-gateway-forward-headers');
    }
    return list.map((name) => name.trim().toLowerCase()).filter(Boolean);
  }
  return trimmed.split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);
}

function parseMetadata(raw: string | undefined): Record<string, string> {
  if (!raw) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw invalidRequest("'x-gateway-metadata' must be a JSON object of strings", 'x-gateway-metadata');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidRequest("'x-gateway-metadata' must be a JSON object of strings", 'x-gateway-metadata');
  }
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== 'string') throw invalidRequest(`'x-gateway-metadata' value of '${key}' must be a string`, 'x-gateway-metadata');
  }
  return value as Record<string, string>;
}

function parseIntegerHeader(name: string, raw: string | undefined, min: number, max: number, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw.trim())) throw invalidRequest(`'${name}' must be an integer from ${min} to ${max}`, name);
  const value = Number(raw);
  if (value < min || value > max) throw invalidRequest(`'${name}' must be an integer from ${min} to ${max}`, name);
  return value;
}

/**
 * The trace id of a call whose client sent none: a version-4 UUID's 32 hex digits without its hyphens. It
 * has W3C Trace Context's form, which tracing tools such as OpenTelemetry take as it is, and it is one word
 * to the log's search: a UUID's hyphens made it five, three of them 4-digit fragments that thousands of rows
 * share, each one more entry for the search index to write (on PostgreSQL about 40% of a logged row's cost).
 */
export function newTraceId(): string {
  return randomUUID().replace(/-/g, '');
}

/** The token of `Authorization: Bearer <token>` (a Gatehouse key, or the admin token on the admin API and /metrics). */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  return match ? match[1].trim() : undefined;
}

/** The cloud credential headers a request sent, as the credential fields each provider declares for them. */
function readCloudHeaders(h: (name: string) => string | undefined): GatewayHeaders['cloud'] {
  const cloud: ProviderCredentials = {};
  for (const [header, field] of CREDENTIAL_FIELD_HEADERS) {
    const value = h(header);
    if (value !== undefined) setCredentialField(cloud, field, value);
  }
  return cloud;
}

export type ApiKeySource = 'x-gateway-api-key' | 'x-api-key' | 'x-goog-api-key' | '?key=';

/**
 * Where the Gatehouse key is read, in order: `x-gateway-api-key`, `x-api-key` (what
 * ANTHROPIC_API_KEY sends) and `x-goog-api-key` (what GEMINI_API_KEY sends: Gemini CLI, @google/genai)
 * unless the client forwards them to the provider, then `?key=`.
 */
function readApiKeySource(h: (name: string) => string | undefined, explicitlyForwarded: ReadonlySet<string>, queryKey: string | undefined): ApiKeySource | undefined {
  for (const source of KEY_HEADERS) {
    if (source !== 'x-gateway-api-key' && explicitlyForwarded.has(source)) continue;
    if (h(source) !== undefined) return source;
  }
  return queryKey ? '?key=' : undefined;
}

const KEY_HEADERS = ['x-gateway-api-key', 'x-api-key', 'x-goog-api-key'] as const;

/** `queryKey`: a key the client sent in the URL (`?key=`, as Gemini's clients may): taken after the key headers. */
export function readGatewayHeaders(headers: IncomingHttpHeaders, queryKey?: string): GatewayHeaders {
  const h = (name: string) => single(headers[name]);
  const forwardNames = parseForwardList(h('x-gateway-forward-headers'));
  const explicitlyForwarded = new Set(forwardNames);

  const forwardHeaders: Record<string, string> = {};
  let hasCloudHeaders = false;
  for (const [name, value] of Object.entries(headers)) {
    if (CREDENTIAL_FIELD_HEADERS.has(name)) hasCloudHeaders = true;
    if (value === undefined || name.startsWith('x-gateway-') || name.startsWith('x-cloud-b-') || NEVER_FORWARDED.has(name)) continue;
    if (CREDENTIAL_HEADERS.has(name) && !explicitlyForwarded.has(name)) continue;
    forwardHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  for (const name of forwardNames) {
    const value = h(name);
    if (value !== undefined && !name.startsWith('x-gateway-') && name !== 'host' && name !== 'content-length') forwardHeaders[name] = value;
  }

  const apiKeySource = readApiKeySource(h, explicitlyForwarded, queryKey);
  // One literal, every field always present: built by spreading a small object first, this object cost
  // some 27 MB more peak RSS under load (bench/memory-ab.ts, 9820d72 against its parent).
  return {
    apiKey: apiKeySource === undefined ? undefined : apiKeySource === '?key=' ? queryKey : h(apiKeySource),
    apiKeySource,
    bearer: bearerToken(h('authorization')),
    provider: h('x-gateway-provider')?.trim().toLowerCase(),
    customHost: h('x-gateway-custom-host')?.trim(),
    // Most calls name no cloud provider: skip the lookups then.
    cloud: hasCloudHeaders ? readCloudHeaders(h) : {},
    forwardHeaders,
    sensitiveHeaderNames: explicitlyForwarded,
    retryCount: parseIntegerHeader('x-gateway-retry-count', h('x-gateway-retry-count'), RETRY_COUNT_BOUND.min, MAX_RETRIES, 0),
    timeoutMs: parseIntegerHeader('x-gateway-request-timeout', h('x-gateway-request-timeout'), REQUEST_TIMEOUT_BOUND.min, DEFAULT_TIMEOUT_MS, DEFAULT_TIMEOUT_MS),
    traceId: h('x-gateway-trace-id') ?? newTraceId(),
    metadata: parseMetadata(h('x-gateway-metadata')),
  };
}

/**
 * `x-gateway-custom-host`, normalised. Remembered per string: a client sends the same host on every
 * request, and parsing it was a few µs of each (a refused host throws, and is not remembered).
 */
export const normalizeCustomHost = boundedMemo(64, (raw: string) => parseCustomHost(raw, 'x-gateway-custom-host'));
