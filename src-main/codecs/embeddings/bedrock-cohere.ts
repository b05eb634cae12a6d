// Cohere Embed through Bedrock's InvokeModel: `{texts, input_type}` (input_type is required; a request
// that names no purpose is embedded as search_document, what an index of documents wants) → `{embeddings}`.
// The body carries no token count: Bedrock sends it in the X-Amzn-Bedrock-Input-Token-Count header.
import { GatewayError } from '../../core/errors.js';
import { isPlainObject } from '../../core/plain-object.js';
import { badEmbeddingAnswer, batches, readVector, textsOf, type EmbeddingProviderCodec, type EmbeddingPurpose, type EmbeddingRequest } from './canonical.js';

/** Cohere's cap on texts in one call. */
export const COHERE_EMBED_BATCH = 96;

export const BEDROCK_INPUT_TOKEN_HEADER = 'x-amzn-bedrock-input-token-count';

const INPUT_TYPES: Record<EmbeddingPurpose, string> = {
  document: 'search_document',
  query: 'search_query',
  similarity: 'clustering',
  classification: 'classification',
  clustering: 'clustering',
};

/** Embed v4 makes vectors of these lengths (1536 by default); v3 models only their own. */
const V4_DIMENSIONS = [256, 512, 1024, 1536];

function encodeCalls(request: EmbeddingRequest, model: string, provider: string): string[] {
  const v4 = /embed-v4/.test(model);
  if (request.dimensions !== undefined && !(v4 && V4_DIMENSIONS.includes(request.dimensions))) {
    const offered = v4 ? `makes vectors of ${V4_DIMENSIONS.join(', ')} dimensions` : 'makes vectors of one length only (send no dimensions)';
    throw new GatewayError(400, 'invalid_request_error', `'dimensions' ${request.dimensions} is not offered by ${model}: it ${offered}`, 'dimensions', 'unsupported_parameter', provider);
  }
  const inputType = INPUT_TYPES[request.purpose ?? 'document'];
  return batches(textsOf(request, provider), COHERE_EMBED_BATCH).map((texts) =>
    JSON.stringify({ texts, input_type: inputType, ...(request.dimensions !== undefined ? { output_dimension: request.dimensions } : {}) }),
  );
}

function headerNumber(headers: Record<string, string | string[] | undefined>, name: string): number | null {
  const raw = headers[name];
  const value = Number(Array.isArray(raw) ? raw[0] : raw);
  return raw !== undefined && Number.isFinite(value) && value >= 0 ? value : null;
}

export const cohereEmbeddingsCodec: EmbeddingProviderCodec = {
  format: 'bedrock-cohere',
  encodeCalls,
  decodeAnswer(json, headers, provider) {
    if (!isPlainObject(json)) throw badEmbeddingAnswer(provider, 'a body that is not an object');
    // `embeddings` is the float arrays, or (when types were asked for) an object of them by type.
    const embeddings = isPlainObject(json.embeddings) ? json.embeddings.float : json.embeddings;
    if (!Array.isArray(embeddings)) throw badEmbeddingAnswer(provider, "no 'embeddings' array");
    return { vectors: embeddings.map((vector) => readVector(vector, provider)), inputTokens: headerNumber(headers, BEDROCK_INPUT_TOKEN_HEADER) };
  },
};
