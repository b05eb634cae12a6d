// One proxied call, as a pipeline of stages that each return a value: read headers → authenticate →
// admit → read the body → serve (plan, send, relay) → record. Every call, failed ones included, leaves one
// entry for the request log.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../core/errors.js';
import { readGatewayHeaders, type GatewayHeaders } from './gateway-headers.js';
import { authenticate, authenticatedAs } from './auth.js';
import type { Caller, KeyDirectory } from '../core/keys.js';
import { refuseForwardedGatewayKeys } from './forward-guard.js';
import type { GenerationRoute, Ingress } from './ingress/types.js';
import { openaiResponsesIngress } from './ingress/openai-responses.js';
import { geminiIngress } from './ingress/gemini.js';
import { UpstreamTimeout } from '../providers/upstream.js';
import { redactSecrets } from '../core/redact.js';
import { RequestAbort } from '../core/request-abort.js';
import { sendJson, toGatewayError } from '../core/http-io.js';
import type { CallRecord } from '../core/call-record.js';
import type { Router } from './routing/router.js';
import { LimitExceeded, type KeyLimiter, type LimitTicket } from './limits/limiter.js';
import { CallAdmission } from './limits/call-admission.js';
import { readGeneration, readRawBody, type Generation, type RawBody } from './request-body.js';
import { callSecrets, REQUEST_FINISHED, type CallContext, type Served } from './call-context.js';
import { serveGeneration } from './generation-call.js';
import { serveRoute } from './routed-call.js';
import { serveModelList, serveStoredResponse, type ModelListRoute, type StoredResponseRoute } from './provider-reads.js';
import { recordCall } from './call-recording.js';
import { serveEmbeddings } from './embeddings/embeddings-call.js';
import { readEmbeddings } from './embeddings/embeddings-body.js';
import type { EmbeddingsInbound, EmbeddingsIngress } from './embeddings/embeddings-ingress.js';
import type { ModelAccess } from './model-access.js';

export interface ProxyDependencies {
  keys: KeyDirectory;
  log: (entry: CallRecord) => void;
  maxBodyBytes: number;
  /** The route table of the running gateway; absent or empty: every call goes where its key says. */
  router?: Router;
  /** Limits per key (requests and tokens per minute, USD budgets); absent = no limits at all. */
  limits?: KeyLimiter;
  /** Which models each key may call; absent = every key every model. */
  modelAccess?: Pick<ModelAccess, 'check'>;
  /**
   * A caller already authenticated by someone else (the admin Playground runs a virtual key picked by
   * name); when set, the request's own key headers are not read.
   */
  caller?: Caller;
}

/** The client left before the answer was complete. */
export class ClientGone extends Error {
  constructor() {
    super('The client closed the connection');
  }
}

/** What a proxied request asks for: a generation (or token count) in one dialect, embeddings, or a model list. */
export type ProxyRoute = GenerationRoute | EmbeddingsRoute | 'models' | ModelListRoute | StoredResponseRoute;

/** Embeddings through one front door (OpenAI's /v1/embeddings; Gemini's embed methods). */
export interface EmbeddingsRoute {
  embeddings: EmbeddingsIngress;
}

/** The dialect whose shape a route's errors take; undefined for OpenAI's model list (the contract's shape). */
function ingressOf(route: ProxyRoute): Ingress | EmbeddingsIngress | undefined {
  if (route === 'models') return undefined;
  if ('ingress' in route) return route.ingress;
  if ('embeddings' in route) return route.embeddings;
  if ('modelList' in route) return route.modelList.shape === 'gemini' ? geminiIngress : undefined;
  return openaiResponsesIngress;
}


