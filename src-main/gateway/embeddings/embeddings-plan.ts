// What an embeddings request becomes at one provider target, worked out before anything is sent: the
// provider's embeddings format, the calls (the client's bytes when the provider takes its format, else
// the request encoded: one call for a batch API, one per input for Titan), and the codec that reads them.
import { GatewayError, invalidRequest } from '../../core/errors.js';
import type { GatewayHeaders } from '../gateway-headers.js';
import type { RouteTarget } from '../auth.js';
import type { EmbeddingCall, ProviderAdapter } from '../../providers/types.js';
import type { EmbeddingFormat, EmbeddingProviderCodec } from '../../codecs/embeddings/canonical.js';
import { embeddingCodec } from '../../codecs/embeddings/registry.js';
import { catalogModel } from '../../catalog/catalog.js';
import { withModelField } from '../routing/model-field.js';
import type { EmbeddingsInbound } from './embeddings-ingress.js';

export interface EmbeddingsPlan {
  kind: 'embeddings';
  /** Passed through: the answer goes back as the provider wrote it. */
  passthrough: boolean;
  adapter: ProviderAdapter;
  providerFormat: EmbeddingFormat;
  dropped: string[];
  /** Every call of the request, in input order; `call` is the first (a route tries it before the rest). */
  calls: EmbeddingCall[];
  call: EmbeddingCall;
  codec: EmbeddingProviderCodec;
}

/** A provider with no embeddings API: the client is told so, by name. */
function noEmbeddings(adapter: ProviderAdapter): GatewayError {
  return new GatewayError(
    400,
    'invalid_request_error',
    `${adapter.name} has no embeddings API: provider '${adapter.slug}' cannot serve /v1/embeddings; use a key or route to a provider that embeds (OpenAI, Azure OpenAI, Gemini, Vertex AI, Bedrock, an OpenAI-compatible server)`,
    'model',
    'embeddings_not_supported',
    adapter.slug,
  );
}

/** A token array longer than the model takes is refused here rather than billed as the provider's 400. */
function checkTokenArrays(inbound: EmbeddingsInbound, provider: string, model: string): void {
  const limit = catalogModel(provider, model)?.contextWindow;
  if (!limit) return;
  inbound.request.inputs.forEach((input, index) => {
    if (input.kind === 'tokens' && input.tokens.length > limit) {
      const where = inbound.request.inputs.length === 1 ? inbound.request.source : `${inbound.request.source}[${index}]`;
      throw invalidRequest(`'${where}' has ${input.tokens.length} tokens; ${model} takes at most ${limit} tokens an input`, inbound.request.source, 'context_length_exceeded');
    }
  });
}

export function planEmbeddings(inbound: EmbeddingsInbound, adapter: ProviderAdapter, target: RouteTarget, model: string, headers: GatewayHeaders): EmbeddingsPlan {
  const endpoint = adapter.embeddings;
  if (!endpoint) throw noEmbeddings(adapter);
  const providerFormat = endpoint.format(model);
  checkTokenArrays(inbound, adapter.slug, model);
  const codec = embeddingCodec(providerFormat);
  const callWith = (body: Buffer | string): EmbeddingCall => ({
    operation: 'embeddings',
    format: providerFormat,
    model,
    body,
    credentials: target.credentials,
    customHost: target.customHost,
    forwardHeaders: headers.forwardHeaders,
  });
  // The client's bytes go up unchanged when the provider takes its format: OpenAI's with the model value
  // rewritten when another is sent; others (Gemini's batch) only when the model is the one asked for.
  const passthrough = inbound.passthroughFormat === providerFormat && (providerFormat === 'openai-embeddings' || model === inbound.request.model);
  if (passthrough) {
    const bytes = model === inbound.rawModel || providerFormat !== 'openai-embeddings' ? inbound.rawBody : Buffer.from(withModelField(inbound.bodyText, model), 'utf8');
    const call = callWith(bytes);
    return { kind: 'embeddings', passthrough, adapter, providerFormat, dropped: [], calls: [call], call, codec };
  }
  const calls = codec.encodeCalls(inbound.request, model, adapter.slug).map(callWith);
  // `user` has a place only in OpenAI's format.
  const dropped = inbound.request.user !== undefined && providerFormat !== 'openai-embeddings' ? ['user'] : [];
  return { kind: 'embeddings', passthrough, adapter, providerFormat, dropped, calls, call: calls[0], codec };
}
