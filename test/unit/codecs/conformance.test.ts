// The codec conformance suite: the same properties over every wire format in the registry, as Hono runs one
// router suite over every router. Each format's halves come from the registry; a property a format has no
// halves for is a named skip. What a format cannot carry is listed in its profile (conformance-fixtures.ts)
// and is the only thing left out of a comparison.
//  1. Folding a stream gives the same answer as decoding the whole answer.
//  2. A request round-trips: canonical → encode → decode gives it back, and decode → encode → decode is stable.
//  3. An answer round-trips: encode → decode gives it back.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerEvents, foldEvents, type CanonicalAnswer, type CanonicalRequest, type Dialect, type DialectCodec, type EncodeTarget, type ProviderCodec, type StreamDecoder, type UpstreamEvent, type WireFormat } from '../../../src-main/codecs/canonical.js';
import { providerCodec } from '../../../src-main/codecs/registry.js';
import { maybeDialectCodec } from './dialect-codecs.js';
import { upstreamSseEvents as parseSse } from '../../helpers/sse.js';
import { answers, canonicalAnswer, normalAnswer, PROFILES, requests, type FormatProfile } from './conformance-fixtures.js';

const RUNS = { seed: 22, numRuns: 60 } as const;
const TARGET: EncodeTarget = { provider: 'conformance', modelInBody: true };

function halves(format: WireFormat): { provider?: ProviderCodec; dialect?: DialectCodec } {
  let provider: ProviderCodec | undefined;
  try {
    provider = providerCodec(format);
  } catch {
    provider = undefined;
  }
  return { provider, dialect: maybeDialectCodec(format) };
}


const replay = (decoder: StreamDecoder, events: UpstreamEvent[]) => foldEvents([...events.flatMap((event) => decoder.onEvent(event)), ...decoder.onEnd()], { id: '', model: '' });

/** The request an answer answers: streamed, usage asked for, in the format's own dialect when it has one. */
const answerRequest = (format: WireFormat): CanonicalRequest => ({
  dialect: (['openai-chat', 'openai-completions', 'openai-responses', 'anthropic-messages', 'gemini'].includes(format) ? format : 'openai-chat') as Dialect,
  onUnsupported: 'drop',
  model: 'model-1',
  system: [],
  turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
  stream: true,
  includeUsage: true,
  extensions: {},
});

/** How an answer goes onto this format's wire: its own dialect encoder, else the suite's reference writer. */
function writerFor(format: WireFormat, profile: FormatProfile, dialect: DialectCodec | undefined) {
  if (dialect) {
    return {
      whole: (answer: CanonicalAnswer) => dialect.encodeResponse(answer, answerRequest(format)),
      stream: (answer: CanonicalAnswer) => {
        const encoder = dialect.createStreamEncoder(answerRequest(format));
        return parseSse(answerEvents(answer).map((event) => encoder.onEvent(event)).join('') + encoder.onEnd());
      },
    };
  }
  return profile.answer?.reference;
}

const strip = (request: CanonicalRequest): CanonicalRequest => {
  const { fieldNames: _f, unsupportedWhy: _u, ...rest } = request;
  return { ...rest, turns: rest.turns.map(({ source: _s, ...turn }) => turn) };
};

