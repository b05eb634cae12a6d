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

  private constructor(private readonly bridge: PgBridge) {}

  static async open(bridge: PgBridge): Promise<PgRouteStore> {
    const store = new PgRouteStore(bridge);
    await store.reload();
    return store;
  }

  async list(): Promise<Route[]> {
    return (await this.bridge.queryForAdmin<RouteWithLastServed>(WITH_LAST_SERVED(''))).map(toRoute);
  }

  async get(id: string): Promise<Route> {
    const row = (await this.bridge.queryForAdmin<RouteWithLastServed>(WITH_LAST_SERVED('WHERE r.id = $1'), [id]))[0];
    if (!row) throw notFound(id);
    return toRoute(row);
  }

  async create(input: unknown): Promise<Route> {
    const [rows, keyStatus] = await Promise.all([this.rows(), this.keyStatus()]);
    const route = checkedNewRoute(rows.map(toInput), input, keyStatus);
    const id = newId();
    const now = Date.now();
    const position = rows.length ? Math.max(...rows.map((row) => row.position)) + 1 : 0;
    await this.write([{ sql: INSERT, params: [id, position, route.name, route.match, route.strategy, JSON.stringify(route.targets), now, now] }]);
    return this.get(id);
  }

  async update(id: string, change: unknown): Promise<Route> {
    const [rows, keyStatus] = await Promise.all([this.rows(), this.keyStatus()]);
    const index = rows.findIndex((row) => row.id === id);
    if (index === -1) throw notFound(id);
    const route = checkedRouteChange(rows.map(toInput), index, change, keyStatus);
    await this.write([
      { sql: 'UPDATE routes SET name = $1, match = $2, strategy = $3, targets = $4, updated_at = $5 WHERE id = $6', params: [route.name, route.match, route.strategy, JSON.stringify(route.targets), Date.now(), id] },
    ]);
    return this.get(id);
  }

  async remove(id: string): Promise<void> {
    if ((await this.bridge.queryForAdmin('DELETE FROM routes WHERE id = $1 RETURNING id', [id])).length === 0) throw notFound(id);
    await this.afterChange();
  }

  async reorder(ids: unknown): Promise<Route[]> {
    const [rows, keyStatus] = await Promise.all([this.rows(), this.keyStatus()]);
    const ordered = checkedOrder(rows, ids, toInput, keyStatus);
    await this.write(ordered.map((row, position) => ({ sql: 'UPDATE routes SET position = $1 WHERE id = $2', params: [position, row.id] })));
    return this.list();
  }

  async replaceAll(file: unknown): Promise<Route[]> {
    const [rows, keyStatus] = await Promise.all([this.rows(), this.keyStatus()]);
    const routes = checkedRoutesFile(file, keyStatus);
    const existing = new Map(rows.map((row) => [row.name, row]));
    const now = Date.now();
    await this.write([
      { sql: 'DELETE FROM routes' },
      ...routes.map((route, position) => {
        const before = existing.get(route.name);
        const unchanged = before && JSON.stringify(toInput(before)) === JSON.stringify(route);
        return { sql: INSERT, params: [before?.id ?? newId(), position, route.name, route.match, route.strategy, JSON.stringify(route.targets), before?.created_at ?? now, unchanged ? before.updated_at : now] };
      }),
    ]);
    return this.list();
  }

  async exportFile(): Promise<RoutesFile> {
    return { routes: (await this.rows()).map(toInput) };
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

  private async write(statements: Statement[]): Promise<void> {
    await this.bridge.runForAdmin(statements, { transaction: true });
    await this.afterChange();
  }

  private async afterChange(): Promise<void> {
    this.publish(await this.rows());
  }

  private publish(rows: RouteRow[]): void {
    this.table = rows.map((row) => ({ id: row.id, ...toInput(row) }));
    for (const listener of this.listeners) listener(this.table);
  }

  private rows(): Promise<RouteRow[]> {
    return this.bridge.queryForAdmin<RouteRow>(SELECT_ALL);
  }

  /** What the rules ask of the targets' key names, read once for a whole change. */
  private async keyStatus(): Promise<KeyNameLookup> {
    const rows = await this.bridge.queryForAdmin<{ name: string; revoked_at: number | null }>('SELECT name, revoked_at FROM virtual_keys');
    return (name): KeyNameStatus => {
      const named = rows.filter((row) => row.name === name);
      const active = named.filter((row) => row.revoked_at === null).length;
      if (active > 1) return 'ambiguous';
      if (active === 1) return 'active';
      return named.length ? 'revoked' : 'unknown';
    };
  }
}

function toRoute(row: RouteWithLastServed): Route {
  const lastServed = row.last_target === null || row.last_at === null ? null : { ...splitTargetLabel(row.last_target), at: iso(row.last_at) };
  return { id: row.id, position: row.position, ...toInput(row), createdAt: iso(row.created_at), updatedAt: iso(row.updated_at), lastServed };
}
