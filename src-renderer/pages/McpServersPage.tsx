// MCP servers: the tool servers Gatehouse starts or connects to, offered to every agent through one
// address (/mcp). The list shows each server's state, last error and tool count with a switch to turn
// it off; a selected server opens below with its tools, "Try a tool", its settings and stderr.
import { useEffect, useState } from 'react';
import { describeError } from '../api/api-error';
import type { McpServer } from '../api/types';
import { Icon } from '../components/Icon';
import { EmptyState, ErrorNotice, LoadingState } from '../components/StatusViews';
import { joinArguments } from '../mcp/server-form';
import { useMcpServersStore } from '../stores/mcp-servers-store';
import { useRouteStore } from '../stores/route-store';
import { useToastStore } from '../stores/toast-store';
import { AddServerDialog } from './mcp/AddServerDialog';
import { McpStatusBadge } from './mcp/McpStatusBadge';
import { ServerDetail } from './mcp/ServerDetail';
import './mcp/mcp.css';

/** The list is re-read this often while the page is open: a server starts, crashes and restarts on its own. */
const REFRESH_INTERVAL_MS = 4000;

const TRANSPORT_LABEL: Record<McpServer['transport'], string> = { stdio: 'stdio', http: 'HTTP', sse: 'SSE' };

function describeTarget(server: McpServer): string {
  return server.transport === 'stdio' ? [server.command ?? '', joinArguments(server.args ?? [])].filter(Boolean).join(' ') : (server.url ?? '');
}

function EnableSwitch({ server }: { server: McpServer }) {
  const update = useMcpServersStore((state) => state.update);
  const showToast = useToastStore((state) => state.show);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const flip = async (enabled: boolean) => {
    setSaving(true);
    setError(null);
    try {
      await update(server.name, { enabled });
      showToast(enabled ? `${server.name} is on` : `${server.name} is off: its tools are hidden from every agent`);
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setSaving(false);
    }
  };
  return (
    <div className="mcp-enable">
      <label className="switch">
        <input type="checkbox" role="switch" checked={server.enabled} disabled={saving} onChange={(event) => void flip(event.target.checked)} />
        <span className="switch-track" aria-hidden="true" />
        <span className="small">
          On<span className="visually-hidden"> ({server.name})</span>
        </span>
      </label>
      {error && <span className="field-error">{error}</span>}
    </div>
  );
}

function ServerRow({ server, selected, onSelect }: { server: McpServer; selected: boolean; onSelect(): void }) {
  return (
    <li className={`mcp-row${selected ? ' mcp-row-selected' : ''}`}>
      <div className="mcp-row-main">
        <div className="mcp-row-title">
          <button type="button" className="link-button mcp-row-name mono" aria-expanded={selected} onClick={onSelect}>
            {server.name}
          </button>
          <span className="badge badge-neutral">{TRANSPORT_LABEL[server.transport]}</span>
          <McpStatusBadge status={server.status} />
        </div>
        <span className="muted small mono truncate" title={describeTarget(server)}>
          {describeTarget(server)}
        </span>
        {server.lastError && (
          <span className="mcp-row-error small" title={server.lastError}>
            <Icon name="alert" size={14} /> {server.lastError}
          </span>
        )}
      </div>
      <span className="muted small mcp-row-tools">{server.toolCount === null ? 'Tools not listed yet' : `${server.toolCount} tool${server.toolCount === 1 ? '' : 's'}`}</span>
      <EnableSwitch server={server} />
    </li>
  );
}

export function McpServersPage() {
  const servers = useMcpServersStore((state) => state.servers);
  const status = useMcpServersStore((state) => state.status);
  const loadError = useMcpServersStore((state) => state.loadError);
  const load = useMcpServersStore((state) => state.load);
  const navigate = useRouteStore((state) => state.navigate);
  const [adding, setAdding] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  const selectedServer = servers.find((server) => server.name === selected);

  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), REFRESH_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [load]);

  const addButton = (
    <button type="button" className="button button-primary" onClick={() => setAdding(true)}>
      <Icon name="plus" />
      Add a server
    </button>
  );

  return (
    <div className="page page-mcp">
      <header className="page-header">
        <div>
          <h1>MCP servers</h1>
          <p className="page-subtitle">
            <span>
              Tool servers for every agent through one address, secrets sealed here.{' '}
              <button type="button" className="link-button" onClick={() => navigate('connect')}>
                Connect an agent
              </button>
            </span>
          </p>
        </div>
        <div className="header-actions">{addButton}</div>
      </header>

      {status === 'loading' && <LoadingState label="Loading MCP servers" />}
      {status === 'error' && <ErrorNotice title="Could not load the MCP servers" message={loadError ?? ''} onRetry={() => void load()} />}
      {status === 'ready' && (
        <section className="card card-flush" aria-labelledby="mcp-servers-heading">
          <div className="card-header card-header-padded">
            <h2 id="mcp-servers-heading" className="card-title">
              Servers <span className="count">{servers.length}</span>
            </h2>
          </div>
          {servers.length ? (
            <ul className="mcp-list" aria-label="MCP servers">
              {servers.map((server) => (
                <ServerRow key={server.name} server={server} selected={server.name === selected} onSelect={() => setSelected(server.name === selected ? null : server.name)} />
              ))}
            </ul>
          ) : (
            <EmptyState icon="tools" title="No MCP servers yet" action={addButton}>
              Add one from a preset (filesystem, GitHub, fetch) or your own command or URL.
            </EmptyState>
          )}
        </section>
      )}

      {selectedServer && <ServerDetail key={selectedServer.name} server={selectedServer} onRemoved={() => setSelected(null)} />}

      {adding && (
        <AddServerDialog
          onClose={() => setAdding(false)}
          onAdded={(name) => {
            setAdding(false);
            setSelected(name);
            useToastStore.getState().show(`Added ${name}`);
          }}
        />
      )}
    </div>
  );
}
