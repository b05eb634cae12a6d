// Checks a whole route table before it is saved: the shape of every field, and the mistakes that would
// only show at run time — a route no model can reach, a target whose key is gone, a target model that
// another route would catch again, duplicate names. Each error's param is the field's path
// (`routes[1].targets[0].key`, for the UI and a file's line numbers); its message says where in words
// ("Route 'fast', target 1, key: …"). A routes file is checked whole: every problem is reported at once.
import { GatewayErrorList, invalidRequest, type GatewayError } from '../errors.js';
import { compileMatcher, covers } from './match.js';
import { ROUTE_STRATEGIES, type RouteInput, type TargetConditions, type TargetInput } from './types.js';
import { isPlainObject } from '../plain-object.js';

/** What route validation needs of the key store: whether a virtual key name can serve. */
export type KeyNameStatus = 'active' | 'revoked' | 'unknown' | 'ambiguous';
export type KeyNameLookup = (name: string) => KeyNameStatus;

export const MAX_ROUTES = 500;
export const MAX_TARGETS = 20;
const MAX_NAME_LENGTH = 100;
const MAX_MODEL_LENGTH = 256;
export const MAX_TIMEOUT_MS = 10 * 60_000;
const MAX_WEIGHT = 1_000_000;
const MAX_PROMPT_TOKENS = 100_000_000;

const ROUTE_FIELDS = new Set(['name', 'match', 'strategy', 'targets']);
const TARGET_FIELDS = new Set(['key', 'model', 'timeout_ms', 'weight', 'when']);
const WHEN_FIELDS = new Set(['min_prompt_tokens', 'thinking', 'tools']);

const FIELD_WORDS: Readonly<Record<string, string>> = { timeout_ms: 'timeout', min_prompt_tokens: 'minimum prompt tokens' };

/**
 * Where a field path points, in words: `routes[0].targets[1].model` of a route named fast reads
 * "Route 'fast', target 2, model". `routeName` is the route's name when it is known.
 */
export function placeOf(param: string, routeName?: string): string {
  const parts: string[] = [];
  let rest = param;
  const route = /^routes\[(\d+)\]\.?/.exec(rest);
  if (route) {
    parts.push(routeName ? `Route '${routeName}'` : `Route ${Number(route[1]) + 1}`);
    rest = rest.slice(route[0].length);
  } else if (rest.startsWith('$.')) {
    parts.push('The file');
    rest = rest.slice(2);
  }
  const target = /^targets\[(\d+)\]\.?/.exec(rest);
  if (target) {
    parts.push(`target ${Number(target[1]) + 1}`);
    rest = rest.slice(target[0].length);
  }
  if (rest) parts.push(rest.split('.').map((field) => FIELD_WORDS[field] ?? field).join(' '));
  const words = parts.join(', ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A validation failure, with the field path (`routes[0].targets[1].weight`) as its param and the place in words. */
function refuse(param: string, message: string, routeName?: string): GatewayError {
  return invalidRequest(`${placeOf(param, routeName)}: ${message}`, param);
}

/** The name a route value gives itself, for errors found before its name is checked. */
function nameOf(value: unknown): string | undefined {
  return isPlainObject(value) && typeof value.name === 'string' && value.name.trim() ? value.name.trim() : undefined;
}

/**
 * A catch-all route (`*`): a default for any model no route before it takes. It never catches a target's
 * model (targets are sent as they are), and it never overrides a virtual key's own provider.
 */
export function isCatchAll(match: string): boolean {
  return covers(match, '*');
}

function refuseUnknownFields(value: Record<string, unknown>, known: Set<string>, path: string): void {
  for (const field of Object.keys(value)) {
    if (!known.has(field)) throw refuse(`${path}.${field}`, `unknown field (expected ${[...known].join(', ')})`);
  }
}

function text(value: unknown, path: string, max: number): string {
  if (typeof value !== 'string' || value.trim() === '') throw refuse(path, 'must be a non-empty string');
  const trimmed = value.trim();
  if (trimmed.length > max) throw refuse(path, `must be at most ${max} characters`);
  return trimmed;
}

function conditions(value: unknown, path: string): TargetConditions {
  if (!isPlainObject(value)) throw refuse(path, 'must be an object with min_prompt_tokens, thinking or tools');
  refuseUnknownFields(value, WHEN_FIELDS, path);
  const result: TargetConditions = {};
  if (value.min_prompt_tokens !== undefined) {
    const tokens = value.min_prompt_tokens;
    if (typeof tokens !== 'number' || !Number.isInteger(tokens) || tokens < 0 || tokens > MAX_PROMPT_TOKENS) {
      throw refuse(`${path}.min_prompt_tokens`, `must be a whole number from 0 to ${MAX_PROMPT_TOKENS}`);
    }
    result.min_prompt_tokens = tokens;
  }
  for (const flag of ['thinking', 'tools'] as const) {
    if (value[flag] === undefined) continue;
    if (typeof value[flag] !== 'boolean') throw refuse(`${path}.${flag}`, 'must be true or false');
    result[flag] = value[flag];
  }
  return result;
}

function target(value: unknown, path: string): TargetInput {
  if (!isPlainObject(value)) throw refuse(path, 'must be an object with at least a key');
  refuseUnknownFields(value, TARGET_FIELDS, path);
  const result: TargetInput = { key: text(value.key, `${path}.key`, MAX_NAME_LENGTH) };
  if (value.model !== undefined && value.model !== null) result.model = text(value.model, `${path}.model`, MAX_MODEL_LENGTH);
  if (value.timeout_ms !== undefined && value.timeout_ms !== null) {
    const ms = value.timeout_ms;
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 1 || ms > MAX_TIMEOUT_MS) throw refuse(`${path}.timeout_ms`, `must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}`);
    result.timeout_ms = ms;
  }
  if (value.weight !== undefined && value.weight !== null) {
    const weight = value.weight;
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight <= 0 || weight > MAX_WEIGHT) throw refuse(`${path}.weight`, `must be a number above 0 and at most ${MAX_WEIGHT}`);
    result.weight = weight;
  }
  if (value.when !== undefined && value.when !== null) {
    const when = conditions(value.when, `${path}.when`);
    if (Object.keys(when).length) result.when = when;
  }
  return result;
}

