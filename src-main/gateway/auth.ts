// Who is calling, and with which provider credentials. A gateway API key lets the request name its
// provider and bring its own token; a virtual key fixes both, and nothing in the request can change them.
import { timingSafeEqual } from 'node:crypto';
import { GatewayError, invalidRequest, unauthorized } from '../core/errors.js';
import { normalizeCustomHost, type GatewayHeaders } from './gateway-headers.js';
import { hashKey, hashPresentedKey, VIRTUAL_KEY_PREFIX, type Caller, type KeyDirectory } from '../core/keys.js';
import type { ProviderCredentials } from '../providers/types.js';

export interface RouteTarget {
  caller: Caller;
  provider: string;
  customHost?: string;
  credentials: ProviderCredentials;
}

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
