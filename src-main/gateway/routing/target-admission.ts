// Whether a route may serve a call with one target key's credentials. The key must lend them to the
// caller: a gateway key (the user's own) and the key itself always may; another virtual key only when
// the target key allows routing. And the call must fit the target key's own limits, as it fits the
// caller's: what a key spends is counted against its own rpm, tpm and budgets whoever called.
import { GatewayError } from '../../core/errors.js';
import type { Caller } from '../../core/keys.js';
import { LimitExceeded, type KeyLimiter, type LimitTicket } from '../limits/limiter.js';
import type { LimitName } from '../../core/limits.js';
import type { PlannedTarget } from './router.js';

/** A target the route may not use for this call: skipped like a failing one; `answer` is sent when no target is left. */
export class TargetRefused extends Error {
  constructor(
    /** What the attempt log says of the skipped target. */
    readonly reason: string,
    readonly answer: GatewayError,
  ) {
    super(answer.message);
  }
}

const LIMIT_REASONS: Record<LimitName, string> = {
  rpm: "over the key's requests per minute",
  tpm: "over the key's tokens per minute",
  dailyUsd: "over the key's daily budget",
  monthlyUsd: "over the key's monthly budget",
};

/** True when the caller may have its call served with the target key's credentials. */
export function mayBorrow(caller: Caller, target: PlannedTarget['caller']): boolean {
  return caller.kind === 'gateway-key' || caller.keyId === target.keyId || target.allowRouting === true;
}

/**
 * Admits the call against the target key: its leave, then its limits. Returns the target's ticket
 * (undefined when the target is the caller's own key, whose ticket the call holds already), as a promise
 * when the limits are decided in Redis; throws (or rejects with) TargetRefused when the target may not serve.
 */
export function admitTarget(caller: Caller, routeName: string, target: PlannedTarget, limits: KeyLimiter | undefined): LimitTicket | undefined | Promise<LimitTicket> {
  const key = target.caller;
  const keyName = key.name ?? target.key;
  if (!mayBorrow(caller, key)) {
    throw new TargetRefused(
      'key does not allow routing',
      new GatewayError(
        403,
        'permission_error',
        `Route '${routeName}': virtual key '${keyName}' does not let other keys' calls use its credentials. ` +
          `Its owner can allow it (allowRouting on the key: the Keys page, or 'gatehouse keys routing ${keyName} --allow'), or call with a gateway key.`,
        null,
        'routing_not_allowed',
      ),
    );
  }
  if (!limits || key.keyId === caller.keyId) return undefined;
  const refused = (error: unknown): never => {
    if (!(error instanceof LimitExceeded)) throw error;
    throw targetOverLimit(routeName, error);
  };
  try {
    const admitted = limits.admit(key.keyId, keyName);
    return admitted instanceof Promise ? admitted.catch(refused) : admitted;
  } catch (error) {
    return refused(error);
  }
}

/** The target key's limit refused the call: the target is skipped, and with none left the client gets that limit's 429. */
export function targetOverLimit(routeName: string, error: LimitExceeded): TargetRefused {
  const answer = new LimitExceeded(`Route '${routeName}': ${error.message}`, error.code as 'budget_exceeded' | 'rate_limit_exceeded', error.limit, error.retryAfterSeconds, error.resetsAt);
  return new TargetRefused(LIMIT_REASONS[error.limit], answer);
}
