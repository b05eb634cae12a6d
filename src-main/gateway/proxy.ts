// One proxied call, as a pipeline of plain stages: read headers → authenticate → read and validate the
// body → resolve provider and credentials → build the upstream request → send → relay or translate back.
// Every call, failed ones included, leaves one entry for the request log.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isUtf8 } from 'node:buffer';
import { GatewayError, invalidRequest } from './errors.js';
import { readGatewayHeaders, type GatewayHeaders } from './gateway-headers.js';
import { authenticate, resolveTarget, type Caller, type KeyDirectory } from './auth.js';
import type { CompletionRequest } from './validate.js';
import { getProvider, secretCredentialValues } from './providers/registry.js';
import type { Operation, ProviderCall, ProviderCredentials } from './providers/types.js';
import type { WireFormat } from './codecs/canonical.js';
import { dialectCodec, providerCodec } from './codecs/registry.js';
import { refusesStatefulFields } from './codecs/openai-responses.js';
import type { Ingress, RoutedRequest } from './ingress/types.js';
import { sendTokenEstimate } from './token-estimate.js';
import { sendUpstream, UpstreamTimeout, type AttemptRecord, type UpstreamResponse } from './upstream.js';
import { checkContextWindow, checkPromptFits } from './context-window.js';
import { redactHeaders, redactSecrets } from './redact.js';
import { RequestAbort } from './request-abort.js';
import { relayModelList, relayPassthrough, relayTranslated, type RelayOutcome } from './relay.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
import type { LogEntryInput } from '../store/request-log.js';
import { LimitExceeded, type KeyLimiter, type LimitTicket } from './limits/limiter.js';
import { dialectOfPath, usageFromBody, type NormalisedUsage } from '../store/usage-from-body.js';
import { priceCall } from '../catalog/pricing.js';

export interface ProxyDependencies {
  keys: KeyDirectory;
  log: (entry: LogEntryInput) => void;
  maxBodyBytes: number;
  /** Limits per key (requests and tokens per minute, USD budgets); absent = no limits at all. */
  limits?: KeyLimiter;
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

/** How long a refused body may go on arriving while the 413 is read; then the connection is cut. */
const REFUSED_BODY_DRAIN_MS = 1_000;

/**
 * Stops taking a body over the limit without cutting the connection at once: a client still sending
 * would get a reset instead of the 413. What arrives is discarded, and the socket is closed soon after.
 */
function refuseRemainingBody(req: IncomingMessage): void {
  req.resume();
  const cut = setTimeout(() => req.socket.destroy(), REFUSED_BODY_DRAIN_MS);
  cut.unref();
  req.socket.once('close', () => clearTimeout(cut));
}

export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = () => new GatewayError(413, 'invalid_request_error', `The request body is larger than the limit of ${maxBytes} bytes`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    refuseRemainingBody(req);
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off('data', onData);
        req.off('end', onEnd);
        refuseRemainingBody(req);
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    req.on('data', onData);
    req.on('end', onEnd);
    // A client that hangs up mid-body is an ordinary event, not a gateway fault to report with a stack.
    req.on('error', () => reject(new GatewayError(499, 'invalid_request_error', 'The client closed the connection before its body arrived')));
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, extraHeaders: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  // After a refused body the connection cannot be reused: the rest of that body is still on the wire.
  const connection: Record<string, string> = status === 413 ? { connection: 'close' } : {};
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...connection, ...extraHeaders });
  res.end(text);
}

export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError(500, 'api_error', 'Internal gateway error');
}

