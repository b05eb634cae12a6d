// Which models each key may call, in SQLite (migration 17): one row per key with a list, the list as JSON.
import type { SqliteDatabase } from './database.js';
import { GatewayError } from '../core/errors.js';
import type { ModelAllowListRepository } from '../core/model-allow-lists.js';

export class ModelAllowListTable implements ModelAllowListRepository {
  constructor(private readonly db: SqliteDatabase) {}

  async get(keyId: string): Promise<string[] | null> {
    const row = this.db.prepare('SELECT models FROM key_allowed_models WHERE key_id = ?').get(keyId) as { models: string } | undefined;
    return row ? (JSON.parse(row.models) as string[]) : null;
  }

  async all(): Promise<Map<string, string[]>> {
    const rows = this.db.prepare('SELECT key_id, models FROM key_allowed_models').all() as { key_id: string; models: string }[];
    return new Map(rows.map((row) => [row.key_id, JSON.parse(row.models) as string[]]));
  }

  async set(keyId: string, models: string[] | null): Promise<void> {
    const exists = this.db.prepare('SELECT 1 FROM virtual_keys WHERE id = ? AND revoked_at IS NULL UNION ALL SELECT 1 FROM gateway_keys WHERE id = ? AND revoked_at IS NULL').get(keyId, keyId);
    if (!exists) throw new GatewayError(404, 'not_found_error', `No active virtual key or gateway API key with id '${keyId}'`, 'id');
    this.db.transaction(() => {
      if (models === null) this.db.prepare('DELETE FROM key_allowed_models WHERE key_id = ?').run(keyId);
      else {
        this.db
          .prepare('INSERT INTO key_allowed_models (key_id, models, updated_at) VALUES (?, ?, ?) ON CONFLICT (key_id) DO UPDATE SET models = excluded.models, updated_at = excluded.updated_at')
          .run(keyId, JSON.stringify(models), Date.now());
      }
      this.db.prepare('UPDATE key_allowed_models_generation SET generation = generation + 1').run();
    })();
  }

  /** A counter every change moves, in one row: cheap enough to read twice a second. */
  version(): string {
    return String((this.db.prepare('SELECT generation FROM key_allowed_models_generation').get() as { generation: number }).generation);
  }
}
