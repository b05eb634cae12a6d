// One generation call to one provider target (prepareGeneration), and a routed call that tries a route's
// targets in turn (serveRoute). A target is left for the next only before anything reached the client:
// on 429, 5xx, its own timeout or a connection error while waiting for the provider's answer. Once the
// answer is being relayed, it is that target's, whatever happens.
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../core/errors.js';
import type { GatewayHeaders } from './gateway-headers.js';
import type { RouteTarget } from './auth.js';
import type { Caller } from '../core/keys.js';
import type { CompletionRequest } from './validate.js';
import { getProvider, secretCredentialValues } from '../providers/registry.js';
import type { Operation, ProviderAdapter, ProviderCall, ProviderCredentials } from '../providers/types.js';
import type { WireFormat } from '../codecs/canonical.js';
import { dialectCodec, providerCodec } from '../codecs/registry.js';
import { refusesStatefulFields } from '../codecs/openai-responses.js';
import type { Ingress, RoutedRequest } from './ingress/types.js';
import { sendTokenEstimate } from './token-estimate.js';
import { sendUpstream, type UpstreamResponse } from '../providers/upstream.js';
import { checkContextWindow, checkPromptFits } from './context-window.js';
import { RequestAbort, type AbortLike } from '../core/request-abort.js';
import { relayPassthrough, relayTranslated, type RelayOutcome } from './relay.js';
import { withModelField } from './routing/model-field.js';
import { traitsOf } from './routing/conditions.js';
import type { CompiledRoute, Router } from './routing/router.js';
import { admitTarget, targetOverLimit, TargetRefused } from './routing/target-admission.js';
import type { KeyLimiter, LimitTicket } from './limits/limiter.js';
import type { AttemptRecord } from '../core/call-record.js';
import { LenderOverLimit, type CallAdmission } from './limits/call-admission.js';

/** What one generation request brings to any target it may be sent to. */
export interface Generation {
  res: ServerResponse;
  ingress: Ingress;
  operation: Operation;
  request: RoutedRequest;
  rawBody: Buffer;
  /** The body's own `model` value (undefined when a default model stood in). */
  rawModel: unknown;
  bodyText: string;
  headers: GatewayHeaders;
  started: number;
  /** The request's limit ticket and provider-call count: each target is reserved for before it is called. */
  admission: CallAdmission;
}

export interface PreparedGeneration {
  adapter: ProviderAdapter;
  providerFormat: WireFormat;
  dropped: string[];
  /** The first provider call; null when the gateway answers itself (a token estimate). */
  call: ProviderCall | null;
  /** Relays the answer: given the first call's response when it was sent already, else it sends. */
  relay(first: UpstreamResponse | null): Promise<RelayOutcome>;
}

/** The name a virtual key sends for a requested model (its model map), or the name as it is. */
export function mappedModel(caller: Caller, model: string): string {
  return caller.kind === 'virtual-key' ? (caller.modelMap?.[model] ?? model) : model;
}

/** The values that must never appear in what we relay or record. */
export function callSecrets(credentials: ProviderCredentials | undefined, headers: GatewayHeaders | undefined): string[] {
  const values: (string | undefined)[] = [...secretCredentialValues(credentials), headers?.apiKey, headers?.bearer];
  if (headers) for (const name of headers.sensitiveHeaderNames) values.push(headers.forwardHeaders[name]);
  return values.filter((value): value is string => typeof value === 'string');
}

/**
 * Builds the provider call for one target: the client's bytes when it speaks the provider's format (only
 * the model value rewritten when another model is sent), else the body translated.
 */
export function prepareGeneration(
  generation: Generation,
  target: RouteTarget,
  model: string,
  context: { signal: AbortLike; secrets: readonly string[] },
  send: (call: ProviderCall) => Promise<UpstreamResponse>,
): PreparedGeneration | Promise<PreparedGeneration> {
  const { ingress, operation, request } = generation;
  const dialect = ingress.dialect;
  // The window checks read the prompt and output budget, which a route's model does not change: they are
  // given the body as sent and the model apart. Returns a promise only when tokens must be counted;
  // otherwise the call is built on this turn, with no promise hops (a few µs of every request).
  const pending =
    dialect === 'openai-completions'
      ? checkContextWindow(target.provider, model, request.body as CompletionRequest)
      : operation === 'generate'
        ? checkPromptFits(target.provider, model, dialect, request.body, generation.rawBody.length)
        : undefined;
  if (pending) return pending.then(() => buildGeneration(generation, target, model, context, send));
  return buildGeneration(generation, target, model, context, send);
}

