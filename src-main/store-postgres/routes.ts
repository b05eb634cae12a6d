// Routes in PostgreSQL, in their user-set order; every change checked as a whole table (core/routes/changes.ts)
// and written in one transaction. The router reads the table from memory: this instance's changes reach it
// at once, other instances' within moments of their NOTIFY 'routes'.
import { randomBytes } from 'node:crypto';
import { GatewayError } from '../core/errors.js';
import type { KeyNameLookup, KeyNameStatus } from '../core/routes/validate.js';
import { checkedNewRoute, checkedOrder, checkedRouteChange, checkedRoutesFile, splitTargetLabel } from '../core/routes/changes.js';
import type { RouteDefinition, RouteInput, RoutesFile } from '../core/routes/types.js';
import type { Route, RouteRepository } from '../core/route-repository.js';
import type { PgBridge, Statement } from './pg-bridge.js';

interface RouteWithLastServed extends RouteRow {
  last_target: string | null;
  last_at: number | null;
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

const newId = () => `rt_${randomBytes(8).toString('hex')}`;
const iso = (ms: number) => new Date(ms).toISOString();
const SELECT_ALL = 'SELECT * FROM routes ORDER BY position, id';
/**
 * Routes with the target that served each last, in one round trip: per route one step back through the
 * route index (route, id) to the newest answered call, as SQLite does, instead of one query per route.
 */
const WITH_LAST_SERVED = (where: string) => `SELECT r.*, l.route_target AS last_target, l.created_at AS last_at FROM routes r
  LEFT JOIN LATERAL (SELECT route_target, created_at FROM request_log WHERE route = r.name AND status < 400 AND route_target IS NOT NULL ORDER BY id DESC LIMIT 1) l ON true
  ${where} ORDER BY r.position, r.id`;
const INSERT = 'INSERT INTO routes (id, position, name, match, strategy, targets, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)';

function toInput(row: RouteRow): RouteInput {
  return { name: row.name, match: row.match, strategy: row.strategy, targets: JSON.parse(row.targets) as RouteInput['targets'] };
}

function notFound(id: string): GatewayError {
  return new GatewayError(404, 'not_found_error', `No route with id '${id}'`, 'id');
}

export class PgRouteStore implements RouteRepository {
  private readonly listeners = new Set<(routes: RouteDefinition[]) => void>();
  private table: RouteDefinition[] = [];
  private readonly keyStatus: KeyNameLookup;

  private constructor(private readonly bridge: PgBridge) {
    this.keyStatus = (name): KeyNameStatus => {
      const rows = this.bridge.querySync<{ revoked_at: number | null }>('SELECT revoked_at FROM virtual_keys WHERE name = $1', [name]);
      const active = rows.filter((row) => row.revoked_at === null).length;
      if (active > 1) return 'ambiguous';
      if (active === 1) return 'active';
      return rows.length ? 'revoked' : 'unknown';
    };
  }

  static async open(bridge: PgBridge): Promise<PgRouteStore> {
    const store = new PgRouteStore(bridge);
    await store.reload();
    return store;
  }

  list(): Route[] {
    return this.bridge.querySync<RouteWithLastServed>(WITH_LAST_SERVED('')).map(toRoute);
  }

  get(id: string): Route {
    const row = this.bridge.querySync<RouteWithLastServed>(WITH_LAST_SERVED('WHERE r.id = $1'), [id])[0];
    if (!row) throw notFound(id);
    return toRoute(row);
  }

  create(input: unknown): Route {
    const rows = this.rows();
    const route = checkedNewRoute(rows.map(toInput), input, this.keyStatus);
    const id = newId();
    const now = Date.now();
    const position = rows.length ? Math.max(...rows.map((row) => row.position)) + 1 : 0;
    this.write([{ sql: INSERT, params: [id, position, route.name, route.match, route.strategy, JSON.stringify(route.targets), now, now] }]);
    return this.get(id);
  }

  update(id: string, change: unknown): Route {
    const rows = this.rows();
    const index = rows.findIndex((row) => row.id === id);
    if (index === -1) throw notFound(id);
    const route = checkedRouteChange(rows.map(toInput), index, change, this.keyStatus);
    this.write([
      { sql: 'UPDATE routes SET name = $1, match = $2, strategy = $3, targets = $4, updated_at = $5 WHERE id = $6', params: [route.name, route.match, route.strategy, JSON.stringify(route.targets), Date.now(), id] },
    ]);
    return this.get(id);
  }

  remove(id: string): void {
    if (this.bridge.querySync('DELETE FROM routes WHERE id = $1 RETURNING id', [id]).length === 0) throw notFound(id);
    this.afterChange();
  }

  reorder(ids: unknown): Route[] {
    const ordered = checkedOrder(this.rows(), ids, toInput, this.keyStatus);
    this.write(ordered.map((row, position) => ({ sql: 'UPDATE routes SET position = $1 WHERE id = $2', params: [position, row.id] })));
    return this.list();
  }

  replaceAll(file: unknown): Route[] {
    const routes = checkedRoutesFile(file, this.keyStatus);
    const existing = new Map(this.rows().map((row) => [row.name, row]));
    const now = Date.now();
    this.write([
      { sql: 'DELETE FROM routes' },
      ...routes.map((route, position) => {
        const before = existing.get(route.name);
        const unchanged = before && JSON.stringify(toInput(before)) === JSON.stringify(route);
        return { sql: INSERT, params: [before?.id ?? newId(), position, route.name, route.match, route.strategy, JSON.stringify(route.targets), before?.created_at ?? now, unchanged ? before.updated_at : now] };
      }),
    ]);
    return this.list();
  }

  exportFile(): RoutesFile {
    return { routes: this.rows().map(toInput) };
  }

  /** The table as the router reads it: from memory. */
  definitions(): RouteDefinition[] {
    return this.table;
  }

  watch(listener: (routes: RouteDefinition[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Rereads the table off this thread (another instance changed it) and hands it to the watchers. */
  async reload(): Promise<void> {
    this.publish(await this.bridge.query<RouteRow>(SELECT_ALL));
  }

  // ---- internals ----

  private write(statements: Statement[]): void {
    this.bridge.runSync(statements, { transaction: true });
    this.afterChange();
  }

  private afterChange(): void {
    this.publish(this.rows());
  }

  private publish(rows: RouteRow[]): void {
    this.table = rows.map((row) => ({ id: row.id, ...toInput(row) }));
    for (const listener of this.listeners) listener(this.table);
  }

  private rows(): RouteRow[] {
    return this.bridge.querySync<RouteRow>(SELECT_ALL);
  }
}

function toRoute(row: RouteWithLastServed): Route {
  const lastServed = row.last_target === null || row.last_at === null ? null : { ...splitTargetLabel(row.last_target), at: iso(row.last_at) };
  return { id: row.id, position: row.position, ...toInput(row), createdAt: iso(row.created_at), updatedAt: iso(row.updated_at), lastServed };
}
