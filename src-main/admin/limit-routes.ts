// Admin endpoints for limits per key (CONTRACT §5): read, set and clear a key's limits, and how close
// each key is to them (the Keys page meters). A change applies to this server at once and is stored for
// the next start; a change made by the CLI reaches it within a second. With limits in Redis (team mode)
// the figures are read from Redis, so the answers wait on it.
import { parseOrRefuse } from '../core/zod-invalid.js';
import { z } from 'zod';
import { invalidRequest } from '../core/errors.js';
import { validLimits } from '../core/limits.js';
import type { AdminRoute } from './router.js';
import { withBudgetWarning } from './budget-warning.js';

/** All four fields; a missing or null one means no limit of that kind (PUT replaces the whole set). */
const limitsBody = z
  .object({
    rpm: z.unknown().optional(),
    tpm: z.unknown().optional(),
    dailyUsd: z.unknown().optional(),
    monthlyUsd: z.unknown().optional(),
  })
  .strict();

function parseLimits(body: unknown) {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest('The body must be a JSON object: {"rpm", "tpm", "dailyUsd", "monthlyUsd"}, each a number or null');
  }
  return validLimits(parseOrRefuse(limitsBody, body, (_issue, field) => `'${field}' is not a limit; the limits are rpm, tpm, dailyUsd and monthlyUsd`));
}

export const limitRoutes: AdminRoute[] = [
  {
    method: 'GET',
    path: '/limits',
    handle: async ({ services }) => ({ status: 200, body: { items: (await services.limits.list()).map((view) => withBudgetWarning(services, view)) } }),
  },
  {
    method: 'GET',
    path: '/keys/:id/limits',
    handle: async ({ services, params }) => ({ status: 200, body: withBudgetWarning(services, await services.limits.get(params.id)) }),
  },
  {
    method: 'PUT',
    path: '/keys/:id/limits',
    handle: async ({ services, params, body }) => ({ status: 200, body: withBudgetWarning(services, await services.limits.set(params.id, parseLimits(body ?? {}))) }),
  },
  {
    method: 'DELETE',
    path: '/keys/:id/limits',
    handle: async ({ services, params }) => ({ status: 200, body: withBudgetWarning(services, await services.limits.clear(params.id)) }),
  },
];
