// Appearance: follow the OS (the default), or pin light or dark. Kept in localStorage like the
// Playground's draft, and applied as <html data-theme>, which base.css reads through `color-scheme`.
import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';

export type ThemeChoice = 'system' | 'light' | 'dark';

interface ThemeState {
  theme: ThemeChoice;
  setTheme(theme: ThemeChoice): void;
}

export function applyTheme(theme: ThemeChoice): void {
  if (typeof document === 'undefined') return;
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

export const useThemeStore = create<ThemeState>()(
  persist(
    (set) => ({
      theme: 'system',
      setTheme(theme) {
        set({ theme });
        applyTheme(theme);
      },
    }),
    {
      name: 'gatehouse.theme',
      version: 1,
      storage: createJSONStorage(() => localStorage),
      partialize: (state) => ({ theme: state.theme }),
      onRehydrateStorage: () => (state) => applyTheme(state?.theme ?? 'system'),
    },
  ),
);
