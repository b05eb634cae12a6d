// The record of one finished call (core/call-record.ts), built from the values the call's stages returned,
// and what the call spent against its keys' limits.
import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayError } from '../core/errors.js';
import type { Caller } from '../core/keys.js';
import type { CallRecord } from '../core/call-record.js';
import type { Usage } from '../codecs/canonical.js';
import { answeredModel } from '../codecs/usage-from-body.js';
import { findProvider } from '../providers/registry.js';
import type { ProviderCredentials } from '../providers/types.js';
import { priceCall } from '../catalog/pricing.js';
import { catalogModel } from '../catalog/catalog.js';
import type { GatewayHeaders } from './gateway-headers.js';
import type { RelayOutcome } from './relay/types.js';
import type { RoutedRequest } from './ingress/types.js';
import { estimatedUsage } from './limits/usage-estimate.js';
import { callSecrets, type Served } from './call-context.js';

/** What a call's stages returned, as far as it got: each later value is undefined when it failed before. */
export interface FinishedCall {
  startedAt: number;
  started: number;
  path: string;
  requestHeaders: IncomingHttpHeaders;
  /** The client's dialect; undefined for model lists. */
  dialect: string | undefined;
  headers: GatewayHeaders | undefined;
  caller: Caller | undefined;
  bodyText: string | undefined;
  request: Omit<RoutedRequest, 'body'> | undefined;
  served: Served | undefined;
  /** Why the call failed, as answered to the client, and the body it was answered with. */
  failure: GatewayError | undefined;
  failureBody: object | undefined;
}

/** What a call spent: its tokens for the minute, its cost for the day and month. */
export interface Spent {
  tokens: number;
  costUsd: number | null;
}

/**
 * The call's log entry, and what it is charged against its keys' limits. With `estimateUnreported` (the
 * caller's key holds limits), an answer that reported no usage is charged an estimate, so a budget holds
 * for it too (the log keeps it unknown).
 */
export function recordCall(call: FinishedCall, estimateUnreported: boolean): { entry: CallRecord; spent: Spent } {
  const { served, headers, request } = call;
  const outcome = served?.outcome;
  const target = served?.target;
  const stream = request?.stream === true;
  const status = outcome?.status ?? call.failure?.status ?? 500;
  const credentials = target?.credentials;
  const secrets = target?.secrets ?? callSecrets(credentials, headers);
  // Read once, by the relay, from the answer as it went by: every row carries the gateway's counts.
  const usage = outcome?.usage;
  const attemptLog = served?.attemptLog ?? [];
  // A target skipped without a call (cooling down) is in the attempt log but was no attempt.
  let attempts = 0;
  for (const attempt of attemptLog) if (attempt.status !== null || attempt.error !== null) attempts++;
  const model = request?.model ?? null;
  const provider = target?.provider ?? null;
  const pricedModel = pricedModelOf(provider, target?.model ?? model, credentials, outcome, stream, call.dialect ?? null);
  const entry: CallRecord = {
    createdAt: call.startedAt,
    traceId: headers?.traceId ?? '',
    metadata: headers?.metadata ?? {},
    keyId: call.caller?.keyId ?? null,
    provider,
    model,
    servedModel: target?.model ?? model,
    path: call.path,
    status,
    latencyMs: performance.now() - call.started,
    ttfbMs: outcome?.ttfbMs ?? null,
    stream,
    error: outcome?.error ?? call.failure?.message ?? null,
    attempts: Math.max(attempts, 1),
    attemptLog,
    // Every column is redacted, by these secrets and header names, when the log takes the record
    // (core/redacted-record.ts): a provider may echo the caller's key in an answer or an error too.
    requestHeaders: call.requestHeaders,
    secretHeaderNames: headers?.sensitiveHeaderNames,
    requestBody: call.bodyText ?? null,
    responseBody: outcome?.responseBody ?? (call.failureBody ? JSON.stringify(call.failureBody) : null),
    secrets,
    dialect: call.dialect ?? null,
    providerFormat: target?.providerFormat ?? null,
    dropped: target?.dropped ?? [],
    route: served?.route ?? null,
    routeTarget: target?.label ?? null,
    targetKeyId: target?.keyId ?? null,
    promptTokens: usage?.inputTokens ?? null,
    completionTokens: usage?.outputTokens ?? null,
    cacheReadTokens: usage?.cacheReadTokens ?? null,
    cacheWriteTokens: usage?.cacheWriteTokens ?? null,
    reasoningTokens: usage?.reasoningTokens ?? null,
    usageEstimated: outcome?.usageEstimated === true,
    costUsd: priceCall(provider, pricedModel, usage),
    // No key was accepted: a burst of these is coalesced in the log (refusal-log.ts).
    unauthenticated: call.caller === undefined && status === 401,
  };
  const chargedUsage: Usage | undefined =
    usage ??
    (estimateUnreported && outcome && outcome.status < 400 && outcome.responseBody !== null && call.bodyText !== undefined ? estimatedUsage(call.bodyText.length, outcome.responseBody, stream) : undefined);
  const spent = {
    tokens: chargedUsage ? chargedUsage.inputTokens + chargedUsage.outputTokens : 0,
    costUsd: chargedUsage === usage ? (entry.costUsd ?? null) : priceCall(provider, pricedModel, chargedUsage),
  };
  return { entry, spent };
}

/**
 * The model a call is priced by: the model the provider was sent; for a provider whose model names are
 * the user's own (an Azure deployment), the model stored with the key, else, when that has no price,
 * the model an OpenAI-format answer says served it.
 */
function pricedModelOf(
  providerSlug: string | null,
  model: string | null,
  credentials: ProviderCredentials | undefined,
  outcome: RelayOutcome | undefined,
  stream: boolean,
  dialect: string | null,
): string | null {
  if (!providerSlug || !model) return model;
  // The slug may be one the request was refused for: this runs after every request, answered or not.
  const pricing = findProvider(providerSlug)?.pricedModel;
  if (!pricing) return model;
  const named = pricing(credentials ?? {}, model);
  const answerIsOpenAI = dialect === 'openai-chat' || dialect === 'openai-completions';
  if (catalogModel(providerSlug, named)?.prices || !answerIsOpenAI || !outcome || outcome.status >= 400 || outcome.responseBody === null) return named;
  return answeredModel(outcome.responseBody, stream) ?? named;
}
