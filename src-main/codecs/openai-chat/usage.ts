// OpenAI's usage both ways: `prompt_tokens` already counts the cached ones, `completion_tokens` the reasoning ones.
import type { Usage } from '../canonical.js';
import { chatUsageSchema, type ChatUsage } from './schema.js';

/** A usage object already read through the answer's or chunk's schema → canonical (none without token counts). */
export function chatUsage(usage: ChatUsage | null | undefined): Usage | undefined {
  if (!usage || (typeof usage.prompt_tokens !== 'number' && typeof usage.completion_tokens !== 'number')) return undefined;
  const result: Usage = { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 };
  const cached = usage.prompt_tokens_details?.cached_tokens;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (typeof cached === 'number') result.cacheReadTokens = cached;
  if (typeof reasoning === 'number') result.reasoningTokens = reasoning;
  return result;
}

/** Any JSON → canonical usage; what does not read as OpenAI's usage is none (answers relayed unchanged, usage-from-body.ts). */
export function readChatUsage(value: unknown): Usage | undefined {
  const parsed = chatUsageSchema.safeParse(value);
  return parsed.success ? chatUsage(parsed.data) : undefined;
}

/** Canonical usage in OpenAI's words: cached prompt tokens and reasoning tokens in their details, when there are any. */
export function openaiUsage(usage: Usage): object {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    ...(usage.cacheReadTokens ? { prompt_tokens_details: { cached_tokens: usage.cacheReadTokens } } : {}),
    ...(usage.reasoningTokens ? { completion_tokens_details: { reasoning_tokens: usage.reasoningTokens } } : {}),
  };
}