/** A value or the promise of one: awaited only when it is a promise, so a synchronous result costs no microtask. */
export function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return value instanceof Promise;
}

/**
 * Sends a provider call: the request built (synchronously for every adapter but those that sign or fetch
 * a token), then sent. No async wrapper: a plain call saves a promise per request. A failure to build is a
 * rejection, as it was when this was an async function.
 */
export function sendCall(adapter: ProviderAdapter, call: ProviderCall, options: Parameters<typeof sendUpstream>[2]): Promise<UpstreamResponse> {
  let built: ReturnType<ProviderAdapter['buildRequest']>;
  try {
    built = adapter.buildRequest(call);
  } catch (error) {
    return Promise.reject(error);
  }
  return isPromise(built) ? built.then((upstream) => sendUpstream(upstream, adapter.slug, options)) : sendUpstream(built, adapter.slug, options);
}

function buildGeneration(
  generation: Generation,
  target: RouteTarget,
  model: string,
  context: { signal: AbortLike; secrets: readonly string[] },
  send: (call: ProviderCall) => Promise<UpstreamResponse>,
): PreparedGeneration {
  const { res, ingress, operation, request, headers, started } = generation;
  const adapter = getProvider(target.provider);
  const dialect = ingress.dialect;
  const formats = adapter.formats(model);
  const providerFormat: WireFormat = formats.includes(dialect) ? dialect : formats[0];
  const relayOptions = { adapter, stream: request.stream, started, signal: context.signal, secrets: context.secrets, ingress };
  // Every call of this generation, one shape: a literal per call rather than a spread of a shared base.
  const callWith = (body: ProviderCall['body']): ProviderCall => ({
    format: providerFormat,
    operation,
    model,
    stream: request.stream,
    credentials: target.credentials,
    customHost: target.customHost,
    forwardHeaders: headers.forwardHeaders,
    body,
  });
  const passthrough = (call: ProviderCall) => (first: UpstreamResponse | null) =>
    first ? relayPassthrough(res, first, relayOptions, call) : send(call).then((upstream) => relayPassthrough(res, upstream, relayOptions, call));
  // The parsed body with the model sent, made only on the paths that decode it (a passthrough rewrites bytes).
  const bodyWithModel = (): unknown => (model === request.model ? request.body : { ...(request.body as Record<string, unknown>), model });

  if (operation === 'count_tokens' && !(providerFormat === dialect && adapter.modelInBody)) {
    // Only a provider that takes the Messages body as it is can count it; for the others, an estimate.
    return { adapter, providerFormat, dropped: [], call: null, relay: () => sendTokenEstimate(res, dialectCodec(dialect).decodeRequest(bodyWithModel()), started) };
  }
  // Before anything is sent to this target: the fan-out within the cap, the worst case within the budgets.
  generation.admission.reserve({ adapter, credentials: target.credentials, model, ingress, operation, request, bodyBytes: generation.rawBody.length });
  if (providerFormat === dialect && adapter.modelInBody) {
    // The client speaks the provider's format: its bytes go up unchanged (the model value aside), the answer comes back unchanged.
    const bytes = model === generation.rawModel ? generation.rawBody : Buffer.from(withModelField(generation.bodyText, model), 'utf8');
    const call = callWith(bytes);
    return { adapter, providerFormat, dropped: [], call, relay: passthrough(call) };
  }
  if (dialect === 'openai-responses' && providerFormat !== dialect) {
    const stateful = refusesStatefulFields(request.body);
    if (stateful) throw stateful;
  }
  const canonical = dialectCodec(dialect).decodeRequest(bodyWithModel());
  const codec = providerCodec(providerFormat);
  // Formats without `n` get n calls of one choice each, merged back into one answer.
  const copies = !adapter.supportsN && (canonical.n ?? 1) > 1 ? canonical.n! : 1;
  const single = copies > 1 ? { ...canonical, n: 1 } : canonical;
  const encoded = codec.encodeRequest(single, { provider: adapter.slug, modelInBody: adapter.modelInBody });
  const call = callWith(JSON.stringify(encoded.body));
  if (providerFormat === dialect) return { adapter, providerFormat, dropped: encoded.dropped, call, relay: passthrough(call) };
  return {
    adapter,
    providerFormat,
    dropped: encoded.dropped,
    call,
    relay: (first) => {
      // The first call was sent already when a route tried it; its copies (fan-out) are sent now.
      let pending = first;
      const sendOrFirst = (one: ProviderCall): Promise<UpstreamResponse> => {
        if (!pending) return send(one);
        const answer = pending;
        pending = null;
        return Promise.resolve(answer);
      };
      return relayTranslated(res, Array.from({ length: copies }, () => call), sendOrFirst, {
        ...relayOptions,
        request: single,
        providerCodec: codec,
        dialectCodec: dialectCodec(dialect),
      });
    },
  };
}

