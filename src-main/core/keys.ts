// What a presented key is: the caller it stands for, and how keys are recognised (hashed, never kept as
// they were presented). The key store implements KeyDirectory; the gateway authenticates through it.
import { hash } from 'node:crypto';
import { boundedMemo } from './bounded-memo.js';
import type { ProviderCredentials } from './credentials.js';
import type { McpAccess } from './mcp-access.js';

export const VIRTUAL_KEY_PREFIX = 'gh-vk-';

/** A key as a request presents it; its MCP fields (which servers and tools it may use) are McpAccess's. */
export type Caller = McpAccess & (
  | {
      kind: 'gateway-key';
      keyId: string | null;
    }
  | {
      kind: 'virtual-key';
      keyId: string;
      /** The key's name: what route targets call it by. */
      name?: string;
      provider: string;
      /** Sent as the model when a request names none. */
      defaultModel?: string;
      /** Requested model name → the name sent to the provider. */
      modelMap?: Readonly<Record<string, string>>;
      /** The host the key is bound to, normalised; undefined means the provider's own default. */
      customHost?: string;
      /** Whether a route may serve another virtual key's call with this key's credentials. */
      allowRouting?: boolean;
      /** The key's server speaks Chat Completions only: Responses calls are translated to Chat. */
      chatOnly?: boolean;
      /** Records that the key's server has no Responses API (it answered 404 there); absent where nothing can be stored. */
      learnChatOnly?(): void;
      /** Decrypts the stored secret for this one request. */
      loadCredentials(): Promise<ProviderCredentials>;
    }
);

/** Resolves presented keys from memory (no disk read per request); implemented by the key store. */
export interface KeyDirectory {
  /** `keyHash` is `hashKey(presentedKey)` when the caller has it already (a chain hashes once for all). */
  resolve(presentedKey: string, keyHash?: Buffer): Caller | undefined;
  /** The active virtual key of a name (route targets name their key); absent where no key store is. */
  virtualKeyByName?(name: string): Caller | undefined;
}

export function hashKey(key: string): Buffer {
  // The one-shot form: about half the cost of createHash().update().digest(), and this runs on every request.
  return hash('sha256', key, 'buffer');
}

/**
 * hashKey of a key presented with a request, remembered for the next requests that present it: a tool
 * sends the same key on every call, and hashing it was some 3 µs of each. A hash never goes stale, so a
 * revoked key needs nothing here; bounded (cleared when full), so made-up keys cannot grow it. Held in
 * memory only, as the request's own headers are.
 */
export const hashPresentedKey = boundedMemo(256, hashKey);
