// Messages usage ↔ canonical usage: the one reader (translated answers and answers relayed unchanged,
// usage-from-body.ts, alike) and the one writer (for Messages clients).
import { asRecord, type Usage } from '../canonical.js';

export interface MessagesUsage {
  input: number;
  output: number;
  cacheCreation?: number;
  cacheRead?: number;
}

/** Stream events carry cumulative counts, and a later event may leave out what an earlier one gave. */
export function readUsage(value: unknown, into: MessagesUsage): boolean {
  const usage = asRecord(value);
  let seen = false;
  if (typeof usage.input_tokens === 'number') (into.input = usage.input_tokens), (seen = true);
  if (typeof usage.output_tokens === 'number') (into.output = usage.output_tokens), (seen = true);
  if (typeof usage.cache_creation_input_tokens === 'number') (into.cacheCreation = usage.cache_creation_input_tokens), (seen = true);
  if (typeof usage.cache_read_input_tokens === 'number') (into.cacheRead = usage.cache_read_input_tokens), (seen = true);
  return seen;
}

/** `input_tokens` leaves out cached tokens; canonical `inputTokens` counts every prompt token. */
export function canonicalUsage(usage: MessagesUsage): Usage {
  return {
    inputTokens: usage.input + (usage.cacheCreation ?? 0) + (usage.cacheRead ?? 0),
    outputTokens: usage.output,
    ...(usage.cacheRead !== undefined ? { cacheReadTokens: usage.cacheRead } : {}),
    ...(usage.cacheCreation !== undefined ? { cacheWriteTokens: usage.cacheCreation } : {}),
  };
}

/** Anthropic's usage fields: its `input_tokens` leaves out the cached tokens canonical `inputTokens` counts. */
export function messagesUsageOf(usage: Usage | undefined): Record<string, number> {
  const cacheRead = usage?.cacheReadTokens ?? 0;
  const cacheWrite = usage?.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.inputTokens ?? 0) - cacheRead - cacheWrite),
    output_tokens: usage?.outputTokens ?? 0,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
  };
}
