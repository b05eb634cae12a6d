// A virtual key's model settings as form rows: the default model, and the map from a requested model
// name to the provider's own (so one key can stand for "my local box": `gpt-4o` → `qwen3:8b`).
import type { VirtualKeyModels, VirtualKeyModelsPatch } from '../api/types';

export interface ModelMapRow {
  /** Stable across edits, for React keys; never sent. */
  uid: number;
  from: string;
  to: string;
}

let nextRowUid = 1;

export function emptyModelMapRow(): ModelMapRow {
  return { uid: nextRowUid++, from: '', to: '' };
}

export function rowsFromModelMap(map: Record<string, string> | undefined): ModelMapRow[] {
  return Object.entries(map ?? {}).map(([from, to]) => ({ uid: nextRowUid++, from, to }));
}

/**
 * The PATCH/POST fields for the form, or the first problem, named as the server would name it
 * (`modelMap.<name>`). Rows left wholly empty are ignored.
 */
export function buildKeyModels(defaultModel: string, rows: readonly ModelMapRow[]): { models: VirtualKeyModelsPatch; error: { message: string; param: string } | null } {
  const modelMap: Record<string, string> = {};
  for (const row of rows) {
    const from = row.from.trim();
    const to = row.to.trim();
    if (!from && !to) continue;
    if (!from) return { models: { defaultModel: null, modelMap }, error: { message: `Enter the requested name that ${to} stands for`, param: 'modelMap' } };
    if (!to) return { models: { defaultModel: null, modelMap }, error: { message: `Enter the provider model to send for ${from}`, param: `modelMap.${from}` } };
    if (Object.hasOwn(modelMap, from)) return { models: { defaultModel: null, modelMap }, error: { message: `${from} is mapped twice`, param: `modelMap.${from}` } };
    modelMap[from] = to;
  }
  return { models: { defaultModel: defaultModel.trim() || null, modelMap }, error: null };
}

/** "default gpt-4o-mini · 2 mapped" for a key's row; empty when the key has neither. */
export function describeKeyModels(key: VirtualKeyModels): string {
  const parts: string[] = [];
  if (key.defaultModel) parts.push(`default ${key.defaultModel}`);
  const mapped = Object.keys(key.modelMap ?? {}).length;
  if (mapped) parts.push(`${mapped} mapped`);
  return parts.join(' · ');
}
