// Which models each key may call, in PostgreSQL: one row per key with a list (schema version 2). Every
// instance hears a change through the change feed ('limits'), so `version` is answered from memory: the
// gateway polls it twice a second and must not wait on the database to do so; it then reads the lists
// off its thread, as every read and write here is (queryForAdmin: a 503 naming PostgreSQL after 5 s).
import { GatewayError } from '../core/errors.js';
import type { ModelAllowListRepository } from '../core/model-allow-lists.js';
import type { PgBridge } from './pg-bridge.js';

const ACTIVE_KEY = `SELECT 1 FROM virtual_keys WHERE id = $1 AND revoked_at IS NULL UNION ALL SELECT 1 FROM gateway_keys WHERE id = $1 AND revoked_at IS NULL`;

const ALL_LISTS = 'SELECT key_id, models FROM key_allowed_models';
type ListRow = { key_id: string; models: string };
const listsOf = (rows: ListRow[]) => new Map(rows.map((row) => [row.key_id, JSON.parse(row.models) as string[]]));

export class PgModelAllowListStore implements ModelAllowListRepository {
  private generation = 0;

  constructor(private readonly bridge: PgBridge) {}

  async get(keyId: string): Promise<string[] | null> {
    const row = (await this.bridge.queryForAdmin<{ models: string }>('SELECT models FROM key_allowed_models WHERE key_id = $1', [keyId]))[0];
    return row ? (JSON.parse(row.models) as string[]) : null;
  }

  all(): Promise<Map<string, string[]>> {
    return this.bridge.queryForAdmin<ListRow>(ALL_LISTS).then(listsOf);
  }

  async set(keyId: string, models: string[] | null): Promise<void> {
    const [found] = await this.bridge.runForAdmin(
      [
        { sql: ACTIVE_KEY, params: [keyId] },
        models === null
          ? { sql: `DELETE FROM key_allowed_models WHERE key_id = $1 AND EXISTS (${ACTIVE_KEY})`, params: [keyId] }
          : {
              sql: `INSERT INTO key_allowed_models (key_id, models, updated_at) SELECT $1, $2, $3 WHERE EXISTS (${ACTIVE_KEY})
                    ON CONFLICT (key_id) DO UPDATE SET models = excluded.models, updated_at = excluded.updated_at`,
              params: [keyId, JSON.stringify(models), Date.now()],
            },
      ],
      { transaction: true },
    );
    if (found.length === 0) throw new GatewayError(404, 'not_found_error', `No active virtual key or gateway API key with id '${keyId}'`, 'id');
    this.markChanged();
  }

  /** Set by the change feed when any instance changed limits or keys (and by this instance's own writes). */
  markChanged(): void {
    this.generation++;
  }

  version(): string {
    return String(this.generation);
  }
}
