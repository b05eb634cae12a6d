// The Sessions page's state: the newest agent sessions (filtered by client tool), and the one in view.
import { create } from 'zustand';
import type { SessionDetail, SessionSummary } from '../../../src-main/core/agent-sessions';
import { requireAdminClient } from '../../stores/session-store';

type Status = 'idle' | 'loading' | 'ready' | 'error';

interface SessionsState {
  items: SessionSummary[];
  status: Status;
  error: string | null;
  client: string;
  selectedId: string | null;
  detail: SessionDetail | null;
  detailStatus: Status;
  load(): Promise<void>;
  setClient(client: string): void;
  /** Opens one session (from the list, or a log entry's "Open session"). */
  open(id: string | null): Promise<void>;
}

export const useSessionsStore = create<SessionsState>()((set, get) => ({
  items: [],
  status: 'idle',
  error: null,
  client: '',
  selectedId: null,
  detail: null,
  detailStatus: 'idle',
  async load() {
    set({ status: 'loading', error: null });
    try {
      const page = await requireAdminClient().listSessions({ client: get().client || undefined });
      set({ items: page.items, status: 'ready' });
    } catch (error) {
      set({ status: 'error', error: (error as Error).message });
    }
  },
  setClient(client) {
    set({ client });
    void get().load();
  },
  async open(id) {
    set({ selectedId: id, detail: null, detailStatus: id ? 'loading' : 'idle' });
    if (!id) return;
    try {
      const detail = await requireAdminClient().session(id);
      if (get().selectedId === id) set({ detail, detailStatus: 'ready' });
    } catch (error) {
      if (get().selectedId === id) set({ detailStatus: 'error', error: (error as Error).message });
    }
  },
}));
