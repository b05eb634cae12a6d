// The embeddings core: one request, from any front door (EmbeddingsInbound), served at the provider its
// key names or through a matching route, as generations are — the same target resolution, admission
// (the worst case held against budgets), route fallbacks, attempt log and Served value for the record.
import type { EmbeddingRequest } from '../../codecs/embeddings/canonical.js';
import type { RouteTarget } from '../auth.js';
import type { Router } from '../routing/router.js';
import type { KeyLimiter } from '../limits/limiter.js';
import type { RequestTraits } from '../routing/conditions.js';
import { plannedTarget, reachDirect, type CallContext, type Served } from '../call-context.js';
import { isPromise, mappedModel, sendCall } from '../generation-call.js';
import { serveRouteWith, type RoutedWork } from '../routed-call.js';
import { planEmbeddings, type EmbeddingsPlan } from './embeddings-plan.js';
import { relayEmbeddings } from './embeddings-relay.js';
import { embeddingsWorstCaseUsd } from './embeddings-cost.js';
import type { EmbeddingsInbound } from './embeddings-ingress.js';

export interface EmbeddingsDependencies {
  /** The route table; absent or empty: the call goes where its key says. */
  router?: Router;
  limits?: KeyLimiter;
}

/** Route conditions read the inputs' size (about 4 characters a token); embeddings never think or call tools. */
function embeddingTraits(request: EmbeddingRequest): RequestTraits {
  let tokens: number | undefined;
  const promptTokens = (): number => (tokens ??= request.inputs.reduce((sum, input) => sum + (input.kind === 'tokens' ? input.tokens.length : Math.ceil(input.text.length / 4)), 0));
  return { promptTokens, thinking: () => false, tools: () => false };
}

/** The plan for one target, its worst case held against the budgets before anything is sent. */
function prepareEmbeddings(inbound: EmbeddingsInbound, context: CallContext, target: RouteTarget, model: string): EmbeddingsPlan | Promise<EmbeddingsPlan> {
  const { adapter } = target;
  const plan = planEmbeddings(inbound, adapter, target, model, context.headers);
  if (!context.admission.holdsBudget) return plan;
  const pricedModel = adapter.pricedModel?.(target.credentials, model) ?? model;
  // A promise only when the budget is held in Redis.
  const held = context.admission.hold(embeddingsWorstCaseUsd(adapter.slug, pricedModel, inbound.request));
  return held instanceof Promise ? held.then(() => plan) : plan;
}

function embeddingsWork(inbound: EmbeddingsInbound): RoutedWork<EmbeddingsPlan> {
  return {
    model: inbound.request.model,
    stream: false,
    ingress: undefined,
    traits: embeddingTraits(inbound.request),
    prepare: (context, target, model) => prepareEmbeddings(inbound, context, target, model),
    relay: (context, plan, first, send, options) => relayEmbeddings(context.res, inbound, plan, first, send, options),
  };
}

/**
 * Serves one embeddings request and answers the client (in the inbound's dialect, or the provider's bytes
 * when passed through). Returns what it reached, as a generation's serving does: the caller records it.
 */
export async function serveEmbeddings(inbound: EmbeddingsInbound, context: CallContext, deps: EmbeddingsDependencies): Promise<Served> {
  const { caller, headers } = context;
  const { router } = deps;
  // A gateway key that names its provider calls it directly; otherwise a matching route decides.
  const matched = router && !router.isEmpty && !(caller.kind === 'gateway-key' && headers.provider) ? router.match(inbound.request.model) : undefined;
  if (matched) return serveRouteWith(router!, matched, embeddingsWork(inbound), context, deps.limits);
  const model = mappedModel(caller, inbound.request.model);
  const direct = await reachDirect(context, model, false, undefined);
  const { attemptLog } = direct;
  let plan: EmbeddingsPlan;
  try {
    const preparing = prepareEmbeddings(inbound, context, direct.target, model);
    plan = isPromise(preparing) ? await preparing : preparing;
  } catch (failure) {
    return { target: direct.served, route: null, attemptLog, outcome: undefined, failure };
  }
  const target = plannedTarget(direct.served, plan);
  try {
    const outcome = await relayEmbeddings(context.res, inbound, plan, null, (call) => sendCall(direct.adapter, call, direct.send), direct.relay);
    return { target, route: null, attemptLog, outcome, failure: undefined };
  } catch (failure) {
    return { target, route: null, attemptLog, outcome: undefined, failure };
  }
}
