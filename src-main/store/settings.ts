// User settings kept in the database (the `settings` table), read once and cached in memory.
import { z } from 'zod';
import type { SqliteDatabase } from './database.js';

export const settingsSchema = z.object({
  retentionDays: z.number().int().min(1).max(3650),
  maxLogRows: z.number().int().min(1000).max(100_000_000),
  storeBodies: z.boolean(),
  /** Where the next start listens; the running server keeps its address until restarted. */
  port: z.number().int().min(0).max(65535),
  host: z.string().min(1),
  /** Loopback ports probed for local model servers besides the usual ones (Ollama's 11434 ...). */
  discoveryPorts: z.array(z.number().int().min(1).max(65535)).max(32),
});

export type Settings = z.infer<typeof settingsSchema>;

export const DEFAULT_SETTINGS: Settings = {
  retentionDays: 30,
  maxLogRows: 1_000_000,
  storeBodies: true,
  port: 8787,
  host: '127.0.0.1',
  discoveryPorts: [],
};

export class SettingsStore {
  private current: Settings;

  constructor(private readonly db: SqliteDatabase) {
    const rows = db.prepare('SELECT key, value FROM settings').all() as { key: string; value: string }[];
    const stored: Record<string, unknown> = {};
    for (const row of rows) stored[row.key] = JSON.parse(row.value);
    const parsed = settingsSchema.partial().safeParse(stored);
    this.current = { ...DEFAULT_SETTINGS, ...(parsed.success ? parsed.data : {}) };
  }

  get(): Settings {
    return this.current;
  }

  /** Validates and stores a partial update; throws a ZodError for bad values. */
  update(patch: unknown): Settings {
    const changes = settingsSchema.partial().strict().parse(patch);
    const write = this.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
    this.db.transaction(() => {
      for (const [key, value] of Object.entries(changes)) write.run(key, JSON.stringify(value));
    })();
    this.current = { ...this.current, ...changes };
    return this.current;
  }
}
