// Server-sent events: reading a provider's stream event by event, and writing OpenAI-style `data:` lines.
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** Yields each SSE event of a byte stream as soon as its terminating blank line arrived. */
export async function* readSseEvents(body: AsyncIterable<Buffer | Uint8Array>): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    while (pending.length) yield pending.shift()!;
  }
  parser.feed(decoder.decode());
  // A final event without its blank line still counts (some servers close right after it).
  parser.feed('\n\n');
  while (pending.length) yield pending.shift()!;
}

export const sseData = (payload: string): string => `data: ${payload}\n\n`;
export const SSE_DONE = 'data: [DONE]\n\n';
