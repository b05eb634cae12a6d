// Reads server-sent events from a fetch body. Both the gateway's streams and the admin event
// feed go through here, because EventSource can neither POST nor send an Authorization header.
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface ServerSentEvent {
  event: string | undefined;
  data: string;
}

export async function* readServerSentEvents(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const pending: ServerSentEvent[] = [];
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      pending.push({ event: message.event, data: message.data });
    },
  });
  const cancelOnAbort = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', cancelOnAbort, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      // Cancelling the reader on abort ends the stream quietly; the caller must hear it was aborted.
      signal?.throwIfAborted();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      while (pending.length) yield pending.shift() as ServerSentEvent;
    }
    parser.feed(decoder.decode());
    // A last event without its blank line still counts: some servers close right after it.
    parser.feed('\n\n');
    while (pending.length) yield pending.shift() as ServerSentEvent;
  } finally {
    signal?.removeEventListener('abort', cancelOnAbort);
    reader.releaseLock();
  }
}
