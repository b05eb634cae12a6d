// What a generation becomes at one provider target, worked out as a value before anything is sent: the
// provider call, and how its answer comes back (passed through, translated from n copies, or answered by
// the gateway itself). Pure: admission, sending and relaying read the plan, they are not part of it.
import type { RouteTarget } from './auth.js';
import type { GatewayHeaders } from './gateway-headers.js';
import type { ProviderAdapter, ProviderCall } from '../providers/types.js';
import type { CanonicalRequest, DialectCodec, ProviderCodec, WireFormat } from '../codecs/canonical.js';
import { providerCodec } from '../codecs/registry.js';
import { findProvider } from '../providers/registry.js';
import { refusesStatefulFields } from '../codecs/openai-responses/index.js';
import { withModelField } from './routing/model-field.js';
import type { EncodedRequest, EncodeSpec, Generation, ParsedGeneration } from './request-body.js';
import type { TokenCount } from './token-count.js';

interface PlanBase {
  adapter: ProviderAdapter;
  providerFormat: WireFormat;
  /** Request fields the provider's format has no place for. */
  dropped: string[];
}

/** The gateway answers itself (a token count no provider can make): an estimate of this request. */
export interface EstimatePlan extends PlanBase {
  kind: 'estimate';
  call: null;
  /** The prompt's estimate, started when planned (a body that does not decode is refused here, as a plan). */
  inputTokens: Promise<TokenCount>;
}

/** The provider speaks the client's format: its answer goes back unchanged. */
export interface PassthroughPlan extends PlanBase {
  kind: 'passthrough';
  call: ProviderCall;
}

/** The answer is decoded and encoded in the client's dialect; `copies` calls when the format has no `n`. */
export interface TranslatedPlan extends PlanBase {
  kind: 'translated';
  call: ProviderCall;
  copies: number;
  /** The request as the provider codec encoded it (one choice per call when fanned out). */
  request: CanonicalRequest;
  providerCodec: ProviderCodec;
  dialectCodec: DialectCodec;
}

export type CallPlan = EstimatePlan | PassthroughPlan | TranslatedPlan;

/** Whether the target's server is known to speak Chat Completions only (a virtual key's `chatOnly`). */
export function isChatOnly(target: Pick<RouteTarget, 'caller'>): boolean {
  return target.caller.kind === 'virtual-key' && target.caller.chatOnly === true;
}

/**
 * The format a provider is sent for this model: the client's own when the provider takes it. A chat-only
 * server (`chatOnly`) takes no Responses: those are translated to its first other format, Chat.
 */
export function providerFormatOf(adapter: ProviderAdapter, model: string, generation: Generation, chatOnly = false): WireFormat {
  const formats = chatOnly ? adapter.formats(model).filter((format) => format !== 'openai-responses') : adapter.formats(model);
  return formats.includes(generation.ingress.dialect) ? generation.ingress.dialect : formats[0];
}

/**
 * Whether the client's bytes go up as they came: the provider speaks the client's format, and the model is
 * where both put it (in the body, or, for a dialect that names it in the path, in the provider's URL).
 */
function takesBodyAsIs(adapter: ProviderAdapter, providerFormat: WireFormat, generation: Generation): boolean {
  return providerFormat === generation.ingress.dialect && adapter.modelInBody !== (generation.ingress.modelFromPath === true);
}

/** Whether the gateway answers the call itself: only a provider that takes the client's count body as it is can count it. */
export function gatewayAnswers(adapter: ProviderAdapter, providerFormat: WireFormat, generation: Generation): boolean {
  return generation.operation === 'count_tokens' && !takesBodyAsIs(adapter, providerFormat, generation);
}

/**
 * The provider call for one target: the client's bytes when it speaks the provider's format (only the
 * model value rewritten when another model is sent), else the body translated (a promise when the body is
 * held by a preparing thread, which encodes it).
 */
export function planCall(generation: Generation, adapter: ProviderAdapter, providerFormat: WireFormat, target: RouteTarget, model: string, headers: GatewayHeaders): CallPlan | Promise<CallPlan> {
  const { ingress, operation, request } = generation;
  if (gatewayAnswers(adapter, providerFormat, generation)) return { kind: 'estimate', adapter, providerFormat, dropped: [], call: null, inputTokens: generation.inputTokens() };
  // Every call of this generation, one shape: a literal per call rather than a spread of a shared base.
  const callWith = (body: ProviderCall['body'], streamFraming?: ProviderCall['streamFraming']): ProviderCall => ({
    format: providerFormat,
    operation,
    model,
    stream: request.stream,
    credentials: target.credentials,
    customHost: target.customHost,
    forwardHeaders: headers.forwardHeaders,
    body,
    streamFraming,
  });
  if (takesBodyAsIs(adapter, providerFormat, generation)) {
    // The client speaks the provider's format: its bytes go up unchanged (the model value aside), the answer
    // comes back unchanged, streamed the way the client asked.
    const modelInPath = generation.ingress.modelFromPath === true;
    const bytes = modelInPath || model === generation.rawModel ? generation.rawBody : Buffer.from(withModelField(generation.bodyText, model), 'utf8');
    return { kind: 'passthrough', adapter, providerFormat, dropped: [], call: callWith(bytes, request.streamFraming) };
  }
  const planOf = (encoded: EncodedRequest): CallPlan => {
    const call = callWith(encoded.body);
    if (providerFormat === ingress.dialect) return { kind: 'passthrough', adapter, providerFormat, dropped: encoded.dropped, call };
    return { kind: 'translated', adapter, providerFormat, dropped: encoded.dropped, call, copies: encoded.copies, request: encoded.request, providerCodec: providerCodec(providerFormat), dialectCodec: ingress.codec };
  };
  const encoding = generation.encodeFor({ providerFormat, model, provider: adapter.slug, modelInBody: adapter.modelInBody, supportsN: adapter.supportsN });
  return encoding instanceof Promise ? encoding.then(planOf) : planOf(encoding);
}

/** The request translated for one target, from its parsed body (on the serving thread, or a preparing one). */
export function encodeForTarget(generation: Pick<ParsedGeneration, 'ingress' | 'request' | 'canonical'>, spec: EncodeSpec): EncodedRequest {
  const { ingress, request } = generation;
  const dialect = ingress.dialect;
  const { providerFormat, model } = spec;
  if (dialect === 'openai-responses' && providerFormat !== dialect) {
    const stateful = refusesStatefulFields(request.body);
    if (stateful) throw stateful;
  }
  // The decoded request with the model sent (a route or a model map may send another).
  const decoded: CanonicalRequest = model === request.model ? generation.canonical() : { ...generation.canonical(), model };
  const codec = providerCodec(providerFormat);
  // Formats without `n` get n calls of one choice each, merged back into one answer; so does a translation
  // into another dialect, whose decoders read one choice of an answer.
  const copies = (decoded.n ?? 1) > 1 && (!spec.supportsN || providerFormat !== dialect) ? decoded.n! : 1;
  const single = copies > 1 ? { ...decoded, n: 1 } : decoded;
  const encoded = codec.encodeRequest(single, { provider: spec.provider, modelInBody: spec.modelInBody });
  // What the provider adds to every body of a format (Vertex: anthropic_version), looked up by slug: this
  // also runs on a preparing thread, which is handed the spec, not the adapter.
  const prepareBody = findProvider(spec.provider)?.prepareBody;
  return { body: JSON.stringify(prepareBody ? prepareBody(encoded.body, providerFormat) : encoded.body), dropped: encoded.dropped, copies, request: single };
}
