// One proxied call, as a chain of steps composed once (steps.ts): headers → authenticate → admit → body →
// dialect → serve (plan, send, relay), then the error shaper and the record. Each step returns a new value;
// every call, failed ones included, leaves one entry for the request log made of what it reached.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../core/errors.js';
import type { GatewayHeaders } from './gateway-headers.js';
import { withHeaders, withProviderCaller } from './front.js';
import type { Authenticated as AuthenticatedKey } from './auth.js';
import { chain } from './steps.js';
import type { Caller, KeyDirectory } from '../core/keys.js';
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
import { decodeGeneration, readRawBody, type Generation, type RawBody } from './request-body.js';
import type { PrepareLimits } from './prepare/prepare-pool.js';
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
  /** The preparing threads' limits for bodies read off this thread (prepare/); absent = the defaults. */
  prepareLimits?: PrepareLimits;
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


/** What a proxied call is, once it arrived: what every step reads and none replaces. */
interface Arrived {
  req: IncomingMessage;
  res: ServerResponse;
  route: ProxyRoute;
  path: string;
  deps: ProxyDependencies;
  queryKey: string | undefined;
  /** Date.now() and performance.now() when it came in. */
  startedAt: number;
  started: number;
  abort: RequestAbort;
}

type Authenticated = Arrived & { headers: GatewayHeaders } & AuthenticatedKey;
type Admitted = Authenticated & { ticket: LimitTicket | undefined };
type BodyRead = Admitted & { body: RawBody | undefined };
type Decoded = BodyRead & { generation: Generation | undefined; embeddings: EmbeddingsInbound | undefined };
type ServedCall = Decoded & { served: Served };

/**
 * The fields the steps add, none of them reached when the call arrives. The chain starts from a value that
 * has every one of them (undefined), so each step's `{ ...call, field }` copies a shape that has the field:
 * a spread that adds a field its source lacks makes V8 (Node 20) build the object the slow way, and reads
 * of it slow too (the six steps: about 8 µs a call that way, under 1 µs this way). handleProxy's literal
 * is typed with this, so a step that adds a new field does not type-check until the literal names it.
 */
type Unreached = { [K in Exclude<keyof ServedCall, keyof Arrived>]: undefined };

/** Headers, and the trace id the answer carries whatever happens next. */
function headersStep(call: Arrived): Arrived & { headers: GatewayHeaders } {
  const next = withHeaders(call);
  call.res.setHeader('x-gateway-trace-id', next.headers.traceId);
  return next;
}

/** Authenticate: the caller; a Gatehouse key listed for forwarding to the provider is refused here. */
function authenticateStep(call: Arrived & { headers: GatewayHeaders }): Authenticated {
  return withProviderCaller(call, call.deps);
}

/**
 * Admit: before any provider is called, a key over its limit costs nothing more. Counters in this process
 * decide here, on this turn; Redis decides when the call's worst case is held against its budgets
 * (CallAdmission, once the body is read and the target known), in the same round trip.
 */
function admitStep(call: Authenticated): Admitted | Promise<Admitted> {
  const admitted = call.deps.limits?.admit(call.caller.keyId, undefined, { decideLater: true });
  if (admitted instanceof Promise) return admitted.then((ticket) => confirmBodiless({ ...call, ticket }));
  return confirmBodiless({ ...call, ticket: admitted });
}

/** A call without a body (a model list, a stored response) holds no budget: its admission is decided now. */
function confirmBodiless(call: Admitted): Admitted | Promise<Admitted> {
  if (hasBody(call.route)) return call;
  const confirmed = call.ticket?.confirm?.();
  return confirmed ? confirmed.then(() => call) : call;
}

function hasBody(route: ProxyRoute): route is GenerationRoute | EmbeddingsRoute {
  return route !== 'models' && ('ingress' in route || 'embeddings' in route);
}

/** Body: the request's bytes, within the size cap, as UTF-8 text. */
function bodyStep(call: Admitted): BodyRead | Promise<BodyRead> {
  if (!hasBody(call.route)) return { ...call, body: undefined };
  return readRawBody(call.req, call.deps.maxBodyBytes).then((body) => ({ ...call, body }));
}

/**
 * Dialect: the bytes decoded into what the route asks for. A generation goes through `decodeGeneration`
 * alone (bytes in, the generation out), where a preparation of very large bodies off this thread can slot in.
 */
function dialectStep(call: BodyRead): Decoded | Promise<Decoded> {
  const { route, body, caller } = call;
  if (!body || route === 'models') return { ...call, generation: undefined, embeddings: undefined };
  // A client that leaves while its body waits for a preparing thread takes its job back.
  const preparing = { limits: call.deps.prepareLimits, signal: call.abort };
  if ('embeddings' in route) {
    const read = readEmbeddings(body, route.embeddings, caller, preparing);
    return read instanceof Promise ? read.then((embeddings) => ({ ...call, generation: undefined, embeddings })) : { ...call, generation: undefined, embeddings: read };
  }
  const decoded = decodeGeneration(body, route as GenerationRoute, caller, preparing);
  return decoded instanceof Promise ? decoded.then((generation) => ({ ...call, generation, embeddings: undefined })) : { ...call, generation: decoded, embeddings: undefined };
}

