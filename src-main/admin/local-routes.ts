// Admin endpoints for local model servers (CONTRACT §5): what discovery remembers, and a sweep on demand.
import type { AdminRoute } from './router.js';

export const localRoutes: AdminRoute[] = [
  {
    method: 'GET',
    path: '/local-servers',
    handle: ({ services }) => ({ status: 200, body: services.discovery.list() }),
  },
  {
    method: 'POST',
    path: '/local-servers/refresh',
    // Bounded by the probe's deadline per port (all ports at once): under a second.
    handle: async ({ services }) => ({ status: 200, body: await services.discovery.refresh() }),
  },
];
