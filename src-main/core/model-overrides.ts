// The user's per-model overrides of the catalog (price, context window): their shape and rules, and the
// contract of the store that keeps them (SQLite in store/model-overrides.ts).
import { z } from 'zod';

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

const price = z.number().finite().min(0).max(100_000).nullable().optional();
const tokens = z.number().int().min(1).max(100_000_000).nullable().optional();

export const modelOverrideSchema = z
  .object({
    provider: z.string().trim().min(1).max(100),
    model: z.string().trim().min(1).max(300),
    contextWindow: tokens,
    maxOutputTokens: tokens,
    input: price,
    output: price,
    cacheRead: price,
    cacheWrite: price,
  })
  .strict();

/** The overrides a store holds, as far as they are valid: none when the value is not a valid list. */
export function overridesFromStored(stored: unknown): ModelOverride[] {
  const parsed = z.array(modelOverrideSchema).safeParse(stored);
  return parsed.success ? parsed.data : [];
}

/** The list with `input` added or in place of the override of its provider and model; throws a ZodError for bad values. */
export function withOverride(list: readonly ModelOverride[], input: unknown): { list: ModelOverride[]; entry: ModelOverride } {
  const entry = modelOverrideSchema.parse(input);
  const rest = list.filter((item) => !(item.provider === entry.provider && item.model === entry.model));
  return { list: [...rest, entry].sort((a, b) => a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model)), entry };
}

/** The list without the override of that provider and model; null when there was none. */
export function withoutOverride(list: readonly ModelOverride[], provider: string, model: string): ModelOverride[] | null {
  const rest = list.filter((item) => !(item.provider === provider && item.model === model));
  return rest.length === list.length ? null : rest;
}

/**
 * Where the overrides are kept. Pricing and the context check read them from the catalog's memory on
 * every call, so an implementation hands its list to the catalog (setModelOverrides) on load and on every change.
 */
export interface ModelOverrideRepository {
  /** From memory (the list the catalog was handed). */
  all(): ModelOverride[];
  /** Adds or replaces the override of one provider and model; rejects with a ZodError for bad values. */
  set(input: unknown): Promise<ModelOverride>;
  /** False when there was no such override. */
  remove(provider: string, model: string): Promise<boolean>;
}
