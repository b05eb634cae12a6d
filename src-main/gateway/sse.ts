// Server-sent events: reading a provider's stream event by event, and writing OpenAI-style `data:` lines.
import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';
import { MAX_STREAM_FRAME_BYTES, oversizedStreamPiece } from './stream-bounds.js';

/** Yields each SSE event of a byte stream as soon as its terminating blank line arrived. */
export async function* readSseEvents(body: AsyncIterable<Buffer | Uint8Array>): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  let oversized: ParseError | undefined;
  // The parser holds an unfinished line and the data of an unfinished event; past the bound it stops
  // (counted in characters, at most the bytes they came in).
  const parser = createParser({
    onEvent: (event) => pending.push(event),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') oversized = error;
    },
    maxBufferSize: MAX_STREAM_FRAME_BYTES,
  });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    while (pending.length) yield pending.shift()!;
    if (oversized) throw oversizedStreamPiece('a line or event', MAX_STREAM_FRAME_BYTES);
  }
  parser.feed(decoder.decode());
  // A final event without its blank line still counts (some servers close right after it).
  parser.feed('\n\n');
  while (pending.length) yield pending.shift()!;
}

export const sseData = (payload: string): string => `data: ${payload}\n\n`;
export const SSE_DONE = 'data: [DONE]\n\n';
