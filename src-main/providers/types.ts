// The small interface every provider module implements. A provider says which wire formats it speaks,
// its credential fields (which are secret), its URL and its auth; bodies are the codecs' business.
import type { UpstreamEvent, WireFormat } from '../codecs/canonical.js';
import type { EmbeddingFormat } from '../codecs/embeddings/canonical.js';

export type { UpstreamEvent } from '../codecs/canonical.js';
import type { CredentialField, ProviderCredentials } from '../core/credentials.js';
export type { CredentialField, ProviderCredentials } from '../core/credentials.js';

/** What a call asks of the provider: a generation, (Messages only) a count of the prompt's tokens, or embeddings. */
export type Operation = 'generate' | 'count_tokens' | 'embeddings';

/** One call to a provider, its body already in the provider's wire format: a provider only adds URL and auth. */
export interface ProviderCall {
  format: WireFormat;
  operation: Operation;
  model: string;
  stream: boolean;
  /** The body to send: the client's bytes unchanged when it already speaks the format, else the encoded JSON. */
  body: Buffer | string;
  credentials: ProviderCredentials;
  /** `x-gateway-custom-host` (or the virtual key's host): replaces the provider's default base URL. */
  customHost?: string;
  /** Client headers to send unchanged (`x-gateway-forward-headers` and other non-gateway headers). */
  forwardHeaders: Record<string, string>;
  /**
   * A Gemini client's stream passed through as it asked for it: `json-array` is `streamGenerateContent`
   * without `alt=sse`. Absent: the provider's SSE stream (what the stream decoders read).
   */
  streamFraming?: 'json-array';
}

/** One embeddings call to a provider, its body already in the provider's embeddings format. */
export interface EmbeddingCall {
  operation: 'embeddings';
  format: EmbeddingFormat;
  model: string;
  body: Buffer | string;
  credentials: ProviderCredentials;
  customHost?: string;
  forwardHeaders: Record<string, string>;
  /**
   * Which of the request's calls this is, past the first (Titan embeds one input a call): the parts of one
   * request count as one provider call against its cap and the key's requests per minute.
   */
  part?: number;
}

/** How a provider embeds: the format it takes for a model, and URL and auth for a call. */
export interface EmbeddingsEndpoint {
  /** Throws a 400 for a model the provider cannot embed with through Gatehouse (Bedrock: Titan and Cohere only). */
  format(model: string): EmbeddingFormat;
  buildRequest(call: EmbeddingCall): UpstreamRequest | Promise<UpstreamRequest>;
}

export interface UpstreamRequest {
  url: string;
  method: 'POST' | 'GET' | 'DELETE';
  headers: Record<string, string>;
  body?: Buffer | string;
}

/**
 * OpenAI's `GET /v1/models` answer, which tools read to fill their model pickers, as a provider's listing
 * maps its own list to it. (A type, not an interface: it is one of the lists model-list.ts reads.)
 */
export type ModelList = {
  object: 'list';
  data: { id: string; object: 'model'; created: number; owned_by: string }[];
};

/** How a provider lists its models: the request, and (unless it answers in OpenAI's shape) the mapping. */
export interface ModelListing {
  request(credentials: ProviderCredentials, customHost: string | undefined, forwardHeaders: Record<string, string>): UpstreamRequest;
  map?(json: unknown): ModelList;
}

/** How a provider reads (or deletes) a response it stored, by its id. */
export interface StoredResponses {
  /** `path` is what follows `/responses/` (an id, maybe `/input_items`), already checked; `search` the query string or ''. */
  request(method: 'GET' | 'DELETE', path: string, search: string, credentials: ProviderCredentials, customHost: string | undefined, forwardHeaders: Record<string, string>): UpstreamRequest;
}

/**
 * How a provider's OpenAI-format answer departs from OpenAI's and is put right on the passthrough path
 * (Azure's annotation-only chunks and blank models), made per call. Providers without one are relayed
 * byte for byte.
 */
export interface AnswerQuirk {
  /** A whole answer, parsed: the answer the client gets instead. */
  answer(json: unknown): object;
  /** One event of a stream: the chunks the client gets in its place (none drops it). */
  onEvent(event: UpstreamEvent): object[];
}

export interface MappedProviderError {
  message: string;
  type: string;
  code: string | number | null;
  param?: string | null;
}

export interface ProviderAdapter {
  readonly slug: string;
  readonly name: string;
  /** The provider's own base URL, shown in the UI; a custom host replaces it. */
  readonly defaultBaseUrl: string;
  readonly credentialFields: readonly CredentialField[];
  /**
   * The wire formats this provider takes for `model`, preferred first. A request in one of them goes up
   * as it came (its bytes, when `modelInBody`); any other is translated into the first.
   */
  formats(model: string): readonly WireFormat[];
  /** false when the model is part of the URL (Gemini, Vertex, Bedrock): a body then never carries it. */
  readonly modelInBody: boolean;
  /**
   * For a provider whose "model" is a name the user chose (an Azure deployment): the name prices are
   * looked up by, from the stored settings. Without it, a call is priced by the model it was sent.
   */
  pricedModel?(credentials: ProviderCredentials, model: string): string;
  /** Whether the provider generates `n` choices itself; if not, the gateway makes n calls and merges them. */
  readonly supportsN: boolean;
  /** Checks stored credential values when a virtual key is created or rotated; throws GatewayError (400). */
  checkCredentials?(values: Readonly<Record<string, string>>): void;
  /** URL, headers and signing for a call whose body is ready; throws GatewayError for missing settings. */
  buildRequest(call: ProviderCall): UpstreamRequest | Promise<UpstreamRequest>;
  /** Only for a provider whose answers need putting right before a client sees them (Azure). */
  answerQuirk?(call: ProviderCall): AnswerQuirk;
  /** `GET /v1/models`; providers without a list answer 404 there. */
  readonly modelListing?: ModelListing;
  /**
   * Responses the provider itself stored (`GET /v1/responses/{id}` and its sub-paths): only a provider
   * that keeps them (OpenAI) has this; Gatehouse keeps none of its own.
   */
  readonly storedResponses?: StoredResponses;
  /** Embeddings; a provider without them (Anthropic) answers `/v1/embeddings` with a 400 saying so. */
  readonly embeddings?: EmbeddingsEndpoint;
  /** Maps the provider's error body (any format, maybe not JSON) to the contract's fields. */
  mapError(status: number, body: string, headers: Record<string, string | string[] | undefined>): MappedProviderError;
}
