// A virtual or gateway key by its id or its name, as `keys limits` and `keys models` take it.
import type { KeyLimitsRepository, LimitedKey } from '../core/limits.js';

export async function findKey(table: KeyLimitsRepository, nameOrId: string): Promise<LimitedKey> {
  if (/^(vk|gk)_[0-9a-f]+$/.test(nameOrId)) {
    try {
      return await table.key(nameOrId);
    } catch {
      // Not an id after all: a key may be named like one.
    }
  }
  const found = await table.keysNamed(nameOrId);
  if (found.length === 0) throw new Error(`No active virtual key or gateway API key named '${nameOrId}' (see 'gatehouse keys list' and 'gatehouse gateway-keys list').`);
  if (found.length > 1) {
    throw new Error(`${found.length} keys are named '${nameOrId}': ${found.map((key) => `${key.id} (${key.kind})`).join(', ')}. Give the id instead of the name.`);
  }
  return found[0];
}
