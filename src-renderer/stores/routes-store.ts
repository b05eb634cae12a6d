// Routes in match order. Moves show at once and are undone if the server refuses them; saves and
// imports throw the server's ApiError so the dialog can show it beside the field its `param` names.
import { create } from 'zustand';
import { describeError } from '../api/api-error';
import type { ExplainRequest, Route, RouteExplanation, RouteInput, RoutesFile } from '../api/types';
import { moveItem, orderAfterMove } from '../routes/route-form';
import type { LoadStatus } from './keys-store';
import { requireAdminClient } from './session-store';

interface RoutesState {
  routes: Route[];
  status: LoadStatus;
  loadError: string | null;
  /** Why the last move did not stick; cleared by the next one. */
  moveError: string | null;
  /** A polite sentence for screen readers after a move ("Moved fast to position 1 of 3"). */
  announcement: string;
  load(): Promise<void>;
  /** Creates (id null) or updates a route; resolves with the saved route. */
  save(id: string | null, input: RouteInput): Promise<Route>;
  remove(id: string): Promise<void>;
  /** Moves a route `delta` places up (negative) or down. */
  move(id: string, delta: number): Promise<void>;
  /** Moves a route to a position (0-based), as a drop does. */
  moveTo(id: string, index: number): Promise<void>;
  importFile(file: RoutesFile): Promise<void>;
  exportFile(): Promise<RoutesFile>;
  explain(request: ExplainRequest): Promise<RouteExplanation>;
}

const byPosition = (routes: Route[]) => [...routes].sort((a, b) => a.position - b.position);

export const useRoutesStore = create<RoutesState>()((set, get) => {
  /** Shows the new order now and asks the server for it; restores the old one if refused. */
  const applyOrder = async (ids: string[], movedId: string) => {
    const before = get().routes;
    const byId = new Map(before.map((route) => [route.id, route]));
    const reordered = ids.map((id, index) => ({ ...byId.get(id)!, position: index }));
    const moved = byId.get(movedId);
    const position = ids.indexOf(movedId) + 1;
    set({ routes: reordered, moveError: null, announcement: moved ? `Moved ${moved.name} to position ${position} of ${ids.length}` : '' });
    try {
      const saved = await requireAdminClient().reorderRoutes(ids);
      set({ routes: byPosition(saved.items) });
    } catch (error) {
      set({ routes: before, moveError: `The order was not saved: ${describeError(error)}`, announcement: 'The order was not saved' });
    }
  };

  return {
    routes: [],
    status: 'idle',
    loadError: null,
    moveError: null,
    announcement: '',

    async load() {
      set({ status: get().status === 'ready' ? 'ready' : 'loading', loadError: null });
      try {
        const { items } = await requireAdminClient().listRoutes();
        set({ routes: byPosition(items), status: 'ready' });
      } catch (error) {
        set({ status: 'error', loadError: describeError(error) });
      }
    },
    async save(id, input) {
      const client = requireAdminClient();
      const saved = id ? await client.updateRoute(id, input) : await client.createRoute(input);
      const routes = get().routes;
      set({ routes: id ? routes.map((route) => (route.id === id ? saved : route)) : [...routes, saved] });
      return saved;
    },
    async remove(id) {
      await requireAdminClient().deleteRoute(id);
      set({ routes: get().routes.filter((route) => route.id !== id) });
    },
    async move(id, delta) {
      const ids = orderAfterMove(get().routes, id, delta);
      if (ids) await applyOrder(ids, id);
    },
    async moveTo(id, index) {
      const routes = get().routes;
      const from = routes.findIndex((route) => route.id === id);
      if (from < 0 || index === from) return;
      await applyOrder(moveItem(routes, from, Math.max(0, Math.min(routes.length - 1, index))).map((route) => route.id), id);
    },
    async importFile(file) {
      const { items } = await requireAdminClient().importRoutes(file);
      set({ routes: byPosition(items), status: 'ready' });
    },
    exportFile() {
      return requireAdminClient().exportRoutes();
    },
    explain(request) {
      return requireAdminClient().explainRoute(request);
    },
  };
});
