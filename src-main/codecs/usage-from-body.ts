// Reads token usage out of an answer as the client received it (JSON, or SSE text), in the client's own
// dialect, into canonical Usage, through the same reader the dialect's codec decodes a translated answer
// with: one reader per wire format. Only the top-level usage counts: providers nest other `usage` objects
// (Groq's x_groq.usage) and generated text may say anything.
import type { Usage } from './canonical.js';
import { readChatUsage } from './openai-chat/index.js';
import { readResponsesUsage } from './openai-responses/index.js';
import { canonicalUsage, readUsage as readMessagesUsage, type MessagesUsage } from './anthropic-messages/index.js';
import { plainObjectOrNull } from '../core/plain-object.js';
import { EMBEDDING_FORMATS } from './embeddings/canonical.js';
import { usageOf as geminiUsage } from './gemini/index.js';
import { SseLineReader, sseEventsWith } from '../core/sse-reader.js';

/** The client dialects a log row can name (CallFacts.dialect). */
export const CLIENT_DIALECTS = ['openai-chat', 'openai-completions', 'anthropic-messages', 'openai-responses', 'gemini', 'openai-embeddings'] as const;
export type ClientDialect = (typeof CLIENT_DIALECTS)[number];

/** The provider wire formats a log row can name (CallFacts.providerFormat). */
export const PROVIDER_FORMATS = ['openai-chat', 'openai-completions', 'openai-responses', 'anthropic-messages', 'gemini', 'bedrock-converse', ...EMBEDDING_FORMATS] as const;
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
  if (bare.endsWith('/embeddings')) return 'openai-embeddings';
  if (/:(?:generateContent|streamGenerateContent|countTokens)$/.test(bare)) return 'gemini';
  return null;
}

type Json = Record<string, unknown>;

