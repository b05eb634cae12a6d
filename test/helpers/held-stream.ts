// A provider stream that holds its tail back: it writes its first events, then waits until the test
// releases it before it writes the rest. A test can then check what the client has received while the
// provider is still in the middle of its answer — that translated streams are relayed as they are made.
// Enqueued on any recording-server double (`fake.enqueue(held.behaviour)`); it answers in whatever wire
// format the events are written in (SSE text, or Bedrock's binary event-stream frames).
import type { ServerResponse } from 'node:http';

export interface HeldStream {
  /** The double's behaviour for the one request it answers. */
  behaviour: (request: unknown, res: ServerResponse) => Promise<void>;
  /** Resolves once the head is written (the tail is then held). */
  headSent: Promise<void>;
  /** Lets the tail go. Safe to call more than once. */
  release(): void;
  /** Whether the provider has begun writing its tail (its last events). */
  tailStarted(): boolean;
}

/** SSE text of events as a provider writes them: `event:` line when named, then `data:`. */
export function sse(events: { event?: string; data: unknown }[]): string[] {
  return events.map(({ event, data }) => `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

/**
 * `head` is written at once (one network write per item), `tail` only after `release()`; a safety
 * timer releases it after `maxHoldMs` so that a failing test never leaves a request hanging.
 */
export function holdStreamTail(head: (string | Buffer)[], tail: (string | Buffer)[], contentType: string, maxHoldMs = 10_000): HeldStream {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let markHeadSent!: () => void;
  const headSent = new Promise<void>((resolve) => (markHeadSent = resolve));
  let tailStarted = false;
  return {
    headSent,
    release: () => release(),
    tailStarted: () => tailStarted,
    behaviour: async (_request, res) => {
      const safety = setTimeout(() => release(), maxHoldMs);
      res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache' });
      for (const part of head) {
        res.write(part);
        await new Promise((resolve) => setImmediate(resolve));
      }
      markHeadSent();
      await released;
      clearTimeout(safety);
      tailStarted = true;
      for (const part of tail) {
        if (res.destroyed) return;
        res.write(part);
        await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
    },
  };
}

export const TIMED_OUT = Symbol('timed out');

/** The promise's value, or TIMED_OUT when it has not settled within `ms`. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout;
  return Promise.race([promise, new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), ms)))]).finally(() => clearTimeout(timer));
}

/**
 * Reads a streamed answer while the provider holds its tail back: fails the test unless the client has
 * `firstText` (as `textOf` reads it from what arrived) within 3 s and before the provider began its tail,
 * then releases the tail and reads to the end. Returns everything the client received.
 */
export async function readPastHeldTail(
  response: Response,
  held: HeldStream,
  textOf: (received: string) => string,
  whenHeldBack: string,
  firstText = 'Hello',
): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let received = '';
  const firstArrived = (async () => {
    while (!textOf(received).includes(firstText)) {
      const part = await reader.read();
      if (part.done) break;
      received += decoder.decode(part.value, { stream: true });
    }
  })();
  const outcome = await within(firstArrived, 3_000);
  const tailStartedEarly = held.tailStarted();
  held.release();
  if (outcome === TIMED_OUT) {
    await within(firstArrived.catch(() => undefined), 2_000);
    throw new Error(whenHeldBack);
  }
  if (tailStartedEarly) throw new Error('the provider had already sent its tail when the client saw its first text');
  for (let part = await reader.read(); !part.done; part = await reader.read()) received += decoder.decode(part.value, { stream: true });
  return received;
}
