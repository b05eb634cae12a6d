// ConverseStream's AWS event-stream frames → canonical events, frame by frame.
import type { CanonicalEvent, CanonicalRequest, FinishReason, StreamDecoder, UpstreamEvent } from '../canonical.js';
import { ProviderStreamError } from '../../core/provider-stream-error.js';
import { parseProviderEvent } from '../provider-schema.js';
import { errorFrameError, exceptionError, notJson } from './errors.js';
import { contentBlockDelta, contentBlockStart, contentBlockStop, messageStop, streamMetadata } from './schema.js';
import { answerId, mapStopReason } from './stop-reason.js';
import { usageOf } from './usage.js';

const PROVIDER = 'bedrock';

function payloadJson(payload: Uint8Array): unknown {
  if (payload.length === 0) return {};
  try {
    return JSON.parse(Buffer.from(payload).toString('utf8'));
  } catch {
    throw notJson(PROVIDER);
  }
}

/**
 * Reads ConverseStream's frames: messageStart, then per content block contentBlockStart (a tool use's id
 * and name) / contentBlockDelta (text, tool input as JSON text, reasoning) / contentBlockStop, then
 * messageStop (the stop reason) and metadata (usage). Exception frames end the stream with an error.
 * Payloads may carry a padding field `p`; the schemas pass it through unread.
 */
export function createStreamDecoder(request: CanonicalRequest): StreamDecoder {
  let started = false;
  /** messageStop's reason, until the metadata frame right after it brings the usage. */
  let stopReason: FinishReason | undefined;
  let finished = false;
  const finish = (): CanonicalEvent[] => {
    if (stopReason === undefined || finished) return [];
    finished = true;
    return [{ type: 'finish', reason: stopReason }];
  };
  /** Content block index → tool call index, for the blocks that are tool uses. */
  const toolBlocks = new Map<number, number>();
  let toolCount = 0;
  const start = (): CanonicalEvent[] => {
    if (started) return [];
    started = true;
    return [{ type: 'start', id: answerId(), model: request.model }];
  };
  return {
    framing: 'aws-eventstream',
    onEvent(event: UpstreamEvent): CanonicalEvent[] {
      if (event.kind !== 'frame') return [];
      const messageType = event.headers[':message-type'];
      if (messageType === 'exception') throw exceptionError(String(event.headers[':exception-type'] ?? 'exception'), payloadJson(event.payload));
      if (messageType === 'error') throw errorFrameError(event.headers);
      const payload = payloadJson(event.payload);
      switch (event.headers[':event-type']) {
        case 'messageStart':
          return start();
        case 'contentBlockStart': {
          const { contentBlockIndex, start: blockStart } = parseProviderEvent(contentBlockStart, payload);
          const toolUse = blockStart?.toolUse;
          if (toolUse === undefined) return start();
          const index = toolCount++;
          toolBlocks.set(contentBlockIndex, index);
          return [...start(), { type: 'tool_call_start', index, id: toolUse.toolUseId, name: toolUse.name }];
        }
        case 'contentBlockDelta': {
          const { contentBlockIndex, delta } = parseProviderEvent(contentBlockDelta, payload);
          const events = start();
          if (delta.text) events.push({ type: 'text', text: delta.text });
          const toolIndex = toolBlocks.get(contentBlockIndex);
          if (delta.toolUse?.input && toolIndex !== undefined) events.push({ type: 'tool_call_delta', index: toolIndex, arguments: delta.toolUse.input });
          const reasoning = delta.reasoningContent;
          if (reasoning) {
            if (reasoning.text) events.push({ type: 'reasoning', text: reasoning.text });
            if (reasoning.signature) events.push({ type: 'reasoning_signature', signature: reasoning.signature });
            if (reasoning.redactedContent) events.push({ type: 'reasoning_encrypted', data: reasoning.redactedContent });
          }
          return events;
        }
        case 'contentBlockStop': {
          const { contentBlockIndex } = parseProviderEvent(contentBlockStop, payload);
          const toolIndex = toolBlocks.get(contentBlockIndex);
          if (toolIndex === undefined) return [];
          toolBlocks.delete(contentBlockIndex);
          return [{ type: 'tool_call_end', index: toolIndex }];
        }
        case 'messageStop':
          // The finish waits for the metadata frame that follows at once, so that usage comes before it.
          stopReason = mapStopReason(parseProviderEvent(messageStop, payload).stopReason);
          return start();
        case 'metadata': {
          const { usage } = parseProviderEvent(streamMetadata, payload);
          return [...(usage === undefined ? [] : [{ type: 'usage' as const, usage: usageOf(usage) }]), ...finish()];
        }
        default:
          // Event types added later.
          return [];
      }
    },
    onEnd(): CanonicalEvent[] {
      if (stopReason === undefined) throw new ProviderStreamError('The provider stream ended before messageStop', 'api_error', 'stream_incomplete');
      return finish();
    },
  };
}
