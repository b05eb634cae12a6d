// Server settings: read once per visit, saved field by field as the person applies them.
import { create } from 'zustand';
import { ApiError, describeError } from '../api/api-error';
import type { Settings, SettingsPatch } from '../api/types';
import type { LoadStatus } from './keys-store';
import { requireAdminClient } from './session-store';

interface SettingsState {
  settings: Settings | null;
  status: LoadStatus;
  loadError: string | null;
  saving: boolean;
  saveError: { message: string; param: string | null } | null;
  load(): Promise<void>;
  save(patch: SettingsPatch): Promise<boolean>;
}

export const useSettingsStore = create<SettingsState>()((set) => ({
  settings: null,
  status: 'idle',
  loadError: null,
  saving: false,
  saveError: null,
  async load() {
    set({ status: 'loading', loadError: null });
    try {
      set({ settings: await requireAdminClient().settings(), status: 'ready' });
    } catch (error) {
      set({ status: 'error', loadError: describeError(error) });
    }
  },
  async save(patch) {
    set({ saving: true, saveError: null });
    try {
      const settings = await requireAdminClient().updateSettings(patch);
      set({ settings, saving: false });
      return true;
    } catch (error) {
      set({ saving: false, saveError: { message: describeError(error), param: error instanceof ApiError ? error.param : null } });
      return false;
    }
  },
}));
