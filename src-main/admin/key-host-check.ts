// Test connection: asks a virtual key's host for its model list with the key's own secret, as a tool's
// first call would, and says what answered (the models) or why nothing did (closed port, refused
// credential, timeout, not an OpenAI-style server). Advice only: a server that is down now may be up
// later, so nothing is refused, and the check is bounded so a hanging host cannot hold the admin API.
import { getProvider } from '../providers/registry.js';
import { fetchModelList } from '../gateway/provider-reads.js';
import { modelListFailure, type ModelListFailureReason } from '../gateway/model-list-failure.js';
import type { Caller } from '../core/keys.js';
import type { AdminServices } from './services.js';

/** A model list from a local server comes back in well under this; a host that hangs is reported, not waited for. */
export const HOST_CHECK_TIMEOUT_MS = 5_000;
/** A list longer than this is cut: a picker of thousands helps nobody, and the answer stays small. */
const MAX_LISTED_MODELS = 2_000;

export interface HostCheck {
  /** True when the host answered a model list. */
  ok: boolean;
  /** The address asked (the key's custom host, or its provider's own). */
  host: string;
  /** How many models it listed (0 when it did not answer). */
  models: number;
  /** The ids it listed, sorted; empty when it did not answer. */
  modelIds: string[];
  /** Why nothing was listed; null when it answered. */
  reason: ModelListFailureReason | null;
  /** What a person reads: the models found, or why the list failed and what to check. */
  message: string;
  /** When the host was asked (ISO 8601). */
  checkedAt: string;
}

type VirtualKeyCaller = Extract<Caller, { kind: 'virtual-key' }>;

/** Providers that speak OpenAI's formats serve them under `/v1`; a bare `http://host:port` then answers 404. */
export function customHostWarnings(provider: string, customHost: string | null): string[] {
  if (!customHost) return [];
  const adapter = getProvider(provider);
  if (!/\/v1$/.test(adapter.defaultBaseUrl) && !adapter.hostRequired) return [];
  const path = new URL(customHost).pathname.replace(/\/+$/, '');
  if (path !== '') return [];
  return [`Custom host ${customHost} has no path: ${provider} servers usually answer under /v1 (e.g. ${customHost}/v1). Calls will fail with "not found" if the server expects it.`];
}

/** Asks the key's host for its model list, as the key itself would, within HOST_CHECK_TIMEOUT_MS. */
export async function checkKeyHost(services: Pick<AdminServices, 'proxy'>, caller: VirtualKeyCaller): Promise<HostCheck> {
  const host = caller.customHost ?? getProvider(caller.provider).defaultBaseUrl;
  const checkedAt = new Date().toISOString();
  const headers = { accept: 'application/json', 'x-gateway-retry-count': '0', 'x-gateway-request-timeout': String(HOST_CHECK_TIMEOUT_MS) };
  try {
    const list = await fetchModelList(headers, { ...services.proxy, caller });
    const ids = [...new Set((Array.isArray(list.data) ? list.data : []).map((model) => model?.id).filter((id): id is string => typeof id === 'string' && id !== ''))];
    ids.sort((a, b) => a.localeCompare(b));
    const count = ids.length;
    return { ok: true, host, models: count, modelIds: ids.slice(0, MAX_LISTED_MODELS), reason: null, message: `${host} answered: ${count} model${count === 1 ? '' : 's'} listed.`, checkedAt };
  } catch (error) {
    const failure = modelListFailure(error);
    return { ok: false, host, models: 0, modelIds: [], reason: failure.reason, message: `${host} ${failure.explanation} The key is saved.`, checkedAt };
  }
}
