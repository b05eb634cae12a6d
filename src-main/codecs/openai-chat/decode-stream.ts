// A Chat provider's chunk stream → canonical events, one `chat.completion.chunk` at a time, each read through
// the chunk schema: content, reasoning (`reasoning_content` from DeepSeek and vLLM, `reasoning` from Ollama
// and OpenRouter), tool-call deltas (index, id and name first, then argument pieces), the finish reason and
// the usage chunk. Ends with `[DONE]` or at least a finish reason.
import type { CanonicalEvent, FinishReason, StreamDecoder } from '../canonical.js';
import { ProviderStreamError } from '../../core/provider-stream-error.js';
import { parseProviderEvent } from '../provider-schema.js';
import { chatTokenLogprobs, firstChoice, mapChatFinishReason, newToolCallId } from './decode-response.js';
import { providerError, unreadableChunk } from './errors.js';
import { chatChunkSchema, type ChatChunk, type ChatToolCallDelta } from './schema.js';
import { chatUsage } from './usage.js';

/** One chunk's JSON, checked against the schema. */
function readChunk(data: string): ChatChunk {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw unreadableChunk(`not JSON: ${data.slice(0, 200)}`);
  }
  return parseProviderEvent(chatChunkSchema, json);
}

export function createChatStreamDecoder(): StreamDecoder {
  let started = false;
  let finished = false;
  let done = false;
  /** The provider's tool-call index (or id, for servers that send none) → ours, numbered from 0. */
  const calls = new Map<string, number>();
  const open = new Set<number>();
  let lastKey: string | undefined;
  const closeCalls = (): CanonicalEvent[] => {
    const events: CanonicalEvent[] = [...open].map((index) => ({ type: 'tool_call_end', index }));
    open.clear();
    return events;
  };
  const startEvent = (chunk: Pick<ChatChunk, 'id' | 'model'>): CanonicalEvent[] => {
    if (started) return [];
    started = true;
    return [{ type: 'start', ...(chunk.id ? { id: chunk.id } : {}), ...(chunk.model ? { model: chunk.model } : {}) }];
  };

  function toolCallEvents(deltas: readonly ChatToolCallDelta[]): CanonicalEvent[] {
    const events: CanonicalEvent[] = [];
    for (const delta of deltas) {
      const id = delta.id;
      const key = typeof delta.index === 'number' ? `#${delta.index}` : id ? `id:${id}` : (lastKey ?? '#0');
      lastKey = key;
      let index = calls.get(key);
      if (index === undefined) {
        index = calls.size;
        calls.set(key, index);
        open.add(index);
        events.push({ type: 'tool_call_start', index, id: id || newToolCallId(), name: delta.function?.name ?? '' });
      }
      const args = delta.function?.arguments;
      if (args) events.push({ type: 'tool_call_delta', index, arguments: args });
    }
    return events;
  }

  return {
    framing: 'sse',
    onEvent(event): CanonicalEvent[] {
      if (event.kind !== 'sse') return [];
      const data = event.data.trim();
      if (data === '[DONE]') {
        done = true;
        return [];
      }
      const chunk = readChunk(data);
      if (chunk.error !== undefined && chunk.error !== null) throw providerError(chunk.error);
      const events = startEvent(chunk);
      const choice = firstChoice(chunk.choices);
      let finish: FinishReason | undefined;
      if (choice) {
        const delta = choice.delta;
        const reasoning = delta?.reasoning_content || delta?.reasoning;
        if (reasoning) events.push({ type: 'reasoning', text: reasoning });
        if (delta?.content) events.push({ type: 'text', text: delta.content });
        if (delta?.tool_calls) events.push(...toolCallEvents(delta.tool_calls));
        const tokens = chatTokenLogprobs(choice.logprobs);
        if (tokens.length) events.push({ type: 'logprobs', tokens });
        finish = finished ? undefined : mapChatFinishReason(choice.finish_reason);
      }
      const usage = chatUsage(chunk.usage);
      if (usage) events.push({ type: 'usage', usage });
      if (finish) {
        finished = true;
        events.push(...closeCalls(), { type: 'finish', reason: finish });
      }
      return events;
    },
    onEnd(): CanonicalEvent[] {
      if (!finished && !done) throw new ProviderStreamError('The provider stream ended before a finish_reason', 'api_error', 'stream_incomplete');
      const events = [...startEvent({}), ...closeCalls()];
      // `[DONE]` with no finish reason (some local servers): the answer ended as a plain stop.
      if (!finished) events.push({ type: 'finish', reason: calls.size ? 'tool_calls' : 'stop' });
      finished = true;
      return events;
    },
  };
}