/** One route's shape (names and keys are checked across the table by validateRouteTable). */
export function parseRoute(value: unknown, path: string): RouteInput {
  try {
    return parseRouteShape(value, path);
  } catch (error) {
    // The shape checks name the place by number; the route's own name reads better once it has one.
    const name = nameOf(value);
    const failure = error as GatewayError;
    if (!name || typeof failure.param !== 'string' || !failure.param.startsWith(path)) throw error;
    throw refuse(failure.param, failure.message.slice(failure.message.indexOf(': ') + 2), name);
  }
}

function parseRouteShape(value: unknown, path: string): RouteInput {
  if (!isPlainObject(value)) throw refuse(path, 'must be an object with name, match, strategy and targets');
  refuseUnknownFields(value, ROUTE_FIELDS, path);
  const name = text(value.name, `${path}.name`, MAX_NAME_LENGTH);
  const match = text(value.match, `${path}.match`, MAX_MODEL_LENGTH);
  const strategy = value.strategy ?? 'fallback';
  if (typeof strategy !== 'string' || !(ROUTE_STRATEGIES as readonly string[]).includes(strategy)) throw refuse(`${path}.strategy`, `must be one of ${ROUTE_STRATEGIES.join(', ')}`);
  if (!Array.isArray(value.targets)) throw refuse(`${path}.targets`, 'must be a list of targets');
  if (value.targets.length === 0) throw refuse(`${path}.targets`, `route '${name}' has no targets: give at least one`);
  if (value.targets.length > MAX_TARGETS) throw refuse(`${path}.targets`, `at most ${MAX_TARGETS} targets per route`);
  const targets = value.targets.map((item, index) => target(item, `${path}.targets[${index}]`));
  return { name, match, strategy: strategy as RouteInput['strategy'], targets };
}

/** The routes file's shape: `{routes: [...]}`, each route checked; the first problem is thrown. */
export function parseRoutesFile(value: unknown): RouteInput[] {
  const { routes, problems } = parseRoutesFileCollecting(value);
  if (problems.length) throw problems[0];
  return routes as RouteInput[];
}

