// The admin token is found, kept for the session and taken out of the address; pages map to hashes; the log list renders a window of rows.
import { describe, expect, it } from 'vitest';
import { resolveAdminToken, splitTokenFromHash } from '../../../src-renderer/api/admin-token';
import { scrollTopToReveal, visibleRange } from '../../../src-renderer/components/VirtualList';
import { pageFromHash } from '../../../src-renderer/stores/route-store';

function memoryStorage(initial: Record<string, string> = {}) {
  const values = new Map(Object.entries(initial));
  return { getItem: (key: string) => values.get(key) ?? null, setItem: (key: string, value: string) => void values.set(key, value), values };
}

describe('the admin token', () => {
  it('is read from #token= and removed from the address, keeping the rest of the hash', () => {
    expect(splitTokenFromHash('#token=abc')).toEqual({ token: 'abc', remainingHash: '' });
    expect(splitTokenFromHash('#/logs&token=a%2Bb')).toEqual({ token: 'a+b', remainingHash: '#/logs' });
    expect(splitTokenFromHash('#/keys')).toEqual({ token: null, remainingHash: '#/keys' });
  });

  it('is kept for the session and the address bar is rewritten without it', () => {
    const storage = memoryStorage();
    const replaced: string[] = [];
    const token = resolveAdminToken({ hash: '#/logs&token=secret-token', pathname: '/', search: '' }, storage, (url) => replaced.push(url), undefined);
    expect(token).toBe('secret-token');
    expect(replaced).toEqual(['/#/logs']);
    expect(resolveAdminToken({ hash: '', pathname: '/', search: '' }, storage, () => undefined, undefined)).toBe('secret-token');
  });

  it('comes from the desktop preload when the address has none', () => {
    expect(resolveAdminToken({ hash: '', pathname: '/', search: '' }, memoryStorage(), () => undefined, 'from-preload')).toBe('from-preload');
  });

  it('routes hashes to pages, defaulting to the Playground', () => {
    expect(pageFromHash('#/logs')).toBe('logs');
    expect(pageFromHash('#/settings')).toBe('settings');
    expect(pageFromHash('#/nope')).toBe('playground');
    expect(pageFromHash('')).toBe('playground');
  });
});

describe('windowing', () => {
  it('renders the rows in view plus the overscan, never past the ends', () => {
    expect(visibleRange(0, 400, 40, 100_000, 5)).toEqual({ start: 0, end: 16 });
    expect(visibleRange(40 * 50_000, 400, 40, 100_000, 5)).toEqual({ start: 49_995, end: 50_016 });
    expect(visibleRange(40 * 99_995, 400, 40, 100_000, 5)).toEqual({ start: 99_990, end: 100_000 });
    expect(visibleRange(0, 400, 40, 0, 5)).toEqual({ start: 0, end: 0 });
  });

  it('scrolls just enough to bring a row into view', () => {
    expect(scrollTopToReveal(5, 0, 400, 40)).toBeNull();
    expect(scrollTopToReveal(20, 0, 400, 40)).toBe(440);
    expect(scrollTopToReveal(2, 400, 400, 40)).toBe(80);
  });
});
