// Where the desktop window may go: only the gateway's own origin inside the window, and a short
// list of documentation sites in the system browser. Pure functions, so Vitest can check them.

/** Sites the UI links to (provider consoles and docs); anything else is not opened at all. */
export const EXTERNAL_HOST_ALLOWLIST: readonly string[] = [
  'github.com',
  'platform.openai.com',
  'docs.anthropic.com',
  'console.anthropic.com',
  'learn.microsoft.com',
  'portal.azure.com',
  'cloud.google.com',
  'console.cloud.google.com',
  'ai.google.dev',
  'aistudio.google.com',
  'docs.aws.amazon.com',
  'console.aws.amazon.com',
  'docs.mistral.ai',
  'console.mistral.ai',
  'console.groq.com',
  'docs.together.ai',
  'api.together.ai',
  'platform.deepseek.com',
  'api-docs.deepseek.com',
  'openrouter.ai',
  'ollama.com',
];

function parseUrl(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

/** `http://127.0.0.1:8787` for `http://127.0.0.1:8787/anything`; throws on a URL that has no origin. */
export function originOf(raw: string): string {
  const url = parseUrl(raw);
  if (!url || url.origin === 'null') throw new Error(`Not a URL with an origin: ${raw}`);
  return url.origin;
}

/** The window may only show pages of the gateway it belongs to (same scheme, host and port). */
export function isGatewayUrl(raw: string, gatewayOrigin: string): boolean {
  const url = parseUrl(raw);
  return url !== null && url.origin === gatewayOrigin;
}

/** https links to an allowlisted host (or its `www.`) go to the system browser; nothing else does. */
export function isAllowedExternalUrl(raw: string, allowlist: readonly string[] = EXTERNAL_HOST_ALLOWLIST): boolean {
  const url = parseUrl(raw);
  if (!url || url.protocol !== 'https:') return false;
  // Credentials in a link are a phishing trick (https://github.com@evil.example): refuse them.
  if (url.username !== '' || url.password !== '') return false;
  if (url.port !== '') return false;
  const host = url.hostname.toLowerCase().replace(/^www\./, '');
  return allowlist.includes(host);
}

/**
 * The policy the window enforces on everything the gateway serves. Scripts only from the gateway
 * itself (Vite's build emits no inline script); inline styles stay allowed because React and
 * component libraries set `style` attributes, which cannot run code.
 */
export function buildContentSecurityPolicy(): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

/**
 * Adds the window's policy to a response's headers, next to any policy the gateway sent itself:
 * two policies in one header are both enforced, so the page gets the stricter of each directive.
 */
export function withContentSecurityPolicy(headers: Readonly<Record<string, string[]>> | undefined, policy: string): Record<string, string[]> {
  const merged: Record<string, string[]> = { ...headers };
  const key = Object.keys(merged).find((name) => name.toLowerCase() === 'content-security-policy') ?? 'Content-Security-Policy';
  merged[key] = [...(merged[key] ?? []), policy];
  return merged;
}

/** The only permission the UI needs: writing a new key to the clipboard (its copy button). */
export function isPermissionAllowed(permission: string, requestingUrl: string, gatewayOrigin: string): boolean {
  return permission === 'clipboard-sanitized-write' && isGatewayUrl(requestingUrl, gatewayOrigin);
}
