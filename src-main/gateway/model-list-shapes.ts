// The shapes a model list is answered in: OpenAI's (the route names as entries of it) and Anthropic's,
// which Claude Code reads when it sends `anthropic-version`.
import type { ListedModels } from '../providers/model-list.js';

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
