// A change to the route table checked as the table it would make: a new route, a changed one, a new
// order, a whole file. Whatever store keeps the routes writes only what these return.
import { GatewayError, invalidRequest } from '../errors.js';
import { checkRoutesFile, MAX_ROUTES, parseRoute, validateRouteTable, type KeyNameLookup } from './validate.js';
import type { RouteInput } from './types.js';

/** Reads the fields of a change to a route: absent ones keep their value. */
function mergeChange(current: RouteInput, change: unknown): unknown {
  if (typeof change !== 'object' || change === null || Array.isArray(change)) throw invalidRequest('The body must be an object with the fields to change', null);
  return { ...current, ...(change as Record<string, unknown>) };
}

/** A single route's errors name its fields as `targets[0].key`, not as its place in the table. */
function forOneRoute(error: unknown, index: number): unknown {
  if (!(error instanceof GatewayError) || typeof error.param !== 'string') return error;
  const prefix = `routes[${index}].`;
  if (!error.param.startsWith(prefix)) return error;
  const param = error.param.slice(prefix.length);
  return new GatewayError(error.status, error.type, error.message.replace(error.param, param), param, error.code);
}

/** The route `input` makes, appended to `routes`, once the table with it passes. */
export function checkedNewRoute(routes: readonly RouteInput[], input: unknown, keyStatus: KeyNameLookup): RouteInput {
  const index = routes.length;
  try {
    const route = parseRoute(input, `routes[${index}]`);
    if (routes.length >= MAX_ROUTES) throw invalidRequest(`At most ${MAX_ROUTES} routes`, 'routes');
    validateRouteTable([...routes, route], keyStatus);
    return route;
  } catch (error) {
    throw forOneRoute(error, index);
  }
}

/** The route at `index` with `change` applied, once the table with it passes. */
export function checkedRouteChange(routes: readonly RouteInput[], index: number, change: unknown, keyStatus: KeyNameLookup): RouteInput {
  try {
    const route = parseRoute(mergeChange(routes[index], change), `routes[${index}]`);
    const table = [...routes];
    table[index] = route;
    validateRouteTable(table, keyStatus);
    return route;
  } catch (error) {
    throw forOneRoute(error, index);
  }
}

/** The routes in a new order, every route's id once; the order is checked too (a move can make a route unreachable). */
export function checkedOrder<T extends { id: string }>(routes: readonly T[], ids: unknown, inputOf: (route: T) => RouteInput, keyStatus: KeyNameLookup): T[] {
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) throw invalidRequest("'ids' must be a list of route ids", 'ids');
  const byId = new Map(routes.map((route) => [route.id, route]));
  const seen = new Set<string>();
  for (const id of ids as string[]) {
    if (!byId.has(id)) throw invalidRequest(`ids: no route with id '${id}'`, 'ids');
    if (seen.has(id)) throw invalidRequest(`ids: '${id}' is given twice`, 'ids');
    seen.add(id);
  }
  if (seen.size !== routes.length) throw invalidRequest(`ids: give every route's id once (${routes.length} routes, ${seen.size} ids)`, 'ids');
  const ordered = (ids as string[]).map((id) => byId.get(id)!);
  validateRouteTable(ordered.map(inputOf), keyStatus);
  return ordered;
}

/** The routes of a routes file, once the table they make passes. */
export function checkedRoutesFile(file: unknown, keyStatus: KeyNameLookup): RouteInput[] {
  return checkRoutesFile(file, keyStatus);
}

/** A logged route target ("key → model", targetLabel) split back into its key and model. */
export function splitTargetLabel(label: string): { key: string; model: string } {
  const split = label.indexOf(' → ');
  return split === -1 ? { key: label, model: '' } : { key: label.slice(0, split), model: label.slice(split + 3) };
}
