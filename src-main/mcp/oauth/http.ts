// Every request Gatehouse makes to an authorization server (and the OAuth probe of an MCP server) goes
// through this fetch: each bounded in time, so a server that never answers gives an error, never a hang,
// and what an error says is a plain sentence that names the server and holds no token.
import type { FetchLike } from '@modelcontextprotocol/client';
import { redactSecrets } from '../../core/redact.js';

/** How long one OAuth request may take (the whole answer read); GATEHOUSE_OAUTH_TIMEOUT_MS changes it. */
export const DEFAULT_OAUTH_TIMEOUT_MS = 10_000;

export function oauthTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const given = Number(env.GATEHOUSE_OAUTH_TIMEOUT_MS);
  return Number.isInteger(given) && given >= 100 && given <= 120_000 ? given : DEFAULT_OAUTH_TIMEOUT_MS;
}

/** Metadata, registrations and token answers are a few KiB; more is a broken or hostile server. */
export const MAX_OAUTH_BODY_BYTES = 1 << 20;

async function readCapped(response: Response, url: string): Promise<ArrayBuffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_OAUTH_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`${new URL(url).origin} answered more than ${MAX_OAUTH_BODY_BYTES} bytes`);
    }
    chunks.push(value);
  }
  const joined = Buffer.concat(chunks);
  return joined.buffer.slice(joined.byteOffset, joined.byteOffset + joined.byteLength) as ArrayBuffer;
}

export class OAuthTimeoutError extends Error {
  constructor(url: string, timeoutMs: number) {
    super(`${new URL(url).origin} did not answer within ${timeoutMs} ms`);
    this.name = 'OAuthTimeoutError';
  }
}

export function boundedFetch(timeoutMs: number): FetchLike {
  return async (input, init) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const url = typeof input === 'string' ? input : input.toString();
    try {
      const response = await fetch(input, { ...init, signal });
      // The body is read within the same bound (a server that sends headers and then stalls is a hang too),
      // and only up to MAX_OAUTH_BODY_BYTES: metadata and tokens are small, a server that streams more is refused.
      const body = await readCapped(response, url);
      return new Response(body.byteLength === 0 && [204, 304].includes(response.status) ? null : body, { status: response.status, statusText: response.statusText, headers: response.headers });
    } catch (error) {
      if (timeout.aborted) throw new OAuthTimeoutError(url, timeoutMs);
      throw error;
    }
  };
}

/** An OAuth failure in a sentence: the SDK's message (already plain), without anything secret it might echo. */
export function oauthFailure(error: unknown, secrets: readonly string[] = []): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return redactSecrets(`${message}${message.includes(cause.slice(2)) ? '' : cause}`.slice(0, 500), secrets);
}
