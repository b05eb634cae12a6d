// Sends an embeddings plan's calls and answers the client: a passthrough answer is relayed as the
// provider wrote it (bytes unchanged); a translated one is read call by call, put back in input order
// and written in the client's dialect. Either way the log gets a summary (how many vectors, how many
// dimensions), never the vectors, and the usage the provider reported — or, where it reports none
// (Gemini's batch, Cohere without its header), the gateway's own count, marked as an estimate.
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../../core/errors.js';
import { redactSecrets } from '../../core/redact.js';
import type { Usage } from '../../codecs/canonical.js';
import type { DecodedEmbeddings, EmbeddingRequest } from '../../codecs/embeddings/canonical.js';
import type { EmbeddingCall, ProviderAdapter } from '../../providers/types.js';
import type { UpstreamResponse } from '../../providers/upstream.js';
import { countTokens } from '../token-count.js';
import { MAX_ERROR_BODY_BYTES, readHeldJson, readUpTo, relayedHeaders, streamFailure } from '../relay/provider-answer.js';
import type { RelayOptions, RelayOutcome } from '../relay/types.js';
import type { EmbeddingsPlan } from './embeddings-plan.js';
import type { EmbeddingsInbound } from './embeddings-ingress.js';

/** Calls of one request in flight at once (Titan: one per input). */
const CONCURRENT_CALLS = 8;
/** A passed-through answer is kept up to this size to read its usage and vector count for the log. */
const MAX_SUMMARISED_BYTES = 256 * 1024 * 1024;

/** The provider's error, in the contract's fields: thrown, so the front door answers in its own shape. */
async function providerError(upstream: UpstreamResponse, adapter: ProviderAdapter, secrets: readonly string[]): Promise<GatewayError> {
  const { text } = await readUpTo(upstream.body, MAX_ERROR_BODY_BYTES);
  const mapped = adapter.mapError(upstream.status, text, upstream.headers);
  return new GatewayError(upstream.status, mapped.type, redactSecrets(mapped.message, secrets), mapped.param ?? null, mapped.code, adapter.slug);
}

/** What the log keeps of an answer: its shape and size, never a vector. */
export function embeddingsSummary(model: string, decoded: DecodedEmbeddings | null, encoding: EmbeddingRequest['encoding'], usage: Usage | undefined, estimated: boolean): string {
  return JSON.stringify({
    object: 'list',
    model,
    embeddings: decoded ? { count: decoded.vectors.length, dimensions: decoded.vectors[0]?.length ?? 0, encoding } : null,
    usage: usage ? { prompt_tokens: usage.inputTokens, total_tokens: usage.inputTokens, ...(estimated ? { estimated: true } : {}) } : null,
    note: 'vectors are not stored in the log',
  });
}

/** The input tokens the gateway counts itself: token arrays by their length, texts on the counting thread. */
async function countedInputTokens(request: EmbeddingRequest): Promise<number> {
  let tokens = 0;
  const texts: string[] = [];
  for (const input of request.inputs) {
    if (input.kind === 'tokens') tokens += input.tokens.length;
    else texts.push(input.text);
  }
  return tokens + (await countTokens('cl100k_base', texts)).tokens;
}

/** Usage as reported, else counted and marked as an estimate. */
async function usageOf(reported: number | null, request: EmbeddingRequest): Promise<{ usage: Usage; estimated: boolean }> {
  const estimated = reported === null;
  const inputTokens = reported ?? (await countedInputTokens(request));
  return { usage: { inputTokens, outputTokens: 0 }, estimated };
}

export function relayEmbeddings(
  res: ServerResponse,
  inbound: EmbeddingsInbound,
  plan: EmbeddingsPlan,
  first: UpstreamResponse | null,
  send: (call: EmbeddingCall) => Promise<UpstreamResponse>,
  options: RelayOptions,
): Promise<RelayOutcome> {
  return plan.passthrough ? relayPassedThrough(res, inbound, plan, first ?? send(plan.call), options) : relayTranslatedEmbeddings(res, inbound, plan, first, send, options);
}

