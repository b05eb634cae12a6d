// Reads the token counts back out of what a client received (an OpenAI-format JSON answer or SSE
// stream), for the request log. Only the top-level `usage` object counts: providers nest other
// `usage` objects (Groq's x_groq.usage) and generated text may say anything.

export interface TokenCounts {
  promptTokens: number | null;
  completionTokens: number | null;
}

interface UsageLike {
  prompt_tokens?: number;
  completion_tokens?: number;
}

const NO_COUNTS: TokenCounts = { promptTokens: null, completionTokens: null };

/** The counts of an OpenAI `usage` object; undefined when there is none. */
export function countsOf(usage: UsageLike | null | undefined): TokenCounts | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  return { promptTokens: usage.prompt_tokens ?? null, completionTokens: usage.completion_tokens ?? null };
}

function countsInJson(text: string): TokenCounts {
  let usage: UsageLike | null | undefined;
  try {
    usage = (JSON.parse(text) as { usage?: UsageLike | null } | null)?.usage;
  } catch {
    // A body that is not JSON (or was cut by the capture limit) has nothing to count.
    return NO_COUNTS;
  }
  return countsOf(usage) ?? NO_COUNTS;
}

export function readTokenCounts(body: string, stream: boolean): TokenCounts {
  if (!stream) return countsInJson(body);
  // A stream reports usage in its last chunks (stream_options.include_usage); the last one that has it
  // wins. Lines that cannot hold it are not parsed at all.
  let counts = NO_COUNTS;
  for (const line of body.split('\n')) {
    if (!line.startsWith('data:') || !line.includes('"usage"')) continue;
    const found = countsInJson(line.slice(5).trim());
    if (found.promptTokens !== null || found.completionTokens !== null) counts = found;
  }
  return counts;
}
