// What a generation becomes at one provider target, worked out as a value before anything is sent: the
// provider call, and how its answer comes back (passed through, translated from n copies, or answered by
// the gateway itself). Pure: admission, sending and relaying read the plan, they are not part of it.
import type { RouteTarget } from './auth.js';
import type { GatewayHeaders } from './gateway-headers.js';
import type { ProviderAdapter, ProviderCall } from '../providers/types.js';
import type { CanonicalRequest, DialectCodec, ProviderCodec, WireFormat } from '../codecs/canonical.js';
import { providerCodec } from '../codecs/registry.js';
import { refusesStatefulFields } from '../codecs/openai-responses/index.js';
import { withModelField } from './routing/model-field.js';
import type { Generation } from './request-body.js';

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
  request: CanonicalRequest;
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
 * model value rewritten when another model is sent), else the body translated.
 */
export function planCall(generation: Generation, adapter: ProviderAdapter, providerFormat: WireFormat, target: RouteTarget, model: string, headers: GatewayHeaders): CallPlan {
  const { ingress, operation, request } = generation;
  const dialect = ingress.dialect;
  // The decoded request with the model sent (a route or a model map may send another).
  const canonical = (): CanonicalRequest => (model === request.model ? generation.canonical() : { ...generation.canonical(), model });
  if (gatewayAnswers(adapter, providerFormat, generation)) return { kind: 'estimate', adapter, providerFormat, dropped: [], call: null, request: canonical() };
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
  if (dialect === 'openai-responses' && providerFormat !== dialect) {
    const stateful = refusesStatefulFields(request.body);
    if (stateful) throw stateful;
  }
  const decoded = canonical();
  const codec = providerCodec(providerFormat);
  // Formats without `n` get n calls of one choice each, merged back into one answer; so does a translation
  // into another dialect, whose decoders read one choice of an answer.
  const copies = (decoded.n ?? 1) > 1 && (!adapter.supportsN || providerFormat !== dialect) ? decoded.n! : 1;
  const single = copies > 1 ? { ...decoded, n: 1 } : decoded;
  const encoded = codec.encodeRequest(single, { provider: adapter.slug, modelInBody: adapter.modelInBody });
  const call = callWith(JSON.stringify(adapter.prepareBody ? adapter.prepareBody(encoded.body, providerFormat) : encoded.body));
  if (providerFormat === dialect) return { kind: 'passthrough', adapter, providerFormat, dropped: encoded.dropped, call };
  return { kind: 'translated', adapter, providerFormat, dropped: encoded.dropped, call, copies, request: single, providerCodec: codec, dialectCodec: ingress.codec };
}
