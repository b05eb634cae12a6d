// Routes in SQLite, in their user-set order. Every change is checked as a whole table (validate.ts) and
// written in one transaction, so a refused change leaves the table as it was. A running server hears
// of changes made by any process (the CLI too) within a second, as it does for keys.
import { randomBytes } from 'node:crypto';
import { GatewayError, invalidRequest } from '../core/errors.js';
import { parseRoute, parseRoutesFile, validateRouteTable, type KeyNameLookup, type KeyNameStatus, MAX_ROUTES } from '../core/routes/validate.js';
import type { RouteDefinition, RouteInput, RoutesFile } from '../core/routes/types.js';
import type { SqliteDatabase } from './database.js';

export interface Route extends RouteInput {
  id: string;
  position: number;
  createdAt: string;
  updatedAt: string;
  /** The last call a target of this route served (from the request log); null if none is logged. */
  lastServed: { key: string; model: string; at: string } | null;
}

/** What the admin API, the CLI and the app need of the route store. */
export interface RouteRepository {
  list(): Route[];
  get(id: string): Route;
  create(input: unknown): Route;
  update(id: string, change: unknown): Route;
  remove(id: string): void;
  reorder(ids: unknown): Route[];
  replaceAll(file: unknown): Route[];
  exportFile(): RoutesFile;
  /** The table as the router reads it, in order. */
  definitions(): RouteDefinition[];
  /** Calls `listener` with the new table whenever any process changed it; returns a function that stops. */
  watch(listener: (routes: RouteDefinition[]) => void, intervalMs?: number): () => void;
}

interface RouteRow {
  id: string;
  position: number;
  name: string;
  match: string;
  strategy: RouteInput['strategy'];
  targets: string;
  created_at: number;
  updated_at: number;
}

/** Key names from the virtual_keys table: enough to validate targets without opening the key store. */
export function keyNameLookup(db: SqliteDatabase): KeyNameLookup {
  const statement = db.prepare('SELECT revoked_at FROM virtual_keys WHERE name = ?');
  return (name): KeyNameStatus => {
    const rows = statement.all(name) as { revoked_at: number | null }[];
    const active = rows.filter((row) => row.revoked_at === null).length;
    if (active > 1) return 'ambiguous';
    if (active === 1) return 'active';
    return rows.length ? 'revoked' : 'unknown';
  };
}

const newId = () => `rt_${randomBytes(8).toString('hex')}`;
const iso = (ms: number) => new Date(ms).toISOString();

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

export class RouteStore implements RouteRepository {
  private readonly listeners = new Set<(routes: RouteDefinition[]) => void>();

  constructor(
    private readonly db: SqliteDatabase,
    private readonly keyStatus: KeyNameLookup = keyNameLookup(db),
  ) {}

  list(): Route[] {
    const rows = this.db.prepare('SELECT * FROM routes ORDER BY position, id').all() as RouteRow[];
    return rows.map((row) => this.toRoute(row));
  }

  get(id: string): Route {
    return this.toRoute(this.row(id));
  }

  create(input: unknown): Route {
    const routes = this.inputs();
    const index = routes.length;
    let route: RouteInput;
    try {
      route = parseRoute(input, `routes[${index}]`);
      if (routes.length >= MAX_ROUTES) throw invalidRequest(`At most ${MAX_ROUTES} routes`, 'routes');
      validateRouteTable([...routes, route], this.keyStatus);
    } catch (error) {
      throw forOneRoute(error, index);
    }
    const id = newId();
    const now = Date.now();
    this.db
      .prepare('INSERT INTO routes (id, position, name, match, strategy, targets, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(id, this.nextPosition(), route.name, route.match, route.strategy, JSON.stringify(route.targets), now, now);
    this.notify();
    return this.get(id);
  }

  update(id: string, change: unknown): Route {
    const rows = this.rows();
    const index = rows.findIndex((row) => row.id === id);
    if (index === -1) throw notFound(id);
    const routes = rows.map(toInput);
    let route: RouteInput;
    try {
      route = parseRoute(mergeChange(routes[index], change), `routes[${index}]`);
      routes[index] = route;
      validateRouteTable(routes, this.keyStatus);
    } catch (error) {
      throw forOneRoute(error, index);
    }
    this.db
      .prepare('UPDATE routes SET name = ?, match = ?, strategy = ?, targets = ?, updated_at = ? WHERE id = ?')
      .run(route.name, route.match, route.strategy, JSON.stringify(route.targets), Date.now(), id);
    this.notify();
    return this.get(id);
  }

  remove(id: string): void {
    const result = this.db.prepare('DELETE FROM routes WHERE id = ?').run(id);
    if (result.changes === 0) throw notFound(id);
    this.notify();
  }

  /** A new order: every route's id once. The order is checked too (a move can make a route unreachable). */
  reorder(ids: unknown): Route[] {
    const rows = this.rows();
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) throw invalidRequest("'ids' must be a list of route ids", 'ids');
    const byId = new Map(rows.map((row) => [row.id, row]));
    const seen = new Set<string>();
    for (const id of ids as string[]) {
      if (!byId.has(id)) throw invalidRequest(`ids: no route with id '${id}'`, 'ids');
      if (seen.has(id)) throw invalidRequest(`ids: '${id}' is given twice`, 'ids');
      seen.add(id);
    }
    if (seen.size !== rows.length) throw invalidRequest(`ids: give every route's id once (${rows.length} routes, ${seen.size} ids)`, 'ids');
    const ordered = (ids as string[]).map((id) => byId.get(id)!);
    validateRouteTable(ordered.map(toInput), this.keyStatus);
    const setPosition = this.db.prepare('UPDATE routes SET position = ? WHERE id = ?');
    this.db.transaction(() => ordered.forEach((row, position) => setPosition.run(position, row.id)))();
    this.notify();
    return this.list();
  }

