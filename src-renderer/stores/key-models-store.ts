// The models each virtual key can be asked for (GET /virtual-keys/:id/models), by key id: every set-up the
// UI writes (the created-key dialog, Keys → Use, Connect a tool) and the Playground (a key picked by name,
// and Compare) offer these, so a key offers the same models everywhere. Test connection asks the
// key's host now and reads the list again, so the set-ups follow what answered.
import { create } from 'zustand';
import { describeError } from '../api/api-error';
import type { HostCheck, KeyModels } from '../api/types';
import { requireAdminClient } from './session-store';

export interface KeyModelsEntry {
  status: 'loading' | 'ready' | 'error';
  models: KeyModels['models'];
  listing: KeyModels['listing'];
  error: string | null;
}

export interface ConnectionTest {
  status: 'testing' | 'done' | 'error';
  check: HostCheck | null;
  error: string | null;
}

interface KeyModelsState {
  byKey: Record<string, KeyModelsEntry>;
  tests: Record<string, ConnectionTest>;
  /**
   * Reads the key's models unless already read (or being read). `reread`: read them again (the server's
   * kept answer); `refresh`: and have the server ask the key's host again.
   */
  load(keyId: string, options?: { reread?: boolean; refresh?: boolean }): Promise<void>;
  /** Test connection: the key's host asked now for its models; the key's list is read again after. */
  testConnection(keyId: string): Promise<void>;
  /** The key's model ids once read (its cached list if there is one), or why it offers none. */
  modelIds(keyId: string): Promise<{ ids: string[]; problem: string | null }>;
}

export const useKeyModelsStore = create<KeyModelsState>()((set, get) => ({
  byKey: {},
  tests: {},
  async load(keyId, options = {}) {
    const known = get().byKey[keyId];
    if (known && known.status !== 'error' && !options.refresh && !options.reread) return;
    set({ byKey: { ...get().byKey, [keyId]: { status: 'loading', models: known?.models ?? [], listing: known?.listing ?? null, error: null } } });
    try {
      const answer = await requireAdminClient().virtualKeyModels(keyId, options.refresh === true);
      set({ byKey: { ...get().byKey, [keyId]: { status: 'ready', models: answer.models, listing: answer.listing, error: null } } });
    } catch (error) {
      set({ byKey: { ...get().byKey, [keyId]: { status: 'error', models: [], listing: null, error: describeError(error) } } });
    }
  },
  async testConnection(keyId) {
    if (get().tests[keyId]?.status === 'testing') return;
    set({ tests: { ...get().tests, [keyId]: { status: 'testing', check: null, error: null } } });
    try {
      const check = await requireAdminClient().checkVirtualKeyHost(keyId);
      set({ tests: { ...get().tests, [keyId]: { status: 'done', check, error: null } } });
    } catch (error) {
      set({ tests: { ...get().tests, [keyId]: { status: 'error', check: null, error: describeError(error) } } });
    }
    // The host's answer is kept on the server: the key's list, read again, now carries it.
    await get().load(keyId, { reread: true });
  },
  async modelIds(keyId) {
    await get().load(keyId);
    const entry = get().byKey[keyId];
    if (!entry || entry.status === 'error') return { ids: [], problem: entry?.error ?? 'The key’s models could not be read' };
    const ids = entry.models.map((model) => model.id);
    // No model at all: the host's own reason (a closed port, a refused secret) says why.
    return { ids, problem: ids.length || !entry.listing || entry.listing.ok ? null : entry.listing.message };
  },
}));
