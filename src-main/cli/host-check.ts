// `gatehouse keys add --custom-host` and `keys host` try the host they were given: one model-list call
// with the secret just read, as a tool's first call would be. Advice only: a server that is down now is
// reported and the key is saved all the same.
import { toProviderCredentials } from '../core/credential-values.js';
import type { CredentialValues } from '../core/key-repository.js';
import { toGatewayError } from '../core/http-io.js';
import { RequestAbort } from '../core/request-abort.js';
import { getProvider } from '../providers/registry.js';
import { sendUpstream, UpstreamTimeout } from '../providers/upstream.js';
import { providerRequest } from '../providers/provider-request.js';

const CHECK_TIMEOUT_MS = 5_000;

/** One line saying whether `host` lists models with these credentials; null for a provider without a list. */
export async function describeHostCheck(providerSlug: string, values: CredentialValues, host: string): Promise<string | null> {
  const provider = getProvider(providerSlug);
  if (!provider.modelListing) return null;
  const abort = new RequestAbort();
  const timer = setTimeout(() => abort.abort(new UpstreamTimeout(CHECK_TIMEOUT_MS)), CHECK_TIMEOUT_MS);
  try {
    const request = await providerRequest(provider, { kind: 'models' }, { credentials: toProviderCredentials(values), customHost: host, forwardHeaders: {} });
    const upstream = await sendUpstream(request, provider.slug, { signal: abort, retries: 0 });
    const text = await upstream.body.text();
    if (upstream.status >= 400) {
      const mapped = provider.mapError(upstream.status, text, upstream.headers);
      return `Warning: ${host} did not list models (${upstream.status}): ${mapped.message}. The key is saved; check the host.`;
    }
    const data = (JSON.parse(text) as { data?: unknown; models?: unknown }).data ?? (JSON.parse(text) as { models?: unknown }).models;
    const count = Array.isArray(data) ? data.length : 0;
    return `${host} answered: ${count} model${count === 1 ? '' : 's'} listed.`;
  } catch (error) {
    const failure = toGatewayError(error);
    const why = failure.status === 500 ? (error as Error).message : failure.message;
    return `Warning: ${host} did not answer a model list (${why}). The key is saved; check that the server is running.`;
  } finally {
    clearTimeout(timer);
    if (!abort.aborted) abort.abort(new Error('done'));
  }
}
