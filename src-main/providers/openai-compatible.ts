// Providers that speak OpenAI's own format. Nothing is translated: the client's bytes go up and the
// provider's bytes come back unchanged, so the adapter only picks the URL and the auth header.
import { z } from 'zod';
import { optional, optionalText } from './json-fields.js';
import { boundedMemo } from '../core/bounded-memo.js';
import { errorTypeForStatus, invalidRequest } from '../core/errors.js';
import type { WireFormat } from '../codecs/canonical.js';
import { bearerHeaders, tokenHeaders, type TokenAuth } from './provider-request.js';
import type { CredentialField, MappedProviderError, ProviderAdapter, ProviderEndpoint } from './types.js';

export interface OpenAICompatibleOptions {
  slug: string;
  name: string;
  defaultBaseUrl: string;
  /** Local servers (Ollama) need no token; hosted providers do. */
  tokenRequired: boolean;
  /** Most OpenAI-format hosts have no legacy /completions; it is still forwarded, and their 404 relayed. */
  supportsN?: boolean;
  /** Hosts that also serve the Responses API (`/responses`) take Responses requests as they are. */
  responses?: boolean;
  /** A server someone runs, with no address of its own (`defaultBaseUrl` empty): every call names its host. */
  hostRequired?: boolean;
}

/** The path of each OpenAI wire format under a provider's base URL. */
export const OPENAI_FORMAT_PATHS: Partial<Record<WireFormat, string>> = {
  'openai-chat': '/chat/completions',
  'openai-completions': '/completions',
  'openai-responses': '/responses',
};

const tokenField = (required: boolean): CredentialField => ({
  name: 'token',
  label: 'API key',
  secret: true,
  required,
  header: 'Authorization',
});

/** Joined once per base and path: parsing and printing a URL on every request costs a few µs each time. */
const joinedUrl = boundedMemo(1000, (key) => {
  const [base, path] = key.split('\n');
  const url = new URL(base);
  // Keep a base's own query (some proxies need one) and append the provider's path to its pathname.
  url.pathname = url.pathname.replace(/\/+$/, '') + path;
  return url.toString();
});

export function joinUrl(base: string, path: string): string {
  return joinedUrl(`${base}\n${path}`);
}

export function withQuery(url: string, params: Record<string, string>): string {
  const result = new URL(url);
  for (const [name, value] of Object.entries(params)) result.searchParams.set(name, value);
  return result.toString();
}

const OpenAIErrorFields = z.object({
  message: optionalText,
  type: optionalText,
  param: optionalText,
  code: optional(z.union([z.string(), z.number()])),
});
/** `{error:"…"}`, `{error:{message,type,param,code}}`, or the fields at the top (`{message}`, Azure APIM's `{statusCode, message}`). */
const OpenAIErrorBody = z.union([z.object({ error: z.string() }), z.object({ error: OpenAIErrorFields }), OpenAIErrorFields]);

/** OpenAI-style error bodies: `{error:{message,type,param,code}}`, with older `{message}` / `{error:"..."}` forms. */
export function mapOpenAIStyleError(status: number, body: string): MappedProviderError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { message: body.trim().slice(0, 2000) || `Provider answered with status ${status}`, type: errorTypeForStatus(status), code: null };
  }
  return openAIStyleError(status, parsed);
}

/** An OpenAI-style error already parsed (an error event inside a stream, say). */
export function openAIStyleError(status: number, parsed: unknown): MappedProviderError {
  const read = OpenAIErrorBody.safeParse(parsed);
  const body = read.success ? read.data : {};
  if (!('error' in body)) return fromErrorFields(status, body);
  if (typeof body.error === 'string') return { message: body.error, type: errorTypeForStatus(status), code: null };
  return fromErrorFields(status, body.error);
}

function fromErrorFields(status: number, error: z.infer<typeof OpenAIErrorFields>): MappedProviderError {
  return {
    message: error.message ?? `Provider answered with status ${status}`,
    type: error.type ?? errorTypeForStatus(status),
    code: error.code ?? null,
    param: error.param ?? null,
  };
}

/** The path of an endpoint under an OpenAI-format base URL. */
function pathOf(endpoint: ProviderEndpoint): string {
  switch (endpoint.kind) {
    case 'generate':
      return OPENAI_FORMAT_PATHS[endpoint.call.format] ?? '/chat/completions';
    case 'embeddings':
      return '/embeddings';
    case 'models':
      return '/models';
    case 'stored-response':
      return `/responses/${endpoint.path}`;
  }
}

export function createOpenAICompatibleProvider(options: OpenAICompatibleOptions): ProviderAdapter {
  const formats: readonly WireFormat[] = ['openai-chat', 'openai-completions', ...(options.responses ? (['openai-responses'] as const) : [])];
  const auth: TokenAuth = {
    provider: options.slug,
    headers: bearerHeaders,
    how: "a token: send 'Authorization: Bearer <provider key>'",
    optional: !options.tokenRequired,
  };
  return {
    slug: options.slug,
    name: options.name,
    defaultBaseUrl: options.defaultBaseUrl,
    hostRequired: options.hostRequired === true,
    credentialFields: [tokenField(options.tokenRequired)],
    formats: () => formats,
    modelInBody: true,
    supportsN: options.supportsN ?? true,
    url(endpoint, target) {
      if (!target.customHost && options.hostRequired) {
        throw invalidRequest(`Provider '${options.slug}' has no address of its own: name the server in x-gateway-custom-host (e.g. http://127.0.0.1:8000/v1)`, 'x-gateway-custom-host');
      }
      const url = joinUrl(target.customHost ?? options.defaultBaseUrl, pathOf(endpoint));
      if (endpoint.kind !== 'stored-response' || endpoint.search === '') return url;
      const withSearch = new URL(url);
      for (const [name, value] of new URLSearchParams(endpoint.search)) withSearch.searchParams.append(name, value);
      return withSearch.toString();
    },
    authHeaders: (endpoint, target) => tokenHeaders(endpoint, target, auth),
    embeddings: { format: () => 'openai-embeddings' },
    // OpenAI's own shape: relayed as it comes.
    modelListing: {},
    storesResponses: options.responses === true,
    mapError: (status, body) => mapOpenAIStyleError(status, body),
  };
}
