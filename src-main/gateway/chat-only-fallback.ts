// A server behind an `openai` key with a custom host (LM Studio, vLLM, llama.cpp …) often speaks Chat
// Completions but has no Responses API. A `/v1/responses` call passed through to it and answered 404 is
// sent again translated to Chat, as it always is for `ollama` keys, and the virtual key learns `chatOnly`
// so its next Responses calls are translated from the start.
import type { RouteTarget } from './auth.js';
import type { GatewayHeaders } from './gateway-headers.js';
import type { UpstreamResponse } from '../providers/upstream.js';
import { getProvider } from '../providers/registry.js';
import { isChatOnly, planCall, providerFormatOf, type CallPlan, type PassthroughPlan } from './plan-call.js';
import type { Generation } from './request-body.js';

/** Whether this plan's answer may be a 404 that means "no Responses API here" rather than a real one. */
export function learnsChatOnly(plan: CallPlan, target: RouteTarget): plan is PassthroughPlan {
  return plan.kind === 'passthrough' && plan.providerFormat === 'openai-responses' && target.provider === 'openai' && target.customHost !== undefined && !isChatOnly(target);
}

/**
 * After the passed-through call answered: for a 404, the call planned again as Chat (the first answer read
 * and dropped, the key told); otherwise undefined, and the first answer is relayed as it is.
 */
export async function retryAsChat(first: UpstreamResponse, generation: Generation, target: RouteTarget, model: string, headers: GatewayHeaders): Promise<CallPlan | undefined> {
  if (first.status !== 404) return undefined;
  await first.body.dump().catch(() => undefined);
  if (target.caller.kind === 'virtual-key') target.caller.learnChatOnly?.();
  const adapter = getProvider(target.provider);
  return planCall(generation, adapter, providerFormatOf(adapter, model, generation, true), target, model, headers);
}
