// Keeps secrets out of everything the gateway records or relays: log headers, error messages, bodies.

const ALWAYS_SECRET = new Set([
  'authorization', 'x-gateway-api-key', 'api-key', 'x-api-key', 'x-goog-api-key', 'cookie', 'proxy-authorization',
  'x-gateway-cloud-c-secret-access-key', 'x-gateway-cloud-c-session-token', 'x-gateway-cloud-c-access-key-id', 'x-amz-security-token',
]);

export const REDACTED = '[redacted]';

/** A header whose name says it carries a credential (`x-custom-auth`, `x-session-token`, `x-secret`): never stored. */
const SECRET_NAME = /auth|token|key|secret/;

/** The header whose value is a URL that may carry a password or an `?api_key=`. */
const CUSTOM_HOST = 'x-gateway-custom-host';

export function redactHeaders(headers: Record<string, string | string[] | undefined>, alsoSecret: ReadonlySet<string>): Record<string, string> {
  const result: Record<string, string> = {};
  // for…in rather than Object.entries: no array of pairs per call (every request's log row comes through here).
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    const value = headers[name];
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    // Node gives header names in lower case.
    result[name] = ALWAYS_SECRET.has(name) || alsoSecret.has(name) || SECRET_NAME.test(name) ? REDACTED : name === CUSTOM_HOST ? redactUrl(text) : text;
  }
  return result;
}

/**
 * A URL with its user-info and its query values blanked: `https://[redacted]@host/v1?api_key=[redacted]`.
 * Text-based, so a URL the parser would refuse is blanked just the same.
 */
export function redactUrl(url: string): string {
  const withoutUser = url.replace(/^([^/?#]*\/\/)[^/?#]*@/, `$1${REDACTED}@`);
  const query = withoutUser.indexOf('?');
  if (query === -1) return withoutUser;
  const fragment = withoutUser.indexOf('#', query);
  const end = fragment === -1 ? withoutUser.length : fragment;
  const parts = withoutUser
    .slice(query + 1, end)
    .split('&')
    .map((part) => {
      const equals = part.indexOf('=');
      // A bare value (`?sk-…`) may be the secret itself.
      return equals === -1 ? (part === '' ? part : REDACTED) : `${part.slice(0, equals + 1)}${REDACTED}`;
    });
  return `${withoutUser.slice(0, query + 1)}${parts.join('&')}${fragment === -1 ? '' : `#${REDACTED}`}`;
}

/** Replaces each secret (and any `Bearer` token or provider-key-looking string) in a text. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let result = text;
  for (const secret of secrets) {
    // Short values would blank out ordinary words; real credentials are long.
    // includes() first: split/join copies the whole text (a stream's log can be a megabyte) even when the secret is absent.
    if (secret && secret.length >= 8 && result.includes(secret)) result = result.split(secret).join(REDACTED);
  }
  // Shapes of keys and tokens wherever they turn up, named or not: OpenAI/Anthropic keys, our virtual
  // keys, AWS access key ids, Google API keys, and Google OAuth access tokens (`ya29.`, what a Vertex
  // service account is exchanged for: minted per hour, so in no list of stored secrets).
  return result.replace(/\b(sk-(?:ant-)?[A-Za-z0-9_-]{12,}|gh-vk-[A-Za-z0-9_-]{8,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{20,}|ya29\.[A-Za-z0-9_.-]{8,})/g, REDACTED);
}
