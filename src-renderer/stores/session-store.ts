// Who the UI is talking to: the admin token, the client built from it, and whether the gateway
// answers. Every other store reaches the admin API through `requireAdminClient()`.
import { create } from 'zustand';
import { AdminClient } from '../api/admin-client';
import { ApiError } from '../api/api-error';
import { forgetAdminToken, rememberAdminToken } from '../api/admin-token';

export type ConnectionState = 'checking' | 'connected' | 'unauthorized' | 'offline' | 'no-token';

interface SessionState {
  client: AdminClient | null;
  connection: ConnectionState;
  version: string | null;
  connectionError: string | null;
  /** Counts the gateway's returns after it was unreachable: what failed while it was away loads again on each. */
  reconnects: number;
  start(token: string | null): void;
  signIn(token: string): void;
  checkHealth(): Promise<void>;
}

export const useSessionStore = create<SessionState>()((set, get) => ({
  client: null,
  connection: 'no-token',
  version: null,
  connectionError: null,
  reconnects: 0,
  start(token) {
    if (!token) {
      set({ client: null, connection: 'no-token' });
      return;
    }
    set({ client: new AdminClient(token), connection: 'checking', connectionError: null });
    void get().checkHealth();
  },
  signIn(token) {
    rememberAdminToken(token);
    get().start(token);
  },
  async checkHealth() {
    const client = get().client;
    if (!client) return;
    try {
      const health = await client.health();
      const cameBack = get().connection === 'offline';
      set({ connection: 'connected', version: health.version, connectionError: null, reconnects: get().reconnects + (cameBack ? 1 : 0) });
    } catch (error) {
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
        forgetAdminToken();
        set({ connection: 'unauthorized', connectionError: error.message });
      } else {
        set({ connection: 'offline', connectionError: error instanceof Error ? error.message : String(error) });
      }
    }
  },
}));

export function requireAdminClient(): AdminClient {
  const client = useSessionStore.getState().client;
  if (!client) throw new Error('Not signed in: open Gatehouse from the link the server printed');
  return client;
}

/** A live connection of the page's (the log's event feed) broke: the gateway may be down, so look now, not at the next poll. */
export function connectionMayHaveDropped(): void {
  const { connection, checkHealth } = useSessionStore.getState();
  if (connection === 'connected') void checkHealth();
}
