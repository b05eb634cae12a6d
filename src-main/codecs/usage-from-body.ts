// Reads token usage back out of what a client received, in the client's own dialect, for the request
// log rows whose counts the gateway did not hand over. Every dialect's usage ends up in one normalised
// form: `promptTokens` counts ALL input tokens (cached ones included), `cacheReadTokens` and
// `cacheWriteTokens` say how many of them came from / went into the provider's prompt cache, and
// `reasoningTokens` how many of `completionTokens` were spent thinking. Only the top-level usage counts:
// providers nest other `usage` objects (Groq's x_groq.usage) and generated text may say anything.

export interface NormalisedUsage {
  promptTokens: number | null;
  completionTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  reasoningTokens: number | null;
}

export const NO_USAGE: NormalisedUsage = Object.freeze({
  promptTokens: null,
  completionTokens: null,
  cacheReadTokens: null,
  cacheWriteTokens: null,
  reasoningTokens: null,
});

/** The client dialects a log row can name (CallFacts.dialect). */
export const CLIENT_DIALECTS = ['openai-chat', 'openai-completions', 'anthropic-messages', 'openai-responses'] as const;
export type ClientDialect = (typeof CLIENT_DIALECTS)[number];

/** The provider wire formats a log row can name (CallFacts.providerFormat). */
export const PROVIDER_FORMATS = ['openai-chat', 'openai-completions', 'openai-responses', 'anthropic-messages', 'gemini', 'bedrock-converse'] as const;
export type ProviderFormat = (typeof PROVIDER_FORMATS)[number];

export function isClientDialect(value: unknown): value is ClientDialect {
  return typeof value === 'string' && (CLIENT_DIALECTS as readonly string[]).includes(value);
}

/**
 * The dialect a path is spoken in, for rows whose dialect the gateway did not name; null for paths
 * that are no completion call (model lists, unknown paths). A query string is ignored.
 */
export function dialectOfPath(path: string): ClientDialect | null {
  const bare = path.split('?')[0].replace(/\/+$/, '');
  if (bare.endsWith('/chat/completions')) return 'openai-chat';
  if (bare.endsWith('/completions')) return 'openai-completions';
  if (bare.endsWith('/messages')) return 'anthropic-messages';
  if (bare.endsWith('/responses')) return 'openai-responses';
  return null;
}

type Json = Record<string, unknown>;

