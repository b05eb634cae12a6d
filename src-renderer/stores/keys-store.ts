// Virtual keys and gateway API keys. A newly created key is held here only until the person
// dismisses it: the server never returns it again.
import { create } from 'zustand';
import { describeError } from '../api/api-error';
import type { GatewayKey, McpAccessPatch, NewVirtualKey, ProviderInfo, VirtualKey, VirtualKeyModelsPatch, VirtualKeyRotation } from '../api/types';
import { requireAdminClient } from './session-store';

export type LoadStatus = 'idle' | 'loading' | 'ready' | 'error';

export interface RevealedKey {
  kind: 'virtual' | 'gateway';
  /** The key's id: its set-ups offer the models it serves, and a new virtual key's connection is tested. */
  id: string;
  name: string;
  key: string;
  provider: string | null;
}

interface KeysState {
  providers: ProviderInfo[];
  virtualKeys: VirtualKey[];
  gatewayKeys: GatewayKey[];
  status: LoadStatus;
  loadError: string | null;
  revealed: RevealedKey | null;
  /** Keys that may call only some models, by key id; a key not here may call every model. */
  allowedModels: Record<string, string[]>;
  load(): Promise<void>;
  /** Providers alone, for the Playground's provider picker. */
  loadProviders(): Promise<void>;
  createVirtualKey(input: NewVirtualKey): Promise<void>;
  createGatewayKey(name: string): Promise<void>;
  renameVirtualKey(id: string, name: string): Promise<void>;
  rotateVirtualKey(id: string, rotation: VirtualKeyRotation): Promise<void>;
  regenerateVirtualKey(id: string): Promise<void>;
  updateVirtualKeyModels(id: string, models: VirtualKeyModelsPatch): Promise<void>;
  setVirtualKeyRouting(id: string, allowRouting: boolean): Promise<void>;
  renameGatewayKey(id: string, name: string): Promise<void>;
  /** Which MCP servers (a set of names, or null for all) and which of their tools a key may use; only the fields given change. */
  setKeyMcpAccess(kind: 'virtual' | 'gateway', id: string, patch: McpAccessPatch): Promise<void>;
  /** Which models a key may call: names, globs or route:NAME, or null for every model. */
  setAllowedModels(id: string, allowedModels: string[] | null): Promise<void>;
  revokeVirtualKey(id: string): Promise<void>;
  revokeGatewayKey(id: string): Promise<void>;
  dismissRevealed(): void;
}

export const useKeysStore = create<KeysState>()((set, get) => ({
  providers: [],
  virtualKeys: [],
  gatewayKeys: [],
  status: 'idle',
  loadError: null,
  revealed: null,
  allowedModels: {},

  async load() {
    const client = requireAdminClient();
    set({ status: get().status === 'ready' ? 'ready' : 'loading', loadError: null });
    try {
      const [providers, virtualKeys, gatewayKeys, allowed] = await Promise.all([
        client.providers(),
        client.listVirtualKeys(),
        client.listGatewayKeys(),
        client.listAllowedModels(),
      ]);
      const allowedModels = Object.fromEntries(allowed.items.flatMap((item) => (item.allowedModels ? [[item.keyId, item.allowedModels]] : [])));
      set({ providers: providers.items, virtualKeys: virtualKeys.items, gatewayKeys: gatewayKeys.items, allowedModels, status: 'ready' });
    } catch (error) {
      set({ status: 'error', loadError: describeError(error) });
    }
  },
  async loadProviders() {
    if (get().providers.length) return;
    try {
      set({ providers: (await requireAdminClient().providers()).items });
    } catch {
      // The picker falls back to the known slugs; the Keys page reports the failure.
    }
  },
  async createVirtualKey(input) {
    const created = await requireAdminClient().createVirtualKey(input);
    set({ revealed: { kind: 'virtual', id: created.id, name: created.name, key: created.key, provider: created.provider } });
    await get().load();
  },
  async createGatewayKey(name) {
    const created = await requireAdminClient().createGatewayKey(name);
    set({ revealed: { kind: 'gateway', id: created.id, name: created.name, key: created.key, provider: null } });
    await get().load();
  },
  async renameVirtualKey(id, name) {
    await requireAdminClient().renameVirtualKey(id, name);
    set({ virtualKeys: get().virtualKeys.map((key) => (key.id === id ? { ...key, name } : key)) });
  },
  async rotateVirtualKey(id, rotation) {
    await requireAdminClient().rotateVirtualKey(id, rotation);
    await get().load();
  },
  async regenerateVirtualKey(id) {
    const regenerated = await requireAdminClient().regenerateVirtualKey(id);
    set({ revealed: { kind: 'virtual', id: regenerated.id, name: regenerated.name, key: regenerated.key, provider: regenerated.provider } });
    await get().load();
  },
  async updateVirtualKeyModels(id, models) {
    const updated = await requireAdminClient().updateVirtualKeyModels(id, models);
    set({ virtualKeys: get().virtualKeys.map((key) => (key.id === id ? { ...key, ...updated } : key)) });
  },
  async setVirtualKeyRouting(id, allowRouting) {
    const updated = await requireAdminClient().setVirtualKeyRouting(id, allowRouting);
    set({ virtualKeys: get().virtualKeys.map((key) => (key.id === id ? { ...key, allowRouting: updated.allowRouting } : key)) });
  },
  async setAllowedModels(id, allowedModels) {
    const saved = await requireAdminClient().setAllowedModels(id, allowedModels);
    const next = { ...get().allowedModels };
    if (saved.allowedModels) next[id] = saved.allowedModels;
    else delete next[id];
    set({ allowedModels: next });
  },
  async setKeyMcpAccess(kind, id, patch) {
    const client = requireAdminClient();
    const access = (updated: VirtualKey | GatewayKey) => ({ mcpServers: updated.mcpServers ?? null, mcpTools: updated.mcpTools ?? null, mcpDefault: updated.mcpDefault ?? null });
    if (kind === 'virtual') {
      const updated = await client.setVirtualKeyMcpAccess(id, patch);
      set({ virtualKeys: get().virtualKeys.map((key) => (key.id === id ? { ...key, ...access(updated) } : key)) });
    } else {
      const updated = await client.setGatewayKeyMcpAccess(id, patch);
      set({ gatewayKeys: get().gatewayKeys.map((key) => (key.id === id ? { ...key, ...access(updated) } : key)) });
    }
  },
  async renameGatewayKey(id, name) {
    await requireAdminClient().renameGatewayKey(id, name);
    set({ gatewayKeys: get().gatewayKeys.map((key) => (key.id === id ? { ...key, name } : key)) });
  },
  async revokeVirtualKey(id) {
    await requireAdminClient().revokeVirtualKey(id);
    set({ virtualKeys: get().virtualKeys.filter((key) => key.id !== id) });
  },
  async revokeGatewayKey(id) {
    await requireAdminClient().revokeGatewayKey(id);
    set({ gatewayKeys: get().gatewayKeys.filter((key) => key.id !== id) });
  },
  dismissRevealed() {
    set({ revealed: null });
  },
}));
