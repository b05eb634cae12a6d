// Settings and the model overrides in PostgreSQL's `settings` table (name → JSON), as SQLite keeps them.
// Both are read on the request path, so each instance holds them in memory and rereads them when any
// instance changes them (NOTIFY 'settings').
import { setModelOverrides } from '../catalog/catalog.js';
import { overridesFromStored, withOverride, withoutOverride, type ModelOverride, type ModelOverrideRepository } from '../core/model-overrides.js';
import { settingsFromStored, settingsPatch, type Settings, type SettingsRepository } from '../core/settings.js';
import type { PgBridge, Statement } from './pg-bridge.js';

const OVERRIDES_KEY = 'modelOverrides';
const UPSERT = 'INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value';

function parsed(rows: Record<string, unknown>[]): Record<string, unknown> {
  const stored: Record<string, unknown> = {};
  for (const row of rows) {
    try {
      stored[String(row.key)] = JSON.parse(String(row.value));
    } catch {
      // A hand-edited value that is not JSON: its default applies.
    }
  }
  return stored;
}

export class PgSettingsStore implements SettingsRepository {
  private current: Settings;

  private constructor(private readonly bridge: PgBridge, stored: Record<string, unknown>) {
    this.current = settingsFromStored(stored);
  }

  static async open(bridge: PgBridge): Promise<PgSettingsStore> {
    return new PgSettingsStore(bridge, parsed(await bridge.query('SELECT key, value FROM settings')));
  }

  get(): Settings {
    return this.current;
  }

  async update(patch: unknown): Promise<Settings> {
    const changes = settingsPatch(patch);
    const statements: Statement[] = Object.entries(changes).map(([key, value]) => ({ sql: UPSERT, params: [key, JSON.stringify(value)] }));
    if (statements.length) await this.bridge.runForAdmin(statements, { transaction: true });
    this.current = { ...this.current, ...changes };
    return this.current;
  }

  /** Rereads them off this thread after another instance changed them. */
  async reload(): Promise<void> {
    this.current = settingsFromStored(parsed(await this.bridge.query('SELECT key, value FROM settings')));
  }
}

export class PgModelOverrideStore implements ModelOverrideRepository {
  private list: ModelOverride[];

  private constructor(private readonly bridge: PgBridge, stored: unknown) {
    this.list = overridesFromStored(stored);
    setModelOverrides(this.list);
  }

  static async open(bridge: PgBridge): Promise<PgModelOverrideStore> {
    return new PgModelOverrideStore(bridge, await PgModelOverrideStore.read(bridge));
  }

  private static async read(bridge: PgBridge): Promise<unknown> {
    return parsed(await bridge.query('SELECT key, value FROM settings WHERE key = $1', [OVERRIDES_KEY]))[OVERRIDES_KEY] ?? [];
  }

  all(): ModelOverride[] {
    return this.list.map((entry) => ({ ...entry }));
  }

  async set(input: unknown): Promise<ModelOverride> {
    const { list, entry } = withOverride(this.list, input);
    await this.save(list);
    return entry;
  }

  async remove(provider: string, model: string): Promise<boolean> {
    const rest = withoutOverride(this.list, provider, model);
    if (rest === null) return false;
    await this.save(rest);
    return true;
  }

  async reload(): Promise<void> {
    this.list = overridesFromStored(await PgModelOverrideStore.read(this.bridge));
    setModelOverrides(this.list);
  }

  private async save(list: ModelOverride[]): Promise<void> {
    await this.bridge.queryForAdmin(UPSERT, [OVERRIDES_KEY, JSON.stringify(list)]);
    this.list = list;
    setModelOverrides(list);
  }
}
