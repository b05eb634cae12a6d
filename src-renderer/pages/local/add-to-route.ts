// What "Add to a route" on the Local models page sends: the server's own virtual key (found by the
// provider and host it points at, so a second click reuses it) and the route made or changed with
// that key → model as a target. Plain functions, so the rules are tested without a page.
import type { Route, RouteInput, VirtualKey } from '../../api/types';
import type { LocalServer } from '../../stores/local-servers-store';

/** Hosts compare as URLs do: case and a trailing slash do not make another server. */
function sameHost(a: string, b: string): boolean {
  const plain = (url: string) => url.trim().replace(/\/+$/, '').toLowerCase();
  return plain(a) === plain(b);
}

/** Keys made before the OpenAI-compatible provider existed reach such a server as `openai` with its host. */
function speaksTo(keyProvider: string, serverProvider: LocalServer['connection']['provider']): boolean {
  return keyProvider === serverProvider || (serverProvider === 'openai-compatible' && keyProvider === 'openai');
}

/**
 * The active virtual key that already reaches this server, if any: same provider, same custom host.
 * One named as the page names it ("Ollama on 127.0.0.1:11434") is preferred when there are several.
 */
export function findServerKey(keys: readonly VirtualKey[], server: LocalServer, preferredName: string): VirtualKey | null {
  const reaching = keys.filter((key) => !key.revokedAt && speaksTo(key.provider, server.connection.provider) && key.customHost !== null && sameHost(key.customHost, server.connection.customHost));
  return reaching.find((key) => key.name === preferredName) ?? reaching[0] ?? null;
}

/** The model's id as a route name, or "id-2", "id-3"…: the first that no route has (route names are unique). */
export function freeRouteName(model: string, routes: readonly Pick<Route, 'name'>[]): string {
  const taken = new Set(routes.map((route) => route.name));
  let candidate = model;
  for (let n = 2; taken.has(candidate); n++) candidate = `${model}-${n}`;
  return candidate;
}

/** Why a new route cannot have this name, in plain words; null when no route has it. */
export function routeNameTaken(name: string, routes: readonly Pick<Route, 'name'>[]): string | null {
  const trimmed = name.trim();
  if (!routes.some((route) => route.name === trimmed)) return null;
  return `A route is already named “${trimmed}”. Choose another name, or add this model to that route under Existing route.`;
}

/** A new route for one local model: requests for `name` (its name and its match) go to key → model. */
export function newRouteForModel(name: string, keyName: string, model: string): RouteInput {
  const trimmed = name.trim();
  return { name: trimmed, match: trimmed, strategy: 'fallback', targets: [{ key: keyName, model }] };
}

/**
 * The route with key → model appended as its last target (a fallback, or one more share under
 * `balance`), or why not: the pair is already one of its targets.
 */
export function routeWithTarget(route: Route, keyName: string, model: string): { input: RouteInput } | { error: string } {
  if (route.targets.some((target) => target.key === keyName && target.model === model)) {
    return { error: `“${route.name}” already sends to ${keyName} → ${model}.` };
  }
  // Only the route's own fields: the stored extras (id, position, lastServed …) are not part of a change.
  return { input: { name: route.name, match: route.match, strategy: route.strategy, targets: [...route.targets, { key: keyName, model }] } };
}

export type AddToRouteMode = 'new' | 'existing';

/**
 * Which field of the dialog a refusal's `param` belongs beside: a new route's name field shows what
 * the server says about its name or match (one field sets both); with an existing route, the route
 * picker shows anything about that route. Null: the general notice.
 */
export function fieldOfRefusal(mode: AddToRouteMode, param: string | null | undefined): 'name' | 'route' | null {
  if (!param) return null;
  if (mode === 'new') return param === 'name' || param === 'match' ? 'name' : null;
  return /^(name|match|strategy|targets)\b/.test(param) ? 'route' : null;
}
