// The active keys held in memory: what every request is authenticated against, with no disk read.
// Replaced whole whenever the key tables change; any key store can keep its keys here.
import { timingSafeEqual } from 'node:crypto';
import { hashPresentedKey, VIRTUAL_KEY_PREFIX, type Caller } from '../../core/keys.js';

interface ResolvedKey {
  keyHash: Buffer;
  caller: Caller;
}

/** An active key as the directory is loaded with. */
export interface ActiveKey {
  id: string;
  name: string;
  keyHash: Buffer;
  caller: Caller;
}

export class MemoryKeyDirectory {
  private virtualKeys = new Map<string, ResolvedKey>();
  private virtualKeysByName = new Map<string, Caller>();
  private gatewayKeys = new Map<string, ResolvedKey>();
  /** Names of the live keys by id, kept with the maps above: /metrics labels calls with them on every request. */
  private names = new Map<string, string>();

  /** Takes the active keys in place of the ones held. Virtual keys oldest first: the newest of a shared name is kept. */
  replace(virtual: readonly ActiveKey[], gateway: readonly ActiveKey[]): void {
    const virtualKeys = new Map<string, ResolvedKey>();
    const virtualKeysByName = new Map<string, Caller>();
    for (const key of virtual) {
      virtualKeys.set(key.keyHash.toString('hex'), { keyHash: key.keyHash, caller: key.caller });
      virtualKeysByName.set(key.name, key.caller);
    }
    this.virtualKeysByName = virtualKeysByName;
    const gatewayKeys = new Map<string, ResolvedKey>();
    for (const key of gateway) gatewayKeys.set(key.keyHash.toString('hex'), { keyHash: key.keyHash, caller: key.caller });
    this.virtualKeys = virtualKeys;
    this.gatewayKeys = gatewayKeys;
    this.names = new Map([...virtual, ...gateway].map((key) => [key.id, key.name]));
  }

  clear(): void {
    this.replace([], []);
  }

  resolve(presentedKey: string, keyHash?: Buffer): Caller | undefined {
    const hash = keyHash ?? hashPresentedKey(presentedKey);
    const map = presentedKey.startsWith(VIRTUAL_KEY_PREFIX) ? this.virtualKeys : this.gatewayKeys;
    const found = map.get(hash.toString('hex'));
    // The map is keyed by the hash, so timing reveals nothing about the key; compare anyway.
    if (!found || !timingSafeEqual(found.keyHash, hash)) return undefined;
    return found.caller;
  }

  virtualKeyByName(name: string): Caller | undefined {
    return this.virtualKeysByName.get(name);
  }

  /** The name of an active key by its id. */
  name(id: string): string | undefined {
    return this.names.get(id);
  }

  callerForVirtualKeyId(id: string): Caller | undefined {
    for (const { caller } of this.virtualKeys.values()) if (caller.keyId === id) return caller;
    return undefined;
  }
}
