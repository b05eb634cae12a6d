// Keeps secrets out of everything the gateway records or relays: log headers, error messages, bodies.
import { boundedMemo } from './bounded-memo.js';

const ALWAYS_SECRET = new Set([
  'authorization', 'x-gateway-api-key', 'api-key', 'x-api-key', 'x-goog-api-key', 'cookie', 'proxy-authorization',
  'x-gateway-cloud-c-secret-access-key', 'x-gateway-cloud-c-session-token', 'x-gateway-cloud-c-access-key-id', 'x-amz-security-token',
]);

export const REDACTED = '[redacted]';

/** A header (or metadata entry) whose name says it carries a credential (`x-custom-auth`, `x-session-token`, `x-secret`): never stored. */
const SECRET_NAME = /auth|token|key|secret|password/;

/** A client sends the same few header names on every request: each is told once. */
const isSecretHeaderName = boundedMemo(512, (name) => ALWAYS_SECRET.has(name) || SECRET_NAME.test(name));

/** Whether a header name says its value is a credential (names in lower case, as Node gives them). */
export function isSecretHeader(name: string, alsoSecret: ReadonlySet<string>): boolean {
  return (alsoSecret.size > 0 && alsoSecret.has(name)) || isSecretHeaderName(name);
}

/** Whether a metadata entry's name says its value is a credential (`api_key`, `Session-Token`). */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name.toLowerCase());
}

/** The header whose value is a URL that may carry a password or an `?api_key=`. */
const CUSTOM_HOST = 'x-gateway-custom-host';

export const CUSTOM_HOST_HEADER = CUSTOM_HOST;

export function redactHeaders(headers: Record<string, string | string[] | undefined>, alsoSecret: ReadonlySet<string>): Record<string, string> {
  const result: Record<string, string> = {};
  // for…in rather than Object.entries: no array of pairs per call (every request's log row comes through here).
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    const value = headers[name];
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    // Node gives header names in lower case.
    result[name] = isSecretHeader(name, alsoSecret) ? REDACTED : name === CUSTOM_HOST ? redactUrl(text) : text;
  }
  return result;
}

/**
 * A URL with its user-info and its query values blanked: `https://[redacted]@host/v1?api_key=[redacted]`.
 * Text-based, so a URL the parser would refuse is blanked just the same.
 */
export function redactUrl(url: string): string {
  // A path (`/v1/chat/completions`): nothing to blank, and no copy made.
  if (!url.includes('@') && !url.includes('?') && !url.includes('#')) return url;
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

/** Replaces each secret (and any `Bearer` token, provider-key-looking string or credential in a URL) in a text. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let result = text;
  for (const secret of secrets) {
    // Short values would blank out ordinary words; real credentials are long.
    // includes() first: split/join copies the whole text (a stream's log can be a megabyte) even when the secret is absent.
    if (secret && secret.length >= MIN_SECRET_CHARS && result.includes(secret)) result = result.split(secret).join(REDACTED);
  }
  return redactShapes(result);
}

/** Values shorter than this are not blanked wherever they appear: they would blank out ordinary words. */
export const MIN_SECRET_CHARS = 8;

// Shapes of keys and tokens wherever they turn up, named or not: OpenAI/Anthropic keys, our virtual
// keys, AWS access key ids, Google API keys, and Google OAuth access tokens (`ya29.`, what a Vertex
// service account is exchanged for: minted per hour, so in no list of stored secrets).
const KEY_SHAPES = /\b(sk-(?:ant-)?[A-Za-z0-9_-]{12,}|gh-vk-[A-Za-z0-9_-]{8,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{20,}|ya29\.[A-Za-z0-9_.-]{8,})/g;
/**
 * Credentials inside a URL written in a text (an error naming the address it failed to reach): the
 * user-info of `scheme://user:pass@host`, and the values of query parameters named like credentials
 * (`?key=`, `&api_key=`, `?token=`, a signed URL's `X-Amz-Signature=`). Each part stops at the first
 * character that ends it, so the scan is linear. A value never starts with `)`: prose naming the parameter,
 * `the URL (?key=) is …`, has none.
 */
const URL_USER_INFO = /(\/\/)[^\s/?#@"'<>]+@/g;
const URL_CREDENTIAL_PARAM = /([?&](?:key|api[_-]?key|apikey|access[_-]?token|token|secret|client[_-]?secret|password|passwd|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential)=)[^&#\s"'<>)][^&#\s"'<>]*/gi;

/**
 * What every shape above holds: a text without any of these has nothing to blank. Literal searches, not
 * one regex of the seven alternatives: on a stream's captured body (180 KB for 1,000 events) the regex
 * took about 290 µs of the serving thread per row, the searches about 100 µs; on a short text they are
 * no slower.
 */
function mayHoldShape(text: string): boolean {
  return (
    text.includes('=') ||
    text.includes('//') ||
    text.includes('sk-') ||
    text.includes('gh-vk-') ||
    text.includes('AKIA') ||
    text.includes('AIza') ||
    text.includes('ya29.')
  );
}

/**
 * Short texts seen before with nothing to blank (header values, model and provider names, the same on
 * every request): a set lookup instead of the scans. Only texts with nothing to blank are kept here, so it
 * holds nothing a row would not store as it is; forgotten all at once when full.
 */
const KNOWN_CLEAN = new Set<string>();
const KNOWN_CLEAN_MAX = 2048;
const KNOWN_CLEAN_MAX_CHARS = 256;

function rememberClean(text: string): void {
  if (text.length > KNOWN_CLEAN_MAX_CHARS) return;
  if (KNOWN_CLEAN.size >= KNOWN_CLEAN_MAX) KNOWN_CLEAN.clear();
  KNOWN_CLEAN.add(text);
}

/** The shapes of keys, and credentials in URLs, blanked in a text. A text with none is returned as it is (no copy). */
export function redactShapes(text: string): string {
  if (text.length <= KNOWN_CLEAN_MAX_CHARS && KNOWN_CLEAN.has(text)) return text;
  if (!mayHoldShape(text)) {
    rememberClean(text);
    return text;
  }
  let result = text.replace(KEY_SHAPES, REDACTED);
  // indexOf first: most texts have no URL, and a literal search is faster than the regex's scan.
  if (result.includes('//')) result = result.replace(URL_USER_INFO, `$1${REDACTED}@`);
  if (result.includes('=')) result = result.replace(URL_CREDENTIAL_PARAM, `$1${REDACTED}`);
  if (result === text) rememberClean(text);
  return result;
}
