// Checks a whole route table before it is saved: the shape of every field, and the mistakes that would
// only show at run time — a route no model can reach, a target whose key is gone, a target model that
// another route would catch again, duplicate names. Errors name the field (`routes[1].targets[0].key`).
import { invalidRequest, type GatewayError } from '../errors.js';
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

/** A validation failure, with the field path (`routes[0].targets[1].weight`) as its param. */
function refuse(param: string, message: string): GatewayError {
  return invalidRequest(`${param}: ${message}`, param);
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

/** The routes file's shape: `{routes: [...]}`, each route checked. */
export function parseRoutesFile(value: unknown): RouteInput[] {
  if (!isPlainObject(value)) throw refuse('routes', 'the file must be an object with a "routes" list');
  refuseUnknownFields(value, new Set(['routes']), '$');
  if (!Array.isArray(value.routes)) throw refuse('routes', 'must be a list of routes');
  if (value.routes.length > MAX_ROUTES) throw refuse('routes', `at most ${MAX_ROUTES} routes`);
  return value.routes.map((route, index) => parseRoute(route, `routes[${index}]`));
}

/** Whether a route catches a model name: by its match, or by its own name (route names are model names too). */
export function routeCatches(route: Pick<RouteInput, 'name' | 'match'>, model: string): boolean {
  return route.name === model || compileMatcher(route.match)(model);
}

/** The checks across the table, in order; the first failure is thrown. */
export function validateRouteTable(routes: readonly RouteInput[], keyStatus: KeyNameLookup): void {
  const names = new Map<string, number>();
  routes.forEach((route, index) => {
    const path = `routes[${index}]`;
    const earlier = names.get(route.name);
    if (earlier !== undefined) throw refuse(`${path}.name`, `the name '${route.name}' is already used by routes[${earlier}]`);
    names.set(route.name, index);
    for (let before = 0; before < index; before++) {
      const other = routes[before];
      if (covers(other.match, route.match)) {
        throw refuse(`${path}.match`, `route '${route.name}' can never match: every model '${route.match}' matches is caught first by route '${other.name}' ('${other.match}'); move it above, or narrow that one`);
      }
    }
    route.targets.forEach((item, targetIndex) => {
      const targetPath = `${path}.targets[${targetIndex}]`;
      const status = keyStatus(item.key);
      if (status === 'unknown') throw refuse(`${targetPath}.key`, `no virtual key is named '${item.key}'`);
      if (status === 'revoked') throw refuse(`${targetPath}.key`, `the virtual key '${item.key}' is revoked`);
      if (status === 'ambiguous') throw refuse(`${targetPath}.key`, `more than one active virtual key is named '${item.key}'; rename one`);
      if (item.model !== undefined) {
        // A target model its own route catches is a pinned version (claude-sonnet-* → claude-sonnet-4-5-…),
        // sent as it is. One another route catches reads as a chain of routes, which never happens.
        const catcher = routes.find((other) => other !== route && routeCatches(other, item.model!));
        if (catcher) {
          throw refuse(
            `${targetPath}.model`,
            `'${item.model}' is caught by route '${catcher.name}' too (a chain or cycle of routes): targets are sent as they are, never routed again; name the provider's model so no other route matches it`,
          );
        }
      }
    });
  });
}
