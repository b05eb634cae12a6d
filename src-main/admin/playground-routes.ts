// The Playground runs a virtual key picked by name: the page names the key by its id and the request
// goes through the gateway's own pipeline as that key (same validation, translation, streaming and
// log row as a client's call). The key itself is stored only hashed and its secret stays sealed in
// the main process: neither ever reaches the page. Saved prompts live here too.
import { readGeminiPath } from '../gateway/ingress/gemini.js';
import { parseOrRefuse } from '../core/zod-invalid.js';
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { GatewayError, invalidRequest } from '../core/errors.js';
import { handleProxy, type ProxyDependencies, type ProxyRoute } from '../gateway/proxy.js';
import { fetchModelList } from '../gateway/provider-reads.js';
import { toGatewayError } from '../core/http-io.js';
import { openaiChatIngress, openaiCompletionsIngress } from '../gateway/ingress/openai.js';
import { anthropicMessagesIngress } from '../gateway/ingress/anthropic-messages.js';
import { openaiResponsesIngress } from '../gateway/ingress/openai-responses.js';
import { STREAMED, type AdminRequest, type AdminRoute } from './router.js';

/**
 * The request headers a Playground run keeps. Everything else goes: the admin token (Authorization),
 * cookies and origin, and any key, provider, host or cloud header, which the virtual key fixes itself.
 */
const KEPT_HEADERS = [
  'host',
  'content-type',
  'content-length',
  'accept',
  'anthropic-version',
  'anthropic-beta',
  'x-gateway-trace-id',
  'x-gateway-metadata',
  'x-gateway-retry-count',
  'x-gateway-request-timeout',
];

export function playgroundHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept: IncomingHttpHeaders = {};
  for (const name of KEPT_HEADERS) if (headers[name] !== undefined) kept[name] = headers[name];
  return kept;
}

function callerOf(services: AdminRequest['services'], keyId: string) {
  const caller = services.keys.callerForVirtualKeyId(keyId);
  if (!caller) throw new GatewayError(404, 'not_found_error', `No active virtual key with id '${keyId}'`, 'keyId');
  return caller;
}

function runAsVirtualKey(route: Exclude<ProxyRoute, 'models'>, gatewayPath: string): AdminRoute['handle'] {
  return async ({ services, params, raw }) => {
    const caller = callerOf(services, params.keyId);
    raw.req.headers = playgroundHeaders(raw.req.headers);
    // A run is logged under the gateway path it stands for, like the same call sent by a client.
    await handleProxy(raw.req, raw.res, route, gatewayPath, { ...services.proxy, caller });
    return { status: 200, body: STREAMED };
  };
}

/** What the Model field can offer: the ids, or none and why (a provider without a list, a wrong key …). */
export interface ModelOffer {
  models: string[];
  error: { status: number; message: string } | null;
}

/**
 * A model list for the Model field. A provider that cannot list its models is an answer here, not a
 * failure of this call (the field still takes any name), so it comes back with 200 and the reason. The
 * look-ups are not logged: they are the page's housekeeping, not calls the person made.
 */
async function offerModels(headers: IncomingHttpHeaders, deps: ProxyDependencies): Promise<ModelOffer> {
  try {
    const list = await fetchModelList(headers, deps);
    const ids = (Array.isArray(list.data) ? list.data : []).map((model) => model?.id).filter((id): id is string => typeof id === 'string' && id !== '');
    return { models: [...new Set(ids)].sort((a, b) => a.localeCompare(b)), error: null };
  } catch (error) {
    const failure = toGatewayError(error);
    return { models: [], error: { status: failure.status, message: failure.message } };
  }
}

/** A model list asked for with what the person pasted (a virtual key, or a provider and its token). */
const modelLookupBody = z.object({
  virtualKey: z.string().trim().min(1).optional(),
  gatewayApiKey: z.string().trim().min(1).optional(),
  provider: z.string().trim().min(1).optional(),
  providerToken: z.string().trim().min(1).optional(),
  customHost: z.string().trim().min(1).optional(),
});

