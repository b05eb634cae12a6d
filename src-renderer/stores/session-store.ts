// Who the UI is talking to: the admin token, the client built from it, and whether the gateway
// answers. Every other store reaches the admin API through `requireAdminClient()`: this computer's
// gateway, or, while the user manages the team (Settings → Team gateway), the team's through the
// local relay. The sidebar's status and the team settings always speak to this computer's.
import { create } from 'zustand';
import { AdminClient, TEAM_ADMIN_BASE } from '../api/admin-client';
import { ApiError } from '../api/api-error';
import { forgetAdminToken, rememberAdminToken } from '../api/admin-token';
import type { TeamGatewayStatus } from '../api/types';

export type ConnectionState = 'checking' | 'connected' | 'unauthorized' | 'offline' | 'no-token';

/** What the pages manage: this computer's gateway, or the team gateway set in Settings. */
export type ManagedGateway = 'local' | 'team';

interface SessionState {
  /** The client the pages use: this computer's, or the team relay's while managing the team. */
  client: AdminClient | null;
  /** This computer's admin API, whatever is managed. */
  localClient: AdminClient | null;
  managing: ManagedGateway;
  /** Settings → Team gateway as this computer's admin API last described it (never with the token). */
  teamGateway: TeamGatewayStatus | null;
  connection: ConnectionState;
  version: string | null;
  connectionError: string | null;
  /** Counts the gateway's returns after it was unreachable: what failed while it was away loads again on each. */
  reconnects: number;
  start(token: string | null): void;
  signIn(token: string): void;
  checkHealth(): Promise<void>;
  /** Reads the team gateway's setting again; a team that is gone stops being managed. */
  loadTeamGateway(): Promise<void>;
  setTeamGateway(status: TeamGatewayStatus | null): void;
  /** Use switchManagedGateway (stores/managed-gateway.ts): it also forgets the other gateway's loaded data. */
  manage(target: ManagedGateway): void;
}

export const useSessionStore = create<SessionState>()((set, get) => ({
  client: null,
  localClient: null,
  managing: 'local',
  teamGateway: null,
  connection: 'no-token',
  version: null,
  connectionError: null,
  reconnects: 0,
  start(token) {
    if (!token) {
      set({ client: null, localClient: null, managing: 'local', connection: 'no-token' });
      return;
    }
    const client = new AdminClient(token);
    set({ client, localClient: client, managing: 'local', connection: 'checking', connectionError: null });
    void get().checkHealth();
  },
  signIn(token) {
    rememberAdminToken(token);
    get().start(token);
  },
  async checkHealth() {
    const client = get().localClient;
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
  async loadTeamGateway() {
    const client = get().localClient;
    if (!client) return;
    try {
      get().setTeamGateway(await client.teamGateway());
    } catch {
      // This computer's gateway is away: the sidebar says so; the setting is read again on the next visit.
    }
  },
  setTeamGateway(status) {
    set({ teamGateway: status });
    if (!status?.address && get().managing === 'team') get().manage('local');
  },
  manage(target) {
    const local = get().localClient;
    if (!local) return;
    if (target === 'team' && !get().teamGateway?.address) return;
    set({ managing: target, client: target === 'team' ? local.withBase(TEAM_ADMIN_BASE) : local });
  },
}));

export function requireAdminClient(): AdminClient {
  const client = useSessionStore.getState().client;
  if (!client) throw new Error('Not signed in: open Gatehouse from the link the server printed');
  return client;
}

/** This computer's admin API, whatever the pages manage (Settings → Team gateway itself). */
export function requireLocalAdminClient(): AdminClient {
  const client = useSessionStore.getState().localClient;
  if (!client) throw new Error('Not signed in: open Gatehouse from the link the server printed');
  return client;
}

/** The host a team address names, for labels: `gatehouse.example.com`. */
export function teamHost(address: string): string {
  try {
    return new URL(address).host;
  } catch {
    return address;
  }
}

/** A live connection of the page's (the log's event feed) broke: the gateway may be down, so look now, not at the next poll. */
export function connectionMayHaveDropped(): void {
  const { connection, checkHealth } = useSessionStore.getState();
  if (connection === 'connected') void checkHealth();
}

/** The address tools should call: the team gateway's while the app manages the team, else this page's own. */
export function useGatewayOrigin(): string {
  const teamAddress = useSessionStore((state) => (state.managing === 'team' ? state.teamGateway?.address : null));
  return teamAddress ?? window.location.origin;
}