/** The abort reason of a target's own time limit (timeout_ms): the route moves on, the request goes on. */
export class TargetTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`The target did not answer within its timeout_ms of ${timeoutMs} ms`);
  }
}

/** What the proxy records of the target tried last (the one that served, or failed last). */
export interface TriedTarget {
  label: string;
  provider: string;
  /** The model name sent to the provider (the target's, through its key's model map). */
  model: string;
  credentials: ProviderCredentials | undefined;
  providerFormat: WireFormat | null;
  dropped: string[];
  /** The virtual key whose credentials the target uses. */
  keyId: string;
  /**
   * The target key's own limit ticket, when the call was admitted against it (not for the caller's own
   * key): the proxy releases it with the call's outcome, as it does the caller's.
   */
  ticket: LimitTicket | undefined;
}

/** Who calls, and the limits a target key's use is admitted against. */
export interface RouteAdmission {
  caller: Caller;
  limits: KeyLimiter | undefined;
}

/** What a target that was admitted but left for the next is charged: its request, nothing more. */
const NOTHING_SERVED = { tokens: 0, costUsd: null };

const fallsBack = (status: number) => status === 429 || status >= 500;

/** Why a thrown failure lets the route try its next target; null when it does not (the client's own error). */
function reasonToMoveOn(error: unknown, attemptAbort: RequestAbort, beforeCall: boolean): string | null {
  if (attemptAbort.reason instanceof TargetTimeout) return 'timeout';
  if (error instanceof GatewayError) {
    if (error.code === 'timeout') return 'timeout';
    if (error.code === 'provider_unreachable') return 'connection error';
    if (beforeCall && error.status >= 500) return 'credentials unavailable';
    return null;
  }
  return beforeCall ? 'credentials unavailable' : null;
}

/** Sets the reason on this target's last attempt record, or adds a record when no call was made. */
function noteReason(attemptLog: AttemptRecord[], label: string, reason: string, error: string | null): void {
  const last = attemptLog.at(-1);
  if (last && last.target === label && last.reason === undefined) last.reason = reason;
  else attemptLog.push({ status: null, error, durationMs: 0, target: label, reason });
}

