// One proxied call, as a pipeline of plain stages: read headers → authenticate → read and validate the
// body → resolve provider and credentials → build the upstream request → send → relay or translate back.
// Every call, failed ones included, leaves one entry for the request log.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { isUtf8 } from 'node:buffer';
import { GatewayError, invalidRequest } from '../core/errors.js';
import { readGatewayHeaders, type GatewayHeaders } from './gateway-headers.js';
import { authenticate, resolveTarget } from './auth.js';
import type { Caller, KeyDirectory } from '../core/keys.js';
import { findProvider, getProvider } from '../providers/registry.js';
import type { ModelList, Operation, ProviderCall, ProviderCredentials } from '../providers/types.js';
import type { WireFormat } from '../codecs/canonical.js';
import { refuseForwardedGatewayKeys } from './forward-guard.js';
import type { Ingress, RoutedRequest } from './ingress/types.js';
import { openaiResponsesIngress } from './ingress/openai-responses.js';
import { sendUpstream, UpstreamTimeout, type UpstreamResponse } from '../providers/upstream.js';
import { redactHeaders, redactSecrets } from '../core/redact.js';
import { RequestAbort } from '../core/request-abort.js';
import { readModelList, relayModelList, relayPassthrough, type RelayOutcome } from './relay.js';
import { MAX_JSON_DEPTH } from '../core/json-depth.js';
import { readBody, sendJson, toGatewayError } from '../core/http-io.js';
import type { CallRecord, AttemptRecord } from '../core/call-record.js';
import { scanJson } from './json-scan.js';
import type { Router } from './routing/router.js';
import { callSecrets, isPromise, mappedModel, prepareGeneration, sendCall, sendRouteModelList, serveRoute, type Generation } from './routed-call.js';
import { LimitExceeded, type KeyLimiter, type LimitTicket } from './limits/limiter.js';
import { CallAdmission } from './limits/call-admission.js';
import { estimatedUsage } from './limits/usage-estimate.js';
import { answeredModel, dialectOfPath, usageFromBody, type NormalisedUsage } from '../codecs/usage-from-body.js';
import { priceCall } from '../catalog/pricing.js';
import { catalogModel } from '../catalog/catalog.js';

export interface ProxyDependencies {
  keys: KeyDirectory;
  log: (entry: CallRecord) => void;
  maxBodyBytes: number;
  /** The route table of the running gateway; absent or empty: every call goes where its key says. */
  router?: Router;
  /** Limits per key (requests and tokens per minute, USD budgets); absent = no limits at all. */
  limits?: KeyLimiter;
  /**
   * A caller already authenticated by someone else (the admin Playground runs a virtual key picked by
   * name); when set, the request's own key headers are not read.
   */
  caller?: Caller;
}

/** The abort reason once a request is over: frees any provider call still open. */
class RequestFinished extends Error {
  constructor() {
    super('The request is finished');
  }
}

/** One shared instance: a new Error per request would capture a stack trace on every call for nothing. */
const REQUEST_FINISHED = new RequestFinished();

