// Prompts saved from the Playground by name. A saved prompt is the request as it would be sent (path
// and body) plus the key it ran with, so it re-opens the way a log row does (draft-from-log.ts).
import { create } from 'zustand';
import { describeError } from '../api/api-error';
import type { SavedPrompt } from '../api/types';
import { draftFromLoggedRequest } from '../playground/draft-from-log';
import type { LoadStatus } from './keys-store';
import { draftRequest, endpointFor, usePlaygroundStore } from './playground-store';
import { requireAdminClient } from './session-store';

interface SavedPromptsState {
  items: SavedPrompt[];
  status: LoadStatus;
  error: string | null;
  load(): Promise<void>;
  /**
   * Saves what the Playground would send now under `name` (replacing a prompt of that name); `as` names
   * the key and model to keep instead of the single view's (the compare view saves its first side).
   */
  saveCurrent(name: string, as?: { keyId: string; model: string }): Promise<SavedPrompt>;
  remove(id: string): Promise<void>;
  /** Puts a saved prompt back into the Playground; false when it is not one the Playground can show. */
  open(prompt: SavedPrompt): boolean;
}

export const useSavedPromptsStore = create<SavedPromptsState>()((set, get) => ({
  items: [],
  status: 'idle',
  error: null,

  async load() {
    set({ status: get().status === 'ready' ? 'ready' : 'loading', error: null });
    try {
      set({ items: (await requireAdminClient().savedPrompts()).items, status: 'ready' });
    } catch (error) {
      set({ status: 'error', error: describeError(error) });
    }
  },
  async saveCurrent(name, as) {
    const playground = usePlaygroundStore.getState();
    const { body } = draftRequest(as ? { ...playground, model: as.model } : playground);
    const saved = await requireAdminClient().savePrompt({
      name,
      endpoint: endpointFor(playground.mode),
      body,
      // Only a key picked by name is remembered, by its id; a pasted key or a token never is.
      keyId: as ? as.keyId || null : playground.authKind === 'key-by-name' && playground.keyId ? playground.keyId : null,
    });
    set({ items: [saved, ...get().items.filter((item) => item.id !== saved.id)] });
    return saved;
  },
  async remove(id) {
    await requireAdminClient().deleteSavedPrompt(id);
    set({ items: get().items.filter((item) => item.id !== id) });
  },
  open(prompt) {
    const draft = draftFromLoggedRequest(prompt.endpoint, prompt.body);
    if (!draft) return false;
    usePlaygroundStore.getState().loadDraft(draft, prompt.keyId);
    return true;
  },
}));
