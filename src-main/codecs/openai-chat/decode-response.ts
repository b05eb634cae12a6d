// A Chat provider's whole answer (`chat.completion`) → canonical, read through its schema.
import { randomUUID } from 'node:crypto';
import { foldEvents, type CanonicalAnswer, type CanonicalEvent, type CanonicalRequest, type FinishReason, type TokenLogprob } from '../canonical.js';
import { providerError } from './errors.js';
import { parseProviderAnswer } from '../provider-schema.js';
import { chatCompletionSchema, type ChatLogprobs } from './schema.js';
import { chatUsage } from './usage.js';

/** Tool calls the provider made without an id of its own get one, as OpenAI's always have. */
export const newToolCallId = (): string => `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;

export function mapChatFinishReason(reason: string | null | undefined): FinishReason | undefined {
  switch (reason) {
    case null:
    case undefined:
    case '':
      return undefined;
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'content_filter':
      return 'content_filter';
    // stop, eos (some local servers), and values added later.
    default:
      return 'stop';
  }
}

export function chatTokenLogprobs(logprobs: ChatLogprobs | null | undefined): TokenLogprob[] {
  return (logprobs?.content ?? []).map((token) => {
    const top = (token.top_logprobs ?? []).map((alternative) => ({ token: alternative.token, logprob: alternative.logprob }));
    return { token: token.token, logprob: token.logprob, ...(top.length ? { top } : {}) };
  });
}

/** Choice 0 (the gateway never asks a Chat provider for more). */
export const firstChoice = <Choice extends { index?: number | null }>(choices: readonly Choice[] | null | undefined): Choice | undefined =>
  choices?.find((choice) => choice.index === 0 || choice.index === undefined || choice.index === null);

export function decodeChatResponse(json: unknown, request: CanonicalRequest): CanonicalAnswer {
  const root = parseProviderAnswer(chatCompletionSchema, json);
  if (root.error !== undefined && root.error !== null && !Array.isArray(root.choices)) throw providerError(root.error);
  const events: CanonicalEvent[] = [{ type: 'start', ...(root.id ? { id: root.id } : {}), ...(root.model ? { model: root.model } : {}) }];
  const choice = firstChoice(root.choices);
  const message = choice?.message;
  if (choice && message) {
    const reasoning = message.reasoning_content || message.reasoning;
    if (reasoning) events.push({ type: 'reasoning', text: reasoning });
    // Some servers send the content as text parts.
    const content = typeof message.content === 'string' ? message.content : (message.content ?? []).map((part) => part.text ?? '').join('');
    const text = content || (message.refusal ?? '');
    if (text) events.push({ type: 'text', text });
    const calls = (message.tool_calls ?? []).map((call) => ({ id: call.id, fn: call.function }));
    if (message.function_call) calls.push({ id: undefined, fn: message.function_call });
    calls.forEach(({ id, fn }, index) => {
      events.push({ type: 'tool_call_start', index, id: id || newToolCallId(), name: fn?.name ?? '' });
      const args = typeof fn?.arguments === 'string' ? fn.arguments : fn?.arguments ? JSON.stringify(fn.arguments) : '';
      if (args) events.push({ type: 'tool_call_delta', index, arguments: args });
      events.push({ type: 'tool_call_end', index });
    });
  }
  if (choice) {
    const tokens = chatTokenLogprobs(choice.logprobs);
    if (tokens.length) events.push({ type: 'logprobs', tokens });
  }
  const usage = chatUsage(root.usage);
  if (usage) events.push({ type: 'usage', usage });
  const finish = mapChatFinishReason(choice?.finish_reason);
  if (finish) events.push({ type: 'finish', reason: finish });
  return foldEvents(events, { id: `chatcmpl-${randomUUID().replace(/-/g, '')}`, model: request.model });
}
