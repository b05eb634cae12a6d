// Canonical events → Gemini's stream, for Gemini clients: SSE `data:` events (`alt=sse`) or the elements of
// one JSON array written piece by piece (without `alt=sse`).
import type { GatewayError } from '../../core/errors.js';
import type { CanonicalEvent, CanonicalRequest, FinishReason, StreamEncoder, Usage } from '../canonical.js';
import { argsOf, GEMINI_FINISH, logprobsResultOf } from './encode-response.js';
import { geminiErrorBody } from './errors.js';
import { usageMetadataOf } from './usage.js';

type Json = Record<string, unknown>;

interface ArrayState {
  opened: boolean;
}
const arrays = new WeakMap<CanonicalRequest, ArrayState>();

/**
 * Writes GenerateContentResponse fragments as they come: SSE `data:` events, or the elements of one JSON
 * array. Text and thinking go out as they arrive; a function call goes out whole once its arguments are
 * complete (Gemini's calls are never split); the last fragment carries finishReason and usageMetadata.
 */
export function createStreamEncoder(request: CanonicalRequest, fanOut?: { index: number; of: number }): StreamEncoder {
  const asArray = request.streamFraming === 'json-array';
  const shared = arrays.get(request) ?? { opened: false };
  arrays.set(request, shared);
  const index = fanOut?.index ?? 0;
  let id = '';
  let model = request.model;
  let usage: Usage | undefined;
  let finish: FinishReason | null = null;
  const calls = new Map<number, { id: string; name: string; arguments: string }>();

  const frame = (fragment: Json): string => {
    const json = JSON.stringify(fragment);
    if (!asArray) return `data: ${json}\n\n`;
    const lead = shared.opened ? ',\r\n' : '[';
    shared.opened = true;
    return lead + json;
  };
  const fragment = (candidate: Json, withUsage = false): Json => ({
    candidates: [{ ...candidate, index }],
    ...(withUsage && usage ? { usageMetadata: usageMetadataOf(usage) } : {}),
    modelVersion: model,
    ...(id ? { responseId: id } : {}),
  });
  const parts = (list: Json[]): Json => ({ content: { role: 'model', parts: list } });
  const close = (): string => (asArray && !fanOut ? (shared.opened ? ']' : '[]') : '');

  return {
    onEvent(event: CanonicalEvent): string {
      switch (event.type) {
        case 'start':
          if (event.id) id = event.id;
          if (event.model) model = event.model;
          return '';
        case 'text':
          return event.text ? frame(fragment(parts([{ text: event.text }]))) : '';
        case 'reasoning':
          return event.text ? frame(fragment(parts([{ text: event.text, thought: true }]))) : '';
        case 'reasoning_signature':
          return frame(fragment(parts([{ thought: true, thoughtSignature: event.signature }])));
        case 'reasoning_encrypted':
          return '';
        case 'tool_call_start':
          calls.set(event.index, { id: event.id, name: event.name, arguments: '' });
          return '';
        case 'tool_call_delta': {
          const call = calls.get(event.index);
          if (call) call.arguments += event.arguments;
          return '';
        }
        case 'tool_call_end': {
          const call = calls.get(event.index);
          if (!call) return '';
          calls.delete(event.index);
          return frame(fragment(parts([{ functionCall: { id: call.id, name: call.name, args: argsOf(call.arguments) } }])));
        }
        case 'logprobs':
          return frame(fragment({ ...parts([]), logprobsResult: logprobsResultOf(event.tokens) }));
        case 'usage':
          usage = event.usage;
          return '';
        case 'finish':
          finish = event.reason;
          return '';
      }
    },
    onEnd(): string {
      // Calls the provider never closed still go out whole.
      let out = '';
      for (const call of calls.values()) out += frame(fragment(parts([{ functionCall: { id: call.id, name: call.name, args: argsOf(call.arguments) } }])));
      calls.clear();
      return out + frame(fragment({ ...parts([]), finishReason: GEMINI_FINISH[finish ?? 'stop'] }, true)) + close();
    },
    onError(error: GatewayError): string {
      const body = JSON.stringify(geminiErrorBody(error));
      if (!asArray) return `data: ${body}\n\n`;
      const lead = shared.opened ? ',\r\n' : '[';
      shared.opened = true;
      return `${lead}${body}]`;
    },
  };
}

/** Gemini's stream has no end marker of its own: after every part of a fanned-out stream, only the JSON array needs closing. */
export const fanOutTail = (request: CanonicalRequest): string => (request.streamFraming === 'json-array' ? (arrays.get(request)?.opened ? ']' : '[]') : '');
