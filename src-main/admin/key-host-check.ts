// What the admin API tells about a virtual key's custom host when the key is created or its host changed:
// whether the server answers a model list there (the call a tool makes first), and a host that looks
// wrong for its provider. Both are advice: a server that is down now may be up later, so nothing is refused.
import { toGatewayError } from '../core/http-io.js';
import { getProvider } from '../providers/registry.js';
import { fetchModelList } from '../gateway/provider-reads.js';
import type { AdminServices } from './services.js';

/** A model list from a local server comes back in well under this; a host that hangs is reported, not waited for. */
const HOST_CHECK_TIMEOUT_MS = 5_000;

export interface HostCheck {
  /** True when the host answered a model list. */
  ok: boolean;
  /** How many models it listed (0 when it did not answer). */
  models: number;
  /** What a person reads: the models found, or why the list failed. */
  message: string;
}

/** Providers that speak OpenAI's formats serve them under `/v1`; a bare `http://host:port` then answers 404. */
export function customHostWarnings(provider: string, customHost: string | null): string[] {
  if (!customHost) return [];
  const defaultBase = getProvider(provider).defaultBaseUrl;
  if (!/\/v1$/.test(defaultBase)) return [];
  const path = new URL(customHost).pathname.replace(/\/+$/, '');
  if (path !== '') return [];
  return [`Custom host ${customHost} has no path: ${provider} servers usually answer under /v1 (e.g. ${customHost}/v1). Calls will fail with "not found" if the server expects it.`];
}

/** Asks the key's host for its model list, as the key itself would, within a few seconds. */
export async function checkKeyHost(services: Pick<AdminServices, 'keys' | 'proxy'>, keyId: string): Promise<HostCheck> {
  const caller = services.keys.callerForVirtualKeyId(keyId);
  if (!caller || caller.kind !== 'virtual-key') return { ok: false, models: 0, message: 'The key is not active.' };
  const host = caller.customHost ?? getProvider(caller.provider).defaultBaseUrl;
  const headers = { accept: 'application/json', 'x-gateway-retry-count': '0', 'x-gateway-request-timeout': String(HOST_CHECK_TIMEOUT_MS) };
  try {
    const list = await fetchModelList(headers, { ...services.proxy, caller });
    const count = Array.isArray(list.data) ? list.data.length : 0;
    return { ok: true, models: count, message: `${host} answered: ${count} model${count === 1 ? '' : 's'} listed.` };
  } catch (error) {
    const failure = toGatewayError(error);
    return { ok: false, models: 0, message: `${host} did not list models (${failure.status}): ${failure.message}. The key is saved; check the host and that the server is running.` };
  }
}
