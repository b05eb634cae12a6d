// A 2025-era server's own request (elicitation, sampling, roots) during a 2026-07-28 client's call, turned into
// that client's multi-round-trip pattern. The 2026 client cannot be asked mid-call, so the call to the server
// stays open and is held here; the client is answered `input_required` with the server's request as its input
// request and a state naming the held call. Its retry (same key, server, method and target) resumes the held
// call with the client's answer; the server may then ask again (another round) or finish.
//
// Bounds: at most MAX_HELD calls held at once (MAX_HELD_PER_KEY per key), each for at most HOLD_MS — one not
// resumed in time is ended (the server's request refused, the call cancelled upstream). A state is random,
// single-use and bound to the key that was asked: another key's retry with it finds nothing.
import { randomBytes } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode, type Request, type Result } from '@modelcontextprotocol/server';

/** A server's request waiting for the client's answer. */
export interface PendingAsk {
  /** The key of the input request in `inputRequests` (and of the answer in `inputResponses`). */
  id: string;
  request: Request;
  answer(result: Result): void;
  refuse(error: Error): void;
}

/** What names a held call: a retry must match it all. */
export interface HeldIdentity {
  /** The key that was asked (kind and id). */
  owner: string;
  server: string;
  method: string;
  /** The tool, prompt or resource asked for. */
  target: string;
}

export interface HeldCall extends HeldIdentity {
  /** The call to the server, still running (its rejection is observed: it is awaited on resume). */
  call: Promise<Result>;
  /** Cancels the call upstream. */
  controller: AbortController;
  ask: PendingAsk;
  /** Where the server's progress goes: the stream of the round in flight (none while held). */
  progressSink: { current?: (progress: Record<string, unknown>) => void };
}

const PREFIX = 'gatehouse-held.';
export const HOLD_MS = 5 * 60_000;
const MAX_HELD = 1_000;
const MAX_HELD_PER_KEY = 50;

export class HeldCalls {
  private readonly held = new Map<string, { entry: HeldCall; timer: NodeJS.Timeout }>();

  /** Whether a request state is one of Gatehouse's (else it is the server's own, passed through). */
  static owns(state: unknown): state is string {
    return typeof state === 'string' && state.startsWith(PREFIX);
  }

  /** Holds a call; returns the state the client echoes to resume it. Refuses when too many are held. */
  hold(entry: HeldCall): string {
    const ofKey = [...this.held.values()].filter((one) => one.entry.owner === entry.owner).length;
    if (this.held.size >= MAX_HELD || ofKey >= MAX_HELD_PER_KEY) {
      const refusal = new ProtocolError(ProtocolErrorCode.InternalError, 'Too many MCP calls wait for their client’s answer; try again later');
      this.end(entry, refusal);
      throw refusal;
    }
    const token = `${PREFIX}${randomBytes(24).toString('base64url')}`;
    const timer = setTimeout(() => {
      if (this.held.get(token)?.entry !== entry) return;
      this.held.delete(token);
      this.end(entry, new ProtocolError(ProtocolErrorCode.InvalidRequest, `The client did not answer within ${HOLD_MS / 1000} s`));
    }, HOLD_MS);
    timer.unref();
    this.held.set(token, { entry, timer });
    return token;
  }

  /** The held call a retry names, taken out (single use); undefined when the state is unknown, expired or not this key's and target's. */
  take(token: string, identity: HeldIdentity): HeldCall | undefined {
    const found = this.held.get(token);
    if (!found) return undefined;
    const { entry } = found;
    if (entry.owner !== identity.owner || entry.server !== identity.server || entry.method !== identity.method || entry.target !== identity.target) return undefined;
    clearTimeout(found.timer);
    this.held.delete(token);
    return entry;
  }

  get size(): number {
    return this.held.size;
  }

  /** Ends every held call (Gatehouse is stopping). */
  clear(): void {
    for (const { entry, timer } of this.held.values()) {
      clearTimeout(timer);
      this.end(entry, new ProtocolError(ProtocolErrorCode.InternalError, 'Gatehouse is stopping'));
    }
    this.held.clear();
  }

  private end(entry: HeldCall, reason: Error): void {
    entry.ask.refuse(reason);
    entry.controller.abort(reason);
  }
}
