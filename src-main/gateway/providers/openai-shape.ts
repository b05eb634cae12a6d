// The OpenAI answer and chunk shapes that translating providers (Anthropic, Gemini, Vertex) produce,
// built in one place so `text_completion` and `chat.completion` look the same whichever provider spoke.
import type { Endpoint } from './types.js';

export type FinishReason = 'stop' | 'length' | 'content_filter' | 'tool_calls';

export interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** OpenAI reports cached prompt tokens here; they are also counted in `prompt_tokens`. */
  prompt_tokens_details?: { cached_tokens: number };
}

/** What every answer and chunk of one call shares. */
export interface AnswerIdentity {
  id: string;
  created: number;
  model: string;
}

export function usageOf(promptTokens: number, completionTokens: number, cachedTokens = 0): OpenAIUsage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    ...(cachedTokens > 0 ? { prompt_tokens_details: { cached_tokens: cachedTokens } } : {}),
  };
}

export const nowInSeconds = (): number => Math.floor(Date.now() / 1000);

/** OpenAI's log probabilities: `{tokens, token_logprobs, top_logprobs, text_offset}` for completions, `{content}` for chat. */
export type OpenAILogprobs = object | null;

/** A whole answer: `text_completion` for /v1/completions, `chat.completion` for chat. */
export function buildAnswer(
  endpoint: Endpoint,
  identity: AnswerIdentity,
  text: string,
  finishReason: FinishReason | null,
  usage: OpenAIUsage | undefined,
  logprobs: OpenAILogprobs = null,
  /** Chat only: `[{id, type:'function', function:{name, arguments}}]`. */
  toolCalls: readonly object[] = [],
): object {
  // OpenAI leaves `content` null when the assistant only calls tools.
  const message = toolCalls.length
    ? { role: 'assistant', content: text === '' ? null : text, refusal: null, tool_calls: toolCalls }
    : { role: 'assistant', content: text, refusal: null };
  const choice = endpoint === 'chat' ? { index: 0, message, logprobs, finish_reason: finishReason } : { index: 0, text, logprobs, finish_reason: finishReason };
  return {
    id: identity.id,
    object: endpoint === 'chat' ? 'chat.completion' : 'text_completion',
    created: identity.created,
    model: identity.model,
    choices: [choice],
    ...(usage ? { usage } : {}),
  };
}

export interface ChunkContent {
  text?: string;
  /** The first chat chunk names the role, as OpenAI's does. */
  withRole?: boolean;
  finishReason?: FinishReason | null;
  logprobs?: OpenAILogprobs;
  /** Chat only: tool-call deltas, `[{index, id?, type?, function:{name?, arguments}}]`. */
  toolCalls?: readonly object[];
}

/**
 * One streamed chunk. With `include_usage`, OpenAI sends `usage: null` on every chunk but the last,
 * which carries the usage with `choices: []` (see `buildUsageChunk`).
 */
export function buildChunk(endpoint: Endpoint, identity: AnswerIdentity, content: ChunkContent, includeUsage: boolean): object {
  const finishReason = content.finishReason ?? null;
  let choice: object;
  if (endpoint === 'chat') {
    const delta: Record<string, unknown> = {};
    if (content.withRole) delta.role = 'assistant';
    if (content.text !== undefined) delta.content = content.text;
    if (content.toolCalls) delta.tool_calls = content.toolCalls;
    choice = { index: 0, delta, logprobs: content.logprobs ?? null, finish_reason: finishReason };
  } else {
    choice = { index: 0, text: content.text ?? '', logprobs: content.logprobs ?? null, finish_reason: finishReason };
  }
  return {
    id: identity.id,
    object: endpoint === 'chat' ? 'chat.completion.chunk' : 'text_completion',
    created: identity.created,
    model: identity.model,
    choices: [choice],
    ...(includeUsage ? { usage: null } : {}),
  };
}

export function buildUsageChunk(endpoint: Endpoint, identity: AnswerIdentity, usage: OpenAIUsage): object {
  return {
    id: identity.id,
    object: endpoint === 'chat' ? 'chat.completion.chunk' : 'text_completion',
    created: identity.created,
    model: identity.model,
    choices: [],
    usage,
  };
}

/** A JSON value read from a provider, narrowed without trusting its shape. */
export function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export const asString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
export const asNumber = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
