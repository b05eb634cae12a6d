// Admin endpoints for which models a key may call: GET and PUT /keys/:id/allowed-models
// ({"allowedModels": ["gpt-4o-mini", "claude-*", "route:fast"]} or null for every model), and every key's
// list at once for the Keys page (GET /allowed-models). A change
// applies to this server at once; other instances and servers on the same data dir within a second.
import { z } from 'zod';
import { invalidRequest } from '../core/errors.js';
import { validAllowedModels } from '../core/model-allow-lists.js';
import { parseOrRefuse } from '../core/zod-invalid.js';
import type { AdminRoute } from './router.js';

const body = z.object({ allowedModels: z.unknown() }).strict();

function parseAllowedModels(input: unknown): string[] | null {
  if (typeof input !== 'object' || input === null || Array.isArray(input) || !('allowedModels' in input)) {
    throw invalidRequest('The body must be a JSON object: {"allowedModels": [model names, globs or route:NAME] or null for every model}', 'allowedModels');
  }
  return validAllowedModels(parseOrRefuse(body, input, (_issue, field) => `'${field}' is not a field here; the only one is allowedModels`).allowedModels);
}

export const modelAccessRoutes: AdminRoute[] = [
  {
    method: 'GET',
    path: '/allowed-models',
    handle: ({ services }) => ({ status: 200, body: { items: services.modelAccess.all() } }),
  },
  {
    method: 'GET',
    path: '/keys/:id/allowed-models',
    handle: async ({ services, params }) => {
      const key = await services.limits.store.key(params.id);
      return { status: 200, body: { keyId: key.id, keyName: key.name, kind: key.kind, allowedModels: await services.modelAccess.get(key.id) } };
    },
  },
  {
    method: 'PUT',
    path: '/keys/:id/allowed-models',
    handle: async ({ services, params, body: input }) => {
      const key = await services.limits.store.key(params.id);
      const allowedModels = await services.modelAccess.set(key.id, parseAllowedModels(input));
      return { status: 200, body: { keyId: key.id, keyName: key.name, kind: key.kind, allowedModels } };
    },
  },
];
