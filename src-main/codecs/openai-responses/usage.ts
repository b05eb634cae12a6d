// Responses usage both ways. `cache_write_tokens` counts: Gatehouse writes it in the answers it translates
// (Codex reads it); OpenAI has none to report.
import type { Usage } from '../canonical.js';
import { responsesUsageSchema, type ResponsesUsage } from './schema.js';

/** A usage object already read through the Response's schema → canonical. */
export function responsesUsage(raw: ResponsesUsage | null | undefined): Usage | undefined {
  if (!raw) return undefined;
  const usage: Usage = { inputTokens: raw.input_tokens ?? 0, outputTokens: raw.output_tokens ?? 0 };
  const details = raw.input_tokens_details;
  if (typeof details?.cached_tokens === 'number') usage.cacheReadTokens = details.cached_tokens;
  if (typeof details?.cache_write_tokens === 'number' && details.cache_write_tokens > 0) usage.cacheWriteTokens = details.cache_write_tokens;
  const reasoning = raw.output_tokens_details?.reasoning_tokens;
  if (typeof reasoning === 'number') usage.reasoningTokens = reasoning;
  return usage;
}

/** The one reader of Responses usage in any JSON: answers relayed unchanged (usage-from-body.ts) use it too. */
export function readResponsesUsage(raw: unknown): Usage | undefined {
  const parsed = responsesUsageSchema.safeParse(raw);
  return parsed.success ? responsesUsage(parsed.data) : undefined;
}

/** Canonical usage as a Responses client reads it. */
export function responsesUsageJson(usage: Usage | undefined): Record<string, unknown> | null {
  if (!usage) return null;
  const inputDetails: Record<string, number> = { cached_tokens: usage.cacheReadTokens ?? 0 };
  if (usage.cacheWriteTokens) inputDetails.cache_write_tokens = usage.cacheWriteTokens;
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: inputDetails,
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}