async function relayPassedThrough(res: ServerResponse, inbound: EmbeddingsInbound, plan: EmbeddingsPlan, answer: UpstreamResponse | Promise<UpstreamResponse>, options: RelayOptions): Promise<RelayOutcome> {
  const upstream = await answer;
  if (upstream.status >= 400) throw await providerError(upstream, plan.adapter, options.secrets);
  const head: Record<string, string> = { 'content-type': String(upstream.headers['content-type'] ?? 'application/json') };
  const length = upstream.headers['content-length'];
  if (typeof length === 'string') head['content-length'] = length;
  res.writeHead(upstream.status, relayedHeaders(upstream, head));
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let ttfbMs: number | null = null;
  try {
    for await (const chunk of upstream.body as AsyncIterable<Buffer>) {
      ttfbMs ??= performance.now() - options.started;
      if (keptBytes + chunk.length <= MAX_SUMMARISED_BYTES) kept.push(chunk);
      keptBytes += chunk.length;
      if (!res.write(chunk) && !res.destroyed) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
    }
  } catch (error) {
    if (res.destroyed) return { status: 499, ttfbMs, error: 'The client closed the connection', responseBody: null };
    // A JSON answer cut in half cannot be repaired: closing the connection tells the client it failed.
    const failure = streamFailure(error, options.signal, plan.adapter.slug);
    res.destroy();
    return { status: failure.status, ttfbMs, error: failure.message, responseBody: null };
  }
  res.end();
  let decoded: DecodedEmbeddings | null = null;
  if (keptBytes <= MAX_SUMMARISED_BYTES) {
    try {
      decoded = plan.codec.decodeAnswer(JSON.parse(Buffer.concat(kept).toString('utf8')), upstream.headers, plan.adapter.slug);
    } catch {
      // The client has its answer; the log only lacks its summary and usage.
    }
  }
  const { usage, estimated } = await usageOf(decoded?.inputTokens ?? null, inbound.request);
  return { status: upstream.status, ttfbMs, error: null, responseBody: embeddingsSummary(plan.call.model, decoded, inbound.request.encoding, usage, estimated), usage, usageEstimated: estimated };
}

async function relayTranslatedEmbeddings(
  res: ServerResponse,
  inbound: EmbeddingsInbound,
  plan: EmbeddingsPlan,
  first: UpstreamResponse | null,
  send: (call: EmbeddingCall) => Promise<UpstreamResponse>,
  options: RelayOptions,
): Promise<RelayOutcome> {
  const { adapter, calls, codec } = plan;
  const parts: DecodedEmbeddings[] = new Array(calls.length);
  const readPart = async (index: number, upstream: UpstreamResponse): Promise<void> => {
    if (upstream.status >= 400) throw await providerError(upstream, adapter, options.secrets);
    parts[index] = codec.decodeAnswer(await readHeldJson(upstream, options, 'answered'), upstream.headers, adapter.slug);
  };
  // The first call (a route may have sent it already), then the rest a few at a time, kept in input order.
  await readPart(0, first ?? (await send(calls[0])));
  let next = 1;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (next < calls.length && !failed) {
      const index = next++;
      try {
        await readPart(index, await send({ ...calls[index], part: index }));
      } catch (error) {
        // The answer is lost with one part: no further call is sent for it.
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_CALLS, calls.length - 1) }, worker));
  const vectors = parts.flatMap((part) => part.vectors);
  if (vectors.length !== inbound.request.inputs.length) {
    throw new GatewayError(502, 'gateway_error', `Provider '${adapter.slug}' answered ${vectors.length} embeddings for ${inbound.request.inputs.length} inputs`, null, 'bad_provider_response', adapter.slug);
  }
  const reported = parts.every((part) => part.inputTokens !== null) ? parts.reduce((sum, part) => sum + part.inputTokens!, 0) : null;
  const { usage, estimated } = await usageOf(reported, inbound.request);
  const model = plan.call.model;
  const text = JSON.stringify(inbound.encodeAnswer({ model, vectors, inputTokens: reported }, usage.inputTokens));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
  const summary = embeddingsSummary(model, { vectors, inputTokens: reported }, inbound.request.encoding, usage, estimated);
  return { status: 200, ttfbMs: performance.now() - options.started, error: null, responseBody: summary, usage, usageEstimated: estimated };
}
