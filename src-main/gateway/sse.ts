// Server-sent events: reading a provider's stream event by event (with core's reader, held to the
// stream bound), and writing OpenAI-style `data:` lines.
import { SseLineReader, type SseEvent } from '../core/sse-reader.js';
import { MAX_STREAM_FRAME_BYTES, oversizedStreamPiece } from './stream-bounds.js';

export type { SseEvent } from '../core/sse-reader.js';

/** Yields each SSE event of a byte stream as soon as its terminating blank line arrived. */
export async function* readSseEvents(body: AsyncIterable<Buffer | Uint8Array>): AsyncGenerator<SseEvent> {
  const pending: SseEvent[] = [];
  // The reader holds an unfinished line and the data of an unfinished event; past the bound the stream is
  // given up (counted in characters, at most the bytes they came in).
  const reader = new SseLineReader((event) => pending.push(event), MAX_STREAM_FRAME_BYTES);
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    const within = reader.feed(decoder.decode(chunk, { stream: true }));
    // A plain loop, not shift(): a chunk can end many events.
    for (const event of pending) yield event;
    pending.length = 0;
    if (!within) throw oversizedStreamPiece('a line or event', MAX_STREAM_FRAME_BYTES);
  }
  reader.feed(decoder.decode());
  reader.end();
  for (const event of pending) yield event;
}

export const sseData = (payload: string): string => `data: ${payload}\n\n`;
export const SSE_DONE = 'data: [DONE]\n\n';
