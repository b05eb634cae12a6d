// Amazon Titan text embeddings through Bedrock's InvokeModel: one input per call (`{inputText}` →
// `{embedding, inputTextTokenCount}`), so N inputs are N signed calls. Titan v2 offers 256, 512 or
// 1024 dimensions; v1 only its 1536.
import { GatewayError } from '../../core/errors.js';
import { isPlainObject } from '../../core/plain-object.js';
import { badEmbeddingAnswer, readVector, textsOf, type EmbeddingProviderCodec, type EmbeddingRequest } from './canonical.js';

/** The vector lengths a Titan model can make; the first is its default. */
export function titanDimensions(model: string): readonly number[] {
  return /titan-embed-text-v2/.test(model) ? [1024, 512, 256] : [1536];
}

function encodeCalls(request: EmbeddingRequest, model: string, provider: string): string[] {
  const offered = titanDimensions(model);
  const { dimensions } = request;
  if (dimensions !== undefined && !offered.includes(dimensions)) {
    throw new GatewayError(
      400,
      'invalid_request_error',
      `'dimensions' ${dimensions} is not offered by ${model}: it makes vectors of ${[...offered].sort((a, b) => a - b).join(', ')} dimensions`,
      'dimensions',
      'unsupported_parameter',
      provider,
    );
  }
  // v1 takes inputText alone; v2 takes the length when one is asked for.
  const sized = dimensions !== undefined && offered.length > 1;
  return textsOf(request, provider).map((inputText) => JSON.stringify({ inputText, ...(sized ? { dimensions } : {}) }));
}

export const titanEmbeddingsCodec: EmbeddingProviderCodec = {
  format: 'bedrock-titan',
  encodeCalls,
  decodeAnswer(json, _headers, provider) {
    if (!isPlainObject(json)) throw badEmbeddingAnswer(provider, 'a body that is not an object');
    const tokens = typeof json.inputTextTokenCount === 'number' ? json.inputTextTokenCount : null;
    return { vectors: [readVector(json.embedding, provider)], inputTokens: tokens };
  },
};