/** Plan and relay: the call reaches its provider (by a route when one matches) within the request's timeout. */
async function serveStep(call: Decoded): Promise<ServedCall> {
  const { res, headers, caller, providerToken, started, abort, ticket, embeddings, deps } = call;
  const timeoutMs = headers.timeoutMs;
  const timeout = setTimeout(() => abort.abort(new UpstreamTimeout(timeoutMs)), timeoutMs);
  try {
    const context: CallContext = { res, headers, caller, providerToken, started, abort, admission: new CallAdmission(ticket) };
    const served = embeddings ? await serveEmbeddings(embeddings, context, deps) : await serve(call.route, call.generation, context, call.req, deps);
    return { ...call, served };
  } finally {
    clearTimeout(timeout);
  }
}

/** Composed once: every proxied call runs these steps in this order. */
const proxyChain = chain(headersStep, authenticateStep, admitStep, bodyStep, dialectStep, serveStep);

/** `queryKey`: a key sent in the URL (`?key=`, Gemini's clients), read as the key headers are. */
export async function handleProxy(req: IncomingMessage, res: ServerResponse, route: ProxyRoute, path: string, deps: ProxyDependencies, queryKey?: string): Promise<void> {
  const abort = new RequestAbort();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort(new ClientGone());
  });
  // Written out whole: a spread in this literal would build it the slow way too.
  const start: Arrived & Unreached = {
    req, res, route, path, deps, queryKey, startedAt: Date.now(), started: performance.now(), abort,
    headers: undefined, caller: undefined, presentedKey: undefined, providerToken: undefined, ticket: undefined, body: undefined, generation: undefined, embeddings: undefined, served: undefined,
  };
  const ended = await proxyChain(start);
  const call: Arrived & Partial<ServedCall> = ended.value;
  // A step that threw, or a provider stage that reached no answer (its Served says why).
  const failed = !ended.ok || call.served?.failure !== undefined;
  const answered = failed ? answerFailure(call, ended.ok ? call.served!.failure : ended.failure) : undefined;
  // Whatever provider call is still open (a sibling of a failed fan-out call) must not outlive the request.
  // An answer relayed without error has read every provider body to its end: nothing is left to free,
  // and an abort event nobody hears costs a few µs a request.
  const everyBodyRead = call.served?.outcome !== undefined && call.served.outcome.error === null;
  if (!everyBodyRead && !abort.aborted) abort.abort(REQUEST_FINISHED);
  record(call, answered);
}

/** The route group's error shaper: the failure redacted and answered in the client's dialect (when nothing was sent yet). */
function answerFailure(call: Arrived & Partial<ServedCall>, thrown: unknown): { failure: GatewayError; failureBody: object } {
  const { res, abort, served, headers } = call;
  const failure = abort.reason instanceof ClientGone ? new GatewayError(499, 'api_error', 'The client closed the connection') : toGatewayError(thrown);
  if (!(thrown instanceof GatewayError)) console.error('Gatehouse: unexpected error while proxying', thrown);
  const secrets = served?.target?.secrets ?? callSecrets(served?.target?.credentials, headers);
  const redacted = new GatewayError(failure.status, failure.type, redactSecrets(failure.message, secrets), failure.param, failure.code, failure.provider);
  const ingress = ingressOf(call.route);
  const failureBody = ingress ? ingress.errorBody(redacted) : redacted.toBody();
  const limitHeaders: Record<string, string> = failure instanceof LimitExceeded ? failure.headers() : {};
  if (!res.headersSent && !res.destroyed) sendJson(res, failure.status, failureBody, limitHeaders);
  return { failure, failureBody };
}

/** Record: the log entry made of what the call reached, and what it spent released against its keys' limits. */
function record(call: Arrived & Partial<ServedCall>, answered: { failure: GatewayError; failureBody: object } | undefined): void {
  const { ticket, served, generation, embeddings } = call;
  const { entry, spent } = recordCall(
    {
      startedAt: call.startedAt,
      started: call.started,
      path: call.path,
      requestHeaders: call.req.headers,
      dialect: ingressOf(call.route)?.dialect,
      headers: call.headers,
      caller: call.caller,
      bodyText: call.body?.text,
      request: generation?.request ?? (embeddings && { model: embeddings.request.model, stream: false, n: 1 }),
      served,
      failure: answered?.failure,
      failureBody: answered?.failureBody,
    },
    ticket !== undefined,
  );
  // Counted as it finishes: its tokens for the minute, its cost for the day and month.
  ticket?.release(spent);
  // A routed call spends the target key's credentials: counted against its limits too.
  served?.target?.ticket?.release(spent);
  call.deps.log(entry);
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
