// A Responses provider's whole answer (a Response object) → canonical, read through its schema; the item
// readers here serve the stream decoder too.
import type { z } from 'zod';
import { parseProviderAnswer } from '../provider-schema.js';
import { foldEvents, type CanonicalAnswer, type CanonicalEvent, type CanonicalRequest, type FinishReason, type TokenLogprob } from '../canonical.js';
import { responseFailure } from './errors.js';
import { OUTPUT_ITEM_SCHEMAS, responseSchema, type FunctionCallItem, type ReadItem, type ReasoningItem, type ResponseObject, type ResponsesTokenLogprob } from './schema.js';
import { flatToolName } from './tool-names.js';
import { responsesUsage } from './usage.js';

/**
 * An output item of a type the codec reads, checked by that type's schema (through `parse`: a held
 * answer's or a stream event's, `at` where the item sits); any other type is none.
 */
export function readItem(raw: { type: string }, parse: typeof parseProviderAnswer, at: readonly PropertyKey[]): ReadItem | undefined {
  const schema = (OUTPUT_ITEM_SCHEMAS as Record<string, z.ZodType<ReadItem>>)[raw.type];
  return schema ? parse(schema, raw, at) : undefined;
}

export const tokenLogprobs = (tokens: readonly ResponsesTokenLogprob[]): TokenLogprob[] =>
  tokens.map((token) => ({
    token: token.token,
    logprob: token.logprob,
    ...(token.top_logprobs ? { top: token.top_logprobs.map((top) => ({ token: top.token, logprob: top.logprob })) } : {}),
  }));

export const toolNameOf = (item: FunctionCallItem): string => {
  const name = item.name ?? '';
  return item.namespace ? flatToolName(item.namespace, name) : name;
};

/** The reasoning's summary paragraphs, or (servers with no summary) its content. */
export function summaryText(item: ReasoningItem): string {
  const texts = (parts: ReasoningItem['summary']): string[] => (parts ?? []).map((part) => part.text ?? '').filter(Boolean);
  const summary = texts(item.summary);
  return (summary.length ? summary : texts(item.content)).join('\n\n');
}

/** Completed → stop (tool_calls when there were calls); incomplete → length or content_filter. */
export function finishOf(response: Pick<ResponseObject, 'status' | 'incomplete_details'>, sawToolCall: boolean, sawRefusal: boolean): FinishReason {
  if (response.status === 'incomplete') return response.incomplete_details?.reason === 'content_filter' ? 'content_filter' : 'length';
  if (sawToolCall) return 'tool_calls';
  return sawRefusal ? 'content_filter' : 'stop';
}

export const startEvent = (response: Pick<ResponseObject, 'id' | 'model'> | null | undefined): CanonicalEvent => ({
  type: 'start',
  ...(response?.id ? { id: response.id } : {}),
  ...(response?.model ? { model: response.model } : {}),
});

export function decodeResponsesResponse(json: unknown, request: CanonicalRequest): CanonicalAnswer {
  const response = parseProviderAnswer(responseSchema, json);
  if (response.status === 'failed' || (response.error && response.status !== 'completed')) throw responseFailure(response);
  const events: CanonicalEvent[] = [startEvent(response)];
  let toolIndex = 0;
  let refusal = false;
  (response.output ?? []).forEach((raw, i) => {
    const item = readItem(raw, parseProviderAnswer, ['output', i]);
    if (item?.type === 'message') {
      for (const part of item.content ?? []) {
        if (part.type === 'output_text' && typeof part.text === 'string') {
          if (part.text) events.push({ type: 'text', text: part.text });
          if (request.logprobs && part.logprobs?.length) events.push({ type: 'logprobs', tokens: tokenLogprobs(part.logprobs) });
        } else if (part.type === 'refusal' && typeof part.refusal === 'string') {
          refusal = true;
          if (part.refusal) events.push({ type: 'text', text: part.refusal });
        }
      }
    } else if (item?.type === 'function_call') {
      const index = toolIndex++;
      events.push({ type: 'tool_call_start', index, id: item.call_id ?? item.id ?? '', name: toolNameOf(item) });
      if (item.arguments) events.push({ type: 'tool_call_delta', index, arguments: item.arguments });
      events.push({ type: 'tool_call_end', index });
    } else if (item?.type === 'reasoning') {
      const text = summaryText(item);
      if (text) events.push({ type: 'reasoning', text });
      if (item.encrypted_content) events.push({ type: 'reasoning_encrypted', data: item.encrypted_content });
    }
  });
  const usage = responsesUsage(response.usage);
  if (usage) events.push({ type: 'usage', usage });
  events.push({ type: 'finish', reason: finishOf(response, toolIndex > 0, refusal) });
  return foldEvents(events, { id: response.id ?? '', model: response.model ?? request.model });
}
