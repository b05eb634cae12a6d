// Which models a key may call: an allow-list per key (virtual and gateway keys alike), null = every model.
// An entry is a model name or a glob (`claude-*`, `meta-llama/*`), compared with the model the client
// asked for, or `route:NAME`, which allows whatever that route serves (the models its match takes). The
// gateway checks it at admission, like a limit: a model not on the list is a 403 before any provider is
// called. The SQLite store keeps it (store/model-allow-lists.ts, migration 17).
import { invalidRequest } from './errors.js';
import { compileMatcher } from './routes/match.js';

/** The most entries one key's list may have, and the longest entry. */
export const MAX_ALLOWED_MODELS = 200;
export const MAX_ALLOWED_MODEL_LENGTH = 256;
/** An entry naming a route rather than a model. */
export const ROUTE_ENTRY_PREFIX = 'route:';

/** Checks an allow-list from any caller (admin API, CLI): null, or 1..200 distinct non-empty names. */
export function validAllowedModels(input: unknown): string[] | null {
  if (input === null) return null;
  if (!Array.isArray(input) || input.length === 0 || input.length > MAX_ALLOWED_MODELS) {
    throw invalidRequest(`'allowedModels' must be null (every model) or a list of 1 to ${MAX_ALLOWED_MODELS} model names, globs or route:NAME entries`, 'allowedModels');
  }
  const entries: string[] = [];
  for (const entry of input) {
    if (typeof entry !== 'string' || entry.trim() === '' || entry.length > MAX_ALLOWED_MODEL_LENGTH || /[\u0000-\u001f]/.test(entry)) {
      throw invalidRequest(`Each entry of 'allowedModels' must be a model name, a glob or route:NAME of 1 to ${MAX_ALLOWED_MODEL_LENGTH} characters`, 'allowedModels');
    }
    const trimmed = entry.trim();
    if (trimmed === ROUTE_ENTRY_PREFIX) throw invalidRequest(`'route:' in 'allowedModels' needs a route name after it`, 'allowedModels');
    if (!entries.includes(trimmed)) entries.push(trimmed);
  }
  return entries;
}

/** A list compiled once: whether a requested model (served by the route named, if any) is on it. */
export function allowListMatcher(entries: readonly string[]): (model: string, routeName: string | undefined) => boolean {
  const routes = new Set(entries.filter((entry) => entry.startsWith(ROUTE_ENTRY_PREFIX)).map((entry) => entry.slice(ROUTE_ENTRY_PREFIX.length)));
  const models = entries.filter((entry) => !entry.startsWith(ROUTE_ENTRY_PREFIX)).map(compileMatcher);
  return (model, routeName) => (routeName !== undefined && routes.has(routeName)) || models.some((matches) => matches(model));
}

/**
 * Where the lists are kept: reads and writes are promises on both backends (PostgreSQL answers off the
 * serving thread). `all` is read at start and whenever `version` moves (another instance, the CLI).
 */
export interface ModelAllowListRepository {
  /** The key's list; null when it may call every model. */
  get(keyId: string): Promise<string[] | null>;
  /** Every key that has a list. */
  all(): Promise<Map<string, string[]>>;
  /** Sets the key's list; null removes it (every model). The key must exist (404 otherwise). */
  set(keyId: string, models: string[] | null): Promise<void>;
  /** Moves whenever a list changes, in this process or another; cheap and synchronous (polled on the serving thread). */
  version(): string;
}
