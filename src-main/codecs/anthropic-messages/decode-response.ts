// A whole Messages answer → canonical answer.
import type { CanonicalAnswer, CanonicalRequest } from '../canonical.js';
import { parseProviderAnswer } from '../provider-schema.js';
import { fallbackId } from './format.js';
import { message as messageSchema } from './schema.js';
import { finishEvent } from './stop-reasons.js';
import { canonicalUsage, readUsage, type MessagesUsage } from './usage.js';

export function decodeMessagesResponse(json: unknown, request: CanonicalRequest): CanonicalAnswer {
  const message = parseProviderAnswer(messageSchema, json);
  const answer: CanonicalAnswer = { id: message.id ?? fallbackId(), model: message.model ?? request.model, content: [], finishReason: null };
  for (const block of message.content ?? []) {
    if (block.type === 'text') {
      const text = block.text ?? '';
      const last = answer.content.at(-1);
      if (last?.type === 'text') last.text += text;
      else answer.content.push({ type: 'text', text });
    } else if (block.type === 'thinking') {
      const signature = block.signature;
      answer.content.push({ type: 'reasoning', text: block.thinking ?? '', ...(signature ? { signature } : {}) });
    } else if (block.type === 'redacted_thinking') {
      answer.content.push({ type: 'reasoning', text: '', encrypted: block.data ?? '' });
    } else if (block.type === 'tool_use') {
      answer.content.push({ type: 'tool_call', id: block.id ?? '', name: block.name ?? '', arguments: JSON.stringify(block.input ?? {}) });
    }
    // Server tool blocks (server_tool_use, web_search_tool_result …) have no canonical place.
  }
  const [finish] = finishEvent(message);
  if (finish?.type === 'finish') {
    answer.finishReason = finish.reason;
    if (finish.stopSequence !== undefined) answer.stopSequence = finish.stopSequence;
  }
  const usage: MessagesUsage = { input: 0, output: 0 };
  if (readUsage(message.usage, usage)) answer.usage = canonicalUsage(usage);
  return answer;
}