/** The routes file's shape with every route's problem: a route that fails its shape is undefined in `routes`. */
function parseRoutesFileCollecting(value: unknown): { routes: (RouteInput | undefined)[]; problems: GatewayError[] } {
  if (!isPlainObject(value)) throw refuse('routes', 'the file must be an object with a "routes" list');
  refuseUnknownFields(value, new Set(['routes']), '$');
  if (!Array.isArray(value.routes)) throw refuse('routes', 'must be a list of routes');
  if (value.routes.length > MAX_ROUTES) throw refuse('routes', `at most ${MAX_ROUTES} routes`);
  const problems: GatewayError[] = [];
  const routes = value.routes.map((route, index) => {
    try {
      return parseRoute(route, `routes[${index}]`);
    } catch (error) {
      problems.push(error as GatewayError);
      return undefined;
    }
  });
  return { routes, problems };
}

/**
 * A whole routes file checked at once: every route's shape, then the table across the routes that have
 * one. Throws one GatewayErrorList naming every problem (its param is the first's), so an import is fixed
 * in one round rather than one error at a time.
 */
export function checkRoutesFile(value: unknown, keyStatus: KeyNameLookup): RouteInput[] {
  const { routes, problems } = parseRoutesFileCollecting(value);
  problems.push(...routeTableProblems(routes, keyStatus));
  if (problems.length === 1) throw problems[0];
  if (problems.length) throw new GatewayErrorList(`${problems.length} problems in the routes file, nothing was changed: ${problems.map((problem) => problem.message).join('; ')}`, problems);
  return routes as RouteInput[];
}

/** Whether a route catches a model name: by its match, or by its own name (route names are model names too). */
export function routeCatches(route: Pick<RouteInput, 'name' | 'match'>, model: string): boolean {
  return route.name === model || compileMatcher(route.match)(model);
}

/** The checks across the table, in order; the first failure is thrown. */
export function validateRouteTable(routes: readonly RouteInput[], keyStatus: KeyNameLookup): void {
  const [first] = routeTableProblems(routes, keyStatus);
  if (first) throw first;
}

/** Every problem across the table, in order (one per field at most). Undefined routes (a bad shape) are skipped. */
function routeTableProblems(routes: readonly (RouteInput | undefined)[], keyStatus: KeyNameLookup): GatewayError[] {
  const problems: GatewayError[] = [];
  const names = new Map<string, RouteInput>();
  routes.forEach((route, index) => {
    if (!route) return;
    const path = `routes[${index}]`;
    const problem = (param: string, message: string) => problems.push(refuse(param, message, route.name));
    const earlier = names.get(route.name);
    if (earlier !== undefined) problem(`${path}.name`, `the name '${route.name}' is already used by another route`);
    else names.set(route.name, route);
    const shadow = routes.slice(0, index).find((other) => other !== undefined && covers(other.match, route.match));
    if (shadow && isCatchAll(shadow.match)) {
      problem(`${path}.match`, `route '${route.name}' can never match: the catch-all route '${shadow.name}' ('${shadow.match}') before it takes every model; a catch-all is the default and goes last`);
    } else if (shadow) {
      problem(`${path}.match`, `route '${route.name}' can never match: every model '${route.match}' matches is caught first by route '${shadow.name}' ('${shadow.match}'); move it above, or narrow that one`);
    }
    route.targets.forEach((item, targetIndex) => {
      const targetPath = `${path}.targets[${targetIndex}]`;
      const status = keyStatus(item.key);
      if (status === 'unknown') problem(`${targetPath}.key`, `no virtual key is named '${item.key}'`);
      if (status === 'revoked') problem(`${targetPath}.key`, `the virtual key '${item.key}' is revoked`);
      if (status === 'ambiguous') problem(`${targetPath}.key`, `more than one active virtual key is named '${item.key}'; rename one`);
      if (item.model !== undefined) {
        // A target model its own route catches is a pinned version (claude-sonnet-* → claude-sonnet-4-5-…),
        // sent as it is. One another route catches reads as a chain of routes, which never happens — but a
        // catch-all catches every name by design: it is the default, not a link in a chain.
        const catcher = routes.find((other) => other !== undefined && other !== route && !isCatchAll(other.match) && routeCatches(other, item.model!));
        if (catcher) {
          problem(
            `${targetPath}.model`,
            `the target model '${item.model}' also matches route '${catcher.name}' ('${catcher.match}'), but a target's model goes to its key's provider as written and is never routed a second time, so '${catcher.name}' would not apply to it; write the provider's own model name here, or narrow route '${catcher.name}'`,
          );
        }
      }
    });
  });
  return problems;
}
