// The provider calls one request may make, all counted: one per choice when the provider has no `n`,
// each retry (x-gateway-retry-count) and each route target tried. Without a cap one admitted request
// could fan out to hundreds of calls (n: 128 × 6 tries); every call past the first also counts one
// request against the key's requests per minute.
import { GatewayError, invalidRequest } from '../../core/errors.js';
import type { LimitTicket } from './limiter.js';

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
