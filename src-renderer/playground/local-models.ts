// The models a local server found by discovery says it has, for the Playground's Model fields: a key
// or a custom host that points at a server on this machine gets that server's models offered too,
// with no request to the server (discovery read them already).
import { useEffect } from 'react';
import type { LocalServer } from '../../src-main/discovery/types';
import { useLocalServersStore } from '../stores/local-servers-store';

/** A base URL compared loosely: case, a trailing slash, and localhost for 127.0.0.1 do not matter. */
export function sameBaseUrl(a: string, b: string): boolean {
  const normal = (url: string) => url.trim().toLowerCase().replace(/\/+$/, '').replace('://localhost:', '://127.0.0.1:').replace('://[::1]:', '://127.0.0.1:');
  return normal(a) === normal(b);
}

/** The server a host points at (its base URL or the custom host a key for it uses), if discovery found one. */
export function localServerFor(servers: readonly LocalServer[], host: string | null | undefined): LocalServer | undefined {
  if (!host?.trim()) return undefined;
  return servers.find((server) => sameBaseUrl(server.url, host) || sameBaseUrl(server.connection.customHost, host));
}

/** The local servers discovery remembers, read once for the Playground (the Local models page refreshes them). */
export function useLocalServers(): LocalServer[] {
  const servers = useLocalServersStore((state) => state.servers);
  const status = useLocalServersStore((state) => state.status);
  const load = useLocalServersStore((state) => state.load);
  useEffect(() => {
    if (status === 'idle') void load();
  }, [status, load]);
  return servers;
}

/**
 * The listed models, then the local server's own, each once. The list keeps its order: a key's comes
 * default model first (as its set-ups offer it), so the model picked for a key is the one they name.
 */
export function mergeModelNames(listed: readonly string[], server: LocalServer | undefined): string[] {
  return [...new Set([...listed, ...(server?.models.map((model) => model.id) ?? [])])];
}
