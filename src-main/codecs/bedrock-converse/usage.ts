// Converse usage → canonical usage: the one reader, for translated answers and streams alike.
import { asNumber, asRecord, type Usage } from '../canonical.js';

/** Cached prompt tokens are reported apart from `inputTokens`; canonical input counts them all. */
export function usageOf(value: unknown): Usage {
  const figures = asRecord(value);
  const cacheRead = asNumber(figures.cacheReadInputTokens);
  const cacheWrite = asNumber(figures.cacheWriteInputTokens);
  const usage: Usage = { inputTokens: asNumber(figures.inputTokens) + cacheRead + cacheWrite, outputTokens: asNumber(figures.outputTokens) };
  if (typeof figures.cacheReadInputTokens === 'number') usage.cacheReadTokens = cacheRead;
  if (typeof figures.cacheWriteInputTokens === 'number') usage.cacheWriteTokens = cacheWrite;
  return usage;
}
