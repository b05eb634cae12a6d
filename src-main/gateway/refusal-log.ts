// Refusals without a valid key (401) in the request log, bounded: any web page or stray script can send
// thousands a second, and at a row each they would push the user's real history out of the capped log.
//
// Per (path, reason) and window: the first refusal is logged at once as an ordinary row (a person who
// mistyped a key sees it straight away); the ones after it in the same window are only counted, and when
// the window closes they become one row whose `count` says how many there were (the last one's details).
// A steady flood thus costs at most two rows per path and reason and window. Each refusal is still
// counted in /metrics as it happens (the caller observes every entry before offering it here).
import type { CallRecord } from '../core/call-record.js';

/** How long one window of coalesced refusals lasts. */
export const REFUSAL_WINDOW_MS = 60_000;

interface Window {
  /** Refusals after the first one, not logged yet. */
  more: number;
  last: CallRecord | null;
  timer: NodeJS.Timeout;
}

/** A stored response's id is the client's to choose: all of them are one path here. */
function groupPath(path: string): string {
  return path.startsWith('/v1/responses/') ? '/v1/responses/{id}' : path;
}

export class RefusalCoalescer {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly append: (entry: CallRecord) => void,
    private readonly windowMs: number = REFUSAL_WINDOW_MS,
  ) {}

  /** True when the entry was taken into a window (the caller must not log it itself). */
  absorb(entry: CallRecord): boolean {
    if (entry.unauthenticated !== true) return false;
    // The reasons are the gateway's own few messages, and the paths the few /v1 ones: the map stays small.
    const group = `${groupPath(entry.path)}\u0000${entry.error ?? ''}`;
    const open = this.windows.get(group);
    if (open) {
      open.more++;
      open.last = entry;
      return true;
    }
    const timer = setTimeout(() => this.close(group), this.windowMs);
    timer.unref();
    this.windows.set(group, { more: 0, last: null, timer });
    return false;
  }

  /** Writes every open window's row now (on stop: no refusal goes uncounted). */
  flush(): void {
    for (const group of [...this.windows.keys()]) this.close(group);
  }

  private close(group: string): void {
    const window = this.windows.get(group);
    if (!window) return;
    clearTimeout(window.timer);
    this.windows.delete(group);
    if (window.last && window.more > 0) this.append({ ...window.last, count: window.more });
  }
}
