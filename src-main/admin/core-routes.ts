// Admin endpoints of the core: health, the request log (list, one entry, live events) and settings.
import { refusingZodErrors } from '../core/zod-invalid.js';
import { GatewayError, invalidRequest } from '../core/errors.js';
import { STREAMED, type AdminRoute } from './router.js';
import { CLIENT_DIALECTS } from '../codecs/usage-from-body.js';
import { LOG_KINDS, MAX_METADATA_FILTERS, type LogKind, type LogQuery } from '../core/log-store.js';
import { logExportRoute } from './log-export.js';

/** A date range bound: an ISO 8601 date or date-time, or epoch milliseconds; '' or absent for none. */
export function parseInstant(value: string | null, name: string): number | undefined {
  if (value === null || value === '') return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms)) throw invalidRequest(`'${name}' must be an ISO 8601 date-time (2026-05-01T00:00:00Z) or epoch milliseconds`, name);
  return ms;
}

function isLogKind(value: string): value is LogKind {
  return (LOG_KINDS as readonly string[]).includes(value);
}

/** `metadata=name=value`, repeated: each entry a row must have (split at the first '='; the value may be ''). */
function parseMetadataFilters(values: string[]): [string, string][] | undefined {
  const pairs = values.filter((value) => value !== '');
  if (pairs.length === 0) return undefined;
  if (pairs.length > MAX_METADATA_FILTERS) throw invalidRequest(`At most ${MAX_METADATA_FILTERS} 'metadata' filters`, 'metadata');
  return pairs.map((pair) => {
    const split = pair.indexOf('=');
    if (split <= 0) throw invalidRequest("'metadata' must be name=value (user=alice)", 'metadata');
    return [pair.slice(0, split), pair.slice(split + 1)];
  });
}

function parseLogQuery(query: URLSearchParams): LogQuery {
  const limit = query.get('limit');
  const status = query.get('status');
  if (limit !== null && !/^\d+$/.test(limit)) throw invalidRequest("'limit' must be a positive integer", 'limit');
  if (status !== null && status !== 'error' && !/^\d{3}$/.test(status)) throw invalidRequest("'status' must be a status code or 'error'", 'status');
  const dialect = query.get('dialect') || undefined;
  if (dialect !== undefined && !(CLIENT_DIALECTS as readonly string[]).includes(dialect)) {
    throw invalidRequest(`'dialect' must be one of ${CLIENT_DIALECTS.join(', ')}`, 'dialect');
  }
  const kind = query.get('kind') || undefined;
  if (kind !== undefined && !isLogKind(kind)) throw invalidRequest(`'kind' must be one of ${LOG_KINDS.join(', ')}`, 'kind');
  return {
    key: query.get('key') || undefined,
    client: query.get('client') || undefined,
    instance: query.get('instance') || undefined,
    metadata: parseMetadataFilters(query.getAll('metadata')),
    since: parseInstant(query.get('since'), 'since'),
    until: parseInstant(query.get('until'), 'until'),
    kind,
    server: query.get('server') || undefined,
    tool: query.get('tool') || undefined,
    limit: limit === null ? undefined : Number(limit),
    before: query.get('before') ?? undefined,
    provider: query.get('provider') || undefined,
    model: query.get('model') || undefined,
    route: query.get('route') || undefined,
    dialect,
    status: status === null || status === '' ? undefined : status === 'error' ? 'error' : Number(status),
    q: query.get('q') || undefined,
  };
}

export const coreRoutes: AdminRoute[] = [
  {
    method: 'GET',
    path: '/health',
    // A team gateway's manager (the desktop app) shows which storage and instance answered.
    handle: ({ services }) => ({
      status: 200,
      body: { ok: true, version: services.version, ...(services.storage ? { storage: services.storage.backend, instance: services.storage.instanceId, instanceName: services.storage.instanceName } : {}) },
    }),
  },
  {
    method: 'GET',
    path: '/logs',
    handle: async ({ services, query }) => {
      // Rows still in the write queue belong in the answer too.
      await services.requestLog.flush();
      return { status: 200, body: await services.requestLog.list(parseLogQuery(query)) };
    },
  },
  logExportRoute(parseLogQuery),
  {
    method: 'GET',
    path: '/logs/:id',
    handle: async ({ services, params }) => {
      await services.requestLog.flush();
      const entry = await services.requestLog.get(params.id);
      if (!entry) throw new GatewayError(404, 'not_found_error', `No log entry ${params.id}`);
      return { status: 200, body: entry };
    },
  },
  {
    method: 'GET',
    path: '/events',
    handle: ({ services, raw }) => {
      const { req, res } = raw;
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
      res.write(': connected\n\n');
      const unsubscribe = services.requestLog.subscribe((entry) => res.write(`data: ${JSON.stringify(entry)}\n\n`));
      // Comments keep idle connections (and proxies in between) from timing out.
      const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
      const end = () => {
        clearInterval(heartbeat);
        unsubscribe();
        // Left on the long-lived shutdown signal, this listener would keep every departed client's
        // request, response and socket alive.
        services.shutdown.removeEventListener('abort', end);
        res.end();
      };
      req.on('close', end);
      services.shutdown.addEventListener('abort', end, { once: true });
      return { status: 200, body: STREAMED };
    },
  },
  {
    method: 'GET',
    path: '/settings',
    handle: ({ services }) => ({ status: 200, body: describeSettings(services) }),
  },
  {
    method: 'PATCH',
    path: '/settings',
    handle: async ({ services, body }) => {
      // The Settings page shows a refusal beside the setting it names: the top-level field.
      await refusingZodErrors(() => services.settings.update(body ?? {}), 'top-level field');
      return { status: 200, body: describeSettings(services) };
    },
  },
];

function describeSettings(services: Parameters<AdminRoute['handle']>[0]['services']) {
  const settings = services.settings.get();
  return {
    ...settings,
    listening: services.listening,
    dataDir: services.dataDir,
    version: services.version,
    keyProtection: {
      mode: services.keyProtection.mode,
      protected: services.keyProtection.isProtected,
      warning: services.keyProtection.warning,
    },
  };
}
