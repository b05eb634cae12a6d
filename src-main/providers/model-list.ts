// An OpenAI-shape model list as a provider sends it, read where Gatehouse adds to it or reshapes it
// (route names appended, Anthropic's list shape, the admin Playground's Model field).
import { z } from 'zod';

/** A model of the list: its id and creation time are read; every other field is kept as the provider sent it. */
const ListedModel = z.looseObject({ id: z.string(), created: z.number().optional().catch(undefined) });

/** The list, its other fields kept; a `data` that is not a list of models lists none. */
const ListedModels = z.looseObject({ data: z.array(ListedModel).catch([]) });
export type ListedModels = z.infer<typeof ListedModels>;

/** A provider's OpenAI-shape list; JSON that is not an object lists no models. */
export function readListedModels(json: unknown): ListedModels {
  return ListedModels.safeParse(json).data ?? { data: [] };
}
