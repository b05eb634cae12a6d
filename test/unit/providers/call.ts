// Builds a ProviderCall from a request body the way the proxy does, for unit tests of provider mappings.
import { validateChat, validateCompletion } from '../../../src-main/gateway/validate.js';
import type { ProviderCall, ProviderCredentials } from '../../../src-main/gateway/providers/types.js';

export function completionCall(body: Record<string, unknown>, credentials: ProviderCredentials = { token: 't' }, customHost?: string): ProviderCall {
  const validated = validateCompletion(body);
  return { endpoint: 'completions', body: validated, rawBody: Buffer.from(JSON.stringify(body)), stream: validated.stream === true, credentials, customHost, forwardHeaders: {} };
}

export function chatCall(body: Record<string, unknown>, credentials: ProviderCredentials = { token: 't' }, customHost?: string): ProviderCall {
  const validated = validateChat(body);
  return { endpoint: 'chat', body: validated, rawBody: Buffer.from(JSON.stringify(body)), stream: validated.stream === true, credentials, customHost, forwardHeaders: {} };
}
