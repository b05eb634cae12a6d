// The rules a key's name, default model, model map and host follow, whichever store keeps the key.
import { invalidRequest } from './errors.js';
import { parseCustomHost } from './custom-host.js';

const MAX_NAME_LENGTH = 100;
const MAX_MODEL_NAME_LENGTH = 256;
const MAX_MODEL_MAP_ENTRIES = 500;

export function validName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw invalidRequest("'name' must not be empty", 'name');
  if (trimmed.length > MAX_NAME_LENGTH) throw invalidRequest(`'name' must be at most ${MAX_NAME_LENGTH} characters`, 'name');
  return trimmed;
}

function validModelName(value: string, param: string): string {
  const trimmed = value.trim();
  if (!trimmed) throw invalidRequest(`'${param}' must not be empty`, param);
  if (trimmed.length > MAX_MODEL_NAME_LENGTH) throw invalidRequest(`'${param}' must be at most ${MAX_MODEL_NAME_LENGTH} characters`, param);
  return trimmed;
}

export function validDefaultModel(value: string | null | undefined): string | null {
  if (value === undefined || value === null || value.trim() === '') return null;
  return validModelName(value, 'defaultModel');
}

/** The map of trimmed names; null when there is none or it is empty (a key without a map). */
export function validModelMap(map: Record<string, string> | undefined): Record<string, string> | null {
  if (map === undefined) return null;
  const entries = Object.entries(map);
  if (entries.length > MAX_MODEL_MAP_ENTRIES) throw invalidRequest(`'modelMap' may hold at most ${MAX_MODEL_MAP_ENTRIES} names`, 'modelMap');
  if (entries.length === 0) return null;
  const clean: Record<string, string> = {};
  for (const [from, to] of entries) {
    if (typeof to !== 'string') throw invalidRequest(`'modelMap.${from}' must be a model name`, `modelMap.${from}`);
    clean[validModelName(from, 'modelMap')] = validModelName(to, `modelMap.${from}`);
  }
  return clean;
}

export function validCustomHost(customHost: string | null | undefined): string | null {
  if (customHost === undefined || customHost === null || customHost.trim() === '') return null;
  return parseCustomHost(customHost.trim(), 'customHost');
}
