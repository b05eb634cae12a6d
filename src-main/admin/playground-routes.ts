// The Playground runs a virtual key picked by name: the page names the key by its id and the request
// goes through the gateway's own pipeline as that key (same validation, translation, streaming and
// log row as a client's call). The key itself is stored only hashed and its secret stays sealed in
// the main process: neither ever reaches the page. Saved prompts live here too.
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { GatewayError, invalidRequest } from '../gateway/errors.js';
import { handleProxy, type ProxyRoute } from '../gateway/proxy.js';
import { openaiChatIngress, openaiCompletionsIngress } from '../gateway/ingress/openai.js';
import { anthropicMessagesIngress } from '../gateway/ingress/anthropic-messages.js';
import { openaiResponsesIngress } from '../gateway/ingress/openai-responses.js';
import { STREAMED, type AdminRoute } from './router.js';

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

function runAsVirtualKey(route: ProxyRoute, gatewayPath: string): AdminRoute['handle'] {
  return async ({ services, params, raw }) => {
    const caller = services.keys.callerForVirtualKeyId(params.keyId);
    if (!caller) throw new GatewayError(404, 'not_found_error', `No active virtual key with id '${params.keyId}'`, 'keyId');
    raw.req.headers = playgroundHeaders(raw.req.headers);
    // Logged under the gateway path it stands for, like the same call sent by a client.
    await handleProxy(raw.req, raw.res, route, gatewayPath, { ...services.proxy, caller });
    return { status: 200, body: STREAMED };
  };
}

const GENERATIONS: ReadonlyArray<[string, ProxyRoute]> = [
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
    // The key's provider models, read through the gateway's /v1/models with the key's credentials.
    method: 'GET',
    path: '/playground/:keyId/models',
    handle: runAsVirtualKey('models', '/v1/models'),
  },

  {
    method: 'GET',
    path: '/saved-prompts',
    handle: ({ services }) => ({ status: 200, body: { items: services.savedPrompts.list() } }),
  },
  {
    method: 'POST',
    path: '/saved-prompts',
    handle: ({ services, body }) => {
      const parsed = savedPromptBody.safeParse(body ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const field = issue.path.map(String).join('.') || 'body';
        throw invalidRequest(`'${field}': ${issue.message}`, field);
      }
      if (parsed.data.keyId && !services.keys.callerForVirtualKeyId(parsed.data.keyId)) {
        throw invalidRequest(`No active virtual key with id '${parsed.data.keyId}'`, 'keyId');
      }
      const { prompt, created } = services.savedPrompts.save(parsed.data);
      return { status: created ? 201 : 200, body: prompt };
    },
  },
  {
    method: 'GET',
    path: '/saved-prompts/:id',
    handle: ({ services, params }) => ({ status: 200, body: services.savedPrompts.get(params.id) }),
  },
  {
    method: 'DELETE',
    path: '/saved-prompts/:id',
    handle: ({ services, params }) => {
      services.savedPrompts.delete(params.id);
      return { status: 204, body: null };
    },
  },
];
