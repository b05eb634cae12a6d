// The user's settings: their shape and rules (the Settings page validates with the same schema), and the
// contract of the store that keeps them (SQLite in store/settings.ts).
import { z } from 'zod';

export const settingsSchema = z.object({
  retentionDays: z.number().int().min(1).max(3650),
  maxLogRows: z.number().int().min(1000).max(100_000_000),
  storeBodies: z.boolean(),
  /** Where the next start listens; the running server keeps its address until restarted. */
  port: z.number().int().min(0).max(65535),
  host: z.string().min(1),
  /** Loopback ports probed for local model servers besides the usual ones (Ollama's 11434 ...). */
  discoveryPorts: z.array(z.number().int().min(1).max(65535)).max(32),
  /**
   * Team mode: what a key with limits gets while Redis (where its limits are decided) is unreachable:
   * "closed" refuses it with a 503 naming Redis, "open" serves it uncounted. Keys without limits are served either way.
   */
  teamLimitsWhenRedisDown: z.enum(['closed', 'open']),
  /** What a key whose MCP servers were never set may use: every server ("allow") or none until allowed ("deny"); a key's own mcpDefault wins. */
  mcpKeyDefault: z.enum(['allow', 'deny']),
});

export type Settings = z.infer<typeof settingsSchema>;

export const DEFAULT_SETTINGS: Settings = {
  retentionDays: 30,
  maxLogRows: 1_000_000,
  storeBodies: true,
  port: 8787,
  host: '127.0.0.1',
  discoveryPorts: [],
  teamLimitsWhenRedisDown: 'closed',
  mcpKeyDefault: 'allow',
};

/** The settings from what a store holds (name → value): what is valid of it over the defaults. */
export function settingsFromStored(stored: Record<string, unknown>): Settings {
  const parsed = settingsSchema.partial().safeParse(stored);
  return { ...DEFAULT_SETTINGS, ...(parsed.success ? parsed.data : {}) };
}

/** The fields of a partial update, checked; throws a ZodError for bad values or unknown fields. */
export function settingsPatch(patch: unknown): Partial<Settings> {
  return settingsSchema.partial().strict().parse(patch);
}

/** Where settings are kept. `get` runs on the request path (storeBodies per log batch): from memory. */
export interface SettingsRepository {
  get(): Settings;
  /** Validates (settingsPatch) and stores a partial update; rejects with a ZodError for bad values. */
  update(patch: unknown): Promise<Settings>;
}
