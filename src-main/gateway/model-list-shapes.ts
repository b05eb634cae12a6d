// The shapes a model list is answered in: OpenAI's (the route names as entries of it), Anthropic's,
// which Claude Code reads when it sends `anthropic-version`, and Gemini's (`{models:[{name:"models/…"}]}`).
import { GatewayError } from '../core/errors.js';
import type { ListedModels } from '../providers/model-list.js';

export type ModelListShape = 'openai' | 'anthropic' | 'gemini';

/** A list asked for in a shape; `model`: one model of it (OpenAI's "retrieve model", Gemini's `models.get`). */
export interface ModelListRequest {
  shape: ModelListShape;
  model?: string;
}

/** A route name as an OpenAI model list entry. */
export function routeModelEntry(name: string): { id: string; object: 'model'; created: number; owned_by: string } {
  return { id: name, object: 'model', created: 0, owned_by: 'gatehouse-route' };
}

/** A list in Anthropic's shape. */
export function anthropicModelList(list: Pick<ListedModels, 'data'>): object {
  const data = list.data.map((model) => ({
    type: 'model',
    id: model.id,
    display_name: model.id,
    created_at: new Date((model.created || 0) * 1000).toISOString(),
  }));
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

/** What a model can be asked on the Gemini paths. */
const GEMINI_METHODS = ['generateContent', 'streamGenerateContent', 'countTokens'];

/** One model in Gemini's shape. */
export function geminiModel(id: string): object {
  return { name: `models/${id}`, baseModelId: id, version: '', displayName: id, supportedGenerationMethods: GEMINI_METHODS };
}

/** A list in Gemini's shape. */
export function geminiModelList(list: Pick<ListedModels, 'data'>): object {
  return { models: list.data.map((model) => geminiModel(model.id)) };
}

/** The list in the shape asked for, or the one model asked for (a 404 naming it when the list has no such model). */
export function shapedModelList(list: ListedModels, request: ModelListRequest): object {
  if (request.model !== undefined) {
    const id = request.model.replace(/^models\//, '');
    const entry = list.data.find((model) => model.id === id);
    if (!entry) throw new GatewayError(404, 'not_found_error', `Model '${id}' is not in this key's model list`, 'model', 'model_not_found');
    return request.shape === 'gemini' ? geminiModel(entry.id) : entry;
  }
  if (request.shape === 'anthropic') return anthropicModelList(list);
  if (request.shape === 'gemini') return geminiModelList(list);
  return list;
}
