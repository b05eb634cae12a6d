// Canonical events → the Messages SSE stream (message_start … message_stop), block by block, for Messages clients.
import type { GatewayError } from '../../core/errors.js';
import type { CanonicalEvent, CanonicalRequest, FinishReason, StreamEncoder, Usage } from '../canonical.js';
import { errorTypeOf } from './errors.js';
import { fallbackId, messageId } from './format.js';
import { STOP_REASONS } from './stop-reasons.js';
import { messagesUsageOf } from './usage.js';

type Json = Record<string, unknown>;

const sseEvent = (type: string, data: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

type OpenBlock = { kind: 'text' | 'thinking'; index: number; signed: boolean } | { kind: 'tool'; index: number; tool: number };

/** Writes the Messages SSE stream (message_start … message_stop) from canonical events, block by block. */
export function createMessagesStreamEncoder(request: CanonicalRequest): StreamEncoder {
  let started = false;
  let startUsageKnown = false;
  let open: OpenBlock | undefined;
  let nextBlock = 0;
  const toolBlocks = new Map<number, number>();
  let usage: Usage | undefined;
  let finish: { reason: FinishReason; stopSequence?: string } | undefined;

  const start = (id?: string, model?: string): string => {
    if (started) return '';
    started = true;
    startUsageKnown = usage !== undefined;
    const message = {
      id: messageId(id ?? fallbackId()),
      type: 'message',
      role: 'assistant',
      model: model ?? request.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...messagesUsageOf(usage), output_tokens: usage?.outputTokens ?? 0 },
    };
    return sseEvent('message_start', { message });
  };
  const close = (): string => {
    if (!open) return '';
    const index = open.index;
    open = undefined;
    return sseEvent('content_block_stop', { index });
  };
  const openBlock = (block: OpenBlock, contentBlock: Json): string => {
    const out = close() + sseEvent('content_block_start', { index: block.index, content_block: contentBlock });
    open = block;
    return out;
  };
  const openThinking = (): string => {
    if (open?.kind === 'thinking' && !open.signed) return '';
    return openBlock({ kind: 'thinking', index: nextBlock++, signed: false }, { type: 'thinking', thinking: '', signature: '' });
  };

  return {
    onEvent(event: CanonicalEvent): string {
      if (event.type === 'start') return start(event.id, event.model);
      if (event.type === 'usage') {
        usage = event.usage;
        return '';
      }
      if (event.type === 'finish') {
        finish = { reason: event.reason, ...(event.stopSequence !== undefined ? { stopSequence: event.stopSequence } : {}) };
        return '';
      }
      if (event.type === 'logprobs') return '';
      let out = start();
      switch (event.type) {
        case 'text':
          if (!event.text) return out;
          if (open?.kind !== 'text') out += openBlock({ kind: 'text', index: nextBlock++, signed: false }, { type: 'text', text: '' });
          return out + sseEvent('content_block_delta', { index: open!.index, delta: { type: 'text_delta', text: event.text } });
        case 'reasoning':
          if (!event.text) return out;
          out += openThinking();
          return out + sseEvent('content_block_delta', { index: open!.index, delta: { type: 'thinking_delta', thinking: event.text } });
        case 'reasoning_signature': {
          out += openThinking();
          const block = open!;
          if (block.kind === 'thinking') block.signed = true;
          return out + sseEvent('content_block_delta', { index: block.index, delta: { type: 'signature_delta', signature: event.signature } });
        }
        case 'reasoning_encrypted': {
          const index = nextBlock++;
          out += close();
          return out + sseEvent('content_block_start', { index, content_block: { type: 'redacted_thinking', data: event.data } }) + sseEvent('content_block_stop', { index });
        }
        case 'tool_call_start': {
          const index = nextBlock++;
          toolBlocks.set(event.index, index);
          return out + openBlock({ kind: 'tool', index, tool: event.index }, { type: 'tool_use', id: event.id, name: event.name, input: {} });
        }
        case 'tool_call_delta': {
          const index = toolBlocks.get(event.index);
          if (index === undefined || !event.arguments) return out;
          return out + sseEvent('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: event.arguments } });
        }
        case 'tool_call_end':
          return open?.kind === 'tool' && open.tool === event.index ? out + close() : out;
      }
    },
    onEnd(): string {
      let out = start() + close();
      const usageOut: Json = { output_tokens: usage?.outputTokens ?? 0 };
      if (usage && !startUsageKnown) Object.assign(usageOut, messagesUsageOf(usage));
      const reason = finish ?? { reason: 'stop' as const };
      out += sseEvent('message_delta', { delta: { stop_reason: STOP_REASONS[reason.reason], stop_sequence: reason.stopSequence ?? null }, usage: usageOut });
      return out + sseEvent('message_stop', {});
    },
    onError(error: GatewayError): string {
      return sseEvent('error', { error: { type: errorTypeOf(error), message: error.message } });
    },
  };
}
