// Builds a ProviderCall from a request body the way the proxy does (validate, decode the client's dialect,
// encode the provider's format), for unit tests of provider requests.
import { validateChat, validateCompletion } from '../../../src-main/gateway/validate.js';
import { providerCodec } from '../../../src-main/codecs/registry.js';
import { dialectCodec } from '../codecs/dialect-codecs.js';
import type { Dialect } from '../../../src-main/codecs/canonical.js';
import type { ProviderAdapter, ProviderCall, ProviderCredentials, UpstreamRequest } from '../../../src-main/providers/types.js';
import { callRequest } from '../../../src-main/providers/provider-request.js';

function encodedCall(provider: ProviderAdapter, dialect: Dialect, validated: { model: string; stream?: boolean | null }, credentials: ProviderCredentials, customHost?: string): ProviderCall {
  const format = provider.formats(validated.model)[0];
  const request = dialectCodec(dialect).decodeRequest(validated);
  const encoded = providerCodec(format).encodeRequest(request, { provider: provider.slug, modelInBody: provider.modelInBody });
  return {
    format,
    operation: 'generate',
    model: validated.model,
    stream: validated.stream === true,
    body: JSON.stringify(provider.prepareBody ? provider.prepareBody(encoded.body, format) : encoded.body),
    credentials,
    customHost,
    forwardHeaders: {},
  };
}

/** The request a provider that neither signs nor makes a token is sent for a call: built on this turn. */
export function sentRequest(provider: ProviderAdapter, call: ProviderCall): UpstreamRequest {
  const request = callRequest(provider, call);
  if (request instanceof Promise) throw new Error(`${provider.slug} built its request asynchronously`);
  return request;
}

export function completionCall(provider: ProviderAdapter, body: Record<string, unknown>, credentials: ProviderCredentials = { token: 't' }, customHost?: string): ProviderCall {
  return encodedCall(provider, 'openai-completions', validateCompletion(body), credentials, customHost);
}

export function chatCall(provider: ProviderAdapter, body: Record<string, unknown>, credentials: ProviderCredentials = { token: 't' }, customHost?: string): ProviderCall {
  return encodedCall(provider, 'openai-chat', validateChat(body), credentials, customHost);
}
