// A Responses provider's stream → canonical events, one event in, canonical events out as soon as they are
// known. Each event the codec reads is checked by its type's schema (schema.ts); others pass unread.
import type { z } from 'zod';
import { parseProviderEvent } from '../provider-schema.js';
import type { CanonicalEvent, CanonicalRequest, StreamDecoder, UpstreamEvent } from '../canonical.js';
import { ProviderStreamError } from '../../core/provider-stream-error.js';
import { finishOf, readItem, startEvent, summaryText, tokenLogprobs, toolNameOf } from './decode-response.js';
import { responseFailure, streamErrorEvent, unreadableEvent } from './errors.js';
import { STREAM_EVENT_SCHEMAS, type FunctionCallItem, type StreamEventSchemas } from './schema.js';
import { responsesUsage } from './usage.js';

type EventOf<Type extends keyof StreamEventSchemas> = z.infer<StreamEventSchemas[Type]>;
type ReadEvent = { [Type in keyof StreamEventSchemas]: { type: Type; data: EventOf<Type> } }[keyof StreamEventSchemas];

/** One event's JSON, checked against its type's schema; undefined for a type the codec does not read. */
function readEvent(event: Extract<UpstreamEvent, { kind: 'sse' }>): ReadEvent | undefined {
  let json: unknown;
  try {
    json = JSON.parse(event.data);
  } catch {
    throw unreadableEvent();
  }
  const record = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
  const type = typeof record.type === 'string' ? record.type : event.event;
  if (type === undefined || !Object.hasOwn(STREAM_EVENT_SCHEMAS, type)) return undefined;
  return { type, data: parseProviderEvent(STREAM_EVENT_SCHEMAS[type as keyof StreamEventSchemas], record) } as ReadEvent;
}

class ResponsesStreamDecoder implements StreamDecoder {
  readonly framing = 'sse' as const;
  private started = false;
  private ended = false;
  private toolCount = 0;
  private refusal = false;
  /** output_index to the tool call's canonical index, whether arguments arrived as deltas, and whether it ended. */
  private readonly calls = new Map<number, { index: number; deltas: boolean; ended: boolean }>();
  /** output_index of message and reasoning items whose text arrived as deltas. */
  private readonly streamed = new Set<number>();
  /** Reasoning items (output_index) whose summary is under way, and the last summary part seen in each. */
  private readonly summaryParts = new Map<number, number>();

  constructor(private readonly request: CanonicalRequest) {}

  onEvent(event: UpstreamEvent): CanonicalEvent[] {
    if (event.kind !== 'sse' || event.data === '' || event.data === '[DONE]') return [];
    const read = readEvent(event);
    if (!read) return []; // content_part.*, *.done, web_search_call.*, keepalive … carry nothing new for canonical
    const out: CanonicalEvent[] = [];
    const outputIndex = 'output_index' in read.data && typeof read.data.output_index === 'number' ? read.data.output_index : -1;
    switch (read.type) {
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued':
        if (!this.started) {
          this.started = true;
          out.push(startEvent(read.data.response));
        }
        break;
      case 'response.output_item.added': {
        const item = readItem(read.data.item, parseProviderEvent, ['item']);
        if (item?.type === 'function_call') this.startCall(outputIndex, item, out);
        break;
      }
      case 'response.output_text.delta': {
        const delta = read.data.delta ?? '';
        this.streamed.add(outputIndex);
        if (delta) out.push({ type: 'text', text: delta });
        if (this.request.logprobs && read.data.logprobs?.length) out.push({ type: 'logprobs', tokens: tokenLogprobs(read.data.logprobs) });
        break;
      }
      case 'response.refusal.delta': {
        this.refusal = true;
        this.streamed.add(outputIndex);
        const delta = read.data.delta ?? '';
        if (delta) out.push({ type: 'text', text: delta });
        break;
      }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta': {
        const delta = read.data.delta ?? '';
        const part = read.data.summary_index ?? read.data.content_index ?? 0;
        const last = this.summaryParts.get(outputIndex);
        this.streamed.add(outputIndex);
        this.summaryParts.set(outputIndex, part);
        // A new summary part of the same item reads as a new paragraph.
        if (last !== undefined && last !== part && delta) out.push({ type: 'reasoning', text: '\n\n' });
        if (delta) out.push({ type: 'reasoning', text: delta });
        break;
      }
      case 'response.function_call_arguments.delta': {
        const call = this.calls.get(outputIndex);
        const delta = read.data.delta ?? '';
        if (call && delta) {
          call.deltas = true;
          out.push({ type: 'tool_call_delta', index: call.index, arguments: delta });
        }
        break;
      }
      case 'response.output_item.done':
        this.itemDone(outputIndex, read.data.item, out);
        break;
      case 'response.completed':
      case 'response.incomplete': {
        const response = read.data.response;
        if (!this.started) {
          this.started = true;
          out.push(startEvent(response));
        }
        for (const call of this.calls.values()) {
          if (!call.ended) {
            call.ended = true;
            out.push({ type: 'tool_call_end', index: call.index });
          }
        }
        const usage = responsesUsage(response?.usage);
        if (usage) out.push({ type: 'usage', usage });
        const status = read.type === 'response.incomplete' ? 'incomplete' : response?.status;
        out.push({ type: 'finish', reason: finishOf({ status, incomplete_details: response?.incomplete_details }, this.toolCount > 0, this.refusal) });
        this.ended = true;
        break;
      }
      case 'response.failed':
        throw responseFailure(read.data.response ?? {});
      case 'error':
        throw streamErrorEvent(read.data.error ?? read.data);
    }
    return out;
  }

  onEnd(): CanonicalEvent[] {
    if (!this.ended) throw new ProviderStreamError('The provider ended the stream before response.completed', 'api_error', 'stream_incomplete');
    return [];
  }

  private startCall(outputIndex: number, item: FunctionCallItem, out: CanonicalEvent[]): { index: number; deltas: boolean; ended: boolean } {
    const call = { index: this.toolCount++, deltas: false, ended: false };
    this.calls.set(outputIndex, call);
    out.push({ type: 'tool_call_start', index: call.index, id: item.call_id ?? item.id ?? '', name: toolNameOf(item) });
    return call;
  }

  /** An item's final form: what did not arrive as deltas (some servers send only this) comes from it. */
  private itemDone(outputIndex: number, raw: { type: string }, out: CanonicalEvent[]): void {
    const item = readItem(raw, parseProviderEvent, ['item']);
    if (item?.type === 'function_call') {
      const call = this.calls.get(outputIndex) ?? this.startCall(outputIndex, item, out);
      if (!call.deltas && item.arguments) out.push({ type: 'tool_call_delta', index: call.index, arguments: item.arguments });
      call.deltas = true;
      if (!call.ended) {
        call.ended = true;
        out.push({ type: 'tool_call_end', index: call.index });
      }
    } else if (item?.type === 'message' && !this.streamed.has(outputIndex)) {
      for (const part of item.content ?? []) {
        const text = part.type === 'output_text' ? part.text : part.type === 'refusal' ? part.refusal : undefined;
        if (part.type === 'refusal') this.refusal = true;
        if (text) out.push({ type: 'text', text });
      }
    } else if (item?.type === 'reasoning') {
      if (!this.streamed.has(outputIndex)) {
        const text = summaryText(item);
        if (text) out.push({ type: 'reasoning', text });
      }
      if (item.encrypted_content) out.push({ type: 'reasoning_encrypted', data: item.encrypted_content });
    }
  }
}

export const createResponsesStreamDecoder = (request: CanonicalRequest): StreamDecoder => new ResponsesStreamDecoder(request);
