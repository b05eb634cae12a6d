// Calls to providers: one keep-alive connection pool per origin (undici Agent), aborts when the client
// leaves or the timeout passes, and retries with backoff for failures that happen before any byte went out.
import { boundedMemo } from '../core/bounded-memo.js';
import type { AbortLike } from '../core/request-abort.js';
import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import { GatewayError } from '../core/errors.js';
import type { UpstreamRequest } from './types.js';

/** The provider calls a request may still make (the gateway's ProviderAttempts); retries ask it before each call. */
export interface AttemptAllowance {
  readonly available: boolean;
  take(provider: string): void;
}

export const upstreamAgent = new Agent({
  keepAliveTimeout: 30_000,
  keepAliveMaxTimeout: 120_000,
  connections: 256,
  connect: { timeout: 10_000 },
  // Time limits are set per request from x-gateway-request-timeout; these are the outer bounds.
  headersTimeout: 10 * 60_000,
  bodyTimeout: 10 * 60_000,
});

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

export interface AttemptRecord {
  status: number | null;
  error: string | null;
  durationMs: number;
}

export interface SendOptions {
  signal: AbortLike;
  retries: number;
  /** Called after each attempt, the last one included: the log records every attempt. */
  onAttempt?: (attempt: AttemptRecord) => void;
  /** The request's count of provider calls: each attempt takes one, and no retry is made past its cap. */
  attempts?: AttemptAllowance;
}

/** Provider URLs split into origin and path once: parsing a URL on every call was 1% of a proxied request. */
const splitUrl = boundedMemo(512, (url) => {
  const parsed = new URL(url);
  return { origin: parsed.origin, path: parsed.pathname + parsed.search };
});

const RETRYABLE = (status: number) => status === 429 || status >= 500;
const MAX_BACKOFF_MS = 8_000;

/** Exponential backoff with full jitter, or the provider's `Retry-After` when it gives one. */
export function retryDelayMs(attempt: number, retryAfter: string | undefined, random = Math.random): number {
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, 60_000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.min(Math.max(0, date - Date.now()), 60_000);
  }
  const ceiling = Math.min(MAX_BACKOFF_MS, 250 * 2 ** attempt);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

function sleep(ms: number, signal: AbortLike): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function describeConnectionError(error: unknown): string {
  const err = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.code ?? err.cause?.code;
  return code ? `${code}: ${err.cause?.message ?? err.message ?? 'connection failed'}` : (err.message ?? String(error));
}

/** The abort reason our own timeout uses, so it can be told apart from a client that left. */
export class UpstreamTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`The provider did not answer within ${timeoutMs} ms`);
  }
}

/** Our x-gateway-request-timeout, or undici's own time limits, as the contract's 504; null for any other failure. */
export function timeoutFailure(error: unknown, signal: AbortLike, provider: string): GatewayError | null {
  if (signal.reason instanceof UpstreamTimeout) {
    return new GatewayError(504, 'gateway_error', `${signal.reason.message} (x-gateway-request-timeout)`, null, 'timeout', provider);
  }
  if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) {
    return new GatewayError(504, 'gateway_error', 'The provider timed out', null, 'timeout', provider);
  }
  return null;
}

function upstreamFailure(error: unknown, signal: AbortLike, provider: string): GatewayError {
  return timeoutFailure(error, signal, provider) ?? new GatewayError(502, 'gateway_error', `Could not reach provider '${provider}': ${describeConnectionError(error)}`, null, 'provider_unreachable', provider);
}

/**
 * Sends the request, retrying 429 / 5xx / connection errors up to `retries` times. Retries only
 * happen here, before the response is handed back — so never once a byte went to the client.
 */
export async function sendUpstream(upstream: UpstreamRequest, provider: string, options: SendOptions): Promise<UpstreamResponse> {
  // Waiting between attempts is not an attempt: an abort during the wait ends the call without a record.
  const backOff = (attempt: number, retryAfter: string | undefined) =>
    sleep(retryDelayMs(attempt, retryAfter), options.signal).catch((reason: unknown) => {
      throw upstreamFailure(reason, options.signal, provider);
    });
  // A retry is made only while the request may still make calls; else the last failure is the answer.
  // Its call is counted when the retry is decided, on the same turn: two copies of a fanned-out request
  // cannot both decide on the last call the request may make (one would then fail the whole request).
  const retryTaken = (attempt: number): boolean => {
    if (attempt >= options.retries || !(options.attempts?.available ?? true)) return false;
    options.attempts?.take(provider);
    return true;
  };
  options.attempts?.take(provider);
  for (let attempt = 0; ; attempt++) {
    const started = performance.now();
    let response: Dispatcher.ResponseData;
    try {
      const { origin, path } = splitUrl(upstream.url);
      response = await upstreamAgent.request({
        origin,
        path,
        method: upstream.method,
        headers: upstream.headers,
        body: upstream.body,
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal.aborted) {
        options.onAttempt?.({ status: null, error: String((options.signal.reason as Error | undefined)?.message ?? 'aborted'), durationMs: performance.now() - started });
        throw upstreamFailure(error, options.signal, provider);
      }
      if (error instanceof GatewayError) throw error;
      options.onAttempt?.({ status: null, error: describeConnectionError(error), durationMs: performance.now() - started });
      if (retryTaken(attempt)) {
        await backOff(attempt, undefined);
        continue;
      }
      throw upstreamFailure(error, options.signal, provider);
    }
    options.onAttempt?.({ status: response.statusCode, error: null, durationMs: performance.now() - started });
    if (RETRYABLE(response.statusCode) && retryTaken(attempt)) {
      const retryAfter = response.headers['retry-after'];
      await response.body.dump().catch(() => undefined);
      await backOff(attempt, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
      continue;
    }
    return { status: response.statusCode, headers: response.headers, body: response.body };
  }
}