for (const format of Object.keys(PROFILES) as WireFormat[]) {
  const profile = PROFILES[format];
  const { provider, dialect } = halves(format);
  const writer = writerFor(format, profile, dialect);
  const answerProfile = profile.answer;

  describe(`codec conformance: ${format}`, () => {
    // ---- 1. folding a stream = decoding the whole answer ----
    if (provider && writer && answerProfile) {
      const via = dialect ? 'its own answer encoders' : 'the suite’s reference writer (the codec has no answer encoder)';
      it(`1. folding a stream equals decoding the whole answer (answers written by ${via})`, () => {
        fc.assert(
          fc.property(answers.filter((a) => !answerProfile.excludes?.(a)), (answer) => {
            const request = answerRequest(format);
            const whole = provider.decodeResponse(writer.whole(answer), request);
            const folded = replay(provider.createStreamDecoder(request), writer.stream(answer));
            const normal = answerProfile.normal ?? ((a: CanonicalAnswer) => a);
            expect(normalAnswer(normal(folded), { withId: !answerProfile.madeUpId })).toEqual(normalAnswer(normal(whole), { withId: !answerProfile.madeUpId }));
          }),
          RUNS,
        );
      });
      for (const recorded of profile.recorded ?? []) {
        it(`1. folding the recorded stream ${recorded.name} equals decoding its whole answer`, () => {
          const request = answerRequest(format);
          const callIds = (a: CanonicalAnswer): CanonicalAnswer => (recorded.madeUpCallIds ? { ...a, content: a.content.map((part) => (part.type === 'tool_call' ? { ...part, id: '(made up)' } : part)) } : a);
          const folded = callIds(replay(provider.createStreamDecoder(request), recorded.stream));
          const whole = callIds(provider.decodeResponse(recorded.whole, request));
          expect(whole.content.length).toBeGreaterThan(0);
          expect(normalAnswer(folded, { withId: !answerProfile.madeUpId })).toEqual(normalAnswer(whole, { withId: !answerProfile.madeUpId }));
        });
      }
    } else {
      it.skip(`1. fold = whole: skipped, ${!provider ? 'no stream or answer decoder' : 'no answer writer'} (${profile.why ?? 'no profile'})`, () => {});
    }

    // ---- 2. a request round-trips ----
    if (provider && dialect && profile.request) {
      const requestProfile = profile.request;
      it(`2. a request round-trips through encode → decode (loses only: ${requestProfile.loses.join('; ')})`, () => {
        fc.assert(
          fc.property(requests, (generated) => {
            const sent = requestProfile.holds(generated);
            const encoded = provider.encodeRequest(sent, TARGET);
            expect(encoded.dropped).toEqual([]);
            const asDialect = (body: Record<string, unknown>) => (requestProfile.dialectInput ? requestProfile.dialectInput(body, sent) : body);
            const decoded = dialect.decodeRequest(asDialect(encoded.body));
            expect(strip(decoded)).toEqual(strip(requestProfile.readsBack(sent)));
            // decode → encode → decode: a fixed point, nothing left out.
            const again = provider.encodeRequest(decoded, TARGET);
            expect(again.body).toEqual(encoded.body);
            expect(strip(dialect.decodeRequest(asDialect(again.body)))).toEqual(strip(decoded));
          }),
          RUNS,
        );
      });
    } else {
      const missing = !dialect ? 'no request decoder' : !provider ? 'no request encoder' : 'no request profile';
      it.skip(`2. request round trip: skipped, ${missing} (${profile.why ?? ''})`, () => {});
    }

    // ---- 3. an answer round-trips ----
    if (provider && writer && answerProfile) {
      const via = dialect ? 'its own answer encoder' : 'the suite’s reference writer';
      it(`3. an answer round-trips through ${via} → decode (loses only: ${answerProfile.loses.join('; ')})`, () => {
        fc.assert(
          fc.property(answers.filter((a) => !answerProfile.excludes?.(a)), (answer) => {
            const request = answerRequest(format);
            const expected = canonicalAnswer(answerProfile.project(answer));
            const options = { withId: !answerProfile.madeUpId };
            expect(normalAnswer(provider.decodeResponse(writer.whole(answer), request), options)).toEqual(normalAnswer(expected, options));
            const normal = answerProfile.normal ?? ((a: CanonicalAnswer) => a);
            expect(normalAnswer(normal(replay(provider.createStreamDecoder(request), writer.stream(answer))), options)).toEqual(normalAnswer(expected, options));
          }),
          RUNS,
        );
      });
    } else {
      it.skip(`3. answer round trip: skipped, ${!provider ? 'no answer decoder' : 'no answer writer'} (${profile.why ?? ''})`, () => {});
    }
  });
}
