// Prompts saved from the Playground under a name (migration 10): the request as it was sent, so a
// saved prompt re-opens exactly as a log row does. Saving under a name that exists replaces it.
import { randomBytes } from 'node:crypto';
import type { SqliteDatabase } from './database.js';
import { GatewayError } from '../core/errors.js';
import { validSavedPrompt, type NewSavedPrompt, type SavedPrompt, type SavedPromptEndpoint, type SavedPromptRepository } from '../core/saved-prompts.js';

interface Row {
  id: string;
  name: string;
  endpoint: string;
  body: string;
  key_id: string | null;
  created_at: number;
  updated_at: number;
}

function toSavedPrompt(row: Row): SavedPrompt {
  return {
    id: row.id,
    name: row.name,
    endpoint: row.endpoint as SavedPromptEndpoint,
    body: row.body,
    keyId: row.key_id,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

export class SavedPromptStore implements SavedPromptRepository {
  constructor(private readonly db: SqliteDatabase) {}

  async list(): Promise<SavedPrompt[]> {
    return (this.db.prepare('SELECT * FROM saved_prompts ORDER BY updated_at DESC, name').all() as Row[]).map(toSavedPrompt);
  }

  async get(id: string): Promise<SavedPrompt> {
    const row = this.db.prepare('SELECT * FROM saved_prompts WHERE id = ?').get(id) as Row | undefined;
    if (!row) throw new GatewayError(404, 'not_found_error', `No saved prompt with id '${id}'`, 'id');
    return toSavedPrompt(row);
  }

  /** Saves under `name`; an existing prompt of that name is replaced (it keeps its id). */
  async save(input: NewSavedPrompt): Promise<{ prompt: SavedPrompt; created: boolean }> {
    const { name, endpoint, body, keyId } = validSavedPrompt(input);
    const now = Date.now();
    const existing = this.db.prepare('SELECT id FROM saved_prompts WHERE name = ?').get(name) as { id: string } | undefined;
    if (existing) {
      this.db.prepare('UPDATE saved_prompts SET endpoint = ?, body = ?, key_id = ?, updated_at = ? WHERE id = ?').run(endpoint, body, keyId, now, existing.id);
      return { prompt: await this.get(existing.id), created: false };
    }
    const id = `sp_${randomBytes(8).toString('hex')}`;
    this.db
      .prepare('INSERT INTO saved_prompts (id, name, endpoint, body, key_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(id, name, endpoint, body, keyId, now, now);
    return { prompt: await this.get(id), created: true };
  }

  async delete(id: string): Promise<void> {
    const result = this.db.prepare('DELETE FROM saved_prompts WHERE id = ?').run(id);
    if (result.changes === 0) throw new GatewayError(404, 'not_found_error', `No saved prompt with id '${id}'`, 'id');
  }
}
