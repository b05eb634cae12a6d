// Every request a provider is sent — a generation, embeddings, its model list, a response it stored — is
// made here from the provider's members, in one order: URL, credential headers, body, signature. A
// provider says where and how it authenticates once; no request kind builds its own headers.
import { missingProviderToken } from '../core/errors.js';
import type { EmbeddingCall, ProviderAdapter, ProviderCall, ProviderEndpoint, ProviderTarget, UpstreamRequest } from './types.js';

/**
 * The request for an endpoint. Synchronous for every provider but those that sign (Bedrock) or make a
 * token first (Vertex with a service account): a plain call then costs no promise.
 */
export function providerRequest(adapter: ProviderAdapter, endpoint: ProviderEndpoint, target: ProviderTarget): UpstreamRequest | Promise<UpstreamRequest> {
  // The URL first: a wrong setting (region, project) is said before any token is asked for or made.
  const url = adapter.url(endpoint, target);
  const auth = adapter.authHeaders(endpoint, target);
  const finish = (authHeaders: Record<string, string>): UpstreamRequest | Promise<UpstreamRequest> => {
    const body = bodyOf(endpoint);
    const request: UpstreamRequest = {
      url,
      method: methodOf(endpoint),
      // The provider's defaults yield to what the client forwards; its credentials and content type never do.
      headers: { ...adapter.defaultHeaders, ...target.forwardHeaders, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...authHeaders },
      ...(body === undefined ? {} : { body }),
    };
    return adapter.sign ? adapter.sign(request, endpoint, target) : request;
  };
  return auth instanceof Promise ? auth.then(finish) : finish(auth);
}

/** A generation (or token count) whose body is ready. */
export function callRequest(adapter: ProviderAdapter, call: ProviderCall): UpstreamRequest | Promise<UpstreamRequest> {
  return providerRequest(adapter, { kind: 'generate', call }, call);
}

/** An embeddings call whose body is ready. */
export function embeddingRequest(adapter: ProviderAdapter, call: EmbeddingCall): UpstreamRequest | Promise<UpstreamRequest> {
  return providerRequest(adapter, { kind: 'embeddings', call }, call);
}

function methodOf(endpoint: ProviderEndpoint): UpstreamRequest['method'] {
  if (endpoint.kind === 'models') return 'GET';
  return endpoint.kind === 'stored-response' ? endpoint.method : 'POST';
}

function bodyOf(endpoint: ProviderEndpoint): Buffer | string | undefined {
  return endpoint.kind === 'generate' || endpoint.kind === 'embeddings' ? endpoint.call.body : undefined;
}

/** How a provider takes its token: the headers it goes in, and what to tell a caller who sent none. */
export interface TokenAuth {
  provider: string;
  headers(token: string): Record<string, string>;
  /** The header a client may forward its own key in (`x-gateway-forward-headers: x-api-key`): as good as a token. */
  forwardedAs?: string;
  /** What the 401 asks for: "an API key: send 'Authorization: Bearer <…>'". */
  how: string;
  /** A local server (Ollama) takes calls without one. */
  optional?: boolean;
}

/**
 * The headers of a token, or none where a request may go without one: a read (model list, stored
 * response), which the provider refuses itself; a custom host, which may need none; a key the client
 * forwards itself. A generation or embeddings call with none of these is a 401 before anything is sent.
 */
export function tokenHeaders(endpoint: ProviderEndpoint, target: ProviderTarget, auth: TokenAuth, token = target.credentials.token): Record<string, string> {
  if (token) return auth.headers(token);
  const isCall = endpoint.kind === 'generate' || endpoint.kind === 'embeddings';
  if (!isCall || auth.optional || target.customHost || (auth.forwardedAs && target.forwardHeaders[auth.forwardedAs])) return {};
  throw missingProviderToken(auth.provider, auth.how);
}

export function bearerHeaders(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** An endpoint a provider was asked for without having it: the callers check the provider's members first. */
export function noSuchEndpoint(provider: string, endpoint: ProviderEndpoint): Error {
  return new Error(`Provider '${provider}' has no ${endpoint.kind} endpoint`);
}
