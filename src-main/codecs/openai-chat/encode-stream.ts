// Canonical events → OpenAI chunks for a client, as they come (Chat's `chat.completion.chunk`, Completions'
// `text_completion`), the usage chunk and `[DONE]` at the end.
import type { GatewayError } from '../../core/errors.js';
import type { CanonicalEvent, CanonicalRequest, StreamEncoder, Usage } from '../canonical.js';
import { newAnswerId, nowInSeconds, objectName, openaiFinishReason, openaiLogprobs, type AnswerIdentity, type OpenAIShape } from './encode-response.js';
import { openaiUsage } from './usage.js';

export interface ChunkContent {
  text?: string;
  /** The first chat chunk names the role, as OpenAI's does. */
  withRole?: boolean;
  finishReason?: string | null;
  logprobs?: object | null;
  /** Chat only: tool-call deltas, `[{index, id?, type?, function:{name?, arguments}}]`. */
  toolCalls?: readonly object[];
}

/**
 * One streamed chunk. With `include_usage`, OpenAI sends `usage: null` on every chunk but the last, which
 * carries the usage with `choices: []`.
 */
export function openaiChunk(shape: OpenAIShape, identity: AnswerIdentity, content: ChunkContent, includeUsage: boolean, index = 0): object {
  const finishReason = content.finishReason ?? null;
  let choice: object;
  if (shape === 'chat') {
    const delta: Record<string, unknown> = {};
    if (content.withRole) delta.role = 'assistant';
    if (content.text !== undefined) delta.content = content.text;
    if (content.toolCalls) delta.tool_calls = content.toolCalls;
    choice = { index, delta, logprobs: content.logprobs ?? null, finish_reason: finishReason };
  } else {
    choice = { index, text: content.text ?? '', logprobs: content.logprobs ?? null, finish_reason: finishReason };
  }
  return { id: identity.id, object: objectName(shape, true), created: identity.created, model: identity.model, choices: [choice], ...(includeUsage ? { usage: null } : {}) };
}

export function openaiUsageChunk(shape: OpenAIShape, identity: AnswerIdentity, usage: Usage): object {
  return { id: identity.id, object: objectName(shape, true), created: identity.created, model: identity.model, choices: [], usage: openaiUsage(usage) };
}

const sseData = (value: object): string => `data: ${JSON.stringify(value)}\n\n`;
export const SSE_DONE = 'data: [DONE]\n\n';

/**
 * Canonical events → OpenAI chunks, each written as it comes. Chat opens with the role chunk
 * (`{role:'assistant', content:''}`); text, tool-call starts and argument pieces follow; the finish reason
 * comes alone in an empty delta; at the end the usage chunk (`choices: []`, when asked for) and `[DONE]`.
 * Reasoning has no place in either shape and is left out, as before. With `fanOut` the choice is numbered
 * `fanOut.index` and the end is left to `openaiFanOutTail`.
 */
export function createOpenAIStreamEncoder(shape: OpenAIShape, request: CanonicalRequest, fanOut?: { index: number; of: number }): StreamEncoder {
  const withUsage = request.includeUsage === true;
  const choiceIndex = fanOut?.index ?? 0;
  let identity: AnswerIdentity | undefined;
  let roleSent = shape !== 'chat';
  let finished = false;
  let usage: Usage | undefined;
  /** Where the next token starts in the whole answer, for a completion's `text_offset`. */
  let textOffset = 0;
  const identityNow = (): AnswerIdentity => (identity ??= { id: newAnswerId(shape), created: nowInSeconds(), model: request.model });
  const chunk = (content: ChunkContent): string => {
    const withRole = !roleSent;
    roleSent = true;
    return sseData(openaiChunk(shape, identityNow(), { ...content, withRole, ...(withRole && content.text === undefined && !content.toolCalls ? { text: '' } : {}) }, withUsage, choiceIndex));
  };
  /**
   * A tool call that arrives whole (start, its arguments in one piece, end: Gemini's functionCall, a held
   * answer) goes out as one chunk carrying id, name and arguments, as OpenAI sends such a call. So a call's
   * start and first piece wait for the event after them: the call's end sends the one chunk; anything else
   * sends them as they came (the start with arguments '', then the piece) before that event.
   */
  let held: { start: Extract<CanonicalEvent, { type: 'tool_call_start' }>; args?: string } | undefined;
  const toolCallStart = (start: Extract<CanonicalEvent, { type: 'tool_call_start' }>, args: string): string =>
    chunk({ toolCalls: [{ index: start.index, id: start.id, type: 'function', function: { name: start.name, arguments: args } }] });
  const release = (): string => {
    if (!held) return '';
    const { start, args } = held;
    held = undefined;
    return toolCallStart(start, '') + (args ? chunk({ toolCalls: [{ index: start.index, function: { arguments: args } }] }) : '');
  };

  const write = (event: CanonicalEvent): string => {
    if (held && 'index' in event && event.index === held.start.index) {
      if (event.type === 'tool_call_delta' && held.args === undefined) {
        held.args = event.arguments;
        return '';
      }
      if (event.type === 'tool_call_end') {
        const { start, args } = held;
        held = undefined;
        return toolCallStart(start, args ?? '');
      }
    }
    const before = release();
    if (event.type === 'tool_call_start' && shape === 'chat') {
      held = { start: event };
      return before;
    }
    return before + writeNow(event);
  };

  const writeNow = (event: CanonicalEvent): string => {
    switch (event.type) {
      case 'start':
        identity ??= { id: event.id || newAnswerId(shape), created: nowInSeconds(), model: event.model || request.model };
        // A chat stream names the role at once; a text completion has nothing to say yet.
        return roleSent ? '' : chunk({ text: '' });
      case 'text':
        return event.text === '' ? '' : chunk({ text: event.text });
      case 'tool_call_delta':
        return shape === 'chat' && event.arguments !== '' ? chunk({ toolCalls: [{ index: event.index, function: { arguments: event.arguments } }] }) : '';
      case 'logprobs': {
        if (!event.tokens.length) return '';
        const logprobs = openaiLogprobs(shape, event.tokens, textOffset);
        for (const token of event.tokens) textOffset += token.token.length;
        return chunk({ logprobs, ...(shape === 'completions' ? { text: '' } : {}) });
      }
      case 'usage':
        usage = event.usage;
        return '';
      case 'finish':
        if (finished) return '';
        finished = true;
        return chunk({ finishReason: openaiFinishReason(event.reason, shape), ...(shape === 'completions' ? { text: '' } : {}) });
      // Reasoning, its signatures, a tool call's start in a completion and a tool call's end have no chunk of their own.
      default:
        return '';
    }
  };

  return {
    onEvent: write,
    onEnd(): string {
      const held = release();
      if (fanOut) return held;
      return held + (withUsage ? sseData(openaiUsageChunk(shape, identityNow(), usage ?? { inputTokens: 0, outputTokens: 0 })) : '') + SSE_DONE;
    },
    onError(error: GatewayError): string {
      // The contract's error shape; no [DONE] after it, so a client knows the answer failed.
      return release() + sseData(error.toBody());
    },
  };
}

/** The end of a fanned-out stream: one usage chunk summed over the n calls (when asked for), then `[DONE]`. */
export function openaiFanOutTail(shape: OpenAIShape, request: CanonicalRequest, usage: Usage | undefined): string {
  const usageChunk = request.includeUsage === true && usage ? sseData({ id: '', object: objectName(shape, true), created: nowInSeconds(), model: request.model, choices: [], usage: openaiUsage(usage) }) : '';
  return usageChunk + SSE_DONE;
}
