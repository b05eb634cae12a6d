// Admin endpoints for routes (CONTRACT §5, routes): list, create, change, delete, reorder, replace all
// from a routes file, export, and explain (what the router would do for a request, for the UI's Test).
import { parseOrRefuse } from '../core/zod-invalid.js';
import { z } from 'zod';
import { fixedTraits } from '../gateway/routing/conditions.js';
import type { AdminRoute } from './router.js';

const explainBody = z.object({
  model: z.string().trim().min(1).max(256),
  promptTokens: z.number().int().min(0).optional(),
  thinking: z.boolean().optional(),
  tools: z.boolean().optional(),
});

function parseExplain(body: unknown): z.infer<typeof explainBody> {
  return parseOrRefuse(explainBody, body);
}

export const routeRoutes: AdminRoute[] = [
  {
    method: 'GET',
    path: '/routes',
    handle: async ({ services }) => {
      // Each route's last served target is read from the log: rows still queued count too.
      await services.requestLog.flush();
      return { status: 200, body: { items: await services.routes.list() } };
    },
  },
  {
    method: 'POST',
    path: '/routes',
    handle: async ({ services, body }) => ({ status: 201, body: await services.routes.create(body) }),
  },
  {
    method: 'PUT',
    path: '/routes',
    handle: async ({ services, body }) => ({ status: 200, body: { items: await services.routes.replaceAll(body) } }),
  },
  {
    method: 'GET',
    path: '/routes/export',
    handle: async ({ services }) => ({ status: 200, body: await services.routes.exportFile() }),
  },
  {
    method: 'PUT',
    path: '/routes/order',
    handle: async ({ services, body }) => {
      const ids = typeof body === 'object' && body !== null ? (body as { ids?: unknown }).ids : undefined;
      return { status: 200, body: { items: await services.routes.reorder(ids) } };
    },
  },
  {
    method: 'POST',
    path: '/routes/explain',
    handle: ({ services, body }) => {
      const input = parseExplain(body);
      return { status: 200, body: services.router.explain(input.model, fixedTraits(input)) };
    },
  },
  {
    method: 'PATCH',
    path: '/routes/:id',
    handle: async ({ services, params, body }) => ({ status: 200, body: await services.routes.update(params.id, body) }),
  },
  {
    method: 'DELETE',
    path: '/routes/:id',
    handle: async ({ services, params }) => {
      await services.routes.remove(params.id);
      return { status: 204, body: null };
    },
  },
];
