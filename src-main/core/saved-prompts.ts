// Prompts saved from the Playground under a name: their shape, the rules a prompt to save follows, and
// the contract of the store that keeps them (SQLite in store/saved-prompts.ts).
import { invalidRequest } from './errors.js';

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

/** A prompt to save, checked (400 naming the field): its trimmed name, its endpoint, its body as JSON text. */
export function validSavedPrompt(input: NewSavedPrompt): { name: string; endpoint: SavedPromptEndpoint; body: string; keyId: string | null } {
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (!name) throw invalidRequest("'name' must not be empty", 'name');
  if (name.length > MAX_SAVED_PROMPT_NAME) throw invalidRequest(`'name' is longer than ${MAX_SAVED_PROMPT_NAME} characters`, 'name');
  if (!(SAVED_PROMPT_ENDPOINTS as readonly string[]).includes(input.endpoint)) {
    throw invalidRequest(`'endpoint' must be one of ${SAVED_PROMPT_ENDPOINTS.join(', ')}`, 'endpoint');
  }
  return { name, endpoint: input.endpoint as SavedPromptEndpoint, body: bodyText(input.body), keyId: input.keyId ?? null };
}

/** Where saved prompts are kept. Saving under a name that exists replaces that prompt (it keeps its id). */
export interface SavedPromptRepository {
  list(): Promise<SavedPrompt[]>;
  /** 404 GatewayError for an unknown id. */
  get(id: string): Promise<SavedPrompt>;
  save(input: NewSavedPrompt): Promise<{ prompt: SavedPrompt; created: boolean }>;
  /** 404 GatewayError for an unknown id. */
  delete(id: string): Promise<void>;
}