function record(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

function parse(text: string): Json | null {
  try {
    return record(JSON.parse(text));
  } catch {
    // Not JSON, or cut by the capture limit: nothing to count.
    return null;
  }
}

function sum(...values: Array<number | null>): number | null {
  const known = values.filter((value): value is number => value !== null);
  return known.length ? known.reduce((total, value) => total + value, 0) : null;
}

function hasAny(usage: NormalisedUsage): boolean {
  return Object.values(usage).some((value) => value !== null);
}

/** Chat and text completions: prompt_tokens already include the cached ones. */
function fromOpenAIUsage(usage: Json): NormalisedUsage {
  return {
    promptTokens: count(usage.prompt_tokens),
    completionTokens: count(usage.completion_tokens),
    cacheReadTokens: count(record(usage.prompt_tokens_details)?.cached_tokens),
    cacheWriteTokens: null,
    reasoningTokens: count(record(usage.completion_tokens_details)?.reasoning_tokens),
  };
}

/** Responses: input_tokens already include the cached ones. */
function fromResponsesUsage(usage: Json): NormalisedUsage {
  return {
    promptTokens: count(usage.input_tokens),
    completionTokens: count(usage.output_tokens),
    cacheReadTokens: count(record(usage.input_tokens_details)?.cached_tokens),
    cacheWriteTokens: null,
    reasoningTokens: count(record(usage.output_tokens_details)?.reasoning_tokens),
  };
}

/** Anthropic's raw usage fields, as they accumulate over a stream. */
interface AnthropicCounts {
  input: number | null;
  cacheWrite: number | null;
  cacheRead: number | null;
  output: number | null;
}

function mergeAnthropic(into: AnthropicCounts, usage: Json): void {
  into.input = count(usage.input_tokens) ?? into.input;
  into.cacheWrite = count(usage.cache_creation_input_tokens) ?? into.cacheWrite;
  into.cacheRead = count(usage.cache_read_input_tokens) ?? into.cacheRead;
  into.output = count(usage.output_tokens) ?? into.output;
}

/** Anthropic's input_tokens leave out the cached ones: the prompt is all three added up. */
function fromAnthropic(counts: AnthropicCounts): NormalisedUsage {
  return {
    promptTokens: sum(counts.input, counts.cacheWrite, counts.cacheRead),
    completionTokens: counts.output,
    cacheReadTokens: counts.cacheRead,
    cacheWriteTokens: counts.cacheWrite,
    reasoningTokens: null,
  };
}

/**
 * The JSON payloads of an SSE body's data lines that can carry usage; others are not parsed at all. The
 * lines are found by searching for `"usage"` rather than by splitting the body: a long stream is
 * thousands of lines, and usage is on one or two of them.
 */
function* usageEvents(body: string): Generator<Json> {
  for (let at = body.indexOf('"usage"'); at !== -1; ) {
    const start = body.lastIndexOf('\n', at) + 1;
    const newline = body.indexOf('\n', at);
    const end = newline === -1 ? body.length : newline;
    if (body.startsWith('data:', start)) {
      const event = parse(body.slice(start + 5, end).trim());
      if (event) yield event;
    }
    at = newline === -1 ? -1 : body.indexOf('"usage"', end);
  }
}

function readAnthropic(body: string, stream: boolean): NormalisedUsage {
  const counts: AnthropicCounts = { input: null, cacheWrite: null, cacheRead: null, output: null };
  if (!stream) {
    const usage = record(parse(body)?.usage);
    if (usage) mergeAnthropic(counts, usage);
    return fromAnthropic(counts);
  }
  // message_start carries the input side (and an early output count); each message_delta the
  // cumulative output so far, sometimes the input side again. Later values win.
  for (const event of usageEvents(body)) {
    const usage = event.type === 'message_start' ? record(record(event.message)?.usage) : event.type === 'message_delta' ? record(event.usage) : null;
    if (usage) mergeAnthropic(counts, usage);
  }
  return fromAnthropic(counts);
}

function readResponses(body: string, stream: boolean): NormalisedUsage {
  if (!stream) {
    const usage = record(parse(body)?.usage);
    return usage ? fromResponsesUsage(usage) : NO_USAGE;
  }
  // response.completed (or .incomplete / .failed) carries the final response with its usage.
  let found = NO_USAGE;
  for (const event of usageEvents(body)) {
    const usage = record(record(event.response)?.usage);
    if (usage) found = fromResponsesUsage(usage);
  }
  return found;
}

function readOpenAI(body: string, stream: boolean): NormalisedUsage {
  if (!stream) {
    const usage = record(parse(body)?.usage);
    return usage ? fromOpenAIUsage(usage) : NO_USAGE;
  }
  // Usage comes in the last chunks (stream_options.include_usage); the last one that has it wins.
  let found = NO_USAGE;
  for (const event of usageEvents(body)) {
    const usage = record(event.usage);
    if (!usage) continue;
    const counts = fromOpenAIUsage(usage);
    if (hasAny(counts)) found = counts;
  }
  return found;
}

/**
 * The usage in a response body as the client received it (JSON, or SSE text when `stream`), read the
 * way its dialect reports usage. An unknown or null dialect is read as OpenAI's shape.
 */
export function usageFromBody(body: string, stream: boolean, dialect: string | null): NormalisedUsage {
  if (dialect === 'anthropic-messages') return readAnthropic(body, stream);
  if (dialect === 'openai-responses') return readResponses(body, stream);
  return readOpenAI(body, stream);
}

/**
 * The model an OpenAI-format answer says served it: the whole answer's `model`, or in a stream the
 * model of the chunk that carries the usage (found as usageFromBody finds it, without reading the
 * other chunks). null when none. A second read of the answer: only for a call that has no price otherwise.
 */
export function answeredModel(body: string, stream: boolean): string | null {
  let model: unknown = null;
  if (!stream) model = parse(body)?.model;
  else for (const event of usageEvents(body)) if (record(event.usage)) model = event.model;
  return typeof model === 'string' && model !== '' ? model : null;
}
