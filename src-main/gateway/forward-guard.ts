// `x-gateway-forward-headers` sends headers to the provider unchanged, but never a Gatehouse key: a client
// that lists `authorization` while it authenticates with `Authorization: Bearer gh-vk-…` (or sends the
// gateway key in `x-api-key`) would otherwise hand its key to whoever runs the provider's host.
import { invalidRequest } from '../core/errors.js';
import { VIRTUAL_KEY_PREFIX, type KeyDirectory } from '../core/keys.js';
import type { GatewayHeaders } from './gateway-headers.js';

/** The token of a header value: `Bearer <token>`, or the value itself. */
function tokenOf(value: string): string {
  const trimmed = value.trim();
  const bearer = /^Bearer\s+(.+)$/i.exec(trimmed);
  return bearer ? bearer[1].trim() : trimmed;
}

/**
 * Throws a 400 naming the forwarded header that carries a Gatehouse key: a virtual key (`gh-vk-`), the key
 * the request authenticated with, or any key the directory knows. Only explicitly forwarded headers are
 * looked at (no others can carry a credential header); most requests name none, and pay one size check.
 */
export function refuseForwardedGatewayKeys(headers: GatewayHeaders, presentedKey: string | undefined, directory: KeyDirectory): void {
  if (headers.sensitiveHeaderNames.size === 0) return;
  for (const name of headers.sensitiveHeaderNames) {
    const value = headers.forwardHeaders[name];
    if (value === undefined) continue;
    const token = tokenOf(value);
    if (token === '') continue;
    if (token.startsWith(VIRTUAL_KEY_PREFIX) || token === presentedKey || directory.resolve(token) !== undefined) {
      throw invalidRequest(
        `'x-gateway-forward-headers' lists '${name}', which carries a Gatehouse key: Gatehouse keys are never sent to a provider. Send the provider's own token there, or leave '${name}' out of the list`,
        'x-gateway-forward-headers',
      );
    }
  }
}
