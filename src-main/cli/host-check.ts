// `gatehouse keys add --custom-host` and `keys host` try the host they were given: one model-list call
// with the secret just read, as a tool's first call would be. Advice only: a server that is down now is
// reported and the key is saved all the same.
import { toProviderCredentials } from '../core/credential-values.js';
import type { CredentialValues } from '../core/key-repository.js';
import { GatewayError } from '../core/errors.js';
import { modelListFailure, NOT_A_MODEL_LIST } from '../gateway/model-list-failure.js';
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
      throw new GatewayError(upstream.status, mapped.type, mapped.message, mapped.param ?? null, mapped.code, provider.slug);
    }
    const json = parsedOrNull(text) as { data?: unknown; models?: unknown } | null;
    const data = json?.data ?? json?.models;
    if (!Array.isArray(data)) throw new GatewayError(502, 'gateway_error', 'not a model list', null, NOT_A_MODEL_LIST, provider.slug);
    return `${host} answered: ${data.length} model${data.length === 1 ? '' : 's'} listed.`;
  } catch (error) {
    return `Warning: ${host} ${modelListFailure(error).explanation} The key is saved.`;
  } finally {
    clearTimeout(timer);
    if (!abort.aborted) abort.abort(new Error('done'));
  }
}

function parsedOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
