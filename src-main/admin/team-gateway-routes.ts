// Settings → Team gateway: which team deployment this desktop app manages (GET/PUT/DELETE
// /admin/api/team-gateway). Saving checks the team first with its admin token, so a wrong address or
// token is refused before it is kept; no answer ever carries the token.
import { GatewayError, invalidRequest } from '../core/errors.js';
import { checkTeamAddress, type TeamGatewayConnection, type TeamGatewayRepository } from '../core/team-gateway.js';
import type { AdminRoute } from './router.js';
import { callTeamGateway, readTeamAnswer, teamTokenRefused } from './team-relay.js';

/** Looking at the team for GET may not hold the Settings page long. */
const STATUS_CHECK_TIMEOUT_MS = 5_000;

/** What the team said of itself (its GET /admin/api/health). */
export interface TeamGatewayRemote {
  version: string | null;
  storage: string | null;
  instance: string | null;
  /** The name that instance runs under (--instance-name, default its host name). */
  instanceName: string | null;
}

/** Asks the team's /health with its token: what it is, or the error a user should see. */
async function lookAtTeam(connection: TeamGatewayConnection, headTimeoutMs?: number): Promise<TeamGatewayRemote> {
  const answer = await callTeamGateway(connection, { method: 'GET', path: '/health', headers: { accept: 'application/json' }, headTimeoutMs });
  const status = answer.statusCode ?? 502;
  if (status === 401) {
    answer.resume();
    throw teamTokenRefused(connection.address);
  }
  const text = await readTeamAnswer(answer, 64 * 1024);
  let body: Record<string, unknown> | null = null;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Not Gatehouse's JSON: said below.
  }
  if (status !== 200 || !body || body.ok !== true) {
    const theirs = body && typeof body.error === 'object' && body.error !== null ? ` (${String((body.error as { message?: unknown }).message)})` : '';
    throw new GatewayError(
      502,
      'api_error',
      `The address ${connection.address} did not answer as a Gatehouse admin API: GET /admin/api/health gave ${status}${theirs}`,
      null,
      'team_gateway_not_gatehouse',
    );
  }
  const text_ = (value: unknown) => (typeof value === 'string' ? value : null);
  return { version: text_(body.version), storage: text_(body.storage), instance: text_(body.instance), instanceName: text_(body.instanceName) };
}

function available(services: { teamGateway?: TeamGatewayRepository | null }): TeamGatewayRepository {
  if (!services.teamGateway) {
    throw new GatewayError(409, 'invalid_request_error', 'This Gatehouse is itself a team instance (PostgreSQL): it does not manage another team gateway', null, 'team_gateway_unavailable');
  }
  return services.teamGateway;
}

export const teamGatewayRoutes: AdminRoute[] = [
  {
    method: 'GET',
    path: '/team-gateway',
    handle: async ({ services }) => {
      if (!services.teamGateway) return { status: 200, body: { available: false, address: null, tokenSet: false } };
      const connection = services.teamGateway.get();
      if (!connection) return { status: 200, body: { available: true, address: null, tokenSet: false } };
      try {
        const remote = await lookAtTeam(connection, STATUS_CHECK_TIMEOUT_MS);
        return { status: 200, body: { available: true, address: connection.address, tokenSet: true, connected: true, remote } };
      } catch (error) {
        const failure = error instanceof GatewayError ? error : new GatewayError(502, 'api_error', String(error));
        return { status: 200, body: { available: true, address: connection.address, tokenSet: true, connected: false, error: { message: failure.message, code: failure.code } } };
      }
    },
  },
  {
    method: 'PUT',
    path: '/team-gateway',
    handle: async ({ services, body }) => {
      const store = available(services);
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidRequest('The body must be an object: {"address": "https://…", "token": "…"}');
      const { address: rawAddress, token: rawToken, ...unknown } = body as Record<string, unknown>;
      const extra = Object.keys(unknown)[0];
      if (extra !== undefined) throw invalidRequest(`Unknown field '${extra}': a team gateway has an address and a token`, extra);
      const address = checkTeamAddress(rawAddress);
      if (rawToken !== undefined && typeof rawToken !== 'string') throw invalidRequest("'token' must be a string", 'token');
      const saved = store.get();
      // A saved token is reused only for the address it was given for: it never goes to a new one unasked.
      const token = typeof rawToken === 'string' && rawToken.trim() !== '' ? rawToken.trim() : saved?.address === address ? saved.token : '';
      if (!token) throw invalidRequest("'token' is required: the team deployment's admin token (its GATEHOUSE_ADMIN_TOKEN)", 'token');
      // It goes out in an Authorization header: printable ASCII only.
      if (token.length > 4096 || !/^[\x21-\x7e]+$/.test(token)) throw invalidRequest("'token' must be printable ASCII without spaces, at most 4096 characters", 'token');
      const connection = { address, token };
      const remote = await lookAtTeam(connection);
      store.save(connection);
      return { status: 200, body: { available: true, address, tokenSet: true, connected: true, remote } };
    },
  },
  {
    method: 'DELETE',
    path: '/team-gateway',
    handle: ({ services }) => {
      available(services).clear();
      return { status: 204, body: null };
    },
  },
];
