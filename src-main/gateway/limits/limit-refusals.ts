// What a key over a limit is told: one wording for the limit's 429, whichever counters decided it (the
// in-memory ones of one process, or Redis shared by many). The counters hand over the figures; these
// functions turn them into the LimitExceeded the client reads.
import { GatewayError } from '../../core/errors.js';
import type { LimitName } from '../../core/limits.js';
import { localIsoTime } from './calendar.js';

/** A rate limit's Retry-After never says more than this: its windows are a minute long. */
export const MAX_RATE_LIMIT_RETRY_AFTER_SECONDS = 60;

/** A 429 that says which limit, until when, and how long to wait (proxy.ts sends it as Retry-After). */
export class LimitExceeded extends GatewayError {
  constructor(
    message: string,
    code: 'budget_exceeded' | 'rate_limit_exceeded',
    readonly limit: LimitName,
    readonly retryAfterSeconds: number,
    readonly resetsAt: number,
  ) {
    super(429, 'rate_limit_error', message, null, code);
  }

  /**
   * The answer's headers. A spent budget will not admit a retry before it resets (hours away): the
   * official SDKs sleep for whatever Retry-After says unless `x-should-retry: false` tells them not to
   * retry, so a client shows the error at once instead of hanging until midnight.
   */
  headers(): Record<string, string> {
    const retryAfter = { 'retry-after': String(this.retryAfterSeconds) };
    return this.code === 'budget_exceeded' ? { ...retryAfter, 'x-should-retry': 'false' } : retryAfter;
  }
}

export const usd = (value: number) => `$${value < 1 ? value.toFixed(4).replace(/0{1,2}$/, '') : value.toFixed(2)}`;
const secondsUntil = (at: number, now: number) => Math.max(1, Math.ceil((at - now) / 1000));
/** A minute window admits again within its minute: never more than that, whatever the clock did. */
const windowSecondsUntil = (at: number, now: number) => Math.min(MAX_RATE_LIMIT_RETRY_AFTER_SECONDS, secondsUntil(at, now));

/** How a key is named in a refusal. */
export const keyLabel = (keyId: string, name: string | undefined) => (name !== undefined ? `Key '${name}'` : `Key ${keyId}`);

/** A budget already spent: no call is admitted until it resets (`at`). */
export function budgetSpent(who: string, limit: 'dailyUsd' | 'monthlyUsd', budget: number, spent: number, at: number, now: number): LimitExceeded {
  const message =
    limit === 'dailyUsd'
      ? `${who} has used its daily budget of ${usd(budget)} (${usd(spent)} spent today); it resets at local midnight, ${localIsoTime(at)}`
      : `${who} has used its monthly budget of ${usd(budget)} (${usd(spent)} spent this month); it resets on the 1st, ${localIsoTime(at)}`;
  return new LimitExceeded(message, 'budget_exceeded', limit, secondsUntil(at, now), at);
}

/** The minute window holds the rpm or tpm limit; `at` is when enough of it has left the window. */
export function rateOver(who: string, limit: 'rpm' | 'tpm', max: number, used: number, at: number, now: number): LimitExceeded {
  const wait = windowSecondsUntil(at, now);
  const message =
    limit === 'rpm'
      ? `${who} is over its limit of ${max} requests per minute; a request is allowed again at ${localIsoTime(at)} (in ${wait} s)`
      : `${who} is over its limit of ${max} tokens per minute (${used} used in the last minute); requests are allowed again at ${localIsoTime(at)} (in ${wait} s)`;
  return new LimitExceeded(message, 'rate_limit_exceeded', limit, wait, at);
}

/** A call's worst case would take a budget past its amount, counting what calls in flight hold. */
export function reservationRefused(
  who: string,
  limit: 'dailyUsd' | 'monthlyUsd',
  figures: { budget: number; spent: number; heldUsd: number; heldCalls: number; amount: number; at: number; now: number },
): LimitExceeded {
  const { budget, spent, heldUsd, heldCalls, amount, at, now } = figures;
  const period = limit === 'dailyUsd' ? 'daily' : 'monthly';
  const resets = limit === 'dailyUsd' ? 'it resets at local midnight' : 'it resets on the 1st';
  const left = Math.max(0, budget - spent - heldUsd);
  const held = heldUsd > 0 ? ` (${usd(heldUsd)} of it held by ${heldCalls} call${heldCalls === 1 ? '' : 's'} in flight until they finish)` : '';
  return new LimitExceeded(
    `${who} has ${usd(left)} left of its ${period} budget of ${usd(budget)}${held}, and this call could cost up to ${usd(amount)} (its prompt and its maximum output tokens); ask for fewer output tokens, or wait: ${resets}, ${localIsoTime(at)}`,
    'budget_exceeded',
    limit,
    secondsUntil(at, now),
    at,
  );
}
