// GET /admin/api/sessions (newest first, filtered like Logs by key, client tool and date range) and
// GET /admin/api/sessions/{id} (its calls in order, with the gaps between them): core/agent-sessions.ts.
import { GatewayError, invalidRequest } from '../core/errors.js';
import { MAX_SESSIONS, type SessionQuery, type SessionRepository } from '../core/agent-sessions.js';
import { parseInstant } from './core-routes.js';
import type { AdminRoute } from './router.js';

function parseSessionQuery(query: URLSearchParams): SessionQuery {
  const limit = query.get('limit');
  if (limit !== null && !/^\d+$/.test(limit)) throw invalidRequest("'limit' must be a positive integer", 'limit');
  if (limit !== null && (Number(limit) < 1 || Number(limit) > MAX_SESSIONS)) throw invalidRequest(`'limit' must be 1 to ${MAX_SESSIONS}`, 'limit');
  const before = query.get('before');
  if (before !== null && before !== '' && !/^\d+$/.test(before)) throw invalidRequest("'before' must be the 'next' cursor of an earlier page", 'before');
  return {
    limit: limit === null ? undefined : Number(limit),
    before: before === null || before === '' ? undefined : Number(before),
    key: query.get('key') || undefined,
    client: query.get('client') || undefined,
    since: parseInstant(query.get('since'), 'since'),
    until: parseInstant(query.get('until'), 'until'),
  };
}

export function sessionRoutes(sessions: SessionRepository): AdminRoute[] {
  return [
    {
      method: 'GET',
      path: '/sessions',
      handle: async ({ services, query }) => {
        const parsed = parseSessionQuery(query);
        // Rows still in the write queue belong in the answer too.
        await services.requestLog.flush();
        return { status: 200, body: await sessions.list(parsed) };
      },
    },
    {
      method: 'GET',
      path: '/sessions/:id',
      handle: async ({ services, params }) => {
        await services.requestLog.flush();
        const session = await sessions.get(params.id);
        if (!session) throw new GatewayError(404, 'not_found_error', `No session ${params.id}`);
        return { status: 200, body: session };
      },
    },
  ];
}
