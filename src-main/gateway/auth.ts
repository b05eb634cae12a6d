// Who is calling, and with which provider credentials. A gateway API key lets the request name its
// provider and bring its own token; a virtual key fixes both, and nothing in the request can change them.
import { hash, timingSafeEqual } from 'node:crypto';
import { GatewayError, invalidRequest, unauthorized } from './errors.js';
import { normalizeCustomHost, type GatewayHeaders } from './gateway-headers.js';
import { boundedMemo } from './bounded-memo.js';
import type { ProviderCredentials } from './providers/types.js';

export const VIRTUAL_KEY_PREFIX = 'gh-vk-';

export type Caller =
  | { kind: 'gateway-key'; keyId: string | null }
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
      /** Decrypts the stored secret for this one request. */
      loadCredentials(): Promise<ProviderCredentials>;
    };

/** Resolves presented keys from memory (no disk read per request); implemented by the key store. */
export interface KeyDirectory {
  /** `keyHash` is `hashKey(presentedKey)` when the caller has it already (a chain hashes once for all). */
  resolve(presentedKey: string, keyHash?: Buffer): Caller | undefined;
  /** The active virtual key of a name (route targets name their key); absent where no key store is. */
  virtualKeyByName?(name: string): Caller | undefined;
}

export interface RouteTarget {
  caller: Caller;
  provider: string;
  customHost?: string;
  credentials: ProviderCredentials;
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

/** Accepts the `GATEWAY_API_KEY` of the server's environment, compared in constant time. */
export function environmentKeyDirectory(environmentKey: string | undefined): KeyDirectory {
  const expected = environmentKey ? hashKey(environmentKey) : undefined;
  return {
    resolve(presentedKey, keyHash) {
      if (!expected) return undefined;
      return timingSafeEqual(keyHash ?? hashPresentedKey(presentedKey), expected) ? { kind: 'gateway-key', keyId: null } : undefined;
    },
  };
}

/** Tries each directory in turn (the key store first, then the environment key). */
export function chainKeyDirectories(...directories: KeyDirectory[]): KeyDirectory {
  return {
    resolve(presentedKey, keyHash = hashPresentedKey(presentedKey)) {
      for (const directory of directories) {
        const caller = directory.resolve(presentedKey, keyHash);
        if (caller) return caller;
      }
      return undefined;
    },
    virtualKeyByName(name) {
      for (const directory of directories) {
        const caller = directory.virtualKeyByName?.(name);
        if (caller) return caller;
      }
      return undefined;
    },
  };
}

export function authenticate(headers: GatewayHeaders, directory: KeyDirectory): Caller {
  if (headers.apiKey !== undefined) {
    const caller = directory.resolve(headers.apiKey);
    if (!caller) throw unauthorized('Invalid x-gateway-api-key: no such gateway API key or virtual key');
    return caller;
  }
  // Tools that can only set a base URL and an API key send the virtual key as a bearer token.
  if (headers.bearer?.startsWith(VIRTUAL_KEY_PREFIX)) {
    const caller = directory.resolve(headers.bearer);
    if (!caller || caller.kind !== 'virtual-key') throw unauthorized('Invalid virtual key');
    return caller;
  }
  // Tools that send one key as a bearer (ANTHROPIC_AUTH_TOKEN, OPENAI_API_KEY) may send the gateway key there:
  // it is then Gatehouse's key, not a provider token, and is never sent on.
  if (headers.bearer !== undefined) {
    const caller = directory.resolve(headers.bearer);
    if (caller) {
      headers.apiKey = headers.bearer;
      headers.bearer = undefined;
      return caller;
    }
  }
  throw unauthorized('Missing x-gateway-api-key: send a gateway API key or a virtual key (in x-gateway-api-key, x-api-key or Authorization: Bearer)');
}

export async function resolveTarget(headers: GatewayHeaders, caller: Caller): Promise<RouteTarget> {
  const requestedHost = headers.customHost ? normalizeCustomHost(headers.customHost) : undefined;
  if (caller.kind === 'virtual-key') {
    if (headers.provider && headers.provider !== caller.provider) {
      throw invalidRequest(`This virtual key is for provider '${caller.provider}', not '${headers.provider}'`, 'x-gateway-provider');
    }
    if (requestedHost && requestedHost !== caller.customHost) {
      throw invalidRequest(
        'This virtual key is bound to its own host; a request cannot send its secret to a different x-gateway-custom-host',
        'x-gateway-custom-host',
      );
    }
    return { caller, provider: caller.provider, customHost: caller.customHost, credentials: await caller.loadCredentials() };
  }
  if (!headers.provider) {
    throw invalidRequest("Missing 'x-gateway-provider': name the provider (e.g. openai) or use a virtual key", 'x-gateway-provider');
  }
  // The bearer token is the provider's; it must not be a virtual key smuggled past the key check.
  if (headers.bearer?.startsWith(VIRTUAL_KEY_PREFIX)) {
    throw new GatewayError(400, 'invalid_request_error', 'A virtual key cannot be used as a provider token', 'authorization');
  }
  return {
    caller,
    provider: headers.provider,
    customHost: requestedHost,
    credentials: { token: headers.bearer, ...headers.cloud },
  };
}
