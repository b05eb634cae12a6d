// The responses a socket made, kept in memory so a later turn may name one as `previous_response_id` and send
// only its new input, for every provider and with `store: false` (nothing is kept at the provider): the turn
// is sent up with the whole input rebuilt (that response's input, then its output, then the new input).
// Bounded by count and by size; the oldest go first, and an id that is gone is answered as OpenAI answers
// an unknown one.

/** One remembered response: the items a continuation of it starts from, and their size as sent. */
interface Remembered {
  items: readonly unknown[];
  chars: number;
}

export interface HistoryBounds {
  /** Responses kept per socket. */
  maxResponses: number;
  /** Characters of JSON kept per socket, counted per response (items shared between responses counted in each). */
  maxChars: number;
  /** What all sockets keep together: many sockets must not add up to more than one gateway can hold. */
  shared: { used: number; readonly max: number };
}

export class SocketHistory {
  private readonly responses = new Map<string, Remembered>();
  private chars = 0;

  constructor(private readonly bounds: HistoryBounds) {}

  /** The items a continuation of `id` starts from, or undefined when the socket did not make it (or let it go). */
  itemsOf(id: string): readonly unknown[] | undefined {
    return this.responses.get(id)?.items;
  }

  /** Keeps a response made on this socket: the whole input it was sent with and its output items. */
  remember(id: string, input: readonly unknown[], output: readonly unknown[], chars: number): void {
    this.forget(id);
    const { maxResponses, maxChars, shared } = this.bounds;
    if (chars > maxChars) return;
    // A Map iterates in insertion order: the first key is the oldest, let go first.
    for (const oldest of this.responses.keys()) {
      if (this.responses.size < maxResponses && this.chars + chars <= maxChars && shared.used + chars <= shared.max) break;
      this.forget(oldest);
    }
    // Other sockets hold the rest of the shared bound: this response is not kept.
    if (shared.used + chars > shared.max) return;
    this.responses.set(id, { items: [...input, ...output], chars });
    this.chars += chars;
    shared.used += chars;
  }

  /** The socket closed: what it kept is let go. */
  clear(): void {
    for (const id of [...this.responses.keys()]) this.forget(id);
  }

  private forget(id: string): void {
    const kept = this.responses.get(id);
    if (!kept) return;
    this.responses.delete(id);
    this.chars -= kept.chars;
    this.bounds.shared.used -= kept.chars;
  }

  get size(): number {
    return this.responses.size;
  }
}

/**
 * `input` as a list of items: a string is one user message (as the Responses API reads it), absent is none;
 * undefined for anything else, which the turn then sends as it came, for the ingress to refuse.
 */
export function inputItems(input: unknown): unknown[] | undefined {
  if (input === undefined || input === null) return [];
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  return Array.isArray(input) ? input : undefined;
}
