// Limits per key and how close each key is to them, for the Keys page. One shared poll while any key
// row shows its meters (the minute windows move by themselves), however many rows there are.
import { create } from 'zustand';
import { describeError } from '../api/api-error';
import type { KeyLimits, KeyLimitsView } from '../api/types';
import { requireAdminClient } from './session-store';

/** How often the meters are refreshed while the Keys page is open. */
export const LIMITS_REFRESH_MS = 5_000;

interface KeyLimitsState {
  byKey: Record<string, KeyLimitsView>;
  loadError: string | null;
  load(): Promise<void>;
  save(keyId: string, limits: KeyLimits): Promise<KeyLimitsView>;
  clear(keyId: string): Promise<KeyLimitsView>;
  /** Starts the shared refresh (the first watcher loads at once); returns the function that stops watching. */
  watch(): () => void;
}

let watchers = 0;
let timer: ReturnType<typeof setInterval> | undefined;
let inFlight: Promise<void> | undefined;

export const useKeyLimitsStore = create<KeyLimitsState>()((set, get) => ({
  byKey: {},
  loadError: null,

  load() {
    // Rows mounting together share one request.
    inFlight ??= (async () => {
      try {
        const { items } = await requireAdminClient().keyLimits();
        set({ byKey: Object.fromEntries(items.map((item) => [item.keyId, item])), loadError: null });
      } catch (error) {
        set({ loadError: describeError(error) });
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  },

  async save(keyId, limits) {
    const view = await requireAdminClient().setKeyLimits(keyId, limits);
    set({ byKey: { ...get().byKey, [keyId]: view } });
    return view;
  },

  async clear(keyId) {
    const view = await requireAdminClient().clearKeyLimits(keyId);
    set({ byKey: { ...get().byKey, [keyId]: view } });
    return view;
  },

  watch() {
    watchers++;
    if (watchers === 1) {
      void get().load();
      timer = setInterval(() => void get().load(), LIMITS_REFRESH_MS);
    }
    return () => {
      watchers--;
      if (watchers === 0 && timer !== undefined) {
        clearInterval(timer);
        timer = undefined;
      }
    };
  },
}));
