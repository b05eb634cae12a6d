// Routes in SQLite, in their user-set order. Every change is checked as a whole table (core/routes/changes.ts) and
// written in one transaction, so a refused change leaves the table as it was. A running server hears
// of changes made by any process (the CLI too) within a second, as it does for keys.
import { randomBytes } from 'node:crypto';
import { GatewayError } from '../core/errors.js';
import type { KeyNameLookup, KeyNameStatus } from '../core/routes/validate.js';
import { checkedNewRoute, checkedOrder, checkedRouteChange, checkedRoutesFile, splitTargetLabel } from '../core/routes/changes.js';
import type { RouteDefinition, RouteInput, RoutesFile } from '../core/routes/types.js';
import type { Route, RouteRepository } from '../core/route-repository.js';
import type { SqliteDatabase } from './database.js';

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

export class RouteStore implements RouteRepository {
  private readonly listeners = new Set<(routes: RouteDefinition[]) => void>();

  constructor(
    private readonly db: SqliteDatabase,
    private readonly keyStatus: KeyNameLookup = keyNameLookup(db),
  ) {}

  async list(): Promise<Route[]> {
    return this.routes();
  }

  async get(id: string): Promise<Route> {
    return this.toRoute(this.row(id));
  }

  async create(input: unknown): Promise<Route> {
    const route = checkedNewRoute(this.inputs(), input, this.keyStatus);
    const id = newId();
    const now = Date.now();
    this.db
      .prepare('INSERT INTO routes (id, position, name, match, strategy, targets, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(id, this.nextPosition(), route.name, route.match, route.strategy, JSON.stringify(route.targets), now, now);
    this.notify();
    return this.toRoute(this.row(id));
  }

  async update(id: string, change: unknown): Promise<Route> {
    const rows = this.rows();
    const index = rows.findIndex((row) => row.id === id);
    if (index === -1) throw notFound(id);
    const route = checkedRouteChange(rows.map(toInput), index, change, this.keyStatus);
    this.db
      .prepare('UPDATE routes SET name = ?, match = ?, strategy = ?, targets = ?, updated_at = ? WHERE id = ?')
      .run(route.name, route.match, route.strategy, JSON.stringify(route.targets), Date.now(), id);
    this.notify();
    return this.toRoute(this.row(id));
  }

  async remove(id: string): Promise<void> {
    const result = this.db.prepare('DELETE FROM routes WHERE id = ?').run(id);
    if (result.changes === 0) throw notFound(id);
    this.notify();
  }

  /** A new order: every route's id once. The order is checked too (a move can make a route unreachable). */
  async reorder(ids: unknown): Promise<Route[]> {
    const ordered = checkedOrder(this.rows(), ids, toInput, this.keyStatus);
    const setPosition = this.db.prepare('UPDATE routes SET position = ? WHERE id = ?');
    this.db.transaction(() => ordered.forEach((row, position) => setPosition.run(position, row.id)))();
    this.notify();
    return this.routes();
  }

  /** Replaces every route with the file's, all or nothing. */
  async replaceAll(file: unknown): Promise<Route[]> {
    const routes = checkedRoutesFile(file, this.keyStatus);
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
    return this.routes();
  }

  async exportFile(): Promise<RoutesFile> {
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

  private routes(): Route[] {
    return this.rows().map((row) => this.toRoute(row));
  }

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
    return { ...splitTargetLabel(row.route_target), at: iso(row.created_at) };
  }
}

function toInput(row: RouteRow): RouteInput {
  return { name: row.name, match: row.match, strategy: row.strategy, targets: JSON.parse(row.targets) as RouteInput['targets'] };
}

function notFound(id: string): GatewayError {
  return new GatewayError(404, 'not_found_error', `No route with id '${id}'`, 'id');
}
