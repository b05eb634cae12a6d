// Prompts saved from the Playground under a name (migration 10): the request as it was sent, so a
// saved prompt re-opens exactly as a log row does. Saving under a name that exists replaces it.
import { randomBytes } from 'node:crypto';
import type { SqliteDatabase } from './database.js';
import { GatewayError, invalidRequest } from '../core/errors.js';

/** The gateway paths a Playground run can be sent to. */
export const SAVED_PROMPT_ENDPOINTS = ['/v1/chat/completions', '/v1/completions', '/v1/messages', '/v1/responses'] as const;
export type SavedPromptEndpoint = (typeof SAVED_PROMPT_ENDPOINTS)[number];

export const MAX_SAVED_PROMPT_NAME = 100;
/** A prompt is text someone typed: 256 KB is generous, and keeps the list cheap to send. */
export const MAX_SAVED_PROMPT_BODY_BYTES = 256 * 1024;

export interface SavedPrompt {
  id: string;
  name: string;
  endpoint: SavedPromptEndpoint;
  /** The JSON request body, as text. */
  body: string;
  /** The virtual key it ran with, or null. */
  keyId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface NewSavedPrompt {
  name: string;
  endpoint: string;
  /** A JSON object, or its text. */
  body: unknown;
  keyId?: string | null;
}

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

function bodyText(body: unknown): string {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      throw invalidRequest("'body' is not valid JSON", 'body');
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidRequest("'body' must be a JSON object (the request body)", 'body');
  const text = JSON.stringify(value);
  if (Buffer.byteLength(text) > MAX_SAVED_PROMPT_BODY_BYTES) throw invalidRequest(`'body' is larger than ${MAX_SAVED_PROMPT_BODY_BYTES} bytes`, 'body');
  return text;
}

export class SavedPromptStore {
  constructor(private readonly db: SqliteDatabase) {}

  list(): SavedPrompt[] {
    return (this.db.prepare('SELECT * FROM saved_prompts ORDER BY updated_at DESC, name').all() as Row[]).map(toSavedPrompt);
  }

  get(id: string): SavedPrompt {
    const row = this.db.prepare('SELECT * FROM saved_prompts WHERE id = ?').get(id) as Row | undefined;
    if (!row) throw new GatewayError(404, 'not_found_error', `No saved prompt with id '${id}'`, 'id');
    return toSavedPrompt(row);
  }

  /** Saves under `name`; an existing prompt of that name is replaced (it keeps its id). */
  save(input: NewSavedPrompt): { prompt: SavedPrompt; created: boolean } {
    const name = typeof input.name === 'string' ? input.name.trim() : '';
    if (!name) throw invalidRequest("'name' must not be empty", 'name');
    if (name.length > MAX_SAVED_PROMPT_NAME) throw invalidRequest(`'name' is longer than ${MAX_SAVED_PROMPT_NAME} characters`, 'name');
    if (!(SAVED_PROMPT_ENDPOINTS as readonly string[]).includes(input.endpoint)) {
      throw invalidRequest(`'endpoint' must be one of ${SAVED_PROMPT_ENDPOINTS.join(', ')}`, 'endpoint');
    }
    const body = bodyText(input.body);
    const keyId = input.keyId ?? null;
    const now = Date.now();
    const existing = this.db.prepare('SELECT id FROM saved_prompts WHERE name = ?').get(name) as { id: string } | undefined;
    if (existing) {
      this.db.prepare('UPDATE saved_prompts SET endpoint = ?, body = ?, key_id = ?, updated_at = ? WHERE id = ?').run(input.endpoint, body, keyId, now, existing.id);
      return { prompt: this.get(existing.id), created: false };
    }
    const id = `sp_${randomBytes(8).toString('hex')}`;
    this.db
      .prepare('INSERT INTO saved_prompts (id, name, endpoint, body, key_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(id, name, input.endpoint, body, keyId, now, now);
    return { prompt: this.get(id), created: true };
  }

  delete(id: string): void {
    const result = this.db.prepare('DELETE FROM saved_prompts WHERE id = ?').run(id);
    if (result.changes === 0) throw new GatewayError(404, 'not_found_error', `No saved prompt with id '${id}'`, 'id');
  }
}
