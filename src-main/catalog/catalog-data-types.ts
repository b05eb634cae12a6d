// The shape of catalog-data.ts (written by scripts/catalog-data.ts from the two catalog packages).

/** genai-prices' model match: the clauses its data uses. */
export type GenaiMatch =
  | { or: GenaiMatch[] }
  | { and: GenaiMatch[] }
  | { equals: string }
  | { starts_with: string }
  | { ends_with: string }
  | { contains: string }
  | { regex: string };

export type GenaiPrice = number | { base: number; tiers: { start: number; price: number }[] };

/** Prices per million tokens: only the keys the catalog reads. */
export interface GenaiPriceSet {
  input_mtok?: GenaiPrice;
  output_mtok?: GenaiPrice;
  cache_read_mtok?: GenaiPrice;
  cache_write_mtok?: GenaiPrice;
  output_reasoning_mtok?: GenaiPrice;
}

export type GenaiConstraint = { type: 'start_date'; start_date: string } | { type: 'time_of_date'; start_time: string; end_time: string };

export interface GenaiModel {
  id: string;
  match: GenaiMatch;
  contextWindow?: number;
  /** One set, or sets by start date or time of day (genai-prices picks the last one that applies). */
  prices: GenaiPriceSet | { constraint?: GenaiConstraint; prices: GenaiPriceSet }[];
}

export interface GenaiProvider {
  id: string;
  /** Providers searched, in order, for a model this one does not list (Azure → OpenAI, …). */
  fallbacks?: string[];
  models: GenaiModel[];
}

/** models.dev's figures for one model; cost is [input, output, cache read, cache write] per million tokens. */
export interface ModelsDevModel {
  context?: number;
  output?: number;
  cost?: [number, number, number | null, number | null];
}

export interface CatalogData {
  genaiPrices: GenaiProvider[];
  /** models.dev provider → model id → figures. */
  modelsDev: Record<string, Record<string, ModelsDevModel>>;
}
