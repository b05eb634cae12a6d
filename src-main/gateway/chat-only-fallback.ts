// A server behind an `openai` key with a custom host (LM Studio, vLLM, llama.cpp …) often speaks Chat
// Completions but has no Responses API. A `/v1/responses` call passed through to it and answered 404 is
// sent again translated to Chat, as it always is for `ollama` keys, and once that answers the virtual key
// learns `chatOnly`, so its next Responses calls are translated from the start. A 404 that says the model
// does not exist is no such sign: it goes back to the client as it is, and the key learns nothing.
import { Readable } from 'node:stream';
import type { RouteTarget } from './auth.js';
import type { GatewayHeaders } from './gateway-headers.js';
import type { UpstreamResponse } from '../providers/upstream.js';
import { isChatOnly, planCall, providerFormatOf, type CallPlan, type PassthroughPlan } from './plan-call.js';
import { MAX_ERROR_BODY_BYTES, readUpTo } from './relay/provider-answer.js';
import { saysModelNotFound } from './not-found-meaning.js';
import type { Generation } from './request-body.js';

/** Whether this plan's answer may be a 404 that means "no Responses API here" rather than a real one. */
export function learnsChatOnly(plan: CallPlan, target: RouteTarget): plan is PassthroughPlan {
  return plan.kind === 'passthrough' && plan.providerFormat === 'openai-responses' && target.provider === 'openai' && target.customHost !== undefined && !isChatOnly(target);
}

/** What to do after the passed-through call answered: relay this answer, or make the call again as Chat. */
export type AfterResponsesAnswer = { retry: CallPlan } | { relay: UpstreamResponse };

/**
 * After the passed-through call answered: for a 404 that does not say the model is missing, the call planned
 * again as Chat (the first answer read and dropped); otherwise the answer to relay (a 404 read here is held
 * and relayed from memory).
 */
export async function retryAsChat(first: UpstreamResponse, generation: Generation, target: RouteTarget, model: string, headers: GatewayHeaders): Promise<AfterResponsesAnswer> {
  if (first.status !== 404) return { relay: first };
  const { text } = await readUpTo(first.body, MAX_ERROR_BODY_BYTES).catch(() => ({ text: '' }));
  if (saysModelNotFound(text)) return { relay: { ...first, body: heldBody(text) } };
  const { adapter } = target;
  return { retry: await planCall(generation, adapter, providerFormatOf(adapter, model, generation, true), target, model, headers) };
}

/** The key remembers its server speaks Chat only: called once the Chat retry was answered. */
export function learnChatOnly(target: RouteTarget): void {
  if (target.caller.kind === 'virtual-key') target.caller.learnChatOnly?.();
}

/** A body already read, readable again by the relay (which iterates it, or dumps or destroys it). */
function heldBody(text: string): UpstreamResponse['body'] {
  const body = Readable.from([Buffer.from(text)]);
  return Object.assign(body, {
    dump: async () => {
      body.destroy();
    },
    text: async () => text,
    json: async () => JSON.parse(text) as unknown,
  }) as unknown as UpstreamResponse['body'];
}
