// A routed call: the route's targets tried in turn, each through the same steps as a call without a route
// (generation-call.ts). A target is left for the next only before anything reached the client: on 429,
// 5xx, its own timeout or a connection error while waiting for the provider's answer. Once the answer is
// being relayed, it is that target's, whatever happens.
import { GatewayError } from '../core/errors.js';
import { virtualKeyTarget, type RouteTarget } from './auth.js';
import type { EmbeddingCall, ProviderCall } from '../providers/types.js';
import type { UpstreamResponse } from '../providers/upstream.js';
import type { WireFormat } from '../codecs/canonical.js';
import type { EmbeddingFormat } from '../codecs/embeddings/canonical.js';
import type { Ingress } from './ingress/types.js';
import type { RelayOptions, RelayOutcome } from './relay/types.js';
import type { CallPlan } from './plan-call.js';
import type { RequestTraits } from './routing/conditions.js';
import { RequestAbort } from '../core/request-abort.js';
import type { CompiledRoute, Router } from './routing/router.js';
import { admitTarget, targetOverLimit, TargetRefused } from './routing/target-admission.js';
import type { KeyLimiter, LimitTicket } from './limits/limiter.js';
import type { AttemptRecord } from '../core/call-record.js';
import { LenderOverLimit } from './limits/call-admission.js';
import type { Generation } from './request-body.js';
import { callSecrets, plannedTarget, type CallContext, type Served, type ServedTarget } from './call-context.js';
import { isPromise, mappedModel, prepareCall, relayPlan, sendCall } from './generation-call.js';

/** The abort reason of a target's own time limit (timeout_ms): the route moves on, the request goes on. */
export class TargetTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`The target did not answer within its timeout_ms of ${timeoutMs} ms`);
  }
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

/**
 * Tries the route's targets in the planned order until one answers, and relays that one's answer. Returns
 * what it reached (the target that served, or was tried last) with the answer or the failure.
 */
export function serveRoute(router: Router, route: CompiledRoute, generation: Generation, context: CallContext, limits: KeyLimiter | undefined): Promise<Served> {
  return serveRouteWith(router, route, generationWork(generation), context, limits);
}

/** What a target is asked for, planned: the first call to send (none when the gateway answers itself). */
export interface PreparedCall {
  call: ProviderCall | EmbeddingCall | null;
  providerFormat: WireFormat | EmbeddingFormat;
  dropped: string[];
}

/** What a route serves, whatever it is (a generation, embeddings): how each target is planned and answered. */
export interface RoutedWork<Prepared extends PreparedCall> {
  model: string;
  stream: boolean;
  ingress: Ingress | undefined;
  traits: RequestTraits;
  prepare(context: CallContext, target: RouteTarget, model: string): Prepared | Promise<Prepared>;
  relay(context: CallContext, prepared: Prepared, first: UpstreamResponse | null, send: (call: ProviderCall | EmbeddingCall) => Promise<UpstreamResponse>, options: RelayOptions): Promise<RelayOutcome>;
}

function generationWork(generation: Generation): RoutedWork<CallPlan> {
  return {
    model: generation.request.model,
    stream: generation.request.stream,
    ingress: generation.ingress,
    traits: generation.traits,
    prepare: (context, target, model) => prepareCall(generation, context, target, model),
    relay: relayPlan,
  };
}

