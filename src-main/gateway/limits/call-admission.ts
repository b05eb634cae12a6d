// What one admitted request carries to every provider target it may reach: its limit ticket and its count
// of provider calls. Before a target gets its first call, the request's fan-out is checked against the cap
// and its worst-case cost is held against the key's budgets (a later target's estimate replaces it).
import type { ProviderAdapter, ProviderCredentials } from '../../providers/types.js';
import type { RoutedRequest, Ingress } from '../ingress/types.js';
import type { Operation } from '../../providers/types.js';
import type { LimitTicket } from './limiter.js';
import { checkFanOut, ProviderAttempts } from './provider-attempts.js';
import { choicesOf, worstCaseCostUsd } from './worst-case-cost.js';

export class CallAdmission {
  readonly attempts: ProviderAttempts;

  constructor(readonly ticket: LimitTicket | undefined) {
    this.attempts = new ProviderAttempts(ticket);
  }

  /** Calls to `adapter` for this request: one per choice when the provider generates no `n` itself. */
  static callsFor(adapter: ProviderAdapter, request: RoutedRequest): number {
    return !adapter.supportsN && request.n > 1 ? request.n : 1;
  }

  /**
   * Before a target's first call: refuses a fan-out past the cap (400) and holds the call's worst-case
   * cost against the key's budgets (429 budget_exceeded when it would not fit).
   */
  reserve(call: { adapter: ProviderAdapter; credentials: ProviderCredentials | undefined; model: string; ingress: Ingress; operation: Operation; request: RoutedRequest; bodyBytes: number }): void {
    const calls = CallAdmission.callsFor(call.adapter, call.request);
    checkFanOut(calls, call.adapter.slug);
    const ticket = this.ticket;
    if (!ticket?.hasBudget) return;
    const dialect = call.ingress.dialect;
    ticket.reserve(
      worstCaseCostUsd({
        provider: call.adapter.slug,
        pricedModel: call.adapter.pricedModel?.(call.credentials ?? {}, call.model) ?? call.model,
        dialect,
        operation: call.operation,
        body: call.request.body,
        bodyBytes: call.bodyBytes,
        calls,
        choices: choicesOf(dialect, call.request.body, call.request.n),
      }),
    );
  }
}
