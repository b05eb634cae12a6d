// What every stage of one proxied call reads (the request's headers, caller, clock, abort and admission),
// what a stage that reached a provider returns (Served), and the one way a call reaches the provider its
// caller names (reachDirect): the target resolved, its secrets worked out, each provider attempt logged.
import type { ServerResponse } from 'node:http';
import type { GatewayHeaders } from './gateway-headers.js';
import { resolveTarget, type RouteTarget } from './auth.js';
import type { Caller } from '../core/keys.js';
import type { AttemptRecord } from '../core/call-record.js';
import type { RequestAbort } from '../core/request-abort.js';
import { secretCredentialValues } from '../providers/registry.js';
import type { ProviderAdapter, ProviderCredentials } from '../providers/types.js';
import type { SendOptions } from '../providers/upstream.js';
import type { WireFormat } from '../codecs/canonical.js';
import type { EmbeddingFormat } from '../codecs/embeddings/canonical.js';
import type { RelayOptions, RelayOutcome } from './relay/types.js';
import type { Ingress } from './ingress/types.js';
import type { CallAdmission } from './limits/call-admission.js';
import type { LimitTicket } from './limits/limiter.js';

/** One admitted request, as every stage after admission reads it. */
export interface CallContext {
  res: ServerResponse;
  headers: GatewayHeaders;
  caller: Caller;
  /** The provider's own token the request brought (authenticate's answer); a virtual key's call has none. */
  providerToken: string | undefined;
  /** performance.now() when the request came in: time to first byte is measured from it. */
  started: number;
  /** Ends every provider call of the request (client gone, the request's timeout, the request over). */
  abort: RequestAbort;
  admission: CallAdmission;
}

/** The provider target a call reached (the one that served, or was tried last). */
export interface ServedTarget {
  provider: string;
  credentials: ProviderCredentials | undefined;
  /** The model name sent to the provider (a route's target or a key's model map may change it); what is priced. */
  model: string | null;
  providerFormat: WireFormat | EmbeddingFormat | null;
  dropped: string[];
  /** The values never to appear in what is relayed or recorded, when worked out on the way. */
  secrets: string[] | undefined;
  /** On a routed call: the target's "key name → model". */
  label: string | null;
  /** On a routed call: the virtual key whose credentials the target uses. */
  keyId: string | null;
  /**
   * The target key's own limit ticket, when the call was admitted against it (not for the caller's own
   * key): released with the call's outcome, as the caller's is.
   */
  ticket: LimitTicket | undefined;
}

/**
 * What a stage that reached for a provider returns, failed or not: the target it reached, each provider
 * attempt, and the relayed answer or the failure that stopped it before one was relayed.
 */
export interface Served {
  target: ServedTarget | undefined;
  /** The route the requested model matched; null when none did. */
  route: string | null;
  attemptLog: AttemptRecord[];
  outcome: RelayOutcome | undefined;
  /** Why no answer was relayed; undefined when one was. */
  failure: unknown;
}

/** The target once its plan is made: the format it is sent and what that format drops (a new value; the reached one stays as it was). */
export function plannedTarget(reached: ServedTarget, plan: { providerFormat: WireFormat | EmbeddingFormat; dropped: string[] }): ServedTarget {
  return { ...reached, providerFormat: plan.providerFormat, dropped: plan.dropped };
}

/** The values that must never appear in what we relay or record. */
export function callSecrets(credentials: ProviderCredentials | undefined, headers: GatewayHeaders | undefined): string[] {
  const values: (string | undefined)[] = [...secretCredentialValues(credentials), headers?.apiKey, headers?.bearer];
  if (headers) for (const name of headers.sensitiveHeaderNames) values.push(headers.forwardHeaders[name]);
  return values.filter((value): value is string => typeof value === 'string');
}

/** The abort reason once a request is over: frees any provider call still open. */
class RequestFinished extends Error {
  constructor() {
    super('The request is finished');
  }
}

/** One shared instance: a new Error per request would capture a stack trace on every call for nothing. */
export const REQUEST_FINISHED = new RequestFinished();

/** The provider the caller's key or headers name, ready to be sent to. */
export interface DirectTarget {
  target: RouteTarget;
  adapter: ProviderAdapter;
  served: ServedTarget;
  attemptLog: AttemptRecord[];
  /** How its calls are sent: the request's abort, retries and provider-call allowance; each attempt logged. */
  send: SendOptions;
  /** How its answer is relayed. */
  relay: RelayOptions;
}

/** Reaches the provider the caller names (no route): the same steps for generations, model lists and stored responses. */
export async function reachDirect(context: Pick<CallContext, 'headers' | 'caller' | 'providerToken' | 'started' | 'abort'> & { admission?: CallAdmission }, model: string | null, stream: boolean, ingress: Ingress | undefined): Promise<DirectTarget> {
  const { headers, abort } = context;
  const target = await resolveTarget(headers, context, model);
  const { adapter } = target;
  // Worked out once: the same list redacts the relay's errors and the log entry.
  const secrets = callSecrets(target.credentials, headers);
  const attemptLog: AttemptRecord[] = [];
  return {
    target,
    adapter,
    served: { provider: target.provider, credentials: target.credentials, model, providerFormat: null, dropped: [], secrets, label: null, keyId: null, ticket: undefined },
    attemptLog,
    send: { signal: abort, retries: headers.retryCount, attempts: context.admission?.attempts, onAttempt: (attempt) => attemptLog.push(attempt) },
    relay: { adapter, stream, started: context.started, signal: abort, secrets, ingress },
  };
}
