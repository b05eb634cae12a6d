// The user's per-model overrides of the catalog (price, context window), kept in the settings table under
// one key and handed to the catalog on load and on every change, so pricing and the context check use
// them at once.
import { z } from 'zod';
import type { SqliteDatabase } from '../store/database.js';
import { setModelOverrides, type ModelOverride } from './catalog.js';

const SETTINGS_KEY = 'modelOverrides';

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

export class ModelOverrideStore {
  private list: ModelOverride[];

  constructor(private readonly db: SqliteDatabase) {
    const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(SETTINGS_KEY) as { value: string } | undefined;
    let stored: unknown = [];
    try {
      stored = row ? JSON.parse(row.value) : [];
    } catch {
      // A hand-edited value that is not JSON: start without overrides rather than refuse to start.
    }
    const parsed = z.array(modelOverrideSchema).safeParse(stored);
    this.list = parsed.success ? parsed.data : [];
    setModelOverrides(this.list);
  }

  all(): ModelOverride[] {
    return this.list.map((entry) => ({ ...entry }));
  }

  /** Adds or replaces the override of one provider and model; throws a ZodError for bad values. */
  set(input: unknown): ModelOverride {
    const entry = modelOverrideSchema.parse(input);
    const rest = this.list.filter((item) => !(item.provider === entry.provider && item.model === entry.model));
    this.save([...rest, entry].sort((a, b) => a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model)));
    return entry;
  }

  /** False when there was no such override. */
  remove(provider: string, model: string): boolean {
    const rest = this.list.filter((item) => !(item.provider === provider && item.model === model));
    if (rest.length === this.list.length) return false;
    this.save(rest);
    return true;
  }

  private save(list: ModelOverride[]): void {
    this.db
      .prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value')
      .run(SETTINGS_KEY, JSON.stringify(list));
    this.list = list;
    setModelOverrides(list);
  }
}
