// Anthropic's Messages API (`POST {base}/messages`): the client's bearer token moves to `x-api-key` and
// `anthropic-version` is set unless the client sent its own; bodies are Messages (codecs/anthropic-messages.ts).
import { z } from 'zod';
import { errorTypeForStatus } from '../core/errors.js';
import { optional, optionalText } from './json-fields.js';
import { joinUrl, withQuery } from './openai-compatible.js';
import { noSuchEndpoint, tokenHeaders, type TokenAuth } from './provider-request.js';
import type { MappedProviderError, ModelList, ProviderAdapter, ProviderEndpoint } from './types.js';

export const ANTHROPIC_VERSION = '2023-06-01';

const auth: TokenAuth = {
  provider: 'anthropic',
  headers: (token) => ({ 'x-api-key': token }),
  // A key the client forwards itself (x-gateway-forward-headers: x-api-key) is as good as a bearer.
  forwardedAs: 'x-api-key',
  how: "an API key: send 'Authorization: Bearer <Anthropic key>'",
};

function pathOf(endpoint: ProviderEndpoint): string {
  if (endpoint.kind === 'models') return '/models';
  if (endpoint.kind !== 'generate') throw noSuchEndpoint('anthropic', endpoint);
  return endpoint.call.operation === 'count_tokens' ? '/messages/count_tokens' : '/messages';
}

export const anthropic: ProviderAdapter = {
  slug: 'anthropic',
  name: 'Anthropic',
  defaultBaseUrl: 'https://api.anthropic.com/v1',
  credentialFields: [{ name: 'token', label: 'API key', secret: true, required: true, placeholder: 'sk-ant-…', header: 'Authorization' }],
  formats: () => ['anthropic-messages'],
  modelInBody: true,
  supportsN: false,
  url(endpoint, target) {
    const url = joinUrl(target.customHost ?? anthropic.defaultBaseUrl, pathOf(endpoint));
    // Anthropic pages its list 20 at a time by default; 1000 is its maximum.
    return endpoint.kind === 'models' ? withQuery(url, { limit: '1000' }) : url;
  },
  authHeaders: (endpoint, target) => tokenHeaders(endpoint, target, auth),
  // A client may pin its own `anthropic-version` or opt into betas (`anthropic-beta`) by sending them.
  defaultHeaders: { 'anthropic-version': ANTHROPIC_VERSION },
  modelListing: { map: mapAnthropicModels },
  mapError: (status, body) => mapMessagesError(status, body),
};

/** Anthropic's list, as far as it is read: each model's id and creation date; a list that is not one lists nothing. */
const AnthropicModels = z.object({
  data: z.array(z.object({ id: optional(z.union([z.string(), z.number()])), created_at: optionalText })).catch([]),
});

/** `{data:[{id, created_at, display_name}]}` → OpenAI's list. */
export function mapAnthropicModels(json: unknown): ModelList {
  const data = AnthropicModels.safeParse(json).data?.data ?? [];
  return {
    object: 'list',
    data: data.map((model) => {
      const created = model.created_at === undefined ? 0 : Math.floor(Date.parse(model.created_at) / 1000);
      return { id: String(model.id ?? ''), object: 'model' as const, created: Number.isFinite(created) ? created : 0, owned_by: 'anthropic' };
    }),
  };
}

/** Anthropic's error body, as far as it is read (a proxy in front may answer `{message}`). */
const MessagesErrorBody = z.object({ error: optional(z.object({ type: optionalText, message: optionalText })), message: optionalText });

/** `{type:"error", error:{type, message}}` → the contract's fields; `code` keeps Anthropic's error type. */
export function mapMessagesError(status: number, body: string): MappedProviderError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { message: body.trim().slice(0, 2000) || `Provider answered with status ${status}`, type: errorTypeForStatus(status), code: null };
  }
  const read = MessagesErrorBody.safeParse(parsed).data;
  return {
    message: read?.error?.message ?? read?.message ?? `Provider answered with status ${status}`,
    type: errorTypeForStatus(status),
    code: read?.error?.type ?? null,
  };
}
