// Anthropic's Messages API (`POST {base}/messages`): the client's bearer token moves to `x-api-key`,
// `anthropic-version` is set, and both endpoints are served through Messages (see anthropic-messages.ts).
import { GatewayError } from '../errors.js';
import { buildMessagesBody, createMessagesStreamTranslator, mapMessagesError, mapMessagesResponse } from './anthropic-messages.js';
import { joinUrl } from './openai-compatible.js';
import type { ProviderAdapter, ProviderCall, UpstreamRequest } from './types.js';

export const ANTHROPIC_VERSION = '2023-06-01';

export const anthropic: ProviderAdapter = {
  slug: 'anthropic',
  name: 'Anthropic',
  defaultBaseUrl: 'https://api.anthropic.com/v1',
  credentialFields: [{ name: 'token', label: 'API key', secret: true, required: true, placeholder: 'sk-ant-…', header: 'Authorization' }],
  relay: 'translate',
  supportsN: false,
  buildRequest(call: ProviderCall): UpstreamRequest {
    const token = call.credentials.token;
    // A key the client forwards itself (x-gateway-forward-headers: x-api-key) is as good as a bearer.
    if (!token && !call.customHost && !call.forwardHeaders['x-api-key']) {
      throw new GatewayError(401, 'authentication_error', "Provider 'anthropic' needs an API key: send 'Authorization: Bearer <Anthropic key>' or use a virtual key", null, null, 'anthropic');
    }
    const body = buildMessagesBody(call, 'anthropic');
    return {
      url: joinUrl(call.customHost ?? anthropic.defaultBaseUrl, '/messages'),
      method: 'POST',
      headers: {
        // A client may pin its own `anthropic-version` or opt into betas (`anthropic-beta`) by sending them.
        'anthropic-version': ANTHROPIC_VERSION,
        ...call.forwardHeaders,
        'content-type': 'application/json',
        ...(token ? { 'x-api-key': token } : {}),
      },
      body: JSON.stringify(body),
    };
  },
  mapResponse: mapMessagesResponse,
  createStreamTranslator: createMessagesStreamTranslator,
  mapError: (status, body) => mapMessagesError(status, body),
};