const JSON_ARRAY_START = /^\s*\[/;

function record(value: unknown): Json | null {
  return plainObjectOrNull(value);
}

function parse(text: string): Json | null {
  try {
    return record(JSON.parse(text));
  } catch {
    // Not JSON, or cut by the capture limit: nothing to count.
    return null;
  }
}

/**
 * The JSON payloads of an SSE body's events that can carry usage (their line holds `"usage"`), read by
 * the one SSE reader; others are not parsed at all. `fromEnd` where the last event with usage wins
 * (OpenAI's streams repeat `"usage":null` in every chunk and give the figures in the last): reading
 * stops at the first found.
 */
function* usageEvents(body: string, fromEnd = false): Generator<Json> {
  for (const event of sseEventsWith(body, '"usage"', fromEnd)) {
    const json = parse(event.data);
    if (json) yield json;
  }
}

function readAnthropic(body: string, stream: boolean): Usage | undefined {
  const counts: MessagesUsage = { input: 0, output: 0 };
  let seen = false;
  if (!stream) {
    seen = readMessagesUsage(parse(body)?.usage, counts);
    return seen ? canonicalUsage(counts) : undefined;
  }
  // message_start carries the input side (and an early output count); each message_delta the
  // cumulative output so far, sometimes the input side again. Later values win.
  for (const event of usageEvents(body)) {
    const usage = event.type === 'message_start' ? record(event.message)?.usage : event.type === 'message_delta' ? event.usage : undefined;
    if (readMessagesUsage(usage, counts)) seen = true;
  }
  return seen ? canonicalUsage(counts) : undefined;
}

function readResponses(body: string, stream: boolean): Usage | undefined {
  if (!stream) return readResponsesUsage(parse(body)?.usage);
  // response.completed (or .incomplete / .failed) carries the final response with its usage.
  for (const event of usageEvents(body, true)) {
    const found = readResponsesUsage(record(event.response)?.usage);
    if (found) return found;
  }
  return undefined;
}

function readOpenAI(body: string, stream: boolean): Usage | undefined {
  if (!stream) return readChatUsage(parse(body)?.usage);
  // Usage comes in the last chunks (stream_options.include_usage); the last one that has it wins.
  for (const event of usageEvents(body, true)) {
    const found = readChatUsage(event.usage);
    if (found) return found;
  }
  return undefined;
}

/**
 * Gemini's usageMetadata, which every fragment of a stream repeats as the running total: the last one that
 * has it wins, whether the stream came as SSE or as one JSON array.
 */
function readGemini(body: string, stream: boolean): Usage | undefined {
  if (!stream) {
    const usage = parse(body)?.usageMetadata;
    return usage === undefined ? undefined : geminiUsage(usage);
  }
  // A stream passed through as one JSON array (`streamGenerateContent` without alt=sse) is no SSE.
  if (!JSON_ARRAY_START.test(body)) {
    for (const event of sseEventsWith(body, '"usageMetadata"', true)) {
      const usage = parse(event.data)?.usageMetadata;
      if (usage !== undefined) return geminiUsage(usage);
    }
    return undefined;
  }
  try {
    const fragments: unknown = JSON.parse(body);
    if (!Array.isArray(fragments)) return undefined;
    for (let i = fragments.length - 1; i >= 0; i--) {
      const usage = record(fragments[i])?.usageMetadata;
      if (usage !== undefined) return geminiUsage(usage);
    }
  } catch {
    // A capture cut in the middle: nothing to count.
  }
  return undefined;
}

/**
 * The usage in an answer as the client received it (JSON, or SSE text when `stream`), read the way its
 * dialect reports usage; undefined when it reports none. An unknown or null dialect is read as OpenAI's shape.
 */
export function usageFromBody(body: string, stream: boolean, dialect: string | null): Usage | undefined {
  if (dialect === 'anthropic-messages') return readAnthropic(body, stream);
  if (dialect === 'openai-responses') return readResponses(body, stream);
  if (dialect === 'gemini') return readGemini(body, stream);
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
  else
    for (const event of usageEvents(body, true)) {
      if (!record(event.usage)) continue;
      model = event.model;
      break;
    }
  return typeof model === 'string' && model !== '' ? model : null;
}

/** What a stream's usage events add up to, taken one event at a time in stream order (later figures win). */
interface UsageFold {
  /** Only events whose data holds this are parsed. */
  needle: string;
  take(event: Json): void;
  result(): Usage | undefined;
}

function usageFold(dialect: string | null): UsageFold {
  if (dialect === 'anthropic-messages') {
    const counts: MessagesUsage = { input: 0, output: 0 };
    let seen = false;
    return {
      needle: '"usage"',
      take: (event) => {
        const usage = event.type === 'message_start' ? record(event.message)?.usage : event.type === 'message_delta' ? event.usage : undefined;
        if (readMessagesUsage(usage, counts)) seen = true;
      },
      result: () => (seen ? canonicalUsage(counts) : undefined),
    };
  }
  let last: Usage | undefined;
  if (dialect === 'gemini') {
    return {
      needle: '"usageMetadata"',
      take: (event) => {
        if (event.usageMetadata !== undefined) last = geminiUsage(event.usageMetadata);
      },
      result: () => last,
    };
  }
  const read = dialect === 'openai-responses' ? (event: Json) => readResponsesUsage(record(event.response)?.usage) : (event: Json) => readChatUsage(event.usage);
  return {
    needle: '"usage"',
    take: (event) => {
      last = read(event) ?? last;
    },
    result: () => last,
  };
}

/**
 * A relayed SSE stream's usage, read as the stream passes rather than from the captured text at its end:
 * each piece of text is read once by the one SSE reader, and only events that hold the usage field are
 * parsed, so a stream costs the same per byte at 1,000 chunks as at 64,000. The same figures as
 * usageFromBody of the whole stream (codecs/usage-from-body.test.ts holds them equal). An event that
 * outgrows the stream bound stops the reading: its usage is unknown, as from a capture cut short.
 */
export class StreamUsage {
  private readonly fold: UsageFold;
  private readonly reader: SseLineReader;
  private within = true;

  constructor(dialect: string | null, maxEventChars: number) {
    const fold = (this.fold = usageFold(dialect));
    this.reader = new SseLineReader((event) => {
      if (!event.data.includes(fold.needle)) return;
      const json = parse(event.data);
      if (json) fold.take(json);
    }, maxEventChars);
  }

  feed(text: string): void {
    if (this.within) this.within = this.reader.feed(text);
  }

  end(): Usage | undefined {
    if (!this.within) return undefined;
    this.reader.end();
    return this.fold.result();
  }
}