/** The gateway headers a client with those credentials would send to /v1/models. */
export function modelLookupHeaders(input: z.infer<typeof modelLookupBody>, host: string | undefined): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = { host, accept: 'application/json' };
  if (input.virtualKey) {
    headers['x-gateway-api-key'] = input.virtualKey;
    return headers;
  }
  if (input.gatewayApiKey) headers['x-gateway-api-key'] = input.gatewayApiKey;
  if (input.provider) headers['x-gateway-provider'] = input.provider;
  if (input.providerToken) headers.authorization = `Bearer ${input.providerToken}`;
  if (input.customHost) headers['x-gateway-custom-host'] = input.customHost;
  return headers;
}

const GENERATIONS: ReadonlyArray<[string, Exclude<ProxyRoute, 'models'>]> = [
  ['/chat/completions', { ingress: openaiChatIngress, operation: 'generate' }],
  ['/completions', { ingress: openaiCompletionsIngress, operation: 'generate' }],
  ['/messages', { ingress: anthropicMessagesIngress, operation: 'generate' }],
  ['/responses', { ingress: openaiResponsesIngress, operation: 'generate' }],
];

const savedPromptBody = z.object({
  name: z.string(),
  endpoint: z.string(),
  body: z.unknown(),
  keyId: z.string().min(1).nullable().optional(),
});

export const playgroundRoutes: AdminRoute[] = [
  ...GENERATIONS.map(([suffix, route]): AdminRoute => ({
    method: 'POST',
    path: `/playground/:keyId${suffix}`,
    ownsBody: true,
    handle: runAsVirtualKey(route, `/v1${suffix}`),
  })),
  {
    // Gemini mode: the model and method are one segment, as in /v1beta/models/{model}:{method}; `alt=sse` in the query.
    method: 'POST',
    path: '/playground/:keyId/gemini/:call',
    ownsBody: true,
    handle: async ({ services, params, raw }) => {
      const caller = callerOf(services, params.keyId);
      const gatewayPath = `/v1beta/models/${encodeURIComponent(params.call).replace(/%3A/gi, ':')}`;
      const read = readGeminiPath(gatewayPath, new URL(raw.req.url ?? '/', 'http://gatehouse.invalid').searchParams);
      if (read?.kind !== 'generation') throw invalidRequest(`'${params.call}' is no Gemini generation: send {model}:generateContent or {model}:streamGenerateContent`, 'call');
      raw.req.headers = playgroundHeaders(raw.req.headers);
      await handleProxy(raw.req, raw.res, read.route, gatewayPath, { ...services.proxy, caller });
      return { status: 200, body: STREAMED };
    },
  },
  {
    // The key's provider models, read through the gateway's /v1/models with the key's credentials.
    method: 'GET',
    path: '/playground/:keyId/models',
    handle: async ({ services, params, raw }) => ({
      status: 200,
      body: await offerModels(playgroundHeaders(raw.req.headers), { ...services.proxy, caller: callerOf(services, params.keyId) }),
    }),
  },
  {
    // The same for a pasted key or a provider and token, with the gateway's own key checks.
    method: 'POST',
    path: '/playground/models',
    handle: async ({ services, body, raw }) => {
      const lookup = parseOrRefuse(modelLookupBody, body);
      return { status: 200, body: await offerModels(modelLookupHeaders(lookup, raw.req.headers.host), services.proxy) };
    },
  },

  {
    method: 'GET',
    path: '/saved-prompts',
    handle: async ({ services }) => ({ status: 200, body: { items: await services.savedPrompts.list() } }),
  },
  {
    method: 'POST',
    path: '/saved-prompts',
    handle: async ({ services, body }) => {
      const prompt = parseOrRefuse(savedPromptBody, body);
      if (prompt.keyId && !services.keys.callerForVirtualKeyId(prompt.keyId)) {
        throw invalidRequest(`No active virtual key with id '${prompt.keyId}'`, 'keyId');
      }
      const { prompt: saved, created } = await services.savedPrompts.save(prompt);
      return { status: created ? 201 : 200, body: saved };
    },
  },
  {
    method: 'GET',
    path: '/saved-prompts/:id',
    handle: async ({ services, params }) => ({ status: 200, body: await services.savedPrompts.get(params.id) }),
  },
  {
    method: 'DELETE',
    path: '/saved-prompts/:id',
    handle: async ({ services, params }) => {
      await services.savedPrompts.delete(params.id);
      return { status: 204, body: null };
    },
  },
];
