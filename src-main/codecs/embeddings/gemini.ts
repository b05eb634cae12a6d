// Gemini's embeddings (`models/{m}:batchEmbedContents`, and `:embedContent` for one), both ways: the
// provider format Google AI Studio takes (the gateway always sends the batch method: one call for up to
// 100 inputs), and the dialect Gemini clients speak, decoded into the canonical request and answered.
// Gemini reports no token count in a batch answer: the gateway counts the input itself.
import { invalidRequest } from '../../core/errors.js';
import { isPlainObject } from '../../core/plain-object.js';
import { MAX_EMBEDDING_INPUTS, badEmbeddingAnswer, batches, readVector, textsOf, type EmbeddingAnswer, type EmbeddingProviderCodec, type EmbeddingPurpose, type EmbeddingRequest } from './canonical.js';

/** Gemini's cap on requests in one batchEmbedContents call. */
export const GEMINI_EMBED_BATCH = 100;

/** Google's task types for a purpose: Gemini's `taskType` and Vertex's `task_type` take the same names. */
export const GOOGLE_TASK_TYPES: Record<EmbeddingPurpose, string> = {
  document: 'RETRIEVAL_DOCUMENT',
  query: 'RETRIEVAL_QUERY',
  similarity: 'SEMANTIC_SIMILARITY',
  classification: 'CLASSIFICATION',
  clustering: 'CLUSTERING',
};

const PURPOSES: Record<string, EmbeddingPurpose> = Object.fromEntries(Object.entries(GOOGLE_TASK_TYPES).map(([purpose, task]) => [task, purpose as EmbeddingPurpose]));

/** `gemini-embedding-001` → `models/gemini-embedding-001`, as each batch item names its model. */
const modelName = (model: string): string => (model.startsWith('models/') ? model : `models/${model}`);

function encodeCalls(request: EmbeddingRequest, model: string, provider: string): string[] {
  const texts = textsOf(request, provider);
  return batches(texts, GEMINI_EMBED_BATCH).map((run) =>
    JSON.stringify({
      requests: run.map((text) => ({
        model: modelName(model),
        content: { parts: [{ text }] },
        ...(request.purpose ? { taskType: GOOGLE_TASK_TYPES[request.purpose] } : {}),
        ...(request.dimensions !== undefined ? { outputDimensionality: request.dimensions } : {}),
      })),
    }),
  );
}

export const geminiEmbeddingsCodec: EmbeddingProviderCodec = {
  format: 'gemini-embeddings',
  encodeCalls,
  decodeAnswer(json, _headers, provider) {
    if (!isPlainObject(json) || !Array.isArray(json.embeddings)) throw badEmbeddingAnswer(provider, "no 'embeddings' array");
    const vectors = json.embeddings.map((item) => readVector(isPlainObject(item) ? item.values : undefined, provider));
    return { vectors, inputTokens: null };
  },
};

// The dialect side: what a Gemini client sends to `:embedContent` / `:batchEmbedContents`.

/** One `EmbedContentRequest`: its text parts joined (Gemini embeds a content's parts as one text). */
function readContentRequest(item: unknown, field: string): { text: string; taskType?: string; dimensions?: number } {
  if (!isPlainObject(item)) throw invalidRequest(`'${field}' must be an object`, field);
  const content = item.content;
  if (!isPlainObject(content) || !Array.isArray(content.parts) || content.parts.length === 0) {
    throw invalidRequest(`'${field}.content.parts' is required: a non-empty array of text parts`, `${field}.content`);
  }
  const texts = content.parts.map((part, index) => {
    if (!isPlainObject(part) || typeof part.text !== 'string') throw invalidRequest(`'${field}.content.parts[${index}].text' must be a string`, `${field}.content.parts`);
    return part.text;
  });
  const text = texts.join('\n');
  if (text === '') throw invalidRequest(`'${field}.content' has no text to embed`, `${field}.content`);
  const { taskType, outputDimensionality } = item;
  if (taskType !== undefined && (typeof taskType !== 'string' || !(taskType in PURPOSES) && taskType !== 'TASK_TYPE_UNSPECIFIED')) {
    throw invalidRequest(`'${field}.taskType' must be one of ${Object.values(GOOGLE_TASK_TYPES).join(', ')}`, `${field}.taskType`);
  }
  if (outputDimensionality !== undefined && !(typeof outputDimensionality === 'number' && Number.isSafeInteger(outputDimensionality) && outputDimensionality > 0)) {
    throw invalidRequest(`'${field}.outputDimensionality' must be a positive integer`, `${field}.outputDimensionality`);
  }
  return { text, ...(typeof taskType === 'string' ? { taskType } : {}), ...(typeof outputDimensionality === 'number' ? { dimensions: outputDimensionality } : {}) };
}

/**
 * A Gemini client's `:embedContent` (one content) or `:batchEmbedContents` (`requests`) body for `model`
 * (from the path) → the canonical request. One task type and dimensionality for the batch: the first
 * item's (clients send the same on each).
 */
export function decodeGeminiEmbeddingsRequest(json: unknown, model: string, method: 'embedContent' | 'batchEmbedContents'): EmbeddingRequest {
  if (!isPlainObject(json)) throw invalidRequest('The request body must be a JSON object');
  let items: ReturnType<typeof readContentRequest>[];
  let source: string;
  if (method === 'embedContent') {
    items = [readContentRequest(json, 'request')];
    source = 'content';
  } else {
    if (!Array.isArray(json.requests) || json.requests.length === 0) throw invalidRequest("'requests' is required: a non-empty array", 'requests');
    if (json.requests.length > MAX_EMBEDDING_INPUTS) {
      throw invalidRequest(`'requests' has ${json.requests.length} items; at most ${MAX_EMBEDDING_INPUTS} may be embedded in one request`, 'requests');
    }
    items = json.requests.map((item, index) => readContentRequest(item, `requests[${index}]`));
    source = 'requests';
  }
  const first = items[0];
  const purpose = first.taskType ? PURPOSES[first.taskType] : undefined;
  return {
    model,
    inputs: items.map((item) => ({ kind: 'text', text: item.text })),
    encoding: 'float',
    ...(first.dimensions !== undefined ? { dimensions: first.dimensions } : {}),
    ...(purpose ? { purpose } : {}),
    source,
  };
}

/** The answer as Gemini writes it: `{embedding:{values}}` for embedContent, `{embeddings:[{values}]}` for a batch. */
export function encodeGeminiEmbeddingsAnswer(answer: EmbeddingAnswer, method: 'embedContent' | 'batchEmbedContents'): object {
  if (method === 'embedContent') return { embedding: { values: answer.vectors[0] ?? [] } };
  return { embeddings: answer.vectors.map((values) => ({ values })) };
}
