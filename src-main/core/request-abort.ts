// The abort of one proxied request: what an AbortController gives, for the few things that listen here
// (undici, relay writes, back-off waits), without an EventTarget per request. Creating and reading an
// AbortSignal cost some 3 µs a call on the gateway's thread; this costs next to nothing until used.

/** What the gateway's code and undici need of a signal; a real AbortSignal fits too (tests pass one). */
export interface AbortLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export class RequestAbort implements AbortLike {
  aborted = false;
  reason: unknown = undefined;
  // An abort happens once, so every listener is a once-listener.
  private listeners: (() => void)[] | null = null;

  addEventListener(_type: 'abort', listener: () => void): void {
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.listeners?.indexOf(listener) ?? -1;
    if (index >= 0) this.listeners!.splice(index, 1);
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = null;
    if (listeners) for (const listener of listeners) listener();
  }
}