export async function serveRouteWith<Prepared extends PreparedCall>(router: Router, route: CompiledRoute, work: RoutedWork<Prepared>, context: CallContext, limits: KeyLimiter | undefined): Promise<Served> {
  const attemptLog: AttemptRecord[] = [];
  let tried: ServedTarget | undefined;
  try {
    const { headers, abort, admission } = context;
    const plan = router.plan(route, work.model, work.traits);
    for (const skipped of plan.skipped) attemptLog.push({ status: null, error: null, durationMs: 0, target: skipped.label, reason: skipped.reason });
    if (plan.attempts.length === 0) {
      const why = [...plan.ineligible, ...plan.skipped].map((target) => `${target.label}: ${target.reason}`).join('; ');
      throw new GatewayError(400, 'invalid_request_error', `Route '${route.name}' has no target for this request (${why || 'no targets'})`, 'model', 'no_route_target');
    }
    for (const [index, target] of plan.attempts.entries()) {
      const isLast = index === plan.attempts.length - 1;
      let ticket: LimitTicket | undefined;
      try {
        const admitted = admitTarget(context.caller, route.name, target, limits);
        ticket = admitted instanceof Promise ? await admitted : admitted;
      } catch (error) {
        if (!(error instanceof TargetRefused)) throw error;
        // Skipped before anything was sent: no attempt, only the reason. With no target left, the client
        // gets this refusal (the 429 of the limit, or the 403 of a key that lends nothing).
        attemptLog.push({ status: null, error: null, durationMs: 0, target: target.label, reason: error.reason });
        if (isLast) throw error.answer;
        continue;
      }
      admission.lendFrom(ticket);
      const attemptAbort = new RequestAbort();
      // The request's own abort (client gone, x-gateway-request-timeout) ends every target's call too.
      if (abort.aborted) attemptAbort.abort(abort.reason);
      else abort.addEventListener('abort', () => attemptAbort.abort(abort.reason));
      const timer = target.timeoutMs === undefined ? undefined : setTimeout(() => attemptAbort.abort(new TargetTimeout(target.timeoutMs!)), target.timeoutMs);
      const sentModel = mappedModel(target.caller, target.model);
      // What the record shows of this target, a new value at each step it gets past.
      tried = { provider: target.caller.provider, credentials: undefined, model: sentModel, providerFormat: null, dropped: [], secrets: undefined, label: target.label, keyId: target.caller.keyId, ticket };
      let called = false;
      try {
        const routeTarget = await virtualKeyTarget(target.caller);
        const { adapter, credentials } = routeTarget;
        const send = (call: ProviderCall | EmbeddingCall): Promise<UpstreamResponse> =>
          sendCall(adapter, call, {
            signal: attemptAbort,
            retries: headers.retryCount,
            attempts: admission.attempts,
            onAttempt: (attempt) => attemptLog.push({ status: attempt.status, error: attempt.error, durationMs: attempt.durationMs, target: target.label }),
          });
        const secrets = callSecrets(credentials, headers);
        tried = { ...tried, credentials, secrets };
        const preparing = work.prepare(context, routeTarget, sentModel);
        const prepared = isPromise(preparing) ? await preparing : preparing;
        const reached = plannedTarget(tried, prepared);
        tried = reached;
        const relayOptions = { adapter, stream: work.stream, started: context.started, signal: attemptAbort, secrets, ingress: work.ingress };
        if (!prepared.call) {
          clearTimeout(timer);
          return { target: reached, route: route.name, attemptLog, outcome: await work.relay(context, prepared, null, send, relayOptions), failure: undefined };
        }
        called = true;
        const first = await send(prepared.call);
        // The provider answered: the target's time limit is met. The rest is the request's own time limit.
        clearTimeout(timer);
        // With no provider call left to the request (its cap), this target's failure is the answer.
        if (!isLast && fallsBack(first.status) && admission.attempts.available) {
          await first.body.dump().catch(() => undefined);
          noteReason(attemptLog, target.label, String(first.status), null);
          router.recordFailure(target);
          ticket?.release(NOTHING_SERVED);
          continue;
        }
        const outcome = await work.relay(context, prepared, first, send, relayOptions);
        if (outcome.status < 400) router.recordSuccess(target);
        else if (fallsBack(outcome.status)) router.recordFailure(target);
        return { target: reached, route: route.name, attemptLog, outcome, failure: undefined };
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
  } catch (failure) {
    return { target: tried, route: route.name, attemptLog, outcome: undefined, failure };
  }
}
