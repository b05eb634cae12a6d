// The team relay: /admin/api/team/<rest> is handed on to <team address>/admin/api/<rest> with the team's
// admin token, so the renderer manages a team deployment without talking cross-origin and without ever
// holding the team's token. Bodies are bounded like the admin API's; the answer is streamed back as it
// arrives (the live log is a never-ending one). The token is sent to the team address only, never logged.
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { GatewayError } from '../core/errors.js';
import { readBody } from '../core/http-io.js';
import type { TeamGatewayConnection } from '../core/team-gateway.js';
import { STREAMED, type AdminRoute } from './router.js';

/** How long the team gateway may take to answer with its status line and headers; bodies (the live log) may last. */
export const TEAM_HEAD_TIMEOUT_MS = 15_000;
/** The Playground's calls answer only when the model does (a long non-streamed answer): as long as the gateway waits for one. */
export const TEAM_PLAYGROUND_HEAD_TIMEOUT_MS = 600_000;

/** What the relay forwards of the page's request: what says what the body is and what answer is wanted. */
const FORWARDED_REQUEST_HEADERS = ['content-type', 'accept', 'last-event-id'];
/** What it hands back of the team's answer: what the renderer reads (a file name for exports, Allow for a 405). */
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'content-disposition', 'cache-control', 'x-accel-buffering', 'retry-after', 'allow'];

export interface TeamCall {
  method: string;
  /** Below /admin/api, with its query: `/virtual-keys?x=1`. */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
  /** Aborts the call (the page went away). */
  signal?: AbortSignal;
  headTimeoutMs?: number;
}

/**
 * Calls the team gateway's admin API and resolves with its answer's head; the body is left to read.
 * An unreachable address is a 502 and a slow one a 504, each naming the address.
 */
export function callTeamGateway(connection: TeamGatewayConnection, call: TeamCall): Promise<IncomingMessage> {
  const target = new URL(`${connection.address}/admin/api${call.path}`);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers: Record<string, string> = { ...call.headers, authorization: `Bearer ${connection.token}` };
  if (call.body !== undefined) headers['content-length'] = String(call.body.length);
  const timeoutMs = call.headTimeoutMs ?? TEAM_HEAD_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const outgoing = send(target, { method: call.method, headers, signal: call.signal });
    const timer = setTimeout(() => {
      reject(new GatewayError(504, 'api_error', `The team gateway at ${connection.address} did not answer within ${Math.round(timeoutMs / 1000)} s`, null, 'team_gateway_timeout'));
      outgoing.destroy();
    }, timeoutMs);
    outgoing.once('response', (answer) => {
      clearTimeout(timer);
      resolve(answer);
    });
    outgoing.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (call.signal?.aborted) return reject(new GatewayError(499, 'invalid_request_error', 'The page closed the request'));
      // The error's own text can name the address with its path; the code and the address are enough.
      const why = error.code ?? error.message;
      reject(new GatewayError(502, 'api_error', `Could not reach the team gateway at ${connection.address} (${why})`, null, 'team_gateway_unreachable'));
    });
    outgoing.end(call.body);
  });
}

/** The team refused its admin token: a 401 the UI tells apart from its own session's (code team_token_refused). */
export function teamTokenRefused(address: string): GatewayError {
  return new GatewayError(
    401,
    'authentication_error',
    `The team gateway at ${address} refused its admin token: set the team's current GATEHOUSE_ADMIN_TOKEN in Settings → Team gateway`,
    null,
    'team_token_refused',
  );
}

export function noTeamGateway(): GatewayError {
  return new GatewayError(409, 'invalid_request_error', 'No team gateway is set: add its address and admin token in Settings → Team gateway', null, 'team_gateway_not_set');
}

/** Reads a small answer of the team's whole (an error, a status), bounded. */
export async function readTeamAnswer(answer: IncomingMessage, maxBytes = 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of answer as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      answer.destroy();
      throw new GatewayError(502, 'api_error', `The team gateway's answer was larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function relay(req: IncomingMessage, res: ServerResponse, connection: TeamGatewayConnection, maxBodyBytes: number): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://relay.invalid');
  const rest = url.pathname.slice('/admin/api/team'.length);
  const method = req.method ?? 'GET';
  const body = method === 'GET' || method === 'HEAD' || method === 'DELETE' ? undefined : await readBody(req, maxBodyBytes);
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  // The page leaving (a closed live log) ends the team call too.
  const pageGone = new AbortController();
  res.once('close', () => pageGone.abort());
  const headTimeoutMs = rest.startsWith('/playground/') ? TEAM_PLAYGROUND_HEAD_TIMEOUT_MS : TEAM_HEAD_TIMEOUT_MS;
  const answer = await callTeamGateway(connection, { method, path: `${rest || '/'}${url.search}`, headers, body, signal: pageGone.signal, headTimeoutMs });
  const status = answer.statusCode ?? 502;
  if (status === 401) {
    answer.resume();
    throw teamTokenRefused(connection.address);
  }
  if (status >= 300 && status < 400) {
    answer.resume();
    const location = answer.headers.location ? ` to ${answer.headers.location}` : '';
    throw new GatewayError(502, 'api_error', `The team gateway at ${connection.address} answered with a redirect${location}: set the address it names in Settings → Team gateway`, null, 'team_gateway_redirect');
  }
  const forwarded: Record<string, string> = {};
  for (const name of FORWARDED_RESPONSE_HEADERS) {
    const value = answer.headers[name];
    if (typeof value === 'string') forwarded[name] = value;
  }
  res.writeHead(status, forwarded);
  // The head goes out now: a live log's first event may be a while coming.
  res.flushHeaders();
  answer.on('error', () => res.destroy());
  answer.pipe(res);
}

/** The relay's route: any method on /admin/api/team/…, handed on as it came. */
export const teamRelayRoute: AdminRoute = {
  method: 'ANY',
  path: '/team/:rest*',
  ownsBody: true,
  handle: async ({ services, raw }) => {
    const connection = services.teamGateway?.get() ?? null;
    if (!connection) throw noTeamGateway();
    await relay(raw.req, raw.res, connection, services.proxy.maxBodyBytes);
    return { status: 200, body: STREAMED };
  },
};
