// Reading a provider's answer: its headers a client may see, a body held whole within bounds, its error
// put in the client's dialect, why a stream broke off, and its stream as events.
import type { ServerResponse } from 'node:http';
import type { AbortLike } from '../../core/request-abort.js';
import { GatewayError } from '../../core/errors.js';
import { ProviderStreamError } from '../../core/provider-stream-error.js';
import type { StreamDecoder, UpstreamEvent } from '../../codecs/canonical.js';
import { describeConnectionError, timeoutFailure, type UpstreamResponse } from '../../providers/upstream.js';
import { redactSecrets } from '../../core/redact.js';
import { boundedMemo } from '../../core/bounded-memo.js';
import { readSseEvents } from '../sse.js';
import { readEventStreamFrames } from '../aws-eventstream.js';
import { renderError, type RelayOptions, type RelayOutcome } from './types.js';

/** Upstream headers worth passing on: request ids and rate-limit figures help clients. */
const RELAYED_RESPONSE_HEADERS = /^(x-request-id|request-id|x-ratelimit-.*|anthropic-ratelimit-.*|retry-after|openai-.*|x-amzn-requestid|apim-request-id)$/;

/** Whether a header name is relayed, remembered per name: a provider sends the same dozen names on every answer. */
const isRelayedHeader = boundedMemo(512, (name) => RELAYED_RESPONSE_HEADERS.test(name));

/** The provider's headers a client may see (added to `result` when given). */
export function relayedHeaders(upstream: UpstreamResponse, result: Record<string, string> = {}): Record<string, string> {
  const headers = upstream.headers;
  // for…in rather than Object.entries: no array of pairs per answer.
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    const value = headers[name];
    if (value !== undefined && isRelayedHeader(name)) result[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return result;
}

/** Error bodies are short: past this, the head says all there is to say and the rest is not read. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** An answer the gateway must hold whole to translate it; a provider must not be able to fill our memory. */
const MAX_HELD_BODY_BYTES = 32 * 1024 * 1024;

/** Reads a provider body up to `maxBytes`; `complete` is false when the rest was left unread (the body is then destroyed). */
export async function readUpTo(body: UpstreamResponse['body'], maxBytes: number): Promise<{ text: string; complete: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      return { text: Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'), complete: false };
    }
  }
  return { text: Buffer.concat(chunks).toString('utf8'), complete: true };
}

/** A body the gateway holds whole (to translate it), or a 502 when the provider sends more than anyone should. */
export async function readHeldBody(upstream: UpstreamResponse, provider: string): Promise<string> {
  const { text, complete } = await readUpTo(upstream.body, MAX_HELD_BODY_BYTES);
  if (!complete) {
    throw new GatewayError(502, 'gateway_error', `Provider '${provider}' answered with a body over ${MAX_HELD_BODY_BYTES} bytes`, null, 'bad_provider_response', provider);
  }
  return text;
}

/**
 * A body held whole and parsed. A read that fails is reported as what it was (the timeout as 504, a
 * broken connection or an oversized body as 502); only a body that is not JSON is called that.
 */
export async function readHeldJson(upstream: UpstreamResponse, options: RelayOptions, answered: string): Promise<unknown> {
  const provider = options.adapter.slug;
  let text: string;
  try {
    text = await readHeldBody(upstream, provider);
  } catch (error) {
    throw streamFailure(error, options.signal, provider);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new GatewayError(502, 'gateway_error', `Provider '${provider}' ${answered} with a body that is not JSON`, null, 'bad_provider_response', provider);
  }
}

/** The provider's error, in the contract's shape, with its status and name. */
export async function relayProviderError(res: ServerResponse, upstream: UpstreamResponse, options: RelayOptions): Promise<RelayOutcome> {
  const { text } = await readUpTo(upstream.body, MAX_ERROR_BODY_BYTES);
  const mapped = options.adapter.mapError(upstream.status, text, upstream.headers);
  const message = redactSecrets(mapped.message, options.secrets);
  const body = renderError(options, new GatewayError(upstream.status, mapped.type, message, mapped.param ?? null, mapped.code, options.adapter.slug));
  const json = JSON.stringify(body);
  res.writeHead(upstream.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json), ...relayedHeaders(upstream) });
  res.end(json);
  return { status: upstream.status, ttfbMs: performance.now() - options.started, error: message, responseBody: json };
}

/** Why a stream stopped early, as the message of the error event the client gets. */
export function streamFailure(error: unknown, signal: AbortLike, provider: string): GatewayError {
  const timedOut = timeoutFailure(error, signal, provider);
  if (timedOut) return timedOut;
  if (error instanceof ProviderStreamError) return new GatewayError(502, error.type, error.message, null, error.code, provider);
  if (error instanceof GatewayError) return error;
  return new GatewayError(502, 'gateway_error', `The provider stream broke off: ${describeConnectionError(error)}`, null, 'stream_interrupted', provider);
}

export function upstreamEvents(body: AsyncIterable<Buffer>, framing: StreamDecoder['framing']): AsyncIterable<UpstreamEvent> {
  if (framing === 'aws-eventstream') return readEventStreamFrames(body);
  return (async function* () {
    for await (const event of readSseEvents(body)) yield { kind: 'sse' as const, event: event.event, data: event.data };
  })();
}
