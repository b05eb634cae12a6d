// Embeddings through one canonical request and answer, as generation goes through codecs/canonical.ts:
// each client dialect (OpenAI's /v1/embeddings, Gemini's embedContent) decodes into EmbeddingRequest and
// encodes an EmbeddingAnswer; each provider format encodes the request into the calls it takes and
// decodes their answers. N dialects and M formats need N + M files, not N × M.
import { GatewayError } from '../../core/errors.js';

/** The wire formats providers embed in (one file each in this folder). */
export type EmbeddingFormat = (typeof EMBEDDING_FORMATS)[number];

/**
 * The most inputs one embeddings request may carry, in any dialect (`/v1/embeddings`' `input`, Gemini's
 * `requests`): OpenAI's own cap; every reader refuses more before it looks at the items.
 */
export const MAX_EMBEDDING_INPUTS = 2048;

export const EMBEDDING_FORMATS = ['openai-embeddings', 'gemini-embeddings', 'vertex-predict', 'bedrock-titan', 'bedrock-cohere'] as const;

/** One input: text, or (OpenAI only) the token ids of a text already tokenized. */
export type EmbeddingInput = { kind: 'text'; text: string } | { kind: 'tokens'; tokens: number[] };

/** What a retrieval system means to do with the vectors (Gemini's taskType, Cohere's input_type). */
export type EmbeddingPurpose = 'document' | 'query' | 'similarity' | 'classification' | 'clustering';

export interface EmbeddingRequest {
  model: string;
  /** At least one; where they came from is `source` (`input`, `requests`) with their index, for errors. */
  inputs: EmbeddingInput[];
  /** The vector length asked for; undefined: the model's own. */
  dimensions?: number;
  /** How the client wants vectors written back: numbers, or little-endian float32 in base64. */
  encoding: 'float' | 'base64';
  /** OpenAI's end-user id, passed on where a format has a place for it. */
  user?: string;
  /** Undefined: each format's default (Cohere's search_document). */
  purpose?: EmbeddingPurpose;
  /** The name of the request field the inputs came in, for errors naming it. */
  source: string;
}

/** The vectors of a request, in input order, with what the provider(s) said they counted. */
export interface EmbeddingAnswer {
  model: string;
  vectors: number[][];
  /** Input tokens the provider reported; null when it reported none (the gateway then counts). */
  inputTokens: number | null;
}

/** One call's worth of what a provider format decoded. */
export interface DecodedEmbeddings {
  vectors: number[][];
  inputTokens: number | null;
}

/** How one provider format is written and read. */
export interface EmbeddingProviderCodec {
  readonly format: EmbeddingFormat;
  /**
   * The bodies of the calls that embed `request` with `model`: one for a batch API, one per input for
   * Titan, several for a batch over the format's cap. Throws a 400 naming the field a format cannot honour.
   */
  encodeCalls(request: EmbeddingRequest, model: string, provider: string): string[];
  /** One call's answer (its JSON, and the response headers a count may come in). */
  decodeAnswer(json: unknown, headers: Record<string, string | string[] | undefined>, provider: string): DecodedEmbeddings;
}

/** The answer was not what the format promises: a 502 naming the provider, never a crash. */
export function badEmbeddingAnswer(provider: string, what: string): GatewayError {
  return new GatewayError(502, 'gateway_error', `Provider '${provider}' answered embeddings with ${what}`, null, 'bad_provider_response', provider);
}

/** Numbers only: a vector with anything else in it is a broken answer. */
export function readVector(value: unknown, provider: string): number[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'number')) throw badEmbeddingAnswer(provider, 'a vector that is not an array of numbers');
  return value as number[];
}

/** Texts only: token ids can be sent only to a provider that takes OpenAI's format (no other has a place for them). */
export function textsOf(request: EmbeddingRequest, provider: string): string[] {
  return request.inputs.map((input, index) => {
    if (input.kind === 'text') return input.text;
    throw new GatewayError(
      400,
      'invalid_request_error',
      `'${request.source}[${index}]' is an array of token ids: provider '${provider}' embeds text only (send the text instead)`,
      request.source,
      'unsupported_parameter',
      provider,
    );
  });
}

/** A vector as OpenAI's `encoding_format: base64` writes it: little-endian float32, base64. */
export function vectorToBase64(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let index = 0; index < vector.length; index++) bytes.writeFloatLE(vector[index], index * 4);
  return bytes.toString('base64');
}

/** The other way, for answers a provider wrote in base64 (OpenAI when asked). */
export function vectorFromBase64(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  const vector: number[] = [];
  for (let offset = 0; offset + 4 <= bytes.length; offset += 4) vector.push(bytes.readFloatLE(offset));
  return vector;
}

/** Splits `items` into runs of at most `size`. */
export function batches<T>(items: readonly T[], size: number): T[][] {
  const runs: T[][] = [];
  for (let start = 0; start < items.length; start += size) runs.push(items.slice(start, start + size));
  return runs;
}
