// The calls that read what a provider has rather than generate: its model list (`GET /v1/models`, also
// fetched for the admin Playground) and the responses it stored (`/v1/responses/{id}`).
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { GatewayError, invalidRequest } from '../core/errors.js';
import { RequestAbort } from '../core/request-abort.js';
import { redactSecrets } from '../core/redact.js';
import { toGatewayError } from '../core/http-io.js';
import type { KeyDirectory, Caller } from '../core/keys.js';
import { withHeaders, withProviderCaller } from './front.js';
import type { ProviderAdapter } from '../providers/types.js';
import type { ListedModels } from '../providers/model-list.js';
import { sendUpstream, UpstreamTimeout } from '../providers/upstream.js';
import { providerRequest } from '../providers/provider-request.js';
import { readModelList, relayModelList } from './relay/model-list.js';
import { relayPassthrough } from './relay/passthrough.js';
import type { RelayOutcome } from './relay/types.js';
import type { Router } from './routing/router.js';
import type { Ingress } from './ingress/types.js';
import { reachDirect, REQUEST_FINISHED, type CallContext, type Served } from './call-context.js';
import { routeModelEntry, shapedModelList, type ModelListRequest } from './model-list-shapes.js';

/** A model list (or one model of it) in a shape other than `GET /v1/models`' own: Gemini's, or OpenAI's one model. */
export interface ModelListRoute {
  modelList: ModelListRequest;
}

/** A response the provider stored (OpenAI's `GET`/`DELETE /v1/responses/{id}[/input_items]`). */
export interface StoredResponseRoute {
  storedResponse: { method: 'GET' | 'DELETE'; path: string; search: string };
}

function noModelList(adapter: ProviderAdapter): GatewayError {
  return new GatewayError(404, 'not_found_error', `Provider '${adapter.slug}' has no model list Gatehouse can read`, null, null, adapter.slug);
}

/** `/v1/responses/{id}`: relayed from the provider that stored the response. */
export async function serveStoredResponse(route: StoredResponseRoute, context: CallContext, ingress: Ingress): Promise<Served> {
  const { method, path, search } = route.storedResponse;
  // A background response can be read back as a stream (`?stream=true`): relayed as it comes.
  const direct = await reachDirect(context, null, new URLSearchParams(search).get('stream') === 'true', ingress);
  const { adapter, target, attemptLog } = direct;
  try {
    if (!adapter.storesResponses) {
      throw invalidRequest(
        `Gatehouse keeps no conversation state, and provider '${adapter.slug}' stores no responses: only a provider that stores them (OpenAI) can answer /v1/responses/{id}. Send the whole conversation in 'input' instead.`,
        'response_id',
      );
    }
    const stored = await providerRequest(adapter, { kind: 'stored-response', method, path, search }, { credentials: target.credentials, customHost: target.customHost, forwardHeaders: context.headers.forwardHeaders });
    const upstream = await sendUpstream(stored, adapter.slug, direct.send);
    const outcome = await relayPassthrough(context.res, upstream, direct.relay);
    return { target: direct.served, route: null, attemptLog, outcome, failure: undefined };
  } catch (failure) {
    return { target: direct.served, route: null, attemptLog, outcome: undefined, failure };
  }
}

/** `GET /v1/models`: the provider's list (route names beside it), or for a gateway key alone, the routes. */
export async function serveModelList(context: CallContext, request: ModelListRequest, router: Router | undefined): Promise<Served> {
  const routeNames = router && !router.isEmpty ? router.names() : undefined;
  if (context.caller.kind === 'gateway-key' && !context.headers.provider) {
    // A gateway key alone names no provider to ask: the routes are the models it can reach (none yet: an empty list).
    try {
      return { target: undefined, route: null, attemptLog: [], outcome: sendRouteModelList(context.res, routeNames ?? [], request, context.started), failure: undefined };
    } catch (failure) {
      return { target: undefined, route: null, attemptLog: [], outcome: undefined, failure };
    }
  }
  const direct = await reachDirect(context, null, false, undefined);
  const { adapter, target, attemptLog } = direct;
  try {
    if (!adapter.modelListing) throw noModelList(adapter);
    const upstream = await sendUpstream(await providerRequest(adapter, { kind: 'models' }, { credentials: target.credentials, customHost: target.customHost, forwardHeaders: context.headers.forwardHeaders }), adapter.slug, direct.send);
    const outcome = await relayModelList(context.res, upstream, adapter.modelListing, request, direct.relay, routeNames);
    return { target: direct.served, route: null, attemptLog, outcome, failure: undefined };
  } catch (failure) {
    return { target: direct.served, route: null, attemptLog, outcome: undefined, failure };
  }
}

/** `GET /v1/models` for a gateway key with no provider: the route names, in the client's list shape. */
function sendRouteModelList(res: ServerResponse, names: readonly string[], request: ModelListRequest, started: number): RelayOutcome {
  const body = JSON.stringify(shapedModelList({ object: 'list', data: names.map(routeModelEntry) }, request));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
  return { status: 200, ttfbMs: performance.now() - started, error: null, responseBody: body };
}


/** A model list asked for by the admin Playground answers within this, whatever the request's own timeout. */
const MODEL_LIST_TIMEOUT_MS = 15_000;

/**
 * The model list /v1/models would relay for these headers (or `deps.caller`), through the same stages:
 * key, provider, credentials, the adapter's listing, retries. Returned instead of relayed and not logged:
 * the admin Playground offers it in its Model field. Failures are thrown as GatewayErrors, redacted.
 */
export async function fetchModelList(requestHeaders: IncomingHttpHeaders, deps: { keys: KeyDirectory; caller?: Caller }): Promise<ListedModels> {
  // The front's steps, as a /v1 call runs them (no guard: the admin API guarded the request already).
  const { headers, caller, providerToken } = withProviderCaller(withHeaders({ req: { headers: requestHeaders } }), deps);
  const abort = new RequestAbort();
  const direct = await reachDirect({ headers, caller, providerToken, started: performance.now(), abort }, null, false, undefined);
  const { adapter, target } = direct;
  if (!adapter.modelListing) throw noModelList(adapter);
  const timeoutMs = Math.min(headers.timeoutMs, MODEL_LIST_TIMEOUT_MS);
  const timeout = setTimeout(() => abort.abort(new UpstreamTimeout(timeoutMs)), timeoutMs);
  try {
    const upstream = await sendUpstream(await providerRequest(adapter, { kind: 'models' }, { credentials: target.credentials, customHost: target.customHost, forwardHeaders: headers.forwardHeaders }), adapter.slug, { signal: abort, retries: headers.retryCount });
    return await readModelList(upstream, adapter.modelListing, direct.relay);
  } catch (error) {
    const failure = toGatewayError(error);
    throw new GatewayError(failure.status, failure.type, redactSecrets(failure.message, direct.relay.secrets), failure.param, failure.code, failure.provider);
  } finally {
    clearTimeout(timeout);
    if (!abort.aborted) abort.abort(REQUEST_FINISHED);
  }
}
