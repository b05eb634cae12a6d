// Local models: the model servers running on this machine (Ollama, LM Studio, llama.cpp, vLLM, Jan,
// LocalAI ...), found on its loopback ports rather than typed in, each a click away from a key.
import { useEffect, useState } from 'react';
import { describeError } from '../api/api-error';
import { formatFullTime, formatRelativeTime } from '../components/format';
import { Icon } from '../components/Icon';
import { EmptyState, ErrorNotice, LoadingState } from '../components/StatusViews';
import { useKeysStore, type RevealedKey } from '../stores/keys-store';
import { keyNameFor, useLocalServersStore } from '../stores/local-servers-store';
import { useRouteStore } from '../stores/route-store';
import { useToastStore } from '../stores/toast-store';
import { RevealedKeyDialog } from './keys/KeyDialogs';
import { AddToRouteDialog } from './local/AddToRouteDialog';
import { findServerKey } from './local/add-to-route';
import { LocalServerCard } from './local/LocalServerCard';
import '../styles/local-models.css';

/** "Add to a route" for one model, once its server's key is known (or was just made). */
interface RouteFlow {
  model: string;
  serverName: string;
  keyName: string;
  made: RevealedKey | null;
}

/** The list is memory on the server; reading it this often while the page is open costs nothing. */
const RELOAD_INTERVAL_MS = 30_000;

export function LocalModelsPage() {
  const servers = useLocalServersStore((state) => state.servers);
  const ports = useLocalServersStore((state) => state.ports);
  const checkedAt = useLocalServersStore((state) => state.checkedAt);
  const status = useLocalServersStore((state) => state.status);
  const loadError = useLocalServersStore((state) => state.loadError);
  const refreshing = useLocalServersStore((state) => state.refreshing);
  const refreshError = useLocalServersStore((state) => state.refreshError);
  const creatingKeyFor = useLocalServersStore((state) => state.creatingKeyFor);
  const preparingRouteFor = useLocalServersStore((state) => state.preparingRouteFor);
  const { load, refresh, makeKey, keyForServer } = useLocalServersStore.getState();
  const [routeFlow, setRouteFlow] = useState<RouteFlow | null>(null);
  const revealed = useKeysStore((state) => state.revealed);
  const dismissRevealed = useKeysStore((state) => state.dismissRevealed);
  const virtualKeys = useKeysStore((state) => state.virtualKeys);
  const loadKeys = useKeysStore((state) => state.load);
  const navigate = useRouteStore((state) => state.navigate);
  const showToast = useToastStore((state) => state.show);

  // The keys tell which servers have one already: those offer it, not another "Make a key".
  useEffect(() => {
    void loadKeys();
  }, [loadKeys]);

  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), RELOAD_INTERVAL_MS);
    return () => {
      clearInterval(timer);
      // A key shown once must not reappear when the person comes back.
      dismissRevealed();
    };
  }, [load, dismissRevealed]);

  const onMakeKey = async (server: (typeof servers)[number]) => {
    try {
      await makeKey(server);
    } catch (error) {
      showToast(`Could not make a key: ${describeError(error)}`, 'error');
    }
  };

  const onAddToRoute = async (server: (typeof servers)[number], model: string) => {
    try {
      const { name, made } = await keyForServer(server, model);
      setRouteFlow({ model, serverName: keyNameFor(server), keyName: name, made });
    } catch (error) {
      showToast(`Could not make a key for the route: ${describeError(error)}`, 'error');
    }
  };

  const online = servers.filter((server) => server.online).length;

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Local models</h1>
          <p className="page-subtitle">
            Model servers running on this machine, found on its loopback ports. Make a key for one and use it like any provider, or add a model to a route.
          </p>
        </div>
        <div className="header-actions">
          <button type="button" className="button button-secondary" onClick={() => void refresh()} disabled={refreshing}>
            <Icon name="refresh" className={refreshing ? 'spin' : undefined} />
            {refreshing ? 'Looking…' : 'Refresh'}
          </button>
        </div>
      </header>

      {refreshError && <ErrorNotice title="Could not look for local servers" message={refreshError} onRetry={() => void refresh()} />}
      {status === 'loading' && <LoadingState label="Looking for local model servers" />}
      {status === 'error' && <ErrorNotice title="Could not load local servers" message={loadError ?? ''} onRetry={() => void load()} />}

      {status === 'ready' &&
        (servers.length ? (
          <>
            <p className="muted small local-summary" aria-live="polite">
              {online} of {servers.length} server{servers.length === 1 ? '' : 's'} online · port{ports.length === 1 ? '' : 's'} <span className="local-ports">{ports.join(', ')}</span>
              {checkedAt && (
                <>
                  {' · '}
                  <span className="local-checked" title={formatFullTime(checkedAt)}>
                    checked {formatRelativeTime(checkedAt)}
                  </span>
                </>
              )}
            </p>
            <div className="local-server-list">
              {servers.map((server) => (
                <LocalServerCard
                  key={server.url}
                  server={server}
                  creatingKey={creatingKeyFor === server.url}
                  serverKey={findServerKey(virtualKeys, server, keyNameFor(server))?.name ?? null}
                  onOpenKeys={() => navigate('keys')}
                  onMakeKey={() => void onMakeKey(server)}
                  preparingRouteFor={preparingRouteFor?.startsWith(`${server.url} `) ? preparingRouteFor.slice(server.url.length + 1) : null}
                  onAddToRoute={(model) => void onAddToRoute(server, model)}
                />
              ))}
            </div>
          </>
        ) : (
          <section className="card">
            <EmptyState
              icon="server"
              title="No local model server found"
              action={
                <button type="button" className="button button-secondary" onClick={() => navigate('settings')}>
                  <Icon name="settings" />
                  Add a port in Settings
                </button>
              }
            >
              Gatehouse looked on {ports.length ? `port${ports.length === 1 ? '' : 's'} ${ports.join(', ')}` : 'no port'} of this machine. Start Ollama, LM Studio, a llama.cpp server, vLLM, Jan or LocalAI,
              or add the port yours listens on.
            </EmptyState>
          </section>
        ))}

      {routeFlow && (
        <AddToRouteDialog
          {...routeFlow}
          onClose={() => setRouteFlow(null)}
          onOpenRoutes={() => {
            setRouteFlow(null);
            navigate('routes');
          }}
        />
      )}
      {revealed && <RevealedKeyDialog revealed={revealed} onClose={dismissRevealed} />}
    </div>
  );
}