/** The client left before the answer was complete. */
export class ClientGone extends Error {
  constructor() {
    super('The client closed the connection');
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJsonBody(raw: Buffer, text: string): unknown {
  if (raw.length === 0) throw invalidRequest('The request body is empty; send a JSON object');
  // One pass for both: what JSON.parse cannot refuse. A name given twice would be validated on its last
  // value while the provider, sent the same bytes, may read the first.
  const problem = scanJson(raw);
  if (problem?.kind === 'too-deep') throw invalidRequest(`The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  if (problem?.kind === 'duplicate-name') {
    throw invalidRequest(`The request body names '${problem.name}' twice${problem.path === problem.name ? '' : ` (at ${problem.path})`}; send each member once`, problem.path);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidRequest(`The request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** What a proxied request asks for: a generation (or token count) in one dialect, or the provider's model list. */
export type ProxyRoute = GenerationRoute | 'models' | StoredResponseRoute;

/** A generation (or token count) in one dialect. */
export interface GenerationRoute {
  ingress: Ingress;
  operation: Operation;
}

/** A response the provider stored (OpenAI's `GET`/`DELETE /v1/responses/{id}[/input_items]`). */
export interface StoredResponseRoute {
  storedResponse: { method: 'GET' | 'DELETE'; path: string; search: string };
}

/** A body in UTF-8: anything else cannot be JSON, and would be read with replacement characters. */
function decodeBodyText(raw: Buffer): string {
  // isUtf8 is a native scan; a fatal TextDecoder costs a copy and an exception path per request.
  if (!isUtf8(raw)) throw invalidRequest('The request body is not valid UTF-8; send JSON encoded as UTF-8');
  return raw.toString('utf8');
}

/** `application/json`, with any parameters; a missing header is taken as JSON (what many scripts send). */
function checkContentType(req: IncomingMessage): void {
  const type = req.headers['content-type'];
  // The header nearly every client sends, taken without splitting and lower-casing it.
  if (type === undefined || type === 'application/json') return;
  const essence = type.split(';', 1)[0].trim().toLowerCase();
  if (essence !== 'application/json') {
    throw new GatewayError(415, 'invalid_request_error', `Unsupported Content-Type '${type}': send the body as JSON with 'Content-Type: application/json'`, 'content-type', 'unsupported_media_type');
  }
}

export async function handleProxy(req: IncomingMessage, res: ServerResponse, route: ProxyRoute, path: string, deps: ProxyDependencies): Promise<void> {
  const startedAt = Date.now();
  const started = performance.now();
  const abort = new RequestAbort();
  const ingress = route === 'models' ? undefined : 'ingress' in route ? route.ingress : openaiResponsesIngress;
  let timeout: NodeJS.Timeout | undefined;
  res.on('close', () => {
    if (!res.writableFinished) abort.abort(new ClientGone());
  });

  let headers: GatewayHeaders | undefined;
  let caller: Caller | undefined;
  let providerSlug: string | null = null;
  let providerFormat: WireFormat | null = null;
  let routed: RoutedRequest | undefined;
  let bodyText: string | undefined;
  let credentials: ProviderCredentials | undefined;
  let dropped: string[] = [];
  const attemptLog: AttemptRecord[] = [];
  let outcome: RelayOutcome | undefined;
  let failure: GatewayError | undefined;
  /** The model as the client's bytes name it (a default model may stand in for none). */
  let rawModel: unknown;
  let routeName: string | null = null;
  let routeTarget: string | null = null;
  /** The virtual key whose credentials served a routed call (or were tried last), and its own limit ticket. */
  let targetKeyId: string | null = null;
  let targetTicket: LimitTicket | undefined;
  /** The model name the provider was sent (a route's target or a key's model map may change it); what is priced. */
  let servedModel: string | null = null;
  let failureBody: object | undefined;
  let ticket: LimitTicket | undefined;
  /** The secrets of the call, when worked out on the way (a direct generation); else after it. */
  let knownSecrets: string[] | undefined;

  try {
    headers = readGatewayHeaders(req.headers);
    res.setHeader('x-gateway-trace-id', headers.traceId);
    caller = deps.caller ?? authenticate(headers, deps.keys);
    refuseForwardedGatewayKeys(headers, deps.keys);
    // Before any body is read or provider called: a key over its limit costs nothing more. What the call
    // may cost is held against its budgets once the body is read and its target known (CallAdmission).
    ticket = deps.limits?.admit(caller.keyId);
    const admission = new CallAdmission(ticket);
    let rawBody: Buffer | undefined;
    if (route !== 'models' && 'ingress' in route) {
      rawBody = await readBody(req, deps.maxBodyBytes);
      checkContentType(req);
      bodyText = decodeBodyText(rawBody);
      let json = parseJsonBody(rawBody, bodyText);
      rawModel = typeof json === 'object' && json !== null ? (json as { model?: unknown }).model : undefined;
      if (caller.kind === 'virtual-key' && caller.defaultModel && isObject(json) && (json.model === undefined || json.model === null || json.model === '')) {
        // The key's default model stands in for a body that names none.
        json = { ...json, model: caller.defaultModel };
      }
      routed = route.ingress.readRequest(json);
    }
    if (route !== 'models' && 'storedResponse' in route) {
      const target = await resolveTarget(headers, caller);
      providerSlug = target.provider;
      credentials = target.credentials;
      const adapter = getProvider(target.provider);
      timeout = setTimeout(() => abort.abort(new UpstreamTimeout(headers!.timeoutMs)), headers.timeoutMs);
      const { method, path: responsePath, search } = route.storedResponse;
      if (!adapter.storedResponses) {
        throw invalidRequest(
          `Gatehouse keeps no conversation state, and provider '${adapter.slug}' stores no responses: only a provider that stores them (OpenAI) can answer /v1/responses/{id}. Send the whole conversation in 'input' instead.`,
          'response_id',
        );
      }
      const upstream = await sendUpstream(adapter.storedResponses.request(method, responsePath, search, target.credentials, target.customHost, headers.forwardHeaders), adapter.slug, {
        signal: abort,
        retries: headers.retryCount,
        attempts: admission.attempts,
        onAttempt: (attempt) => attemptLog.push(attempt),
      });
      // A background response can be read back as a stream (`?stream=true`): relayed as it comes.
      const secrets = secretValues(target.credentials, headers);
      outcome = await relayPassthrough(res, upstream, { adapter, stream: new URLSearchParams(search).get('stream') === 'true', started, signal: abort, secrets, ingress });
    } else if (route === 'models') {
      const routeNames = deps.router && !deps.router.isEmpty ? deps.router.names() : undefined;
      const shape = req.headers['anthropic-version'] !== undefined ? 'anthropic' : 'openai';
      if (routeNames && caller.kind === 'gateway-key' && !headers.provider) {
        // A gateway key alone names no provider to ask: the routes are the models it can reach.
        outcome = sendRouteModelList(res, routeNames, shape, started);
      } else {
        const target = await resolveTarget(headers, caller);
        providerSlug = target.provider;
        credentials = target.credentials;
        const adapter = getProvider(target.provider);
        timeout = setTimeout(() => abort.abort(new UpstreamTimeout(headers!.timeoutMs)), headers.timeoutMs);
        if (!adapter.modelListing) {
          throw new GatewayError(404, 'not_found_error', `Provider '${adapter.slug}' has no model list Gatehouse can read`, null, null, adapter.slug);
        }
        const upstream = await sendUpstream(adapter.modelListing.request(target.credentials, target.customHost, headers.forwardHeaders), adapter.slug, {
          signal: abort,
          retries: headers.retryCount,
          attempts: admission.attempts,
          onAttempt: (attempt) => attemptLog.push(attempt),
        });
        const secrets = secretValues(target.credentials, headers);
        outcome = await relayModelList(res, upstream, adapter.modelListing, shape, { adapter, stream: false, started, signal: abort, secrets, ingress: undefined }, routeNames);
      }
    } else {
      const request = routed!;
      timeout = setTimeout(() => abort.abort(new UpstreamTimeout(headers!.timeoutMs)), headers.timeoutMs);
      // A gateway key that names its provider calls it directly; otherwise a matching route decides.
      const matched = deps.router && !deps.router.isEmpty && !(caller.kind === 'gateway-key' && headers.provider) ? deps.router.match(request.model) : undefined;
      const generation: Generation = { res, ingress: route.ingress, operation: route.operation, request, rawBody: rawBody!, rawModel, bodyText: bodyText!, headers, started, admission };
      if (!matched) {
        const target = await resolveTarget(headers, caller);
        providerSlug = target.provider;
        credentials = target.credentials;
        const adapter = getProvider(target.provider);
        // Worked out once: the same list redacts the relay's errors and the log entry (secretsToRedact).
        const secrets = (knownSecrets = secretValues(target.credentials, headers));
        const retries = headers.retryCount;
        const send = (call: ProviderCall): Promise<UpstreamResponse> =>
          sendCall(adapter, call, { signal: abort, retries, attempts: admission.attempts, onAttempt: (attempt) => attemptLog.push(attempt) });
        servedModel = mappedModel(caller, request.model);
        const preparing = prepareGeneration(generation, target, servedModel, { signal: abort, secrets }, send);
        const prepared = isPromise(preparing) ? await preparing : preparing;
        providerFormat = prepared.providerFormat;
        dropped = prepared.dropped;
        outcome = await prepared.relay(null);
      } else {
        routeName = matched.name;
        const served = await serveRoute(deps.router!, matched, generation, abort, attemptLog, (attempt) => {
          routeTarget = attempt.label;
          targetKeyId = attempt.keyId;
          targetTicket = attempt.ticket;
          servedModel = attempt.model;
          providerSlug = attempt.provider;
          credentials = attempt.credentials;
          providerFormat = attempt.providerFormat;
          dropped = attempt.dropped;
        }, { caller, limits: deps.limits });
        outcome = served;
      }
    }
  } catch (error) {
    failure = abort.reason instanceof ClientGone ? new GatewayError(499, 'api_error', 'The client closed the connection') : toGatewayError(error);
    if (!(error instanceof GatewayError)) console.error('Gatehouse: unexpected error while proxying', error);
    const redacted = new GatewayError(failure.status, failure.type, redactSecrets(failure.message, secretValues(credentials, headers)), failure.param, failure.code, failure.provider);
    failureBody = ingress ? ingress.errorBody(redacted) : redacted.toBody();
    const limitHeaders: Record<string, string> = failure instanceof LimitExceeded ? failure.headers() : {};
    if (!res.headersSent && !res.destroyed) sendJson(res, failure.status, failureBody, limitHeaders);
  } finally {
    clearTimeout(timeout);
    // Whatever provider call is still open (a sibling of a failed fan-out call) must not outlive the request.
    // An answer relayed without error has read every provider body to its end: nothing is left to free,
    // and an abort event nobody hears costs a few µs a request.
    const everyBodyRead = outcome !== undefined && outcome.error === null;
    if (!everyBodyRead && !abort.aborted) abort.abort(REQUEST_FINISHED);
  }

  const status = outcome?.status ?? failure?.status ?? 500;
  // Credentials and headers are the same ones a direct generation's secrets were worked out from.
  const secretsToRedact = knownSecrets ?? secretValues(credentials, headers);
  // A passthrough answer's usage is read from the body here rather than when the row is written (the same
  // work, on the same thread), so the entry carries its tokens and cost for limits and metrics.
  let usage = outcome?.usage;
  // The entry's five token counts: read from the body and handed over as read (nulls included), so the
  // log writer does not read it again; undefined (the writer reads the body) only when there is no answer.
  let tokens: NormalisedUsage | undefined;
  if (usage) {
    tokens = {
      promptTokens: usage.inputTokens,
      completionTokens: usage.outputTokens,
      cacheReadTokens: usage.cacheReadTokens ?? null,
      cacheWriteTokens: usage.cacheWriteTokens ?? null,
      reasoningTokens: usage.reasoningTokens ?? null,
    };
  } else if (outcome && outcome.status < 400 && outcome.responseBody !== null) {
    tokens = usageFromBody(outcome.responseBody, routed?.stream === true, ingress?.dialect ?? dialectOfPath(path));
    if (tokens.promptTokens !== null) {
      // One shape whichever counts are known (undefined for the others): every entry reads the same way.
      usage = {
        inputTokens: tokens.promptTokens,
        outputTokens: tokens.completionTokens ?? 0,
        cacheReadTokens: tokens.cacheReadTokens ?? undefined,
        cacheWriteTokens: tokens.cacheWriteTokens ?? undefined,
        reasoningTokens: tokens.reasoningTokens ?? undefined,
      };
    }
  }
  // A target skipped without a call (cooling down) is in the attempt log but was no attempt.
  let attempts = 0;
  for (const attempt of attemptLog) if (attempt.status !== null || attempt.error !== null) attempts++;
  const model = routed?.model ?? null;
  const pricedModel = pricedModelOf(providerSlug, servedModel ?? model, credentials, outcome, routed?.stream === true, ingress?.dialect ?? null);
  const entry: CallRecord = {
    createdAt: startedAt,
    traceId: headers?.traceId ?? '',
    metadata: headers?.metadata ?? {},
    keyId: caller?.keyId ?? null,
    provider: providerSlug,
    model,
    path,
    status,
    latencyMs: performance.now() - started,
    ttfbMs: outcome?.ttfbMs ?? null,
    stream: routed?.stream === true,
    error: outcome?.error ?? (failure ? redactSecrets(failure.message, secretsToRedact) : null),
    attempts: Math.max(attempts, 1),
    attemptLog,
    requestHeaders: redactHeaders(req.headers, headers?.sensitiveHeaderNames ?? new Set()),
    // Both bodies are redacted (a provider may echo the caller's key in an answer too) when the row is
    // written, off this request's path, and only if bodies are kept.
    requestBody: bodyText ?? null,
    responseBody: outcome?.responseBody ?? (failureBody ? JSON.stringify(failureBody) : null),
    secrets: secretsToRedact,
    dialect: ingress?.dialect ?? null,
    providerFormat,
    dropped,
    route: routeName,
    routeTarget,
    targetKeyId,
    promptTokens: tokens?.promptTokens,
    completionTokens: tokens?.completionTokens,
    cacheReadTokens: tokens?.cacheReadTokens,
    cacheWriteTokens: tokens?.cacheWriteTokens,
    reasoningTokens: tokens?.reasoningTokens,
    costUsd: priceCall(providerSlug, pricedModel, usage),
    // No key was accepted: a burst of these is coalesced in the log (refusal-log.ts).
    unauthenticated: caller === undefined && status === 401,
  };
  // Counted as it finishes: its tokens for the minute, its cost for the day and month. An answer that
  // reported no usage is charged an estimate, so a budget holds for it too (the log keeps it unknown).
  const charged =
    usage ??
    (ticket && outcome && outcome.status < 400 && outcome.responseBody !== null && bodyText !== undefined
      ? estimatedUsage(bodyText.length, outcome.responseBody, routed?.stream === true)
      : undefined);
  const spent = {
    tokens: charged ? charged.inputTokens + charged.outputTokens : 0,
    costUsd: charged === usage ? (entry.costUsd ?? null) : priceCall(providerSlug, pricedModel, charged),
  };
  ticket?.release(spent);
  // A routed call spends the target key's credentials: counted against its limits too.
  targetTicket?.release(spent);
  deps.log(entry);
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

/** A model list asked for by the admin Playground answers within this, whatever the request's own timeout. */
const MODEL_LIST_TIMEOUT_MS = 15_000;

/**
 * The model list /v1/models would relay for these headers (or `deps.caller`), through the same stages:
 * key, provider, credentials, the adapter's listing, retries. Returned instead of relayed and not logged:
 * the admin Playground offers it in its Model field. Failures are thrown as GatewayErrors, redacted.
 */
export async function fetchModelList(requestHeaders: IncomingHttpHeaders, deps: ProxyDependencies): Promise<ModelList> {
  const headers = readGatewayHeaders(requestHeaders);
  const caller = deps.caller ?? authenticate(headers, deps.keys);
  refuseForwardedGatewayKeys(headers, deps.keys);
  const target = await resolveTarget(headers, caller);
  const adapter = getProvider(target.provider);
  if (!adapter.modelListing) throw new GatewayError(404, 'not_found_error', `Provider '${adapter.slug}' has no model list Gatehouse can read`, null, null, adapter.slug);
  const abort = new RequestAbort();
  const timeoutMs = Math.min(headers.timeoutMs, MODEL_LIST_TIMEOUT_MS);
  const timeout = setTimeout(() => abort.abort(new UpstreamTimeout(timeoutMs)), timeoutMs);
  const secrets = secretValues(target.credentials, headers);
  try {
    const upstream = await sendUpstream(adapter.modelListing.request(target.credentials, target.customHost, headers.forwardHeaders), adapter.slug, { signal: abort, retries: headers.retryCount });
    return await readModelList(upstream, adapter.modelListing, { adapter, stream: false, started: performance.now(), signal: abort, secrets, ingress: undefined });
  } catch (error) {
    const failure = toGatewayError(error);
    throw new GatewayError(failure.status, failure.type, redactSecrets(failure.message, secrets), failure.param, failure.code, failure.provider);
  } finally {
    clearTimeout(timeout);
    if (!abort.aborted) abort.abort(REQUEST_FINISHED);
  }
}

/** The values that must never appear in what we relay or record. */
const secretValues = callSecrets;
