// The small interface every provider module implements. A provider says which wire formats it speaks,
// its credential fields (which are secret), its URL and its auth; bodies are the codecs' business.
import type { UpstreamEvent, WireFormat } from '../codecs/canonical.js';
import type { EmbeddingFormat } from '../codecs/embeddings/canonical.js';

export type { UpstreamEvent } from '../codecs/canonical.js';
import type { CredentialField, ProviderCredentials } from '../core/credentials.js';
export type { CredentialField, ProviderCredentials } from '../core/credentials.js';

/** What a call asks of the provider: a generation, (Messages only) a count of the prompt's tokens, or embeddings. */
export type Operation = 'generate' | 'count_tokens' | 'embeddings';

/** Who a request to a provider is for: the credentials, the custom host and the client's forwarded headers. */
export interface ProviderTarget {
  credentials: ProviderCredentials;
  /** `x-gateway-custom-host` (or the virtual key's host): replaces the provider's default base URL. */
  customHost?: string;
  /** Client headers to send unchanged (`x-gateway-forward-headers` and other non-gateway headers). */
  forwardHeaders: Record<string, string>;
}

/** One call to a provider, its body already in the provider's wire format: a provider only adds URL and auth. */
export interface ProviderCall extends ProviderTarget {
  format: WireFormat;
  operation: Operation;
  model: string;
  stream: boolean;
  /** The body to send: the client's bytes unchanged when it already speaks the format, else the encoded JSON. */
  body: Buffer | string;
  /**
   * A Gemini client's stream passed through as it asked for it: `json-array` is `streamGenerateContent`
   * without `alt=sse`. Absent: the provider's SSE stream (what the stream decoders read).
   */
  streamFraming?: 'json-array';
}

/** One embeddings call to a provider, its body already in the provider's embeddings format. */
export interface EmbeddingCall extends ProviderTarget {
  operation: 'embeddings';
  format: EmbeddingFormat;
  model: string;
  body: Buffer | string;
  /**
   * Which of the request's calls this is, past the first (Titan embeds one input a call): the parts of one
   * request count as one provider call against its cap and the key's requests per minute.
   */
  part?: number;
}

/** Every kind of request a provider is sent: each is addressed and authenticated by the same members. */
export type ProviderEndpoint =
  | { kind: 'generate'; call: ProviderCall }
  | { kind: 'embeddings'; call: EmbeddingCall }
  | { kind: 'models' }
  /** `path` is what follows `/responses/` (an id, maybe `/input_items`), already checked; `search` the query string or ''. */
  | { kind: 'stored-response'; method: 'GET' | 'DELETE'; path: string; search: string };

/** How a provider embeds: the format it takes for a model. */
export interface EmbeddingsEndpoint {
  /** Throws a 400 for a model the provider cannot embed with through Gatehouse (Bedrock: Titan and Cohere only). */
  format(model: string): EmbeddingFormat;
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

/** That a provider lists its models (its `url` answers `{kind:'models'}`), and unless it answers in OpenAI's shape, the mapping. */
export interface ModelListing {
  map?(json: unknown): ModelList;
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
  /** The provider's own base URL, shown in the UI; a custom host replaces it. Empty when `hostRequired`. */
  readonly defaultBaseUrl: string;
  /**
   * No address of its own (a server someone runs: vLLM, LM Studio, llama.cpp …): every key and request
   * names its custom host. Such a provider has no catalog prices, since nothing says whose model it serves.
   */
  readonly hostRequired?: boolean;
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
  /**
   * Where a request goes, from the target's settings (region, resource, project …); throws GatewayError
   * (400) for a missing or malformed one. Asked only for the endpoints the provider has (`embeddings`,
   * `modelListing`, `storesResponses`).
   */
  url(endpoint: ProviderEndpoint, target: ProviderTarget): string;
  /**
   * The headers that carry the target's credentials (and other settings that travel as headers); they win
   * over forwarded ones of the same name. A promise when a token must be made first (Vertex's service
   * account). Throws a 401 when a call needs a credential the target lacks (providers/credential-headers.ts).
   */
  authHeaders(endpoint: ProviderEndpoint, target: ProviderTarget): Record<string, string> | Promise<Record<string, string>>;
  /** Headers the provider wants unless the client forwards its own (Anthropic's `anthropic-version`). */
  readonly defaultHeaders?: Readonly<Record<string, string>>;
  /**
   * What this host adds to a body the gateway encoded in `format`, before it is sent (Claude on Vertex:
   * `anthropic_version` in the body, where Anthropic takes a header). Bytes a client sent in the format the
   * provider takes as they are go up untouched.
   */
  prepareBody?(body: Record<string, unknown>, format: WireFormat): Record<string, unknown>;
  /** The last step on a request whose URL, headers and body are final: Bedrock's SigV4. */
  sign?(request: UpstreamRequest, endpoint: ProviderEndpoint, target: ProviderTarget): Promise<UpstreamRequest>;
  /** Only for a provider whose answers need putting right before a client sees them (Azure). */
  answerQuirk?(call: ProviderCall): AnswerQuirk;
  /** `GET /v1/models`; providers without a list answer 404 there. */
  readonly modelListing?: ModelListing;
  /**
   * Whether the provider itself stores responses (`GET /v1/responses/{id}` and its sub-paths): only one
   * that keeps them (OpenAI) does; Gatehouse keeps none of its own.
   */
  readonly storesResponses?: boolean;
  /** Embeddings; a provider without them (Anthropic) answers `/v1/embeddings` with a 400 saying so. */
  readonly embeddings?: EmbeddingsEndpoint;
  /** Maps the provider's error body (any format, maybe not JSON) to the contract's fields. */
  mapError(status: number, body: string, headers: Record<string, string | string[] | undefined>): MappedProviderError;
}
