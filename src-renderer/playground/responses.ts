// The Playground's Responses mode: an OpenAI Responses request (POST /v1/responses), sent the way Codex
// sends it, and its answer (a whole `response` object or typed SSE events) read into the same pieces the
// other modes show.
import type { CompletionPiece, Usage } from '../api/gateway-client';
import { count, record, type JsonObject as Json } from './json-fields';

/** Responses usage in the Playground's terms: input_tokens already include the cached ones. */
export function usageOfResponses(value: unknown): Usage | null {
  const usage = record(value);
  if (!usage) return null;
  const promptTokens = count(usage.input_tokens);
  const completionTokens = count(usage.output_tokens);
  const total = count(usage.total_tokens);
  return { promptTokens, completionTokens, totalTokens: total ?? (promptTokens !== null && completionTokens !== null ? promptTokens + completionTokens : null) };
}

/** How a response ended, as the Output panel names it: `completed`, or why it is incomplete. */
function endOf(response: Json): string | null {
  if (response.status === 'incomplete') {
    const reason = record(response.incomplete_details)?.reason;
    return typeof reason === 'string' ? reason : 'incomplete';
  }
  return typeof response.status === 'string' && response.status !== 'in_progress' && response.status !== 'queued' ? response.status : null;
}

/** The text of a response's message items; reasoning, function calls and refusals are not text. */
function outputText(response: Json): string {
  const items = Array.isArray(response.output) ? response.output : [];
  let text = '';
  for (const item of items) {
    const message = record(item);
    if (message?.type !== 'message' || !Array.isArray(message.content)) continue;
    for (const part of message.content) {
      const content = record(part);
      if (content?.type === 'output_text' && typeof content.text === 'string') text += content.text;
    }
  }
  return text;
}

const NOTHING: CompletionPiece = { choices: [], usage: null, error: null };

function piece(text: string, finishReason: string | null, usage: Usage | null): CompletionPiece {
  return { choices: [{ index: 0, text, finishReason, tokens: [] }], usage, error: null };
}

/**
 * Reads one Responses object: a whole `response` (not streamed), an SSE event's data
 * (`response.output_text.delta`, `response.completed` / `.incomplete` / `.failed`, `error` …), or an
 * error body. A stream's text comes from its deltas only: the final event repeats it in full.
 */
export function readResponsesPiece(value: unknown): CompletionPiece {
  const object = record(value);
  if (!object) return NOTHING;
  const error = record(object.error);
  if (object.type === 'error') return { choices: [], usage: null, error: typeof object.message === 'string' ? object.message : typeof error?.message === 'string' ? error.message : 'The stream reported an error' };
  if (object.object === 'response') {
    if (object.status === 'failed') return { choices: [], usage: usageOfResponses(object.usage), error: typeof error?.message === 'string' ? error.message : 'The response failed' };
    return piece(outputText(object), endOf(object), usageOfResponses(object.usage));
  }
  if (error && typeof object.type !== 'string') return { choices: [], usage: null, error: typeof error.message === 'string' ? error.message : 'The request failed' };
  switch (object.type) {
    case 'response.output_text.delta':
      return typeof object.delta === 'string' ? piece(object.delta, null, null) : NOTHING;
    case 'response.completed':
    case 'response.incomplete': {
      const response = record(object.response) ?? {};
      return piece('', endOf(response), usageOfResponses(response.usage));
    }
    case 'response.failed': {
      const response = record(object.response) ?? {};
      const message = record(response.error)?.message;
      return { choices: [], usage: usageOfResponses(response.usage), error: typeof message === 'string' ? message : 'The response failed' };
    }
    default:
      return NOTHING;
  }
}
