// A whole Converse answer → canonical answer.
import { foldEvents, type CanonicalAnswer, type CanonicalEvent, type CanonicalRequest } from '../canonical.js';
import { parseProviderAnswer } from '../provider-schema.js';
import { converseResponse, type ConverseReasoning } from './schema.js';
import { answerId, mapStopReason } from './stop-reason.js';
import { usageOf } from './usage.js';

function reasoningEvents(reasoning: ConverseReasoning): CanonicalEvent[] {
  if (reasoning.redactedContent !== undefined) return [{ type: 'reasoning_encrypted', data: reasoning.redactedContent }];
  const events: CanonicalEvent[] = [];
  if (reasoning.reasoningText?.text) events.push({ type: 'reasoning', text: reasoning.reasoningText.text });
  if (reasoning.reasoningText?.signature) events.push({ type: 'reasoning_signature', signature: reasoning.reasoningText.signature });
  return events;
}

export function decodeResponse(json: unknown, request: CanonicalRequest): CanonicalAnswer {
  const answer = parseProviderAnswer(converseResponse, json);
  const events: CanonicalEvent[] = [{ type: 'start', id: answerId(), model: request.model }];
  let toolIndex = 0;
  for (const block of answer.output?.message?.content ?? []) {
    if (block.text !== undefined) {
      if (block.text) events.push({ type: 'text', text: block.text });
    } else if (block.toolUse !== undefined) {
      const index = toolIndex++;
      events.push({ type: 'tool_call_start', index, id: block.toolUse.toolUseId, name: block.toolUse.name });
      events.push({ type: 'tool_call_delta', index, arguments: JSON.stringify(block.toolUse.input ?? {}) });
      events.push({ type: 'tool_call_end', index });
    } else if (block.reasoningContent !== undefined) {
      events.push(...reasoningEvents(block.reasoningContent));
    }
  }
  if (answer.usage !== undefined) events.push({ type: 'usage', usage: usageOf(answer.usage) });
  events.push({ type: 'finish', reason: mapStopReason(answer.stopReason) });
  return foldEvents(events, { id: answerId(), model: request.model });
}
