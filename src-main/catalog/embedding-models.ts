// Embedding models the two catalog packages do not price (or price under another model's entry), with
// their providers' list prices per million input tokens and the tokens one input may have. Embeddings
// bill input only. Checked before the packages: Titan v2 would otherwise match genai-prices' Titan v1
// entry (`contains amazon.titan-embed-text`) at five times its price.
import type { CatalogPrices } from './catalog.js';

interface EmbeddingModel {
  provider: string;
  /** The model id, and the region-prefixed forms Bedrock takes (us., eu., apac., global.). */
  id: string;
  inputPerMTok: number;
  contextWindow: number;
}

const MODELS: readonly EmbeddingModel[] = [
  // AWS Bedrock pricing: Titan Text Embeddings V2 $0.00002 / 1k tokens; Cohere Embed 3 $0.0001; Embed 4 $0.00012.
  { provider: 'bedrock', id: 'amazon.titan-embed-text-v2:0', inputPerMTok: 0.02, contextWindow: 8192 },
  { provider: 'bedrock', id: 'cohere.embed-english-v3', inputPerMTok: 0.1, contextWindow: 512 },
  { provider: 'bedrock', id: 'cohere.embed-multilingual-v3', inputPerMTok: 0.1, contextWindow: 512 },
  { provider: 'bedrock', id: 'cohere.embed-v4:0', inputPerMTok: 0.12, contextWindow: 128_000 },
  // Vertex bills its text-embedding models by characters ($0.000025 / 1k); at about 4 characters a token
  // that is $0.10 per million tokens, the figure Gatehouse prices its token counts at.
  { provider: 'vertex-ai', id: 'text-embedding-005', inputPerMTok: 0.1, contextWindow: 2048 },
  { provider: 'vertex-ai', id: 'text-multilingual-embedding-002', inputPerMTok: 0.1, contextWindow: 2048 },
];

const byKey = new Map(MODELS.map((model) => [`${model.provider}\u0000${model.id}`, model]));

/** The model's entry, by its id or a Bedrock region-prefixed id; undefined when Gatehouse adds nothing for it. */
export function embeddingModel(provider: string, model: string): { id: string; contextWindow: number; prices: CatalogPrices } | undefined {
  const found = byKey.get(`${provider}\u0000${model}`) ?? byKey.get(`${provider}\u0000${model.replace(/^(us|eu|apac|global)\./, '')}`);
  return found && { id: found.id, contextWindow: found.contextWindow, prices: { input: found.inputPerMTok, output: 0 } };
}
