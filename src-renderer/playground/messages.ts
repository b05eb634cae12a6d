// The Playground's Messages mode: an Anthropic Messages request (POST /v1/messages), sent the way
// Claude Code sends it, and its answer (JSON message or typed SSE events) read into the same pieces the
// other modes show.
import type { CompletionPiece, Usage } from '../api/gateway-client';
import { count, record } from './json-fields';

/** The version Claude Code sends; the gateway forwards the client's version to Anthropic-format providers. */
export const ANTHROPIC_VERSION = '2023-06-01';


/**
 * Anthropic's usage in the Playground's terms: the prompt counts every input token, cache writes and
 * reads included. Fields the object does not carry stay null, so a stream's message_delta (output only)
 * can be merged over its message_start (input).
 */
export function usageOfAnthropic(value: unknown): Usage | null {
  const usage = record(value);
  if (!usage) return null;
  const parts = [count(usage.input_tokens), count(usage.cache_creation_input_tokens), count(usage.cache_read_input_tokens)].filter((part): part is number => part !== null);
  const promptTokens = parts.length ? parts.reduce((total, part) => total + part, 0) : null;
  const completionTokens = count(usage.output_tokens);
  return { promptTokens, completionTokens, totalTokens: promptTokens !== null && completionTokens !== null ? promptTokens + completionTokens : null };
}

const NOTHING: CompletionPiece = { choices: [], usage: null, error: null };

function textPiece(text: string, finishReason: string | null = null): CompletionPiece {
  return { choices: [{ index: 0, text, finishReason, tokens: [] }], usage: null, error: null };
}

/**
 * Reads one Messages object: a whole `message` (not streamed), an SSE event's data (`message_start`,
 * `content_block_start`, `content_block_delta` with a `text_delta`, `message_delta`, `error` …), or an
 * error body. Thinking, tool input and signatures are not text and are left out.
 */
export function readMessagesPiece(value: unknown): CompletionPiece {
  const object = record(value);
  if (!object) return NOTHING;
  const error = record(object.error);
  if (object.type === 'error' || error) return { choices: [], usage: null, error: typeof error?.message === 'string' ? error.message : 'The stream reported an error' };
  switch (object.type) {
    case 'message': {
      const blocks = Array.isArray(object.content) ? object.content : [];
      const text = blocks.map((block) => (record(block)?.type === 'text' && typeof record(block)?.text === 'string' ? (record(block)!.text as string) : '')).join('');
      const piece = textPiece(text, typeof object.stop_reason === 'string' ? object.stop_reason : null);
      return { ...piece, usage: usageOfAnthropic(object.usage) };
    }
    case 'message_start':
      return { choices: [], usage: usageOfAnthropic(record(object.message)?.usage), error: null };
    case 'content_block_start': {
      const block = record(object.content_block);
      return block?.type === 'text' && typeof block.text === 'string' && block.text ? textPiece(block.text) : NOTHING;
    }
    case 'content_block_delta': {
      const delta = record(object.delta);
      return delta?.type === 'text_delta' && typeof delta.text === 'string' ? textPiece(delta.text) : NOTHING;
    }
    case 'message_delta': {
      const stopReason = record(object.delta)?.stop_reason;
      const piece = typeof stopReason === 'string' ? textPiece('', stopReason) : NOTHING;
      return { ...piece, usage: usageOfAnthropic(object.usage) };
    }
    default:
      return NOTHING;
  }
}
