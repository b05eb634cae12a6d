// One generation at one provider target: the window checked, the worst case admitted, the call planned
// (plan-call.ts), sent and its answer relayed. serveGeneration is the call without a route; routed-call.ts
// runs the same steps for each target of a route.
import type { RouteTarget } from './auth.js';
import type { Caller } from '../core/keys.js';
import type { EmbeddingCall, ProviderAdapter, ProviderCall } from '../providers/types.js';
import { sendUpstream, type SendOptions, type UpstreamResponse } from '../providers/upstream.js';
import { callRequest, embeddingRequest } from '../providers/provider-request.js';
import { sendTokenEstimate } from './token-estimate.js';
import { relayPassthrough } from './relay/passthrough.js';
import { relayTranslated } from './relay/translated.js';
import type { RelayOptions, RelayOutcome } from './relay/types.js';
import { gatewayAnswers, isChatOnly, planCall, providerFormatOf, type CallPlan } from './plan-call.js';
import { learnChatOnly, learnsChatOnly, retryAsChat } from './chat-only-fallback.js';
import type { Generation } from './request-body.js';
import { plannedTarget, reachDirect, type CallContext, type Served } from './call-context.js';

/** The name a virtual key sends for a requested model (its model map), or the name as it is. */
export function mappedModel(caller: Caller, model: string): string {
  return caller.kind === 'virtual-key' ? (caller.modelMap?.[model] ?? model) : model;
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
export function sendCall(adapter: ProviderAdapter, call: ProviderCall | EmbeddingCall, options: SendOptions): Promise<UpstreamResponse> {
  let built: ReturnType<typeof callRequest>;
  try {
    built = isEmbeddingCall(call) ? embeddingRequest(adapter, call) : callRequest(adapter, call);
  } catch (error) {
    return Promise.reject(error);
  }
  // The further parts of one embeddings request (Titan's one call an input) count as its one call.
  const sendOptions = isEmbeddingCall(call) && call.part ? { ...options, attempts: undefined } : options;
  return isPromise(built) ? built.then((upstream) => sendUpstream(upstream, adapter.slug, sendOptions)) : sendUpstream(built, adapter.slug, sendOptions);
}

function isEmbeddingCall(call: ProviderCall | EmbeddingCall): call is EmbeddingCall {
  return call.operation === 'embeddings';
}

/**
 * The plan for one target, once its checks pass: the prompt within the model's window, and before anything
 * is sent, the fan-out within the cap and the worst case within the budgets. Returns a promise only when
 * tokens must be counted; otherwise the plan is made on this turn, with no promise hops.
 */
export function prepareCall(generation: Generation, context: CallContext, target: RouteTarget, model: string): CallPlan | Promise<CallPlan> {
  // The window check reads the prompt and output budget, which a route's model does not change: it is
  // given the body as sent and the model apart.
  const pending = generation.operation === 'generate' ? generation.checkWindow(target.provider, model) : undefined;
  if (pending) return pending.then(() => admittedPlan(generation, context, target, model));
  return admittedPlan(generation, context, target, model);
}

function admittedPlan(generation: Generation, context: CallContext, target: RouteTarget, model: string): CallPlan | Promise<CallPlan> {
  const { adapter } = target;
  const providerFormat = providerFormatOf(adapter, model, generation, isChatOnly(target));
  if (!gatewayAnswers(adapter, providerFormat, generation)) {
    const held = context.admission.reserve({ adapter, credentials: target.credentials, model, generation });
    // A budget held in Redis: the plan is made once Redis has said yes.
    if (held instanceof Promise) return held.then(() => planCall(generation, adapter, providerFormat, target, model, context.headers));
  }
  return planCall(generation, adapter, providerFormat, target, model, context.headers);
}

/**
 * Relays a plan's answer: given the first call's response when it was sent already (a route tried it),
 * else it sends; a translated plan's copies (fan-out) are sent now, and the relay is handed the answers.
 */
export function relayPlan(context: CallContext, plan: CallPlan, first: UpstreamResponse | null, send: (call: ProviderCall) => Promise<UpstreamResponse>, options: RelayOptions): Promise<RelayOutcome> {
  const { res } = context;
  if (plan.kind === 'estimate') return sendTokenEstimate(res, plan.inputTokens, context.started, options.ingress?.tokenCountBody);
  if (plan.kind === 'passthrough') {
    const call = plan.call;
    return first ? relayPassthrough(res, first, options, call) : send(call).then((upstream) => relayPassthrough(res, upstream, options, call));
  }
  const answers = Array.from({ length: plan.copies }, (_, index) => (index === 0 && first ? Promise.resolve(first) : send(plan.call)));
  return Promise.all(answers).then((all) =>
    relayTranslated(res, all, { ...options, request: plan.request, providerCodec: plan.providerCodec, dialectCodec: plan.dialectCodec }),
  );
}

/** A generation without a route: to the provider the caller's key or headers name. */
export async function serveGeneration(generation: Generation, context: CallContext): Promise<Served> {
  const model = mappedModel(context.caller, generation.request.model);
  const direct = await reachDirect(context, model, generation.request.stream, generation.ingress);
  const { attemptLog } = direct;
  let plan: CallPlan;
  try {
    const preparing = prepareCall(generation, context, direct.target, model);
    plan = isPromise(preparing) ? await preparing : preparing;
  } catch (failure) {
    return { target: direct.served, route: null, attemptLog, outcome: undefined, failure };
  }
  const target = plannedTarget(direct.served, plan);
  const send = (call: ProviderCall) => sendCall(direct.adapter, call, direct.send);
  try {
    if (learnsChatOnly(plan, direct.target)) {
      // A Responses call passed through to a custom host that may have no Responses API: a 404 there is
      // answered by the same call translated to Chat, and the key remembers it.
      const first = await send(plan.call);
      const next = await retryAsChat(first, generation, direct.target, model, context.headers);
      if ('retry' in next) {
        const outcome = await relayPlan(context, next.retry, null, send, direct.relay);
        // Only a server that then answers Chat is taken for chat-only (not one that refuses both).
        if (outcome.status < 400) learnChatOnly(direct.target);
        return { target: plannedTarget(direct.served, next.retry), route: null, attemptLog, outcome, failure: undefined };
      }
      return { target, route: null, attemptLog, outcome: await relayPlan(context, plan, next.relay, send, direct.relay), failure: undefined };
    }
    const outcome = await relayPlan(context, plan, null, send, direct.relay);
    return { target, route: null, attemptLog, outcome, failure: undefined };
  } catch (failure) {
    return { target, route: null, attemptLog, outcome: undefined, failure };
  }
}
