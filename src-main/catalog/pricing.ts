// The cost of one call in USD, from its normalised usage and the catalog's prices. Input tokens read from
// or written to the prompt cache are billed at the cache prices; reasoning tokens are output unless the
// model bills them apart. An unknown model (or a call without usage) has no cost: null, never 0.
import { catalogModel, type MTokPrice } from './catalog.js';
import type { Usage } from '../codecs/canonical.js';

/** Costs are kept to the nano-dollar: a row's cost and the usage tables' sums then add up exactly. */
export const NANOS_PER_USD = 1e9;

function perMillion(price: MTokPrice, tokens: number, promptTokens: number): number {
  if (tokens <= 0) return 0;
  let rate: number;
  if (typeof price === 'number') rate = price;
  else {
    // A tier applies to every token once the prompt is over its start (genai-prices' rule).
    rate = price.base;
    for (const tier of price.tiers) if (promptTokens > tier.start) rate = tier.price;
  }
  return (rate * tokens) / 1e6;
}

export function priceCall(
  provider: string | null,
  model: string | null,
  usage: Usage | undefined,
): number | null {
  if (!usage) return null;
  const prices = catalogModel(provider, model)?.prices;
  if (!prices) return null;
  const input = Math.max(usage.inputTokens, 0);
  const cacheRead = Math.min(Math.max(usage.cacheReadTokens ?? 0, 0), input);
  const cacheWrite = Math.min(Math.max(usage.cacheWriteTokens ?? 0, 0), input - cacheRead);
  const plainInput = input - cacheRead - cacheWrite;
  const output = Math.max(usage.outputTokens, 0);
  const reasoning = prices.reasoning !== undefined ? Math.min(Math.max(usage.reasoningTokens ?? 0, 0), output) : 0;
  const cost =
    perMillion(prices.input, plainInput, input) +
    perMillion(prices.cacheRead ?? prices.input, cacheRead, input) +
    perMillion(prices.cacheWrite ?? prices.input, cacheWrite, input) +
    perMillion(prices.output, output - reasoning, input) +
    (prices.reasoning !== undefined ? perMillion(prices.reasoning, reasoning, input) : 0);
  return Math.round(cost * NANOS_PER_USD) / NANOS_PER_USD;
}
