// Vertex AI's embeddings: `:predict` on publishers/google/models/{m}, `{instances:[{content}], parameters}`
// → `{predictions:[{embeddings:{values, statistics:{token_count}}}]}`. The token counts are per input.
import { isPlainObject } from '../../core/plain-object.js';
import { badEmbeddingAnswer, batches, readVector, textsOf, type EmbeddingProviderCodec, type EmbeddingRequest } from './canonical.js';
import { GOOGLE_TASK_TYPES } from './gemini.js';

/** Instances in one call: Vertex's cap for text-embedding models; gemini-embedding models take one. */
const VERTEX_BATCH = 250;

function encodeCalls(request: EmbeddingRequest, model: string, provider: string): string[] {
  const texts = textsOf(request, provider);
  const size = /^gemini-embedding/.test(model) ? 1 : VERTEX_BATCH;
  return batches(texts, size).map((run) =>
    JSON.stringify({
      instances: run.map((content) => ({ content, ...(request.purpose ? { task_type: GOOGLE_TASK_TYPES[request.purpose] } : {}) })),
      ...(request.dimensions !== undefined ? { parameters: { outputDimensionality: request.dimensions } } : {}),
    }),
  );
}

export const vertexEmbeddingsCodec: EmbeddingProviderCodec = {
  format: 'vertex-predict',
  encodeCalls,
  decodeAnswer(json, _headers, provider) {
    if (!isPlainObject(json) || !Array.isArray(json.predictions)) throw badEmbeddingAnswer(provider, "no 'predictions' array");
    let tokens: number | null = 0;
    const vectors = json.predictions.map((prediction) => {
      const embeddings = isPlainObject(prediction) && isPlainObject(prediction.embeddings) ? prediction.embeddings : undefined;
      const statistics = embeddings && isPlainObject(embeddings.statistics) ? embeddings.statistics : undefined;
      if (tokens !== null) tokens = statistics && typeof statistics.token_count === 'number' ? tokens + statistics.token_count : null;
      return readVector(embeddings?.values, provider);
    });
    return { vectors, inputTokens: tokens };
  },
};
