// What a call that came back without usage is charged against its key's limits. OpenAI-format streams
// carry usage only when the client asked (`stream_options.include_usage`), and some local servers never
// send it; a budget or a tokens-per-minute limit must hold for those calls too. They are charged an
// estimate — about 4 characters a token, from the request's bytes and the text the answer streamed —
// while the log keeps their usage unknown (the estimate is for the limits only, never shown as counted).
import type { Usage } from '../../codecs/canonical.js';
import { plainObjectOrNull } from '../../core/plain-object.js';
import { sseEvents } from '../../core/sse-reader.js';

const CHARS_PER_TOKEN = 4;

type Json = Record<string, unknown>;
const record = (value: unknown): Json | null => plainObjectOrNull(value);
const length = (value: unknown): number => (typeof value === 'string' ? value.length : 0);

/** The characters of text in one answer object or stream chunk, in any of the OpenAI shapes. */
function textLength(json: Json): number {
  let total = 0;
  const choices = Array.isArray(json.choices) ? json.choices : [];
  for (const raw of choices) {
    const choice = record(raw);
    if (!choice) continue;
    total += length(choice.text);
    for (const part of [record(choice.delta), record(choice.message)]) {
      if (!part) continue;
      total += length(part.content) + length(part.reasoning_content) + length(part.reasoning);
      const calls = Array.isArray(part.tool_calls) ? part.tool_calls : [];
      for (const call of calls) total += length(record(record(call)?.function)?.arguments) + length(record(record(call)?.function)?.name);
    }
  }
  return total;
}

/** Characters of text in what the client received: a JSON answer, or the `data:` events of a stream. */
function answeredChars(responseBody: string, stream: boolean): number {
  const parse = (text: string): Json | null => {
    try {
      return record(JSON.parse(text));
    } catch {
      return null;
    }
  };
  if (!stream) {
    const json = parse(responseBody);
    return json ? textLength(json) : responseBody.length;
  }
  let total = 0;
  for (const event of sseEvents(responseBody)) {
    const json = parse(event.data);
    if (json) total += textLength(json);
  }
  return total;
}

/** An upper-leaning estimate of a call's usage, for a successful answer that reported none. */
export function estimatedUsage(requestBytes: number, responseBody: string, stream: boolean): Usage {
  return {
    inputTokens: Math.ceil(requestBytes / CHARS_PER_TOKEN),
    outputTokens: Math.ceil(answeredChars(responseBody, stream) / CHARS_PER_TOKEN),
  };
}
