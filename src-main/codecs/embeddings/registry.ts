// Every embeddings format's codec, by format.
import type { EmbeddingFormat, EmbeddingProviderCodec } from './canonical.js';
import { openaiEmbeddingsCodec } from './openai.js';
import { geminiEmbeddingsCodec } from './gemini.js';
import { vertexEmbeddingsCodec } from './vertex.js';
import { titanEmbeddingsCodec } from './bedrock-titan.js';
import { cohereEmbeddingsCodec } from './bedrock-cohere.js';

const codecs: Record<EmbeddingFormat, EmbeddingProviderCodec> = {
  'openai-embeddings': openaiEmbeddingsCodec,
  'gemini-embeddings': geminiEmbeddingsCodec,
  'vertex-predict': vertexEmbeddingsCodec,
  'bedrock-titan': titanEmbeddingsCodec,
  'bedrock-cohere': cohereEmbeddingsCodec,
};

export function embeddingCodec(format: EmbeddingFormat): EmbeddingProviderCodec {
  return codecs[format];
}