  /** Replaces every route with the file's, all or nothing. */
  replaceAll(file: unknown): Route[] {
    const routes = parseRoutesFile(file);
    validateRouteTable(routes, this.keyStatus);
    // Routes that keep their name keep their id and creation time: links and the log's history still fit.
    const existing = new Map(this.rows().map((row) => [row.name, row]));
    const insert = this.db.prepare('INSERT INTO routes (id, position, name, match, strategy, targets, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const now = Date.now();
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM routes').run();
      routes.forEach((route, position) => {
        const before = existing.get(route.name);
        const unchanged = before && JSON.stringify(toInput(before)) === JSON.stringify(route);
        insert.run(before?.id ?? newId(), position, route.name, route.match, route.strategy, JSON.stringify(route.targets), before?.created_at ?? now, unchanged ? before.updated_at : now);
      });
    })();
    this.notify();
    return this.list();
  }

  exportFile(): RoutesFile {
    return { routes: this.inputs() };
  }

  definitions(): RouteDefinition[] {
    return this.rows().map((row) => ({ id: row.id, ...toInput(row) }));
  }

  watch(listener: (routes: RouteDefinition[]) => void, intervalMs = 500): () => void {
    // This process's own changes reach the listener at once; other processes' on the next tick.
    this.listeners.add(listener);
    const generation = this.db.prepare('SELECT value FROM route_generation WHERE id = 1');
    const read = () => (generation.get() as { value: number }).value;
    let dataVersion = this.db.pragma('data_version', { simple: true }) as number;
    let seen = read();
    // data_version moves only for other connections' commits; this connection's own are checked each tick.
    const timer = setInterval(() => {
      if (!this.db.open) {
        clearInterval(timer);
        return;
      }
      try {
        const version = this.db.pragma('data_version', { simple: true }) as number;
        const current = read();
        if (version === dataVersion && current === seen) return;
        dataVersion = version;
        if (current === seen) return;
        seen = current;
        listener(this.definitions());
      } catch {
        // A busy or closing database: the next tick tries again.
      }
    }, intervalMs);
    timer.unref();
    return () => {
      clearInterval(timer);
      this.listeners.delete(listener);
    };
  }

  private notify(): void {
    if (this.listeners.size === 0) return;
    const routes = this.definitions();
    for (const listener of this.listeners) listener(routes);
  }

  // ---- internals ----

  private rows(): RouteRow[] {
    return this.db.prepare('SELECT * FROM routes ORDER BY position, id').all() as RouteRow[];
  }

  private inputs(): RouteInput[] {
    return this.rows().map(toInput);
  }

  private row(id: string): RouteRow {
    const row = this.db.prepare('SELECT * FROM routes WHERE id = ?').get(id) as RouteRow | undefined;
    if (!row) throw notFound(id);
    return row;
  }

  private nextPosition(): number {
    return ((this.db.prepare('SELECT MAX(position) AS last FROM routes').get() as { last: number | null }).last ?? -1) + 1;
  }

  private toRoute(row: RouteRow): Route {
    return { id: row.id, position: row.position, ...toInput(row), createdAt: iso(row.created_at), updatedAt: iso(row.updated_at), lastServed: this.lastServed(row.name) };
  }

  /** One step back through the route index (migration 7) to the newest call that was answered. */
  private lastServed(name: string): Route['lastServed'] {
    const row = this.db
      .prepare('SELECT route_target, created_at FROM request_log WHERE route = ? AND status < 400 AND route_target IS NOT NULL ORDER BY id DESC LIMIT 1')
      .get(name) as { route_target: string; created_at: number } | undefined;
    if (!row) return null;
    const split = row.route_target.indexOf(' → ');
    const key = split === -1 ? row.route_target : row.route_target.slice(0, split);
    const model = split === -1 ? '' : row.route_target.slice(split + 3);
    return { key, model, at: iso(row.created_at) };
  }
}

function toInput(row: RouteRow): RouteInput {
  return { name: row.name, match: row.match, strategy: row.strategy, targets: JSON.parse(row.targets) as RouteInput['targets'] };
}

function notFound(id: string): GatewayError {
  return new GatewayError(404, 'not_found_error', `No route with id '${id}'`, 'id');
}
