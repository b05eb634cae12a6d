// Admin endpoints for spend and usage (the Usage and Keys pages), the model catalog and the user's
// per-model overrides (Settings → Models). CONTRACT §5.
import { refusingZodErrors } from '../core/zod-invalid.js';
import { GatewayError, invalidRequest } from '../core/errors.js';
import { CATALOG_PROVIDERS, catalogModel, catalogModelIds } from '../catalog/catalog.js';
import type { ModelOverrideRepository } from '../core/model-overrides.js';
import { USAGE_DIMENSIONS, USAGE_RANGES, type UsageDimension, type UsageRange, type UsageRepository } from '../core/usage.js';
import type { AdminRoute } from './router.js';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function oneOf<T extends string>(query: URLSearchParams, name: string, allowed: readonly T[], fallback: T): T {
  const value = query.get(name);
  if (value === null || value === '') return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw invalidRequest(`'${name}' must be one of ${allowed.join(', ')}; got '${value}'`, name);
  return value as T;
}

function day(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name);
  if (value === null || value === '') return undefined;
  if (!DAY.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) throw invalidRequest(`'${name}' must be a date like 2026-01-31; got '${value}'`, name);
  return value;
}


export function usageRoutes(usage: UsageRepository, overrides: ModelOverrideRepository): AdminRoute[] {
  return [
    {
      method: 'GET',
      path: '/usage',
      handle: async ({ query, services }) => {
        const range = oneOf<UsageRange>(query, 'range', USAGE_RANGES, 'day');
        const by = oneOf<UsageDimension>(query, 'by', USAGE_DIMENSIONS, 'model');
        const from = day(query, 'from');
        const to = day(query, 'to');
        if (from && to && from > to) throw invalidRequest(`'from' (${from}) is after 'to' (${to})`, 'from');
        const options = { range, by, from, to, logRetentionDays: services.settings.get().retentionDays };
        const report = await usage.report(options);
        // Keys are shown by name (never the key itself); a deleted key's id stays as it is.
        const breakdown = report.breakdown.map((group) => ({
          ...group,
          label: by === 'key' ? (group.name ? (services.keys.keyName(group.name) ?? group.name) : 'No key') : by === 'route' ? group.name || 'No route' : group.name || '(none)',
        }));
        return { status: 200, body: { ...report, breakdown } };
      },
    },
    {
      method: 'GET',
      path: '/usage/keys',
      handle: async () => ({ status: 200, body: { items: await usage.keySpend() } }),
    },
    {
      method: 'GET',
      path: '/catalog',
      handle: async ({ query }) => {
        const provider = query.get('provider');
        const model = query.get('model');
        if (!provider) return { status: 200, body: { providers: CATALOG_PROVIDERS } };
        if (!model) return { status: 200, body: { provider, models: catalogModelIds(provider) } };
        // Not knowing a model is an answer, not an error: the Settings form asks as the user types.
        return { status: 200, body: { model: catalogModel(provider, model) } };
      },
    },
    {
      method: 'GET',
      path: '/model-overrides',
      handle: () => ({ status: 200, body: { items: overrides.all() } }),
    },
    {
      method: 'POST',
      path: '/model-overrides',
      handle: async ({ body }) => ({ status: 200, body: await refusingZodErrors(() => overrides.set(body ?? {})) }),
    },
    {
      method: 'DELETE',
      path: '/model-overrides',
      handle: async ({ query }) => {
        const provider = query.get('provider');
        const model = query.get('model');
        if (!provider || !model) throw invalidRequest("Name the override to delete with 'provider' and 'model' query parameters", provider ? 'model' : 'provider');
        if (!(await overrides.remove(provider, model))) throw new GatewayError(404, 'not_found_error', `No override for model '${model}' at '${provider}'`);
        return { status: 200, body: { deleted: true } };
      },
    },
  ];
}
