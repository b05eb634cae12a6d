// What one admitted request carries to every provider target it may reach: its limit ticket and its count
// of provider calls. Before a target gets its first call, the request's fan-out is checked against the cap
// and its worst-case cost is held against the key's budgets (a later target's estimate replaces it).
// The provider calls one request may make are all counted: one per choice when the provider has no `n`,
// each retry (x-gateway-retry-count) and each route target tried. Without a cap one admitted request
// could fan out to hundreds of calls (n: 128 × 6 tries); every call past the first also counts one
// request against the key's requests per minute.
import type { ProviderAdapter, ProviderCredentials } from '../../providers/types.js';
import type { RoutedRequest } from '../ingress/types.js';
import type { Generation } from '../request-body.js';
import { LimitExceeded, type LimitTicket } from './limiter.js';
import { GatewayError, invalidRequest } from '../../core/errors.js';
import { worstCaseCostUsd } from './worst-case-cost.js';

/** The key lending its credentials through a route cannot hold this call's worst case within its budgets. */
export class LenderOverLimit extends Error {
  constructor(readonly refusal: LimitExceeded) {
    super(refusal.message);
  }
}

export class CallAdmission {
  readonly attempts: ProviderAttempts;
  /** The ticket of the key whose credentials a route lends to this call (the target being tried), if another key's. */
  private lender: LimitTicket | undefined;

  constructor(readonly ticket: LimitTicket | undefined) {
    this.attempts = new ProviderAttempts(ticket);
  }

  /** The route moved to a target whose key lends its credentials: its budgets hold this call's worst case too. */
  lendFrom(ticket: LimitTicket | undefined): void {
    this.lender = ticket;
  }

  /** Calls to `adapter` for this request: one per choice when the provider generates no `n` itself. */
  static callsFor(adapter: ProviderAdapter, request: Pick<RoutedRequest, 'n'>): number {
    return !adapter.supportsN && request.n > 1 ? request.n : 1;
  }

  /**
   * Before a target's first call: refuses a fan-out past the cap (400) and holds the call's worst-case
   * cost against the caller's budgets and the lending key's (429 budget_exceeded when it would not fit).
   * A promise only when a budget is held in Redis.
   */
  reserve(call: { adapter: ProviderAdapter; credentials: ProviderCredentials | undefined; model: string; generation: Generation }): void | Promise<void> {
    const { generation } = call;
    const calls = CallAdmission.callsFor(call.adapter, generation.request);
    checkFanOut(calls, call.adapter.slug);
    if (!this.holdsBudget) return this.ticket?.confirm?.();
    return this.hold(
      worstCaseCostUsd({
        provider: call.adapter.slug,
        pricedModel: call.adapter.pricedModel?.(call.credentials ?? {}, call.model) ?? call.model,
        // What the body asks for, read by whichever thread parsed it.
        ingress: { maxOutputTokens: () => generation.maxOutputTokens },
        operation: generation.operation,
        body: undefined,
        bodyBytes: generation.rawBody.length,
        calls,
        choices: generation.answersBilled,
      }),
    );
  }

  /** Whether the caller's key or the lending key has a budget a call's worst case must be held against. */
  get holdsBudget(): boolean {
    return this.ticket?.hasBudget === true || this.lender?.hasBudget === true;
  }

  /** Holds a worst case worked out by the caller (embeddings: their input tokens at the model's price) against both keys' budgets. */
  hold(worstCaseUsd: number | null): void | Promise<void> {
    const callerHolds = this.ticket?.hasBudget === true;
    const lenderHolds = this.lender?.hasBudget === true;
    // The caller's budgets first: a caller over its own budget is refused as itself, not as the lender.
    const held = callerHolds ? this.ticket!.reserve(worstCaseUsd) : this.ticket?.confirm?.();
    if (!lenderHolds) return held;
    const lender = this.lender!;
    return held instanceof Promise ? held.then(() => holdByLender(lender, worstCaseUsd)) : holdByLender(lender, worstCaseUsd);
  }
}

/** The lending key cannot hold it: the route skips that target, as it skips one over its rpm. */
function holdByLender(lender: LimitTicket, worstCaseUsd: number | null): void | Promise<void> {
  const overLimit = (error: unknown): never => {
    if (error instanceof LimitExceeded) throw new LenderOverLimit(error);
    throw error;
  };
  try {
    const held = lender.reserve(worstCaseUsd);
    return held instanceof Promise ? held.catch(overLimit) : held;
  } catch (error) {
    return overLimit(error);
  }
}

/** The most provider calls one request makes, fan-out, retries and fallbacks together. */
export const MAX_PROVIDER_ATTEMPTS = 16;

export class ProviderAttempts {
  private made = 0;

  constructor(private readonly ticket: LimitTicket | undefined) {}

  /** Whether another call may be made; retries ask before they wait, and stop (the last answer stands) if not. */
  get available(): boolean {
    return this.made < MAX_PROVIDER_ATTEMPTS;
  }

  /** Takes one call; throws when the request has made all it may (a copy or a target that cannot be tried). */
  take(provider: string): void {
    if (this.made >= MAX_PROVIDER_ATTEMPTS) {
      throw new GatewayError(
        502,
        'gateway_error',
        `This request has made ${MAX_PROVIDER_ATTEMPTS} provider calls (choices, retries and route targets together), the most one request may make; no further call was sent`,
        null,
        'provider_attempts_exceeded',
        provider,
      );
    }
    // Admission counted the request's first call; each further one is one more request this minute.
    if (this.made > 0) this.ticket?.countCall();
    this.made++;
  }
}

/** A request that needs more calls than the cap before any retry (`n` at a provider without it) is refused up front. */
export function checkFanOut(calls: number, provider: string): void {
  if (calls > MAX_PROVIDER_ATTEMPTS) {
    throw invalidRequest(
      `'n' of ${calls} needs ${calls} calls to provider '${provider}' (one per choice), and one request may make at most ${MAX_PROVIDER_ATTEMPTS} provider calls; ask for at most ${MAX_PROVIDER_ATTEMPTS} choices`,
      'n',
    );
  }
}
