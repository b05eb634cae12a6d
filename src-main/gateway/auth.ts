// Who is calling, and with which provider credentials. A gateway API key lets the request name its
// provider and bring its own token; a virtual key fixes both, and nothing in the request can change them.
import { timingSafeEqual } from 'node:crypto';
import { GatewayError, invalidRequest, unauthorized } from '../core/errors.js';
import { normalizeCustomHost, type GatewayHeaders } from './gateway-headers.js';
import { hashKey, hashPresentedKey, VIRTUAL_KEY_PREFIX, type Caller, type KeyDirectory } from '../core/keys.js';

type VirtualKeyCaller = Extract<Caller, { kind: 'virtual-key' }>;
import type { ProviderAdapter, ProviderCredentials } from '../providers/types.js';
import { getProvider } from '../providers/registry.js';

export interface RouteTarget {
  caller: Caller;
  provider: string;
  /** The provider's adapter, looked up once per target: planning, sending and relaying share it. */
  adapter: ProviderAdapter;
  customHost?: string;
  credentials: ProviderCredentials;
}

/** A virtual key's own target: its provider, host and stored credentials. */
export async function virtualKeyTarget(caller: VirtualKeyCaller): Promise<RouteTarget> {
  const credentials = await caller.loadCredentials();
  return { caller, provider: caller.provider, adapter: getProvider(caller.provider), customHost: caller.customHost, credentials };
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

/** Keys of the providers themselves (OpenAI, Anthropic, Google, Groq, xAI …): pasted where a Gatehouse key belongs. */
const PROVIDER_KEY_PREFIXES = ['sk-', 'AIza', 'gsk_', 'xai-', 'pplx-', 'hf_', 'r8_'];
const looksLikeProviderKey = (key: string) => PROVIDER_KEY_PREFIXES.some((prefix) => key.startsWith(prefix));
const GATEHOUSE_KEYS = 'a Gatehouse virtual key (gh-vk-…) or gateway API key (gh-gk-…)';

/** Why a key that was sent is refused: a provider's own key gets told so, not that no key came. */
function notAGatehouseKey(where: string, key: string): GatewayError {
  if (looksLikeProviderKey(key)) {
    return unauthorized(
      `The key sent in ${where} is a provider's API key, not a Gatehouse key: send ${GATEHOUSE_KEYS} there (a virtual key keeps the provider key for you), or send a gateway API key in x-gateway-api-key beside it`,
    );
  }
  return unauthorized(`The key sent in ${where} is not a Gatehouse key (no such virtual key or gateway API key; revoked keys stop working): send ${GATEHOUSE_KEYS}`);
}

/**
 * Who the request's key says the caller is. The headers stay as they were read: which header held the
 * Gatehouse key and which held the provider's token is this step's answer, not a rewrite of theirs.
 */
export interface Authenticated {
  caller: Caller;
  /** The Gatehouse key the request presented (an MCP session re-checks it on every message). */
  presentedKey: string | undefined;
  /** The provider's own token (`Authorization: Bearer` beside a Gatehouse key); undefined when the bearer was the Gatehouse key. */
  providerToken: string | undefined;
}

export function authenticate(headers: GatewayHeaders, directory: KeyDirectory): Authenticated {
  if (headers.apiKey !== undefined) {
    const caller = directory.resolve(headers.apiKey);
    if (!caller) throw notAGatehouseKey(headers.apiKeySource === '?key=' ? 'the URL (?key=)' : (headers.apiKeySource ?? 'x-gateway-api-key'), headers.apiKey);
    return { caller, presentedKey: headers.apiKey, providerToken: headers.bearer };
  }
  // Tools that can only set a base URL and an API key send the virtual key as a bearer token.
  if (headers.bearer?.startsWith(VIRTUAL_KEY_PREFIX)) {
    const caller = directory.resolve(headers.bearer);
    if (!caller || caller.kind !== 'virtual-key') throw unauthorized('Invalid virtual key');
    return { caller, presentedKey: headers.bearer, providerToken: undefined };
  }
  // Tools that send one key as a bearer (ANTHROPIC_AUTH_TOKEN, OPENAI_API_KEY) may send the gateway key there:
  // it is then Gatehouse's key, not a provider token, and is never sent on.
  if (headers.bearer !== undefined) {
    const caller = directory.resolve(headers.bearer);
    if (caller) return { caller, presentedKey: headers.bearer, providerToken: undefined };
    throw notAGatehouseKey('Authorization: Bearer', headers.bearer);
  }
  throw unauthorized('Missing x-gateway-api-key: send a gateway API key or a virtual key (in x-gateway-api-key, x-api-key or Authorization: Bearer)');
}

/** A caller someone else authenticated (the admin Playground's virtual key): the bearer, if any, is the provider's. */
export function authenticatedAs(caller: Caller, headers: GatewayHeaders): Authenticated {
  return { caller, presentedKey: headers.apiKey, providerToken: headers.bearer };
}

/** `model`: the model a generation asked for, which no route took (null for calls that name none). */
export async function resolveTarget(headers: GatewayHeaders, { caller, providerToken }: Pick<Authenticated, 'caller' | 'providerToken'>, model: string | null = null): Promise<RouteTarget> {
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
    return virtualKeyTarget(caller);
  }
  if (!headers.provider) {
    // A gateway key reaches providers through routes: what it lacks is a route for this model, not a header.
    if (model !== null) {
      throw invalidRequest(
        `No route matches model '${model}': add a route for it (Routes page, or gatehouse routes add), use a virtual key, or name the provider in x-gateway-provider`,
        'model',
        'no_route',
      );
    }
    throw invalidRequest("Missing 'x-gateway-provider': name the provider (e.g. openai) or use a virtual key", 'x-gateway-provider');
  }
  // The bearer token is the provider's; it must not be a virtual key smuggled past the key check.
  if (providerToken?.startsWith(VIRTUAL_KEY_PREFIX)) {
    throw new GatewayError(400, 'invalid_request_error', 'A virtual key cannot be used as a provider token', 'authorization');
  }
  return {
    caller,
    provider: headers.provider,
    adapter: getProvider(headers.provider),
    customHost: requestedHost,
    credentials: { token: providerToken, ...headers.cloud },
  };
}
