// Messages SSE events (message_start … message_stop) → canonical events, as each arrives.
import { asRecord, type CanonicalEvent, type CanonicalRequest, type StreamDecoder, type UpstreamEvent } from '../canonical.js';
import { ProviderStreamError } from '../../core/provider-stream-error.js';
import { parseProviderEvent } from '../provider-schema.js';
import { notJson, providerError } from './errors.js';
import { contentBlockDelta, contentBlockStart, contentBlockStop, messageDelta, messageStart, streamError } from './schema.js';
import { finishEvent } from './stop-reasons.js';
import { canonicalUsage, readUsage, type MessagesUsage } from './usage.js';

export function createMessagesStreamDecoder(request: CanonicalRequest): StreamDecoder {
  void request;
  const usage: MessagesUsage = { input: 0, output: 0 };
  let stopped = false;
  /** Content block index → tool call index (tool calls are numbered from 0). */
  const toolIndex = new Map<number, number>();
  return {
    framing: 'sse',
    onEvent(event: UpstreamEvent): CanonicalEvent[] {
      if (event.kind !== 'sse') return [];
      let data: unknown;
      try {
        data = JSON.parse(event.data);
      } catch {
        throw notJson(event.data);
      }
      // Each event names its type in its data, and in the SSE `event:` line a proxy may have kept alone.
      const type = asRecord(data).type ?? event.event;
      switch (type) {
        case 'message_start': {
          const { message } = parseProviderEvent(messageStart, data);
          const out: CanonicalEvent[] = [{ type: 'start', ...(message.id ? { id: message.id } : {}), ...(message.model ? { model: message.model } : {}) }];
          if (readUsage(message.usage, usage)) out.push({ type: 'usage', usage: canonicalUsage(usage) });
          return out;
        }
        case 'content_block_start': {
          const { index: blockIndex, content_block: block } = parseProviderEvent(contentBlockStart, data);
          if (block.type === 'text') return block.text ? [{ type: 'text', text: block.text }] : [];
          if (block.type === 'thinking') {
            const out: CanonicalEvent[] = [];
            if (block.thinking) out.push({ type: 'reasoning', text: block.thinking });
            if (block.signature) out.push({ type: 'reasoning_signature', signature: block.signature });
            return out;
          }
          if (block.type === 'redacted_thinking') return [{ type: 'reasoning_encrypted', data: block.data ?? '' }];
          if (block.type === 'tool_use') {
            const index = toolIndex.size;
            toolIndex.set(blockIndex, index);
            const out: CanonicalEvent[] = [{ type: 'tool_call_start', index, id: block.id ?? '', name: block.name ?? '' }];
            if (block.input && Object.keys(block.input).length) out.push({ type: 'tool_call_delta', index, arguments: JSON.stringify(block.input) });
            return out;
          }
          return [];
        }
        case 'content_block_delta': {
          const { index: blockIndex, delta } = parseProviderEvent(contentBlockDelta, data);
          switch (delta.type) {
            case 'text_delta':
              return delta.text ? [{ type: 'text', text: delta.text }] : [];
            case 'thinking_delta':
              return delta.thinking ? [{ type: 'reasoning', text: delta.thinking }] : [];
            case 'signature_delta':
              return delta.signature ? [{ type: 'reasoning_signature', signature: delta.signature }] : [];
            case 'input_json_delta': {
              const index = toolIndex.get(blockIndex);
              return index !== undefined && delta.partial_json ? [{ type: 'tool_call_delta', index, arguments: delta.partial_json }] : [];
            }
            // citations_delta and newer kinds have no canonical place.
            default:
              return [];
          }
        }
        case 'content_block_stop': {
          const index = toolIndex.get(parseProviderEvent(contentBlockStop, data).index);
          return index !== undefined ? [{ type: 'tool_call_end', index }] : [];
        }
        case 'message_delta': {
          const { delta, usage: figures } = parseProviderEvent(messageDelta, data);
          const out = finishEvent(delta);
          if (readUsage(figures, usage)) out.push({ type: 'usage', usage: canonicalUsage(usage) });
          return out;
        }
        case 'message_stop':
          stopped = true;
          return [];
        case 'error':
          throw providerError(parseProviderEvent(streamError, data).error);
        // ping and event types added later.
        default:
          return [];
      }
    },
    onEnd(): CanonicalEvent[] {
      if (!stopped) throw new ProviderStreamError('The provider stream ended before message_stop', 'api_error', 'stream_incomplete');
      return [];
    },
  };
}
