// The user's per-model overrides of the catalog, kept in the settings table under one key and handed to
// the catalog on load and on every change, so pricing and the context check use them at once.
import { setModelOverrides } from '../catalog/catalog.js';
import { overridesFromStored, withOverride, withoutOverride, type ModelOverride, type ModelOverrideRepository } from '../core/model-overrides.js';
import type { SqliteDatabase } from './database.js';

const SETTINGS_KEY = 'modelOverrides';

export class ModelOverrideStore implements ModelOverrideRepository {
  private list: ModelOverride[];

  constructor(private readonly db: SqliteDatabase) {
    const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(SETTINGS_KEY) as { value: string } | undefined;
    let stored: unknown = [];
    try {
      stored = row ? JSON.parse(row.value) : [];
    } catch {
      // A hand-edited value that is not JSON: start without overrides rather than refuse to start.
    }
    this.list = overridesFromStored(stored);
    setModelOverrides(this.list);
  }

  all(): ModelOverride[] {
    return this.list.map((entry) => ({ ...entry }));
  }

  async set(input: unknown): Promise<ModelOverride> {
    const { list, entry } = withOverride(this.list, input);
    this.save(list);
    return entry;
  }

  async remove(provider: string, model: string): Promise<boolean> {
    const rest = withoutOverride(this.list, provider, model);
    if (rest === null) return false;
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
