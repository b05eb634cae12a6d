// User settings kept in the database (the `settings` table), read once and cached in memory.
import { settingsFromStored, settingsPatch, type Settings, type SettingsRepository } from '../core/settings.js';
import type { SqliteDatabase } from './database.js';

export class SettingsStore implements SettingsRepository {
  private current: Settings;

  constructor(private readonly db: SqliteDatabase) {
    const rows = db.prepare('SELECT key, value FROM settings').all() as { key: string; value: string }[];
    const stored: Record<string, unknown> = {};
    for (const row of rows) stored[row.key] = JSON.parse(row.value);
    this.current = settingsFromStored(stored);
  }

  get(): Settings {
    return this.current;
  }

  /** Validates and stores a partial update; throws a ZodError for bad values. */
  async update(patch: unknown): Promise<Settings> {
    const changes = settingsPatch(patch);
    const write = this.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
    this.db.transaction(() => {
      for (const [key, value] of Object.entries(changes)) write.run(key, JSON.stringify(value));
    })();
    this.current = { ...this.current, ...changes };
    return this.current;
  }
}
