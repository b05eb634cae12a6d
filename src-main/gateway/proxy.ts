// One proxied call, as a pipeline of plain stages: read headers → authenticate → read and validate the
// body → resolve provider and credentials → build the upstream request → send → relay or translate back.
// Every call, failed ones included, leaves one entry for the request log.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError, invalidRequest, type ErrorBody } from './errors.js';
import { readGatewayHeaders, type GatewayHeaders } from './gateway-headers.js';
import { authenticate, resolveTarget, type Caller, type KeyDirectory } from './auth.js';
import { validateChat, validateCompletion, type ChatRequest, type CompletionRequest } from './validate.js';
import { getProvider } from './providers/registry.js';
import type { Endpoint, ProviderAdapter, ProviderCall, ProviderCredentials } from './providers/types.js';
import { sendUpstream, UpstreamTimeout, type AttemptRecord, type UpstreamResponse } from './upstream.js';
import { checkContextWindow } from './context-window.js';
import { redactHeaders, redactSecrets } from './redact.js';
import { RequestAbort } from './request-abort.js';
import { relayModelList, relayPassthrough, relayTranslated, type RelayOutcome } from './relay.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
import type { LogEntryInput } from '../store/request-log.js';

export interface ProxyDependencies {
  keys: KeyDirectory;
  log: (entry: LogEntryInput) => void;
  maxBodyBytes: number;
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

/** Splits `n` for providers that generate one choice per call. */
function fanOutCount(adapter: ProviderAdapter, body: CompletionRequest | ChatRequest): number {
  return !adapter.supportsN && body.n != null && body.n > 1 ? body.n : 1;
}

/** What a proxied request asks for: one of the two generation endpoints, or the provider's model list. */
export type ProxyRoute = Endpoint | 'models';

export async function handleProxy(req: IncomingMessage, res: ServerResponse, route: ProxyRoute, path: string, deps: ProxyDependencies): Promise<void> {
  const startedAt = Date.now();
  const started = performance.now();
  const abort = new RequestAbort();
  let timeout: NodeJS.Timeout | undefined;
  res.on('close', () => {
    if (!res.writableFinished) abort.abort(new ClientGone());
  });

  let headers: GatewayHeaders | undefined;
  let caller: Caller | undefined;
  let providerSlug: string | null = null;
  let body: CompletionRequest | ChatRequest | undefined;
  let rawBody: Buffer | undefined;
  let bodyText: string | undefined;
  let credentials: ProviderCredentials | undefined;
  const attemptLog: AttemptRecord[] = [];
  let outcome: RelayOutcome | undefined;
  let failure: GatewayError | undefined;
  let failureBody: ErrorBody | undefined;

  try {
    headers = readGatewayHeaders(req.headers);
    res.setHeader('x-gateway-trace-id', headers.traceId);
    caller = authenticate(headers, deps.keys);
    if (route !== 'models') {
      rawBody = await readBody(req, deps.maxBodyBytes);
      bodyText = rawBody.toString('utf8');
      const json = parseJsonBody(rawBody, bodyText);
      body = route === 'chat' ? validateChat(json) : validateCompletion(json);
    }
    const target = await resolveTarget(headers, caller);
    providerSlug = target.provider;
    credentials = target.credentials;
    const adapter = getProvider(target.provider);
    if (route === 'completions') await checkContextWindow(target.provider, body as CompletionRequest);
    timeout = setTimeout(() => abort.abort(new UpstreamTimeout(headers!.timeoutMs)), headers.timeoutMs);

    if (route === 'models') {
      if (!adapter.modelListing) {
        throw new GatewayError(404, 'not_found_error', `Provider '${adapter.slug}' has no model list Gatehouse can read`, null, null, adapter.slug);
      }
      const upstream = await sendUpstream(adapter.modelListing.request(target.credentials, target.customHost, headers.forwardHeaders), adapter.slug, {
        signal: abort,
        retries: headers.retryCount,
        onAttempt: (attempt) => attemptLog.push(attempt),
      });
      outcome = await relayModelList(res, upstream, adapter.modelListing, { adapter, stream: false, started, signal: abort, secrets: secretValues(target.credentials, headers) });
    } else {
      // Read and validated above for both generation routes.
      const request = body!;
      const stream = request.stream === true;
      const copies = fanOutCount(adapter, request);
      const calls: ProviderCall[] = Array.from({ length: copies }, () => ({
        endpoint: route,
        body: copies > 1 ? { ...request, n: 1 } : request,
        rawBody: rawBody!,
        stream,
        credentials: target.credentials,
        customHost: target.customHost,
        forwardHeaders: headers!.forwardHeaders,
      })) as ProviderCall[];
      const retries = headers.retryCount;
      const send = async (call: ProviderCall): Promise<UpstreamResponse> => {
        const upstreamRequest = await adapter.buildRequest(call);
        return sendUpstream(upstreamRequest, adapter.slug, { signal: abort, retries, onAttempt: (attempt) => attemptLog.push(attempt) });
      };
      const secrets = secretValues(target.credentials, headers);
      outcome =
        adapter.relay === 'passthrough'
          ? await relayPassthrough(res, await send(calls[0]), { adapter, stream, started, signal: abort, secrets })
          : await relayTranslated(res, calls, send, { adapter, stream, started, signal: abort, secrets });
    }
  } catch (error) {
    failure = abort.reason instanceof ClientGone ? new GatewayError(499, 'api_error', 'The client closed the connection') : toGatewayError(error);
    if (!(error instanceof GatewayError)) console.error('Gatehouse: unexpected error while proxying', error);
    failureBody = failure.toBody();
    failureBody.error.message = redactSecrets(failureBody.error.message, secretValues(credentials, headers));
    if (!res.headersSent && !res.destroyed) sendJson(res, failure.status, failureBody);
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
  deps.log({
    createdAt: startedAt,
    traceId: headers?.traceId ?? '',
    metadata: headers?.metadata ?? {},
    keyId: caller?.keyId ?? null,
    provider: providerSlug,
    model: body?.model ?? null,
    path,
    status,
    latencyMs: performance.now() - started,
    ttfbMs: outcome?.ttfbMs ?? null,
    stream: body?.stream === true,
    error: outcome?.error ?? (failure ? redactSecrets(failure.message, secretsToRedact) : null),
    attempts: Math.max(attemptLog.length, 1),
    attemptLog,
    requestHeaders: redactHeaders(req.headers, headers?.sensitiveHeaderNames ?? new Set()),
    // Both bodies are redacted (a provider may echo the caller's key in an answer too) when the row is
    // written, off this request's path, and only if bodies are kept.
    requestBody: bodyText ?? null,
    responseBody: outcome?.responseBody ?? (failureBody ? JSON.stringify(failureBody) : null),
    secrets: secretsToRedact,
    ...(outcome?.usage ? { promptTokens: outcome.usage.promptTokens, completionTokens: outcome.usage.completionTokens } : {}),
  });
}

/** The values that must never appear in what we relay or record. */
function secretValues(credentials: ProviderCredentials | undefined, headers: GatewayHeaders | undefined): string[] {
  const values: (string | undefined)[] = [credentials?.token, credentials?.bedrock?.secretAccessKey, credentials?.bedrock?.sessionToken, headers?.apiKey, headers?.bearer];
  if (headers) for (const name of headers.sensitiveHeaderNames) values.push(headers.forwardHeaders[name]);
  return values.filter((value): value is string => typeof value === 'string');
}

