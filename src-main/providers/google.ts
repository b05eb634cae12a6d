// The Gemini API of Google AI Studio (`{base}/v1beta/models/{m}:generateContent`, streams with
// `:streamGenerateContent?alt=sse`): the client's bearer token moves to `x-goog-api-key`.
import { z } from 'zod';
import { errorTypeForStatus } from '../core/errors.js';
import { optional, optionalText } from './json-fields.js';
import { joinUrl, withQuery } from './openai-compatible.js';
import { refuseDotSegments } from './model-path.js';
import { noSuchEndpoint, tokenHeaders, type TokenAuth } from './provider-request.js';
import type { MappedProviderError, ModelList, ProviderAdapter, ProviderCall, ProviderEndpoint } from './types.js';

/** `gemini-2.0-flash` → `models/gemini-2.0-flash`; names given in full (`models/…`, `tunedModels/…`) stay as they are. */
export function geminiModelPath(model: string): string {
  const full = /^(models|tunedModels)\//.test(model) ? refuseDotSegments(model) : `models/${refuseDotSegments(model)}`;
  return full.split('/').map(encodeURIComponent).join('/');
}

/** The generateContent method a call asks for: the answer, its stream, or (a Gemini client's passthrough) a token count. */
export function geminiMethod(call: ProviderCall): { method: string; sse: boolean } {
  if (call.operation === 'count_tokens') return { method: 'countTokens', sse: false };
  if (!call.stream) return { method: 'generateContent', sse: false };
  return { method: 'streamGenerateContent', sse: call.streamFraming !== 'json-array' };
}

/** The method suffix of a Google model URL: `:generateContent`, or the SSE stream. */
export function googleMethodUrl(base: string, path: string, method: string, stream: boolean): string {
  const url = new URL(joinUrl(base, `${path}:${method}`));
  // Without alt=sse the stream is one JSON array delivered piece by piece, not server-sent events.
  if (stream) url.searchParams.set('alt', 'sse');
  return url.toString();
}

const auth: TokenAuth = {
  provider: 'google',
  headers: (token) => ({ 'x-goog-api-key': token }),
  // A key the client forwards itself (x-gateway-forward-headers: x-goog-api-key) is as good as a bearer.
  forwardedAs: 'x-goog-api-key',
  how: "an API key: send 'Authorization: Bearer <Gemini API key>'",
};

function googleUrl(endpoint: ProviderEndpoint, base: string): string {
  switch (endpoint.kind) {
    case 'generate': {
      const { method, sse } = geminiMethod(endpoint.call);
      return googleMethodUrl(base, `/v1beta/${geminiModelPath(endpoint.call.model)}`, method, sse);
    }
    case 'embeddings':
      // Always the batch method: one call embeds up to 100 inputs.
      return googleMethodUrl(base, `/v1beta/${geminiModelPath(endpoint.call.model)}`, 'batchEmbedContents', false);
    case 'models':
      return withQuery(joinUrl(base, '/v1beta/models'), { pageSize: '1000' });
    case 'stored-response':
      throw noSuchEndpoint('google', endpoint);
  }
}

export const google: ProviderAdapter = {
  slug: 'google',
  name: 'Google Gemini (AI Studio)',
  defaultBaseUrl: 'https://generativelanguage.googleapis.com',
  credentialFields: [{ name: 'token', label: 'API key', secret: true, required: true, placeholder: 'AIza…', header: 'Authorization' }],
  formats: () => ['gemini'],
  modelInBody: false,
  // candidateCount > 1 is refused by many Gemini models; n separate calls work with every one.
  supportsN: false,
  url: (endpoint, target) => googleUrl(endpoint, target.customHost ?? google.defaultBaseUrl),
  authHeaders: (endpoint, target) => tokenHeaders(endpoint, target, auth),
  embeddings: { format: () => 'gemini-embeddings' },
  modelListing: { map: mapGeminiModels },
  mapError: (status, body) => mapGoogleError(status, body),
};

/** Gemini's list, as far as it is read: each model's name and what it can do; a list that is not one lists nothing. */
const GeminiModels = z.object({
  models: z
    .array(z.object({ name: optional(z.union([z.string(), z.number()])), supportedGenerationMethods: optional(z.array(z.unknown())) }))
    .catch([]),
});

/** `{models:[{name:'models/gemini-…', supportedGenerationMethods}]}` → OpenAI's list of models that generate text. */
export function mapGeminiModels(json: unknown): ModelList {
  const models = GeminiModels.safeParse(json).data?.models ?? [];
  return {
    object: 'list',
    data: models
      .filter((model) => !model.supportedGenerationMethods || model.supportedGenerationMethods.includes('generateContent'))
      .map((model) => ({ id: String(model.name ?? '').replace(/^models\//, ''), object: 'model' as const, created: 0, owned_by: 'google' })),
  };
}

/** Google's error body, as far as it is read. */
const GoogleErrorBody = z.object({ error: optional(z.object({ message: optionalText, status: optionalText })), message: optionalText });

/** Google's `{error:{code, message, status}}` (sometimes inside an array) → the contract's fields; `code` keeps the status name. */
export function mapGoogleError(status: number, body: string): MappedProviderError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { message: body.trim().slice(0, 2000) || `Provider answered with status ${status}`, type: errorTypeForStatus(status), code: null };
  }
  const read = GoogleErrorBody.safeParse(Array.isArray(parsed) ? parsed[0] : parsed).data;
  return {
    message: read?.error?.message ?? read?.message ?? `Provider answered with status ${status}`,
    type: errorTypeForStatus(status),
    code: read?.error?.status ?? null,
  };
}
