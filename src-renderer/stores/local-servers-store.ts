// Local model servers on this machine, as the gateway's discovery remembers them. The page reads the
// list (memory only on the server) while it is open and asks for a fresh probe on Refresh.
import { create } from 'zustand';
import { describeError } from '../api/api-error';
import type { LocalServer, LocalServerList } from '../../src-main/discovery/types';
import { findServerKey } from '../pages/local/add-to-route';
import type { LoadStatus, RevealedKey } from './keys-store';
import { useKeysStore } from './keys-store';
import { requireAdminClient } from './session-store';

export type { LocalServer };

/** What each kind is called on screen. */
export const KIND_NAMES: Record<LocalServer['kind'], string> = {
  ollama: 'Ollama',
  lmstudio: 'LM Studio',
  llamacpp: 'llama.cpp server',
  vllm: 'vLLM',
  jan: 'Jan',
  localai: 'LocalAI',
  'openai-compatible': 'OpenAI-compatible server',
};

/** A key name that says what it reaches: "Ollama on 127.0.0.1:11434". */
export function keyNameFor(server: LocalServer): string {
  return `${KIND_NAMES[server.kind]} on ${new URL(server.url).host}`;
}

/** `name`, or "name (2)", "name (3)"…: key names are unique among active keys, whatever their case. */
export function freeKeyName(name: string, taken: readonly string[]): string {
  const names = new Set(taken.map((existing) => existing.toLowerCase()));
  let candidate = name;
  for (let n = 2; names.has(candidate.toLowerCase()); n++) candidate = `${name} (${n})`;
  return candidate;
}

interface LocalServersState {
  servers: LocalServer[];
  ports: number[];
  checkedAt: string | null;
  status: LoadStatus;
  loadError: string | null;
  refreshing: boolean;
  refreshError: string | null;
  /** The url of the server a key is being made for. */
  creatingKeyFor: string | null;
  load(): Promise<void>;
  refresh(): Promise<void>;
  /** One click: a virtual key for the server (no secret), shown once through the Keys store. */
  makeKey(server: LocalServer): Promise<void>;
  /** `url model` while the key for "Add to a route" is being found or made. */
  preparingRouteFor: string | null;
  /**
   * The virtual key a route should use for this server: the active one that already reaches it, or a
   * new one (no secret). A new key comes back as `made`, shown once by the route dialog instead of
   * the page's key dialog.
   */
  keyForServer(server: LocalServer, model: string): Promise<{ name: string; made: RevealedKey | null }>;
}

export const useLocalServersStore = create<LocalServersState>()((set, get) => {
  const apply = (list: LocalServerList) => set({ servers: list.items, ports: list.ports, checkedAt: list.checkedAt, status: 'ready', loadError: null });
  return {
    servers: [],
    ports: [],
    checkedAt: null,
    status: 'idle',
    loadError: null,
    refreshing: false,
    refreshError: null,
    creatingKeyFor: null,
    preparingRouteFor: null,
    async load() {
      if (get().status !== 'ready') set({ status: 'loading', loadError: null });
      try {
        const list = await requireAdminClient().localServers();
        apply(list);
        // The server's first sweep may still be under way when the page opens: wait for it.
        if (list.refreshing || list.checkedAt === null) await get().refresh();
      } catch (error) {
        if (get().status !== 'ready') set({ status: 'error', loadError: describeError(error) });
      }
    },
    async refresh() {
      set({ refreshing: true, refreshError: null });
      try {
        apply(await requireAdminClient().refreshLocalServers());
        set({ refreshing: false });
      } catch (error) {
        set({ refreshing: false, refreshError: describeError(error) });
      }
    },
    async makeKey(server) {
      set({ creatingKeyFor: server.url });
      try {
        // A second key for the same server (another tool, another budget) gets the next free name.
        const keys = useKeysStore.getState();
        await keys.load();
        const { virtualKeys, gatewayKeys } = useKeysStore.getState();
        const name = freeKeyName(keyNameFor(server), [...virtualKeys, ...gatewayKeys].map((key) => key.name));
        await keys.createVirtualKey({ name, provider: server.connection.provider, customHost: server.connection.customHost, ...(server.chatOnly ? { chatOnly: true } : {}) });
      } finally {
        set({ creatingKeyFor: null });
      }
    },
    async keyForServer(server, model) {
      set({ preparingRouteFor: `${server.url} ${model}` });
      try {
        const keys = useKeysStore.getState();
        // A fresh list: the key may have been made on the Keys page or from the CLI since it was read.
        await keys.load();
        const { status, loadError, virtualKeys } = useKeysStore.getState();
        if (status === 'error') throw new Error(loadError ?? 'The keys could not be read');
        const name = keyNameFor(server);
        const existing = findServerKey(virtualKeys, server, name);
        if (existing) return { name: existing.name, made: null };
        await keys.createVirtualKey({ name, provider: server.connection.provider, customHost: server.connection.customHost, ...(server.chatOnly ? { chatOnly: true } : {}) });
        const made = useKeysStore.getState().revealed;
        useKeysStore.getState().dismissRevealed();
        return { name: made?.name ?? name, made };
      } finally {
        set({ preparingRouteFor: null });
      }
    },
  };
});
