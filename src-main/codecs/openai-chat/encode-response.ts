// Canonical answers as OpenAI writes them for a client: the whole `chat.completion` or `text_completion`, and
// the pieces a chunk is made of (shared with the stream encoder and with the legacy Completions dialect).
import { randomUUID } from 'node:crypto';
import type { CanonicalAnswer, FinishReason, TokenLogprob } from '../canonical.js';
import { openaiUsage } from './usage.js';

export type OpenAIShape = 'chat' | 'completions';

/** What every answer and chunk of one call shares. */
export interface AnswerIdentity {
  id: string;
  created: number;
  model: string;
}

export const nowInSeconds = (): number => Math.floor(Date.now() / 1000);

export const objectName = (shape: OpenAIShape, chunk: boolean): string => (shape === 'chat' ? (chunk ? 'chat.completion.chunk' : 'chat.completion') : 'text_completion');

export const newAnswerId = (shape: OpenAIShape): string => `${shape === 'chat' ? 'chatcmpl' : 'cmpl'}-${randomUUID().replace(/-/g, '').slice(0, 24)}`;

/** The finish reasons a Chat or Completions client knows. */
export function openaiFinishReason(reason: FinishReason | null | undefined, shape: OpenAIShape = 'chat'): 'stop' | 'length' | 'tool_calls' | 'content_filter' | null {
  switch (reason) {
    case null:
    case undefined:
      return null;
    case 'tool_calls':
      // A text completion has no tool calls to point at (its finish reasons are stop, length, content_filter).
      return shape === 'chat' ? reason : 'stop';
    case 'length':
    case 'content_filter':
      return reason;
    // stop, stop_sequence, pause (a server tool paused the turn), error.
    default:
      return 'stop';
  }
}

const utf8Bytes = (token: string): number[] => Array.from(new TextEncoder().encode(token));

/**
 * OpenAI's log probabilities: chat `{content:[{token, logprob, bytes, top_logprobs}], refusal}`; completions
 * `{tokens, token_logprobs, top_logprobs, text_offset}`, offsets counted on from `startOffset` in a stream.
 */
export function openaiLogprobs(shape: OpenAIShape, tokens: readonly TokenLogprob[], startOffset = 0): object {
  if (shape === 'chat') {
    return {
      content: tokens.map((token) => ({
        token: token.token,
        logprob: token.logprob,
        bytes: utf8Bytes(token.token),
        top_logprobs: (token.top ?? []).map((alternative) => ({ token: alternative.token, logprob: alternative.logprob, bytes: utf8Bytes(alternative.token) })),
      })),
      refusal: null,
    };
  }
  let offset = startOffset;
  return {
    tokens: tokens.map((token) => token.token),
    token_logprobs: tokens.map((token) => token.logprob),
    top_logprobs: tokens.map((token) => Object.fromEntries((token.top ?? []).map((alternative) => [alternative.token, alternative.logprob]))),
    text_offset: tokens.map((token) => {
      const at = offset;
      offset += token.token.length;
      return at;
    }),
  };
}

/** A whole answer: `chat.completion` or `text_completion`. */
export function encodeOpenAIAnswer(shape: OpenAIShape, answer: CanonicalAnswer): object {
  const text = answer.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const logprobs = answer.logprobs?.length ? openaiLogprobs(shape, answer.logprobs) : null;
  const finishReason = openaiFinishReason(answer.finishReason, shape);
  let choice: object;
  if (shape === 'chat') {
    const toolCalls = answer.content.flatMap((part) => (part.type === 'tool_call' ? [{ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } }] : []));
    // OpenAI leaves `content` null when the assistant only calls tools.
    const message = toolCalls.length ? { role: 'assistant', content: text === '' ? null : text, refusal: null, tool_calls: toolCalls } : { role: 'assistant', content: text, refusal: null };
    choice = { index: 0, message, logprobs, finish_reason: finishReason };
  } else {
    choice = { index: 0, text, logprobs, finish_reason: finishReason };
  }
  return {
    id: answer.id,
    object: objectName(shape, false),
    created: nowInSeconds(),
    model: answer.model,
    choices: [choice],
    ...(answer.usage ? { usage: openaiUsage(answer.usage) } : {}),
  };
}
