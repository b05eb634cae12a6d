// Routes as the admin API, the CLI and the app know them, and the contract of the store that keeps them
// in their user-set order (SQLite in store/routes.ts). Every change is checked as a whole table with the
// rules of routes/changes.ts, which any implementation shares.
import type { RouteDefinition, RouteInput, RoutesFile } from './routes/types.js';

export interface Route extends RouteInput {
  id: string;
  position: number;
  createdAt: string;
  updatedAt: string;
  /** The last call a target of this route served (from the request log); null if none is logged. */
  lastServed: { key: string; model: string; at: string } | null;
}

/**
 * What the admin API, the CLI and the app need of the route store. Changes are all or nothing; errors are
 * GatewayErrors (400 naming the field, 404 for an unknown id); the promises reject, never hold the
 * serving thread. The running router reads the table from memory: it is handed `definitions()` once and
 * again through `watch` on every change.
 */
export interface RouteRepository {
  list(): Promise<Route[]>;
  get(id: string): Promise<Route>;
  create(input: unknown): Promise<Route>;
  update(id: string, change: unknown): Promise<Route>;
  remove(id: string): Promise<void>;
  reorder(ids: unknown): Promise<Route[]>;
  replaceAll(file: unknown): Promise<Route[]>;
  exportFile(): Promise<RoutesFile>;
  /** The table as the router reads it, in order: from memory. */
  definitions(): RouteDefinition[];
  /** Calls `listener` with the new table whenever any process changed it; returns a function that stops. */
  watch(listener: (routes: RouteDefinition[]) => void, intervalMs?: number): () => void;
}
