// The models a virtual key can be asked for, which every set-up the UI writes picks from: the key's
// default model, what its host lists (Test connection's answer, kept for a while), the catalog's models
// for a provider without a list (or whose list could not be read), the names of its model map, and the
// routes that send calls to it. A host's list is cached per key and asked again when it is older than
// its age, when the key's provider, host or credentials change (its `updatedAt`), or when asked to.
import { catalogModelIds } from '../catalog/catalog.js';
import { GatewayError } from '../core/errors.js';
import { getProvider } from '../providers/registry.js';
import type { VirtualKeySummary } from '../core/key-repository.js';
import type { AdminServices } from './services.js';
import { checkKeyHost, type HostCheck } from './key-host-check.js';

/** Where a model of the key comes from, in the order a picker offers them. */
export type KeyModelSource = 'default' | 'provider' | 'catalog' | 'map' | 'route';

export interface KeyModel {
  id: string;
  source: KeyModelSource;
}

export interface KeyModels {
  models: KeyModel[];
  /** The host's answer (cached or fresh); null for a provider without a model list. */
  listing: HostCheck | null;
}

/** A list that answered is good for this long; one that failed is asked again sooner (the server may be starting). */
export const LISTED_FRESH_MS = 10 * 60_000;
export const FAILED_FRESH_MS = 30_000;
/** Keys are few; an admin asking for ever more ids (revoked, say) must not grow the cache without end. */
const MAX_CACHED_KEYS = 1_000;

interface CachedListing {
  /** Provider, host and updatedAt: a change to any asks the host again. */
  fingerprint: string;
  askedAt: number;
  /** Shared by every request that comes while it runs: one upstream call per key at a time. */
  answer: Promise<HostCheck>;
}

/** One cache per running app (its services), so two gateways in one process (tests) never share answers. */
const caches = new WeakMap<object, Map<string, CachedListing>>();

function cacheOf(services: object): Map<string, CachedListing> {
  let cache = caches.get(services);
  if (!cache) caches.set(services, (cache = new Map()));
  return cache;
}

const fingerprintOf = (key: VirtualKeySummary) => `${key.provider}\u0000${key.customHost ?? ''}\u0000${key.updatedAt}`;

async function activeKey(services: Pick<AdminServices, 'keys'>, keyId: string): Promise<VirtualKeySummary> {
  const key = await services.keys.getVirtualKey(keyId);
  if (key.revokedAt !== null) throw new GatewayError(404, 'not_found_error', `Virtual key '${keyId}' is revoked`, 'id');
  return key;
}

/** The host's list for the key: from the cache while fresh, else asked now (`refresh` always asks). */
async function listing(services: Pick<AdminServices, 'keys' | 'proxy'>, key: VirtualKeySummary, refresh: boolean): Promise<HostCheck> {
  const cache = cacheOf(services);
  const fingerprint = fingerprintOf(key);
  const cached = cache.get(key.id);
  if (cached && cached.fingerprint === fingerprint && !refresh) {
    const answer = await cached.answer;
    if (Date.now() - cached.askedAt < (answer.ok ? LISTED_FRESH_MS : FAILED_FRESH_MS)) return answer;
  }
  const caller = services.keys.callerForVirtualKeyId(key.id);
  // The key store's memory has not caught up with a key just made (another instance): nothing to ask with yet.
  if (!caller || caller.kind !== 'virtual-key') throw new GatewayError(404, 'not_found_error', `Virtual key '${key.id}' is not active yet`, 'id');
  const entry: CachedListing = { fingerprint, askedAt: Date.now(), answer: checkKeyHost(services, caller) };
  if (!cache.has(key.id) && cache.size >= MAX_CACHED_KEYS) cache.clear();
  cache.set(key.id, entry);
  return entry.answer;
}

/** Test connection: asks the key's host now and keeps the answer for the key's model list. */
export async function testKeyConnection(services: Pick<AdminServices, 'keys' | 'proxy'>, keyId: string): Promise<HostCheck & { key: VirtualKeySummary }> {
  const key = await activeKey(services, keyId);
  return { ...(await listing(services, key, true)), key };
}

/** Every model the key can be asked for, each once, in the order a picker offers them. */
export async function keyModels(services: Pick<AdminServices, 'keys' | 'proxy' | 'routes'>, keyId: string, options: { refresh?: boolean } = {}): Promise<KeyModels> {
  const key = await activeKey(services, keyId);
  const provider = getProvider(key.provider);
  const [listed, routes] = await Promise.all([provider.modelListing ? listing(services, key, options.refresh === true) : Promise.resolve(null), services.routes.list()]);
  const models: KeyModel[] = [];
  const seen = new Set<string>();
  const add = (id: string, source: KeyModelSource) => {
    if (id === '' || seen.has(id)) return;
    seen.add(id);
    models.push({ id, source });
  };
  if (key.defaultModel) add(key.defaultModel, 'default');
  if (listed?.ok) for (const id of listed.modelIds) add(id, 'provider');
  // Without a list the catalog says what the provider serves; a server someone runs has no catalog.
  else if (!provider.hostRequired) for (const id of catalogModelIds(key.provider)) add(id, 'catalog');
  for (const requested of Object.keys(key.modelMap)) add(requested, 'map');
  for (const route of routes) if (route.targets.some((target) => target.key === key.name)) add(route.name, 'route');
  return { models, listing: listed };
}