function parseJsonBody(raw: Buffer, text: string): unknown {
  if (raw.length === 0) throw invalidRequest('The request body is empty; send a JSON object');
  if (exceedsJsonDepth(raw)) throw invalidRequest(`The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidRequest(`The request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** What a proxied request asks for: a generation (or token count) in one dialect, or the provider's model list. */
export type ProxyRoute = { ingress: Ingress; operation: Operation } | 'models';

/** A body in UTF-8: anything else cannot be JSON, and would be read with replacement characters. */
function decodeBodyText(raw: Buffer): string {
  // isUtf8 is a native scan; a fatal TextDecoder costs a copy and an exception path per request.
  if (!isUtf8(raw)) throw invalidRequest('The request body is not valid UTF-8; send JSON encoded as UTF-8');
  return raw.toString('utf8');
}

/** `application/json`, with any parameters; a missing header is taken as JSON (what many scripts send). */
function checkContentType(req: IncomingMessage): void {
  const type = req.headers['content-type'];
  if (type === undefined) return;
  const essence = type.split(';', 1)[0].trim().toLowerCase();
  if (essence !== 'application/json') {
    throw new GatewayError(415, 'invalid_request_error', `Unsupported Content-Type '${type}': send the body as JSON with 'Content-Type: application/json'`, 'content-type', 'unsupported_media_type');
  }
}

export async function handleProxy(req: IncomingMessage, res: ServerResponse, route: ProxyRoute, path: string, deps: ProxyDependencies): Promise<void> {
  const startedAt = Date.now();
  const started = performance.now();
  const abort = new RequestAbort();
  const ingress = route === 'models' ? undefined : route.ingress;
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
  let failureBody: object | undefined;
  let ticket: LimitTicket | undefined;

  try {
    headers = readGatewayHeaders(req.headers);
    res.setHeader('x-gateway-trace-id', headers.traceId);
    caller = authenticate(headers, deps.keys);
    // Before any body is read or provider called: a key over its limit costs nothing more.
    ticket = deps.limits?.admit(caller.keyId);
    let rawBody: Buffer | undefined;
    if (route !== 'models') {
      rawBody = await readBody(req, deps.maxBodyBytes);
      checkContentType(req);
      bodyText = decodeBodyText(rawBody);
      routed = route.ingress.readRequest(parseJsonBody(rawBody, bodyText));
    }
    const target = await resolveTarget(headers, caller);
    providerSlug = target.provider;
    credentials = target.credentials;
    const adapter = getProvider(target.provider);
    timeout = setTimeout(() => abort.abort(new UpstreamTimeout(headers!.timeoutMs)), headers.timeoutMs);
    const secrets = secretValues(target.credentials, headers);
    const retries = headers.retryCount;
    const send = async (call: ProviderCall): Promise<UpstreamResponse> =>
      sendUpstream(await adapter.buildRequest(call), adapter.slug, { signal: abort, retries, onAttempt: (attempt) => attemptLog.push(attempt) });

    if (route === 'models') {
      if (!adapter.modelListing) {
        throw new GatewayError(404, 'not_found_error', `Provider '${adapter.slug}' has no model list Gatehouse can read`, null, null, adapter.slug);
      }
      const upstream = await sendUpstream(adapter.modelListing.request(target.credentials, target.customHost, headers.forwardHeaders), adapter.slug, {
        signal: abort,
        retries,
        onAttempt: (attempt) => attemptLog.push(attempt),
      });
      const shape = req.headers['anthropic-version'] !== undefined ? 'anthropic' : 'openai';
      outcome = await relayModelList(res, upstream, adapter.modelListing, shape, { adapter, stream: false, started, signal: abort, secrets, ingress: undefined });
    } else {
      const request = routed!;
      const { ingress: entry, operation } = route;
      const dialect = entry.dialect;
      if (dialect === 'openai-completions') await checkContextWindow(target.provider, request.body as CompletionRequest);
      else if (operation === 'generate') await checkPromptFits(target.provider, request.model, dialect, request.body, rawBody!.length);
      const formats = adapter.formats(request.model);
      providerFormat = formats.includes(dialect) ? dialect : formats[0];
      const relayOptions = { adapter, stream: request.stream, started, signal: abort, secrets, ingress: entry };
      const base = { format: providerFormat, operation, model: request.model, stream: request.stream, credentials: target.credentials, customHost: target.customHost, forwardHeaders: headers.forwardHeaders };

      if (operation === 'count_tokens' && !(providerFormat === dialect && adapter.modelInBody)) {
        // Only a provider that takes the Messages body as it is can count it; for the others, an estimate.
        outcome = await sendTokenEstimate(res, dialectCodec(dialect).decodeRequest(request.body), started);
      } else if (providerFormat === dialect && adapter.modelInBody) {
        // The client speaks the provider's format: its bytes go up unchanged, the answer comes back unchanged.
        const call: ProviderCall = { ...base, body: rawBody! };
        outcome = await relayPassthrough(res, await send(call), relayOptions, call);
      } else {
        if (dialect === 'openai-responses' && providerFormat !== dialect) {
          const stateful = refusesStatefulFields(request.body);
          if (stateful) throw stateful;
        }
        const canonical = dialectCodec(dialect).decodeRequest(request.body);
        const codec = providerCodec(providerFormat);
        // Formats without `n` get n calls of one choice each, merged back into one answer.
        const copies = !adapter.supportsN && (canonical.n ?? 1) > 1 ? canonical.n! : 1;
        const single = copies > 1 ? { ...canonical, n: 1 } : canonical;
        const encoded = codec.encodeRequest(single, { provider: adapter.slug, modelInBody: adapter.modelInBody });
        dropped = encoded.dropped;
        const call: ProviderCall = { ...base, body: JSON.stringify(encoded.body) };
        outcome =
          providerFormat === dialect
            ? await relayPassthrough(res, await send(call), relayOptions, call)
            : await relayTranslated(res, Array.from({ length: copies }, () => call), send, { ...relayOptions, request: single, providerCodec: codec, dialectCodec: dialectCodec(dialect) });
      }
    }
  } catch (error) {
    failure = abort.reason instanceof ClientGone ? new GatewayError(499, 'api_error', 'The client closed the connection') : toGatewayError(error);
    if (!(error instanceof GatewayError)) console.error('Gatehouse: unexpected error while proxying', error);
    const redacted = new GatewayError(failure.status, failure.type, redactSecrets(failure.message, secretValues(credentials, headers)), failure.param, failure.code, failure.provider);
    failureBody = ingress ? ingress.errorBody(redacted) : redacted.toBody();
    const retryAfter: Record<string, string> = failure instanceof LimitExceeded ? { 'retry-after': String(failure.retryAfterSeconds) } : {};
    if (!res.headersSent && !res.destroyed) sendJson(res, failure.status, failureBody, retryAfter);
  } finally {
    clearTimeout(timeout);
    // Whatever provider call is still open (a sibling of a failed fan-out call) must not outlive the request.
    // An answer relayed without error has read every provider body to its end: nothing is left to free,
    // and an abort event nobody hears costs a few µs a request.
    const everyBodyRead = outcome !== undefined && outcome.error === null;
    if (!everyBodyRead && !abort.aborted) abort.abort(REQUEST_FINISHED);
  }

  const status = outcome?.status ?? failure?.status ?? 500;
  const secretsToRedact = secretValues(credentials, headers);
  // A passthrough answer's usage is read from the body here rather than when the row is written (the same
  // work, on the same thread), so the entry carries its tokens and cost for whoever observes it.
  let usage = outcome?.usage;
  // Read from the body: handed over as read (nulls included), so the log writer does not read it again.
  let counted: NormalisedUsage | undefined;
  if (!usage && outcome && outcome.status < 400 && outcome.responseBody !== null) {
    counted = usageFromBody(outcome.responseBody, routed?.stream === true, ingress?.dialect ?? dialectOfPath(path));
    if (counted.promptTokens !== null) {
      usage = {
        inputTokens: counted.promptTokens,
        outputTokens: counted.completionTokens ?? 0,
        ...(counted.cacheReadTokens !== null ? { cacheReadTokens: counted.cacheReadTokens } : {}),
        ...(counted.cacheWriteTokens !== null ? { cacheWriteTokens: counted.cacheWriteTokens } : {}),
        ...(counted.reasoningTokens !== null ? { reasoningTokens: counted.reasoningTokens } : {}),
      };
    }
  }
  const model = routed?.model ?? null;
  const entry: LogEntryInput = {
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
    attempts: Math.max(attemptLog.length, 1),
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
    ...(counted
      ? { ...counted }
      : usage
      ? {
          promptTokens: usage.inputTokens,
          completionTokens: usage.outputTokens,
          cacheReadTokens: usage.cacheReadTokens ?? null,
          cacheWriteTokens: usage.cacheWriteTokens ?? null,
          reasoningTokens: usage.reasoningTokens ?? null,
        }
      : {}),
    costUsd: priceCall(providerSlug, model, usage),
  };
  // Counted as it finishes: its tokens for the minute, its cost for the day and month.
  ticket?.release({ tokens: usage ? usage.inputTokens + usage.outputTokens : 0, costUsd: entry.costUsd ?? null });
  deps.log(entry);
}

/** The values that must never appear in what we relay or record. */
function secretValues(credentials: ProviderCredentials | undefined, headers: GatewayHeaders | undefined): string[] {
  const values: (string | undefined)[] = [...secretCredentialValues(credentials), headers?.apiKey, headers?.bearer];
  if (headers) for (const name of headers.sensitiveHeaderNames) values.push(headers.forwardHeaders[name]);
  return values.filter((value): value is string => typeof value === 'string');
}
