// The Playground's saved prompts in PostgreSQL; saving under a name that exists replaces it (keeps its id).
import { randomBytes } from 'node:crypto';
import { GatewayError } from '../core/errors.js';
import { validSavedPrompt, type NewSavedPrompt, type SavedPrompt, type SavedPromptEndpoint, type SavedPromptRepository } from '../core/saved-prompts.js';
import type { PgBridge } from './pg-bridge.js';

function toSavedPrompt(row: Record<string, unknown>): SavedPrompt {
  return {
    id: String(row.id),
    name: String(row.name),
    endpoint: row.endpoint as SavedPromptEndpoint,
    body: String(row.body),
    keyId: (row.key_id as string | null) ?? null,
    createdAt: new Date(row.created_at as number).toISOString(),
    updatedAt: new Date(row.updated_at as number).toISOString(),
  };
}

const notFound = (id: string) => new GatewayError(404, 'not_found_error', `No saved prompt with id '${id}'`, 'id');

export class PgSavedPromptStore implements SavedPromptRepository {
  constructor(private readonly bridge: PgBridge) {}

  async list(): Promise<SavedPrompt[]> {
    return (await this.bridge.queryForAdmin('SELECT * FROM saved_prompts ORDER BY updated_at DESC, name')).map(toSavedPrompt);
  }

  async get(id: string): Promise<SavedPrompt> {
    const row = (await this.bridge.queryForAdmin('SELECT * FROM saved_prompts WHERE id = $1', [id]))[0];
    if (!row) throw notFound(id);
    return toSavedPrompt(row);
  }

  async save(input: NewSavedPrompt): Promise<{ prompt: SavedPrompt; created: boolean }> {
    const { name, endpoint, body, keyId } = validSavedPrompt(input);
    const now = Date.now();
    // One statement: two instances saving the same name at once end with one prompt, not a constraint error.
    const row = (
      await this.bridge.queryForAdmin(
      `INSERT INTO saved_prompts (id, name, endpoint, body, key_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)
       ON CONFLICT (name) DO UPDATE SET endpoint = excluded.endpoint, body = excluded.body, key_id = excluded.key_id, updated_at = excluded.updated_at
       RETURNING *, (xmax = 0) AS created`,
        [`sp_${randomBytes(8).toString('hex')}`, name, endpoint, body, keyId, now],
      )
    )[0];
    return { prompt: toSavedPrompt(row), created: row.created === true };
  }

  async delete(id: string): Promise<void> {
    if ((await this.bridge.queryForAdmin('DELETE FROM saved_prompts WHERE id = $1 RETURNING id', [id])).length === 0) throw notFound(id);
  }
}
