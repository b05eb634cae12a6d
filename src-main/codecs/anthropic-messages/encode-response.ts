// Canonical answer → a Messages answer, for Messages clients of other providers.
import { asRecord, type CanonicalAnswer } from '../canonical.js';
import { messageId } from './format.js';
import { STOP_REASONS } from './stop-reasons.js';
import { messagesUsageOf } from './usage.js';

type Json = Record<string, unknown>;

function toolInput(text: string): Json {
  try {
    return asRecord(JSON.parse(text || '{}'));
  } catch {
    return {};
  }
}

export function encodeMessagesResponse(answer: CanonicalAnswer): object {
  const content: Json[] = [];
  for (const part of answer.content) {
    if (part.type === 'text') {
      if (part.text) content.push({ type: 'text', text: part.text });
    } else if (part.type === 'reasoning') {
      if (part.text || part.signature) content.push({ type: 'thinking', thinking: part.text, signature: part.signature ?? '' });
      if (part.encrypted) content.push({ type: 'redacted_thinking', data: part.encrypted });
    } else content.push({ type: 'tool_use', id: part.id, name: part.name, input: toolInput(part.arguments) });
  }
  return {
    id: messageId(answer.id),
    type: 'message',
    role: 'assistant',
    model: answer.model,
    content,
    stop_reason: STOP_REASONS[answer.finishReason ?? 'stop'],
    stop_sequence: answer.stopSequence ?? null,
    usage: messagesUsageOf(answer.usage),
  };
}