/** `queryKey`: a key sent in the URL (`?key=`, Gemini's clients), read as the key headers are. */
export async function handleProxy(req: IncomingMessage, res: ServerResponse, route: ProxyRoute, path: string, deps: ProxyDependencies, queryKey?: string): Promise<void> {
  const startedAt = Date.now();
  const started = performance.now();
  const abort = new RequestAbort();
  const ingress = ingressOf(route);
  res.on('close', () => {
    if (!res.writableFinished) abort.abort(new ClientGone());
  });

  // Each stage's value, as far as the call got: the record is made of them.
  let headers: GatewayHeaders | undefined;
  let caller: Caller | undefined;
  let ticket: LimitTicket | undefined;
  let body: RawBody | undefined;
  let generation: Generation | undefined;
  let embeddings: EmbeddingsInbound | undefined;
  let served: Served | undefined;
  let failure: GatewayError | undefined;
  let failureBody: object | undefined;
  let timeout: NodeJS.Timeout | undefined;
  try {
    headers = readGatewayHeaders(req.headers, queryKey);
    res.setHeader('x-gateway-trace-id', headers.traceId);
    const authenticated = deps.caller ? authenticatedAs(deps.caller, headers) : authenticate(headers, deps.keys);
    caller = authenticated.caller;
    refuseForwardedGatewayKeys(headers, authenticated.presentedKey, deps.keys);
    // Before any provider is called: a key over its limit costs nothing more. Counters in this process
    // decide here, on this turn; Redis decides when the call's worst case is held against its budgets
    // (CallAdmission, once the body is read and the target known), in the same round trip.
    const admitted = deps.limits?.admit(caller.keyId, undefined, { decideLater: true });
    ticket = admitted instanceof Promise ? await admitted : admitted;
    if (route !== 'models' && 'ingress' in route) {
      body = await readRawBody(req, deps.maxBodyBytes);
      generation = readGeneration(body, route, caller);
    } else if (route !== 'models' && 'embeddings' in route) {
      body = await readRawBody(req, deps.maxBodyBytes);
      embeddings = readEmbeddings(body, route.embeddings, caller);
    }
    // A model list holds no budget: its admission is decided now.
    if (!generation && !embeddings) {
      const confirmed = ticket?.confirm?.();
      if (confirmed) await confirmed;
    }
    const timeoutMs = headers.timeoutMs;
    timeout = setTimeout(() => abort.abort(new UpstreamTimeout(timeoutMs)), timeoutMs);
    const context: CallContext = { res, headers, caller, providerToken: authenticated.providerToken, started, abort, admission: new CallAdmission(ticket) };
    served = embeddings ? await serveEmbeddings(embeddings, context, deps) : await serve(route, generation, context, req, deps);
    if (served.failure !== undefined) throw served.failure;
  } catch (error) {
    failure = abort.reason instanceof ClientGone ? new GatewayError(499, 'api_error', 'The client closed the connection') : toGatewayError(error);
    if (!(error instanceof GatewayError)) console.error('Gatehouse: unexpected error while proxying', error);
    const secrets = served?.target?.secrets ?? callSecrets(served?.target?.credentials, headers);
    const redacted = new GatewayError(failure.status, failure.type, redactSecrets(failure.message, secrets), failure.param, failure.code, failure.provider);
    failureBody = ingress ? ingress.errorBody(redacted) : redacted.toBody();
    const limitHeaders: Record<string, string> = failure instanceof LimitExceeded ? failure.headers() : {};
    if (!res.headersSent && !res.destroyed) sendJson(res, failure.status, failureBody, limitHeaders);
  } finally {
    clearTimeout(timeout);
    // Whatever provider call is still open (a sibling of a failed fan-out call) must not outlive the request.
    // An answer relayed without error has read every provider body to its end: nothing is left to free,
    // and an abort event nobody hears costs a few µs a request.
    const everyBodyRead = served?.outcome !== undefined && served.outcome.error === null;
    if (!everyBodyRead && !abort.aborted) abort.abort(REQUEST_FINISHED);
  }

  const { entry, spent } = recordCall(
    { startedAt, started, path, requestHeaders: req.headers, dialect: ingress?.dialect, headers, caller, bodyText: body?.text, request: generation?.request ?? (embeddings && { model: embeddings.request.model, stream: false, n: 1, body: null }), served, failure, failureBody },
    ticket !== undefined,
  );
  // Counted as it finishes: its tokens for the minute, its cost for the day and month.
  ticket?.release(spent);
  // A routed call spends the target key's credentials: counted against its limits too.
  served?.target?.ticket?.release(spent);
  deps.log(entry);
}

/** The stage that reaches a provider: a generation (by a route when one matches), a model list, or a stored response. */
function serve(route: ProxyRoute, generation: Generation | undefined, context: CallContext, req: IncomingMessage, deps: ProxyDependencies): Promise<Served> {
  if (route === 'models') return serveModelList(context, { shape: req.headers['anthropic-version'] !== undefined ? 'anthropic' : 'openai' }, deps.router);
  if ('modelList' in route) return serveModelList(context, route.modelList, deps.router);
  if ('storedResponse' in route) return serveStoredResponse(route, context, openaiResponsesIngress);
  const { caller, headers } = context;
  // A gateway key that names its provider calls it directly; otherwise a matching route decides.
  const matched = deps.router && !deps.router.isEmpty && !(caller.kind === 'gateway-key' && headers.provider) ? deps.router.match(generation!.request.model, caller.kind === 'virtual-key') : undefined;
  // The key's allow-list, like a limit: refused before any provider is called.
  deps.modelAccess?.check(caller, generation!.request.model, matched?.name);
  return matched ? serveRoute(deps.router!, matched, generation!, context, deps.limits) : serveGeneration(generation!, context);
}
