// Which page is showing. Kept in the hash (`#/logs`) so a reload stays on the same page.
import { create } from 'zustand';

export const PAGES = ['playground', 'logs', 'sessions', 'usage', 'routes', 'keys', 'local', 'mcp', 'connect', 'settings'] as const;
export type PageName = (typeof PAGES)[number];

export function pageFromHash(hash: string): PageName {
  const name = hash.replace(/^#\/?/, '').split(/[?&/]/)[0];
  return (PAGES as readonly string[]).includes(name) ? (name as PageName) : 'playground';
}

interface RouteState {
  page: PageName;
  navigate(page: PageName): void;
  syncFromLocation(): void;
}

export const useRouteStore = create<RouteState>()((set) => ({
  page: typeof window === 'undefined' ? 'playground' : pageFromHash(window.location.hash),
  navigate(page) {
    if (typeof window !== 'undefined' && window.location.hash !== `#/${page}`) window.location.hash = `/${page}`;
    set({ page });
  },
  syncFromLocation() {
    set({ page: pageFromHash(window.location.hash) });
  },
}));