/** Tries the route's targets in the planned order until one answers, and relays that one's answer. */
export async function serveRoute(
  router: Router,
  route: CompiledRoute,
  generation: Generation,
  abort: RequestAbort,
  attemptLog: AttemptRecord[],
  onTarget: (tried: TriedTarget) => void,
  admission: RouteAdmission,
): Promise<RelayOutcome> {
  const { request, ingress, headers } = generation;
  const plan = router.plan(route, request.model, traitsOf(() => dialectCodec(ingress.dialect).decodeRequest(request.body)));
  for (const skipped of plan.skipped) attemptLog.push({ status: null, error: null, durationMs: 0, target: skipped.label, reason: skipped.reason });
  if (plan.attempts.length === 0) {
    const why = [...plan.ineligible, ...plan.skipped].map((target) => `${target.label}: ${target.reason}`).join('; ');
    throw new GatewayError(400, 'invalid_request_error', `Route '${route.name}' has no target for this request (${why || 'no targets'})`, 'model', 'no_route_target');
  }
  for (const [index, target] of plan.attempts.entries()) {
    const isLast = index === plan.attempts.length - 1;
    let ticket: LimitTicket | undefined;
    try {
      ticket = admitTarget(admission.caller, route.name, target, admission.limits);
    } catch (error) {
      if (!(error instanceof TargetRefused)) throw error;
      // Skipped before anything was sent: no attempt, only the reason. With no target left, the client
      // gets this refusal (the 429 of the limit, or the 403 of a key that lends nothing).
      attemptLog.push({ status: null, error: null, durationMs: 0, target: target.label, reason: error.reason });
      if (isLast) throw error.answer;
      continue;
    }
    generation.admission.lendFrom(ticket);
    const attemptAbort = new RequestAbort();
    // The request's own abort (client gone, x-gateway-request-timeout) ends every target's call too.
    if (abort.aborted) attemptAbort.abort(abort.reason);
    else abort.addEventListener('abort', () => attemptAbort.abort(abort.reason));
    const timer = target.timeoutMs === undefined ? undefined : setTimeout(() => attemptAbort.abort(new TargetTimeout(target.timeoutMs!)), target.timeoutMs);
    const sentModel = mappedModel(target.caller, target.model);
    const tried: TriedTarget = { label: target.label, provider: target.caller.provider, model: sentModel, credentials: undefined, providerFormat: null, dropped: [], keyId: target.caller.keyId, ticket };
    onTarget(tried);
    let called = false;
    try {
      const credentials = await target.caller.loadCredentials();
      tried.credentials = credentials;
      onTarget(tried);
      const routeTarget: RouteTarget = { caller: target.caller, provider: target.caller.provider, customHost: target.caller.customHost, credentials };
      const adapter = getProvider(routeTarget.provider);
      const send = (call: ProviderCall): Promise<UpstreamResponse> =>
        sendCall(adapter, call, {
          signal: attemptAbort,
          retries: headers.retryCount,
          attempts: generation.admission.attempts,
          onAttempt: (attempt) => attemptLog.push({ status: attempt.status, error: attempt.error, durationMs: attempt.durationMs, target: target.label }),
        });
      const preparing = prepareGeneration(generation, routeTarget, sentModel, { signal: attemptAbort, secrets: callSecrets(credentials, headers) }, send);
      const prepared = isPromise(preparing) ? await preparing : preparing;
      tried.providerFormat = prepared.providerFormat;
      tried.dropped = prepared.dropped;
      onTarget(tried);
      if (!prepared.call) {
        clearTimeout(timer);
        return await prepared.relay(null);
      }
      called = true;
      const first = await send(prepared.call);
      // The provider answered: the target's time limit is met. The rest is the request's own time limit.
      clearTimeout(timer);
      // With no provider call left to the request (its cap), this target's failure is the answer.
      if (!isLast && fallsBack(first.status) && generation.admission.attempts.available) {
        await first.body.dump().catch(() => undefined);
        noteReason(attemptLog, target.label, String(first.status), null);
        router.recordFailure(target);
        ticket?.release(NOTHING_SERVED);
        continue;
      }
      const outcome = await prepared.relay(first);
      if (outcome.status < 400) router.recordSuccess(target);
      else if (fallsBack(outcome.status)) router.recordFailure(target);
      return outcome;
    } catch (error) {
      clearTimeout(timer);
      if (abort.aborted) throw error;
      if (error instanceof LenderOverLimit) {
        // The target key's budgets cannot hold this call's worst case: skipped before anything was sent.
        const refused = targetOverLimit(route.name, error.refusal);
        attemptLog.push({ status: null, error: null, durationMs: 0, target: target.label, reason: refused.reason });
        ticket?.release(NOTHING_SERVED);
        if (isLast) throw refused.answer;
        continue;
      }
      const reason = reasonToMoveOn(error, attemptAbort, !called);
      if (reason === null) throw error;
      router.recordFailure(target);
      noteReason(attemptLog, target.label, reason, error instanceof Error ? error.message : String(error));
      if (isLast) {
        if (attemptAbort.reason instanceof TargetTimeout) {
          throw new GatewayError(504, 'gateway_error', `Route '${route.name}': ${target.label} did not answer within its timeout_ms (${target.timeoutMs} ms), and no target is left to try`, null, 'timeout', target.caller.provider);
        }
        throw error;
      }
      ticket?.release(NOTHING_SERVED);
    }
  }
  // Unreachable: the last target either returns or throws.
  throw new GatewayError(502, 'gateway_error', `Route '${route.name}': no target answered`, null, 'route_exhausted');
}

/** `GET /v1/models` for a gateway key with no provider: the route names, in the client's list shape. */
export function sendRouteModelList(res: ServerResponse, names: readonly string[], shape: 'openai' | 'anthropic', started: number): RelayOutcome {
  const body = JSON.stringify(shape === 'anthropic' ? anthropicRouteList(names) : { object: 'list', data: names.map(routeModelEntry) });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
  return { status: 200, ttfbMs: performance.now() - started, error: null, responseBody: body };
}

/** A route name as an OpenAI model list entry. */
export function routeModelEntry(name: string): { id: string; object: 'model'; created: number; owned_by: string } {
  return { id: name, object: 'model', created: 0, owned_by: 'gatehouse-route' };
}

function anthropicRouteList(names: readonly string[]): object {
  const data = names.map((name) => ({ type: 'model', id: name, display_name: name, created_at: new Date(0).toISOString() }));
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}
