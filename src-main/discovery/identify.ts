// Tells which local server answered, from what it answered: each server has a path or a field no
// other one has. Pure functions over the answers, so the rules are testable without sockets.
import type { DiscoveredServer, LocalConnection, LocalModel, LocalServerKind } from './types.js';
import { isPlainObject } from '../core/plain-object.js';

/** The GET paths asked of every port, all at once. */
export const IDENTIFYING_PATHS = ['/api/version', '/api/tags', '/api/v0/models', '/props', '/version', '/v1/models', '/readyz'] as const;
export type IdentifyingPath = (typeof IDENTIFYING_PATHS)[number];

/** A 2xx answer; anything else (error status, refused, timed out, not JSON where JSON is needed) is absent. */
export interface Answer {
  status: number;
  json: unknown;
}

export type Answers = Partial<Record<IdentifyingPath, Answer>>;

type Json = Record<string, unknown>;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);
const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : undefined);

function json(answers: Answers, path: IdentifyingPath): unknown {
  return answers[path]?.json;
}

/** The `data` entries of an OpenAI-style model list (`{object: 'list', data: [{id}]}`), or undefined if it is not one. */
export function openAIModelEntries(value: unknown): Json[] | undefined {
  if (!isPlainObject(value) || !Array.isArray(value.data)) return undefined;
  const entries = value.data.filter(isPlainObject);
  if (entries.length !== value.data.length || !entries.every((entry) => text(entry.id) !== undefined)) return undefined;
  return entries;
}

function withoutUndefined(model: LocalModel): LocalModel {
  return Object.fromEntries(Object.entries(model).filter(([, value]) => value !== undefined)) as unknown as LocalModel;
}

/** A version string from `{version: '…'}` (Ollama, vLLM, LocalAI). */
function versionField(value: unknown): string | null {
  return isPlainObject(value) ? (text(value.version) ?? null) : null;
}

interface Identified {
  kind: LocalServerKind;
  version: string | null;
  models: LocalModel[];
}

function ollama(answers: Answers): Identified | undefined {
  const tags = json(answers, '/api/tags');
  if (!isPlainObject(tags) || !Array.isArray(tags.models)) return undefined;
  const models = tags.models.filter(isPlainObject).flatMap((model) => {
    const id = text(model.name) ?? text(model.model);
    return id ? [withoutUndefined({ id, size: count(model.size) })] : [];
  });
  return { kind: 'ollama', version: versionField(json(answers, '/api/version')), models };
}

function lmStudio(answers: Answers): Identified | undefined {
  const entries = openAIModelEntries(json(answers, '/api/v0/models'));
  // Only LM Studio serves /api/v0/models; its entries carry fields no OpenAI list has.
  if (!entries || !(entries.length === 0 || entries.some((entry) => 'state' in entry || 'max_context_length' in entry || 'compatibility_type' in entry))) return undefined;
  const models = entries
    // Embedding models cannot answer a prompt.
    .filter((entry) => entry.type !== 'embeddings')
    .map((entry) =>
      withoutUndefined({
        id: String(entry.id),
        contextLength: count(entry.loaded_context_length) ?? count(entry.max_context_length),
        loaded: typeof entry.state === 'string' ? entry.state === 'loaded' : undefined,
      }),
    );
  return { kind: 'lmstudio', version: null, models };
}

function llamaCpp(answers: Answers): Identified | undefined {
  const props = json(answers, '/props');
  if (!isPlainObject(props) || !(isPlainObject(props.default_generation_settings) || 'total_slots' in props || 'model_path' in props)) return undefined;
  const settings = isPlainObject(props.default_generation_settings) ? props.default_generation_settings : {};
  // The context the server was started with (-c), which is what a request can use.
  const serving = count(settings.n_ctx) ?? count(props.n_ctx);
  const entries = openAIModelEntries(json(answers, '/v1/models'));
  let models: LocalModel[];
  if (entries) {
    models = entries.map((entry) => {
      const meta = isPlainObject(entry.meta) ? entry.meta : {};
      return withoutUndefined({ id: String(entry.id), size: count(meta.size), contextLength: serving ?? count(meta.n_ctx_train) });
    });
  } else {
    const path = text(props.model_path) ?? text(settings.model);
    models = path ? [withoutUndefined({ id: path.split(/[\\/]/).pop() ?? path, contextLength: serving })] : [];
  }
  return { kind: 'llamacpp', version: text(props.build_info) ?? null, models };
}

function vllm(answers: Answers): Identified | undefined {
  const entries = openAIModelEntries(json(answers, '/v1/models'));
  if (!entries) return undefined;
  if (!entries.some((entry) => entry.owned_by === 'vllm' || 'max_model_len' in entry)) return undefined;
  const models = entries.map((entry) => withoutUndefined({ id: String(entry.id), contextLength: count(entry.max_model_len) }));
  return { kind: 'vllm', version: versionField(json(answers, '/version')), models };
}

function localAi(answers: Answers): Identified | undefined {
  const entries = openAIModelEntries(json(answers, '/v1/models'));
  if (!entries || !answers['/readyz']) return undefined;
  return { kind: 'localai', version: versionField(json(answers, '/version')), models: entries.map((entry) => ({ id: String(entry.id) })) };
}

/** Jan's default port is 1337; its model entries carry Jan's model.json fields (`engine`, `settings.ctx_len`). */
export const JAN_PORT = 1337;

function jan(answers: Answers, port: number): Identified | undefined {
  const entries = openAIModelEntries(json(answers, '/v1/models'));
  if (!entries) return undefined;
  const looksLikeJan = entries.some((entry) => 'engine' in entry || (isPlainObject(entry.settings) && 'ctx_len' in entry.settings));
  if (!looksLikeJan && port !== JAN_PORT) return undefined;
  const models = entries.map((entry) => withoutUndefined({ id: String(entry.id), contextLength: isPlainObject(entry.settings) ? count(entry.settings.ctx_len) : undefined }));
  return { kind: 'jan', version: null, models };
}

function openAICompatible(answers: Answers): Identified | undefined {
  const entries = openAIModelEntries(json(answers, '/v1/models'));
  if (!entries) return undefined;
  return { kind: 'openai-compatible', version: null, models: entries.map((entry) => ({ id: String(entry.id) })) };
}

/** The URL a host and port make, with IPv6 literals in brackets. */
export function originOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** How a virtual key reaches it: Ollama by its own slug, the others as an OpenAI-compatible server (not OpenAI: no OpenAI prices). */
export function connectionFor(kind: LocalServerKind, url: string): LocalConnection {
  return { provider: kind === 'ollama' ? 'ollama' : 'openai-compatible', customHost: url };
}

/**
 * Which server answered on host:port, or undefined when nothing there speaks a model API. The most
 * specific signs go first: llama.cpp's /props before Ollama's /api/tags (recent llama.cpp servers
 * answer /api/tags too, for Ollama clients); /v1/models alone says only "OpenAI-compatible".
 */
export function identify(host: string, port: number, answers: Answers): DiscoveredServer | undefined {
  const found = llamaCpp(answers) ?? lmStudio(answers) ?? ollama(answers) ?? vllm(answers) ?? localAi(answers) ?? jan(answers, port) ?? openAICompatible(answers);
  if (!found) return undefined;
  const url = `${originOf(host, port)}/v1`;
  return { kind: found.kind, url, host, port, version: found.version, models: found.models, connection: connectionFor(found.kind, url) };
}
