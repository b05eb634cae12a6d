// Where the admin token comes from: the Electron preload, or `#token=` in the address the CLI
// printed. The hash form is kept for the session and then removed from the address bar so it
// does not linger in history, screenshots or bookmarks.

const SESSION_STORAGE_KEY = 'gatehouse.adminToken';

export interface TokenLocation {
  hash: string;
  pathname: string;
  search: string;
}

/** Reads `token=` from a hash such as `#token=abc` or `#/logs&token=abc`; returns the hash without it. */
export function splitTokenFromHash(hash: string): { token: string | null; remainingHash: string } {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  if (!body) return { token: null, remainingHash: '' };
  const parts = body.split('&');
  let token: string | null = null;
  const kept: string[] = [];
  for (const part of parts) {
    if (part.startsWith('token=')) token = decodeURIComponent(part.slice('token='.length)) || null;
    else if (part) kept.push(part);
  }
  return { token, remainingHash: kept.length ? `#${kept.join('&')}` : '' };
}

export function resolveAdminToken(
  location: TokenLocation = window.location,
  storage: Pick<Storage, 'getItem' | 'setItem'> = window.sessionStorage,
  replaceUrl: (url: string) => void = (url) => window.history.replaceState(window.history.state, '', url),
  bridgedToken: string | undefined = typeof window === 'undefined' ? undefined : window.gatehouse?.adminToken,
): string | null {
  const { token, remainingHash } = splitTokenFromHash(location.hash);
  if (token) {
    storage.setItem(SESSION_STORAGE_KEY, token);
    replaceUrl(`${location.pathname}${location.search}${remainingHash}`);
    return token;
  }
  if (bridgedToken) return bridgedToken;
  return storage.getItem(SESSION_STORAGE_KEY);
}

export function rememberAdminToken(token: string, storage: Pick<Storage, 'setItem'> = window.sessionStorage): void {
  storage.setItem(SESSION_STORAGE_KEY, token);
}

export function forgetAdminToken(storage: Pick<Storage, 'removeItem'> = window.sessionStorage): void {
  storage.removeItem(SESSION_STORAGE_KEY);
}
