// The shell: a sidebar with the pages and the connection status, and the page in view.
import { useEffect } from 'react';
import { Icon, type IconName } from './components/Icon';
import { ManagedGatewayBar } from './components/ManagedGatewayBar';
import { Toaster } from './components/Toaster';
import { ConnectPage } from './pages/ConnectPage';
import { KeysPage } from './pages/KeysPage';
import { LocalModelsPage } from './pages/LocalModelsPage';
import { LogsPage } from './pages/LogsPage';
import { McpServersPage } from './pages/McpServersPage';
import { PlaygroundPage } from './pages/PlaygroundPage';
import { RoutesPage } from './pages/RoutesPage';
import { SettingsPage } from './pages/SettingsPage';
import { SignInPage } from './pages/SignInPage';
import { UsagePage } from './pages/UsagePage';
import { SessionsPage } from './pages/SessionsPage';
import { useRouteStore, type PageName } from './stores/route-store';
import { useSessionStore } from './stores/session-store';

const NAVIGATION: Array<{ page: PageName; label: string; icon: IconName }> = [
  { page: 'playground', label: 'Playground', icon: 'playground' },
  { page: 'logs', label: 'Logs', icon: 'logs' },
  { page: 'sessions', label: 'Sessions', icon: 'chart' },
  { page: 'usage', label: 'Usage', icon: 'chart' },
  { page: 'keys', label: 'Keys', icon: 'keys' },
  { page: 'routes', label: 'Routes', icon: 'route' },
  { page: 'local', label: 'Local models', icon: 'server' },
  { page: 'mcp', label: 'MCP servers', icon: 'tools' },
  { page: 'connect', label: 'Connect a tool', icon: 'connect' },
  { page: 'settings', label: 'Settings', icon: 'settings' },
];

function ConnectionStatus() {
  const connection = useSessionStore((state) => state.connection);
  const version = useSessionStore((state) => state.version);
  const checkHealth = useSessionStore((state) => state.checkHealth);
  const label = connection === 'connected' ? 'Running' : connection === 'checking' ? 'Connecting' : 'Stopped';
  return (
    <div className={`connection connection-${connection}`} role="status" aria-label={`Gateway ${label.toLowerCase()}`} title={connection === 'offline' ? 'The gateway does not answer: it is stopped or unreachable. Checking again every few seconds.' : `Gateway ${label.toLowerCase()}`}>
      <span className="connection-dot" aria-hidden="true" />
      <div className="connection-text">
        <span className="connection-state">{label}</span>
        <span className="connection-address">
          {window.location.host}
          {version ? ` · v${version}` : ''}
        </span>
      </div>
      {connection === 'offline' && (
        <button type="button" className="button button-ghost button-icon" aria-label="Check connection again" onClick={() => void checkHealth()}>
          <Icon name="refresh" />
        </button>
      )}
    </div>
  );
}

function CurrentPage({ page }: { page: PageName }) {
  switch (page) {
    case 'logs':
      return <LogsPage />;
    case 'sessions':
      return <SessionsPage />;
    case 'usage':
      return <UsagePage />;
    case 'keys':
      return <KeysPage />;
    case 'routes':
      return <RoutesPage />;
    case 'local':
      return <LocalModelsPage />;
    case 'mcp':
      return <McpServersPage />;
    case 'connect':
      return <ConnectPage />;
    case 'settings':
      return <SettingsPage />;
    default:
      return <PlaygroundPage />;
  }
}

/**
 * How often the sidebar re-checks that the gateway still answers: often enough that a stop shows within
 * 5 s on any page (a loopback health call is cheap), and faster while it is away so its return shows
 * at once. The log's event feed breaking triggers a check too (connectionMayHaveDropped).
 */
const HEALTH_CHECK_INTERVAL_MS = 3000;
const HEALTH_RECHECK_WHEN_DOWN_MS = 1500;

export function App() {
  const connection = useSessionStore((state) => state.connection);
  const checkHealth = useSessionStore((state) => state.checkHealth);
  const managing = useSessionStore((state) => state.managing);
  const loadTeamGateway = useSessionStore((state) => state.loadTeamGateway);
  const page = useRouteStore((state) => state.page);
  const navigate = useRouteStore((state) => state.navigate);
  const syncFromLocation = useRouteStore((state) => state.syncFromLocation);

  useEffect(() => {
    window.addEventListener('hashchange', syncFromLocation);
    return () => window.removeEventListener('hashchange', syncFromLocation);
  }, [syncFromLocation]);

  useEffect(() => {
    if (connection === 'no-token' || connection === 'unauthorized') return;
    const timer = setInterval(() => void checkHealth(), connection === 'offline' ? HEALTH_RECHECK_WHEN_DOWN_MS : HEALTH_CHECK_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [connection, checkHealth]);

  // Whether a team gateway is set decides whether the managed-gateway switch shows.
  useEffect(() => {
    if (connection === 'connected') void loadTeamGateway();
  }, [connection, loadTeamGateway]);

  useEffect(() => {
    const title = NAVIGATION.find((item) => item.page === page)?.label ?? 'Gatehouse';
    document.title = `${title} · Gatehouse`;
  }, [page]);

  if (connection === 'no-token' || connection === 'unauthorized') return <SignInPage />;

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="sidebar">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            <svg viewBox="0 0 32 32" width="28" height="28">
              <rect width="32" height="32" rx="8" fill="currentColor" />
              <path d="M9 24V13l7-5 7 5v11h-4.5v-6h-5v6z" fill="white" />
            </svg>
          </span>
          <span className="brand-name">Gatehouse</span>
        </div>
        <nav aria-label="Main" className="nav">
          {NAVIGATION.map((item) => (
            <a
              key={item.page}
              href={`#/${item.page}`}
              className="nav-link"
              title={item.label}
              aria-current={page === item.page ? 'page' : undefined}
              onClick={(event) => {
                event.preventDefault();
                navigate(item.page);
              }}
            >
              <Icon name={item.icon} size={18} />
              <span>{item.label}</span>
            </a>
          ))}
        </nav>
        <ConnectionStatus />
      </aside>
      <main id="main" className="main" tabIndex={-1}>
        <ManagedGatewayBar />
        {/* A page loads again, from the other admin API, when the managed gateway changes. */}
        <CurrentPage key={managing} page={page} />
      </main>
      <Toaster />
    </div>
  );
}
