// The small interface every provider module implements. A provider is data plus pure functions:
// how to build the upstream request, how to map an answer, a stream and an error back to OpenAI's shape.
import type { ChatRequest, CompletionRequest } from '../validate.js';

export type Endpoint = 'completions' | 'chat';

/** Credentials for one call, from request headers or a virtual key; decrypted only for this request. */
export interface ProviderCredentials {
  /** The provider token: `Authorization: Bearer <token>` from the client, or a stored secret. */
  token?: string;
  azure?: { resourceName?: string; deploymentId?: string; apiVersion?: string; modelName?: string };
  vertex?: { projectId?: string; region?: string; requestType?: string; serviceAccountJson?: string };
  bedrock?: { accessKeyId?: string; secretAccessKey?: string; sessionToken?: string; region?: string };
}

export interface ProviderCall<E extends Endpoint = Endpoint> {
  endpoint: E;
  /** The validated body (numbers already parsed; use `rawBody` to forward bytes unchanged). */
  body: E extends 'completions' ? CompletionRequest : ChatRequest;
  /** The client's request bytes, exactly as received. */
  rawBody: Buffer;
  stream: boolean;
  credentials: ProviderCredentials;
  /** `x-gateway-custom-host` (or the virtual key's host): replaces the provider's default base URL. */
  customHost?: string;
  /** Client headers to send unchanged (`x-gateway-forward-headers` and other non-gateway headers). */
  forwardHeaders: Record<string, string>;
}

export interface UpstreamRequest {
  url: string;
  method: 'POST' | 'GET';
  headers: Record<string, string>;
  body?: Buffer | string;
}

/** OpenAI's `GET /v1/models` answer, which tools read to fill their model pickers. */
export interface ModelList {
  object: 'list';
  data: { id: string; object: 'model'; created: number; owned_by: string }[];
}

/** How a provider lists its models: the request, and (unless it answers in OpenAI's shape) the mapping. */
export interface ModelListing {
  request(credentials: ProviderCredentials, customHost: string | undefined, forwardHeaders: Record<string, string>): UpstreamRequest;
  map?(json: unknown): ModelList;
}

/** One event as read from the upstream stream. SSE for most providers; binary frames for Bedrock. */
export type UpstreamEvent =
  | { kind: 'sse'; event?: string; data: string }
  | { kind: 'frame'; headers: Record<string, string | number | boolean>; payload: Uint8Array };

export interface StreamTranslator {
  /** How the upstream body is framed. */
  readonly framing: 'sse' | 'aws-eventstream';
  /** Maps one upstream event to zero or more OpenAI chunk objects; throws ProviderStreamError for in-stream errors. */
  onEvent(event: UpstreamEvent): object[];
  /** Chunks to send once the upstream stream ended (e.g. the usage chunk), before `data: [DONE]`. */
  onEnd(): object[];
  /** The usage the provider reported, for the request log even when the client asked for no usage chunk. */
  usage?(): { prompt_tokens: number; completion_tokens: number; total_tokens: number } | undefined;
}

/** An error the provider reported inside a stream that had already started. */
export class ProviderStreamError extends Error {
  constructor(message: string, readonly type = 'api_error', readonly code: string | null = null) {
    super(message);
  }
}

export interface MappedProviderError {
  message: string;
  type: string;
  code: string | number | null;
  param?: string | null;
}

export interface CredentialField {
  /** Key in `ProviderCredentials` terms: `token`, or `azure.resourceName`, `bedrock.region` ... */
  name: string;
  label: string;
  secret: boolean;
  required: boolean;
  placeholder?: string;
  /** The request header that carries it (spec §5.3), for docs and the UI. */
  header?: string;
  /** Another field that stands in for this required one when given (a service account key for a token). */
  alternative?: string;
}

export interface ProviderAdapter {
  readonly slug: string;
  readonly name: string;
  /** The provider's own base URL, shown in the UI; a custom host replaces it. */
  readonly defaultBaseUrl: string;
  readonly credentialFields: readonly CredentialField[];
  /**
   * `passthrough`: the provider speaks OpenAI's format; its bytes go to the client unchanged.
   * `translate`: answers are mapped with `mapResponse` / `createStreamTranslator`.
   */
  readonly relay: 'passthrough' | 'translate';
  /** Whether the provider generates `n` choices itself; if not, the gateway makes n calls and merges them. */
  readonly supportsN: boolean;
  /** Checks stored credential values when a virtual key is created or rotated; throws GatewayError (400). */
  checkCredentials?(values: Readonly<Record<string, string>>): void;
  /** Builds the provider call; throws GatewayError (400) for a field the provider cannot honour. */
  buildRequest(call: ProviderCall): UpstreamRequest | Promise<UpstreamRequest>;
  /** Maps a successful JSON answer to `text_completion` / `chat.completion`. Required for `translate`. */
  mapResponse?(call: ProviderCall, json: unknown): object;
  /** Required for `translate`. */
  createStreamTranslator?(call: ProviderCall): StreamTranslator;
  /** `GET /v1/models`; providers without a list answer 404 there. */
  readonly modelListing?: ModelListing;
  /** Maps the provider's error body (any format, maybe not JSON) to the contract's fields. */
  mapError(status: number, body: string, headers: Record<string, string | string[] | undefined>): MappedProviderError;
}
