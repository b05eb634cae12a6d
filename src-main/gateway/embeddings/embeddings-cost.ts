// The most an embeddings request can cost, held against the key's budgets before anything is sent: its
// input tokens at the model's input price (embeddings produce no output tokens). Token arrays count
// exactly; a text is taken as its UTF-8 bytes / 3 tokens (leaning high, like generation's worst case),
// never more than the model takes an input.
import type { EmbeddingRequest } from '../../codecs/embeddings/canonical.js';
import { catalogModel } from '../../catalog/catalog.js';
import { priceCall } from '../../catalog/pricing.js';
import { RESERVED_BYTES_PER_TOKEN } from '../limits/worst-case-cost.js';

/** The request's input tokens at most. */
export function worstCaseInputTokens(request: EmbeddingRequest, window: number | null): number {
  let tokens = 0;
  for (const input of request.inputs) {
    const estimate = input.kind === 'tokens' ? input.tokens.length : Math.ceil(Buffer.byteLength(input.text) / RESERVED_BYTES_PER_TOKEN);
    tokens += Math.min(estimate, window ?? Infinity);
  }
  return tokens;
}

/** USD, or null when the model has no price (it then counts towards no budget). */
export function embeddingsWorstCaseUsd(provider: string, pricedModel: string, request: EmbeddingRequest): number | null {
  const model = catalogModel(provider, pricedModel);
  if (!model?.prices) return null;
  return priceCall(provider, pricedModel, { inputTokens: worstCaseInputTokens(request, model.contextWindow), outputTokens: 0 });
}
