// Reads the token counts back out of what a client received (an OpenAI-format JSON answer or SSE
// stream), for the request log. Runs for every logged answer, so it parses only the `usage` object
// where it can find it cheaply, and the whole text only when it cannot.

export interface TokenCounts {
  promptTokens: number | null;
  completionTokens: number | null;
}

interface UsageLike {
  prompt_tokens?: number;
  completion_tokens?: number;
}

const NO_COUNTS: TokenCounts = { promptTokens: null, completionTokens: null };

function countsOf(usage: UsageLike | null | undefined): TokenCounts | null {
  if (!usage || typeof usage !== 'object') return null;
  return { promptTokens: usage.prompt_tokens ?? null, completionTokens: usage.completion_tokens ?? null };
}

/**
 * The `usage` object at the last `"usage"` key of a JSON text, or undefined when that cannot be read
 * without parsing everything: no key, a key inside a string (escaped quotes), or strings inside it.
 */
function usageAtLastKey(text: string): UsageLike | null | undefined {
  const key = text.lastIndexOf('"usage"');
  if (key <= 0 || text[key - 1] === '\\') return undefined;
  let at = key + 7;
  while (text[at] === ' ' || text[at] === '\n' || text[at] === '\r' || text[at] === '\t') at++;
  if (text[at] !== ':') return undefined;
  at++;
  while (text[at] === ' ' || text[at] === '\n' || text[at] === '\r' || text[at] === '\t') at++;
  if (text.startsWith('null', at)) return null;
  if (text[at] !== '{') return undefined;
  // Counts and nested count objects only: the first brace that closes the depth is the end.
  let depth = 0;
  for (let end = at; end < text.length; end++) {
    const char = text[end];
    if (char === '"' && text[end - 1] === '\\') return undefined;
    if (char === '{') depth++;
    else if (char === '}' && --depth === 0) {
      try {
        return JSON.parse(text.slice(at, end + 1)) as UsageLike;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

function countsInJson(text: string): TokenCounts {
  const quick = usageAtLastKey(text);
  if (quick !== undefined) return countsOf(quick) ?? NO_COUNTS;
  try {
    return countsOf((JSON.parse(text) as { usage?: UsageLike }).usage) ?? NO_COUNTS;
  } catch {
    // A body that is not JSON (or was cut by the capture limit) has nothing to count.
    return NO_COUNTS;
  }
}

export function readTokenCounts(body: string, stream: boolean): TokenCounts {
  if (!stream) return countsInJson(body);
  // A stream reports usage in its last chunks (stream_options.include_usage); the last one that has it wins.
  let counts = NO_COUNTS;
  for (const line of body.split('\n')) {
    if (!line.startsWith('data:') || !line.includes('"usage"')) continue;
    const found = countsInJson(line.slice(5).trim());
    if (found.promptTokens !== null || found.completionTokens !== null) counts = found;
  }
  return counts;
}
