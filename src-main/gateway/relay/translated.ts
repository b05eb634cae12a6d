// A provider whose format is not the client's: its answer decoded to the canonical model and encoded in the
// client's dialect, a stream event by event as each arrives; n single-choice calls merged into one answer.
import type { ServerResponse } from 'node:http';
import type { UpstreamResponse } from '../../providers/upstream.js';
import { addUsage, type CanonicalAnswer, type CanonicalRequest, type DialectCodec, type ProviderCodec, type StreamDecoder, type Usage } from '../../codecs/canonical.js';
import { SSE_DONE } from '../sse.js';
import { ProviderStreamError } from '../../core/provider-stream-error.js';
import { readHeldJson, relayedHeaders, relayProviderError, streamFailure, upstreamEvents } from './provider-answer.js';
import { failStream, streamHeaders, StreamWriter } from './client-writer.js';
import type { RelayOptions, RelayOutcome } from './types.js';

export interface TranslatedRelayOptions extends RelayOptions {
  /** The request as the provider codec encoded it (one choice per call when fanned out). */
  request: CanonicalRequest;
  providerCodec: ProviderCodec;
  dialectCodec: DialectCodec;
}

/** Merges the answers of n single-choice calls into one answer with choices 0..n-1 (Chat and Completions' `n`, Gemini's `candidates`). */
function mergeChoices(answers: object[]): object {
  if (answers.length === 1) return answers[0];
  type WithChoices = Record<string, unknown>;
  const merged = { ...(answers[0] as WithChoices) };
  const key = 'candidates' in merged ? 'candidates' : 'choices';
  merged[key] = answers.flatMap((answer, index) => (((answer as WithChoices)[key] as object[] | undefined) ?? []).map((choice) => ({ ...choice, index })));
  return merged;
}

/**
 * Answers from a provider whose format is not the client's: each upstream event is decoded to canonical
 * events and encoded in the client's dialect the moment it arrives; a whole answer is decoded, then encoded.
 * With n calls (formats without `n`), their answers or streams are merged into one: `all` is the answer of each.
 */
export async function relayTranslated(res: ServerResponse, all: UpstreamResponse[], options: TranslatedRelayOptions): Promise<RelayOutcome> {
  const { request, providerCodec, dialectCodec } = options;
  const failed = all.find((upstream) => upstream.status >= 400);
  if (failed) {
    for (const other of all) if (other !== failed) other.body.destroy();
    return relayProviderError(res, failed, options);
  }

  if (!options.stream) {
    const decode = async (upstream: UpstreamResponse): Promise<CanonicalAnswer> => {
      const json = await readHeldJson(upstream, options, 'answered');
      // A provider's error in a 200 answer, or JSON its codec cannot read: a 502 naming the provider, as mid-stream.
      try {
        return providerCodec.decodeResponse(json, request);
      } catch (error) {
        throw error instanceof ProviderStreamError ? streamFailure(error, options.signal, options.adapter.slug) : error;
      }
    };
    const answers = await Promise.all(all.map(decode));
    let usage: Usage | undefined;
    for (const answer of answers) usage = addUsage(usage, answer.usage);
    const encoded = answers.map((answer) => dialectCodec.encodeResponse(answer, request));
    const merged = mergeChoices(encoded);
    if (answers.length > 1 && usage) Object.assign(merged, summedUsage(dialectCodec, request, answers[0], usage));
    const json = JSON.stringify(merged);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json), ...relayedHeaders(all[0]) });
    res.end(json);
    return { status: 200, ttfbMs: performance.now() - options.started, error: null, responseBody: json, usage };
  }

  // Gemini's stream without `alt=sse` is one JSON array written piece by piece, not SSE.
  const head = request.streamFraming === 'json-array' ? { ...streamHeaders, 'content-type': 'application/json; charset=utf-8' } : streamHeaders;
  res.writeHead(200, { ...head, ...relayedHeaders(all[0]) });
  const writer = new StreamWriter(res, options);
  const fanOut = all.length > 1;
  const encoders = all.map((_, index) => dialectCodec.createStreamEncoder(request, fanOut ? { index, of: all.length } : undefined));
  const usages: (Usage | undefined)[] = all.map(() => undefined);
  try {
    await Promise.all(
      all.map(async (upstream, index) => {
        const decoder = providerCodec.createStreamDecoder(request);
        const encoder = encoders[index];
        const pass = async (events: ReturnType<StreamDecoder['onEvent']>) => {
          for (const event of events) {
            if (event.type === 'usage') usages[index] = event.usage;
            await writer.write(encoder.onEvent(event));
          }
        };
        for await (const event of upstreamEvents(upstream.body as AsyncIterable<Buffer>, decoder.framing)) await pass(decoder.onEvent(event));
        await pass(decoder.onEnd());
        if (fanOut) await writer.write(encoder.onEnd());
        else writer.end(encoder.onEnd());
      }),
    );
  } catch (error) {
    return failStream(res, all, writer, options, error, (failure) => encoders[0].onError(failure), sumUsages(usages));
  }
  const usage = sumUsages(usages);
  if (fanOut) writer.end(dialectCodec.fanOutTail ? dialectCodec.fanOutTail(request, usage) : SSE_DONE);
  return { status: 200, ttfbMs: writer.ttfbMs, error: null, responseBody: writer.capture.text(), usage };
}

function sumUsages(usages: (Usage | undefined)[]): Usage | undefined {
  let total: Usage | undefined;
  for (const usage of usages) total = addUsage(total, usage);
  return total;
}

/** The dialect's usage field for a summed usage (`usage`, Gemini's `usageMetadata`): encoded as an empty answer of that usage, and read back. */
function summedUsage(dialectCodec: DialectCodec, request: CanonicalRequest, template: CanonicalAnswer, usage: Usage): Record<string, unknown> {
  const encoded = dialectCodec.encodeResponse({ ...template, content: [], usage }, request) as Record<string, unknown>;
  return 'usageMetadata' in encoded ? { usageMetadata: encoded.usageMetadata } : { usage: encoded.usage };
}
