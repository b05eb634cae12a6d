// Gemini's usageMetadata ↔ canonical usage: the one reader (translated answers and answers relayed
// unchanged, usage-from-body.ts, alike) and the one writer (for Gemini clients).
import { asNumber, asRecord, type Usage } from '../canonical.js';

/** `promptTokenCount` already includes cached tokens; thinking tokens are output tokens. */
export function usageOf(usageMetadata: unknown): Usage {
  const figures = asRecord(usageMetadata);
  const thoughts = typeof figures.thoughtsTokenCount === 'number' ? figures.thoughtsTokenCount : undefined;
  const usage: Usage = {
    inputTokens: asNumber(figures.promptTokenCount) + asNumber(figures.toolUsePromptTokenCount),
    outputTokens: asNumber(figures.candidatesTokenCount) + (thoughts ?? 0),
  };
  if (typeof figures.cachedContentTokenCount === 'number') usage.cacheReadTokens = figures.cachedContentTokenCount;
  if (thoughts !== undefined) usage.reasoningTokens = thoughts;
  return usage;
}

/** Canonical usage → usageMetadata: candidates count the answer without the thinking, which has its own count. */
export function usageMetadataOf(usage: Usage): Record<string, unknown> {
  const thoughts = usage.reasoningTokens;
  return {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: Math.max(0, usage.outputTokens - (thoughts ?? 0)),
    ...(thoughts !== undefined ? { thoughtsTokenCount: thoughts } : {}),
    ...(usage.cacheReadTokens !== undefined ? { cachedContentTokenCount: usage.cacheReadTokens } : {}),
    totalTokenCount: usage.inputTokens + usage.outputTokens,
  };
}
