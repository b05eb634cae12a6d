// Every request through the gateway, newest first, updating live.
import { useEffect, useMemo, useState } from 'react';
import { formatDuration } from '../components/format';
import { Icon } from '../components/Icon';
import { CLIENT_DIALECTS, DIALECT_DESCRIPTIONS, DIALECT_LABELS } from '../logs/dialects';
import { EmptyState, ErrorNotice, LoadingState, Spinner } from '../components/StatusViews';
import { useKeysStore } from '../stores/keys-store';
import { EMPTY_FILTERS, summarize, useLogsStore } from '../stores/logs-store';
import { useRouteStore } from '../stores/route-store';
import { useRoutesStore } from '../stores/routes-store';
import { useMcpServersStore } from '../stores/mcp-servers-store';
import { LogDetailPanel } from './logs/LogDetailPanel';
import { LogsTable, type KeyLabel } from './logs/LogsTable';
import { LogExport } from './logs/LogExport';

const SEARCH_DEBOUNCE_MS = 250;
const FILTERABLE_STATUS_CODES = [200, 400, 401, 404, 413, 422, 429, 499, 500, 502, 503, 504];
const KIND_LABELS = { model: 'Model calls', embeddings: 'Embeddings', mcp: 'MCP tool calls' } as const;

function useDebouncedFilter(value: string, apply: (value: string) => void) {
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  useEffect(() => {
    if (draft === value) return;
    const timer = setTimeout(() => apply(draft), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [draft, value, apply]);
  return [draft, setDraft] as const;
}

function LiveIndicator() {
  const live = useLogsStore((state) => state.live);
  const liveError = useLogsStore((state) => state.liveError);
  const text = live === 'live' ? 'Live' : live === 'retrying' ? 'Reconnecting…' : live === 'connecting' ? 'Connecting…' : 'Paused';
  return (
    <span className={`live live-${live}`} title={live === 'retrying' ? (liveError ?? undefined) : undefined}>
      <span className="live-dot" aria-hidden="true" />
      {text}
    </span>
  );
}

export function LogsPage() {
  const rows = useLogsStore((state) => state.rows);
  const status = useLogsStore((state) => state.status);
  const loadError = useLogsStore((state) => state.loadError);
  const filters = useLogsStore((state) => state.filters);
  const next = useLogsStore((state) => state.next);
  const loadingMore = useLogsStore((state) => state.loadingMore);
  const selectedId = useLogsStore((state) => state.selectedId);
  const { load, loadMore, setFilters, startLive, stopLive, select } = useLogsStore.getState();
  const providers = useKeysStore((state) => state.providers);
  const virtualKeys = useKeysStore((state) => state.virtualKeys);
  const gatewayKeys = useKeysStore((state) => state.gatewayKeys);
  const loadKeys = useKeysStore((state) => state.load);
  const navigate = useRouteStore((state) => state.navigate);
  const routes = useRoutesStore((state) => state.routes);
  const loadRoutes = useRoutesStore((state) => state.load);
  const mcpServers = useMcpServersStore((state) => state.servers);
  const loadMcpServers = useMcpServersStore((state) => state.load);

  // "/" jumps to the search box, as in most log viewers.
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      const isTyping = target?.closest('input, textarea, select, [contenteditable="true"]');
      if (event.key === '/' && !isTyping && !event.metaKey && !event.ctrlKey) {
        event.preventDefault();
        document.querySelector<HTMLInputElement>('.filter-bar input[type="search"]')?.focus();
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);

  useEffect(() => {
    void load();
    startLive();
    // Providers for the filter, key names for the Key column.
    void loadKeys();
    // For the route filter; without routes it stays hidden.
    void loadRoutes();
    // For the MCP server filter.
    void loadMcpServers();
    return () => stopLive();
  }, [load, startLive, stopLive, loadKeys, loadRoutes, loadMcpServers]);

  const applySearch = (q: string) => setFilters({ q });
  const applyModel = (model: string) => setFilters({ model });
  const [searchDraft, setSearchDraft] = useDebouncedFilter(filters.q, applySearch);
  const [modelDraft, setModelDraft] = useDebouncedFilter(filters.model, applyModel);
  const applyTool = (tool: string) => setFilters({ tool });
  const applyMetadata = (metadata: string) => setFilters({ metadata });
  const [toolDraft, setToolDraft] = useDebouncedFilter(filters.tool, applyTool);
  const [metadataDraft, setMetadataDraft] = useDebouncedFilter(filters.metadata, applyMetadata);
  const isFiltered = Object.values(filters).some((value) => value !== '');
  const keyNames = useMemo(() => {
    const names = new Map<string, KeyLabel>();
    for (const key of virtualKeys) names.set(key.id, { name: key.name, provider: key.provider });
    for (const key of gatewayKeys) names.set(key.id, { name: key.name, provider: null });
    return names;
  }, [virtualKeys, gatewayKeys]);
  const summary = useMemo(() => summarize(rows), [rows]);
  // Suggestions for the model filter, which matches a model name exactly (as the server does).
  const knownModels = useMemo(() => [...new Set(rows.slice(0, 2000).map((row) => row.model).filter((model): model is string => Boolean(model)))].sort(), [rows]);
  const providerSlugs = providers.map((provider) => provider.slug);
  const keyOptions = useMemo(() => [...keyNames].map(([id, label]) => ({ id, name: label.name })).sort((a, b) => a.name.localeCompare(b.name)), [keyNames]);
  // Team mode: the instances the loaded rows name (a desktop log has none, and shows no Instance filter or column).
  const instanceNames = useMemo(() => [...new Set(rows.slice(0, 2000).map((row) => row.instanceName).filter((name): name is string => Boolean(name)))].sort(), [rows]);
  const teamMode = instanceNames.length > 0 || filters.instance !== '';
  const knownTools = useMemo(() => [...new Set(rows.slice(0, 2000).map((row) => row.tool).filter((tool): tool is string => Boolean(tool)))].sort(), [rows]);
  const showsMcp = filters.kind === 'mcp' || filters.server !== '' || filters.tool !== '';

  let body;
  if (status === 'loading' && !rows.length) body = <LoadingState label="Loading requests" />;
  else if (status === 'error' && !rows.length) body = <ErrorNotice title="Could not load the log" message={loadError ?? ''} onRetry={() => void load()} />;
  else if (!rows.length)
    body = isFiltered ? (
      <EmptyState icon="search" title="No requests match these filters" action={<button type="button" className="button button-secondary" onClick={() => setFilters(EMPTY_FILTERS)}>Clear filters</button>} />
    ) : (
      <EmptyState
        icon="logs"
        title="No requests yet"
        action={
          <button type="button" className="button button-primary" onClick={() => navigate('playground')}>
            <Icon name="playground" />
            Open the Playground
          </button>
        }
      >
        Requests through the gateway appear here the moment they finish.
      </EmptyState>
    );
  else body = <LogsTable rows={rows} keyNames={keyNames} showInstance={teamMode} selectedId={selectedId} onSelect={(id) => void select(id)} onNearEnd={() => void loadMore()} />;

  return (
    <div className="page page-fill" onKeyDown={(event) => event.key === 'Escape' && selectedId && void select(null)}>
      <header className="page-header">
        <div>
          <h1>Logs</h1>
          <p className="page-subtitle">
            <LiveIndicator />
            <span className="muted">
              {rows.length.toLocaleString('en-US')} {rows.length === 1 ? 'request' : 'requests'}
              {next ? ' loaded' : ''}
            </span>
            {summary.sampled > 0 && (
              <span className="summary" title={`Over the ${summary.sampled.toLocaleString('en-US')} most recent requests loaded`}>
                <span>
                  p50 <strong>{formatDuration(summary.medianLatencyMs)}</strong>
                </span>
                <span className={summary.errorRate > 0 ? 'summary-errors' : undefined}>
                  <strong>{(summary.errorRate * 100).toFixed(summary.errorRate > 0 && summary.errorRate < 0.01 ? 1 : 0)}%</strong> failed
                </span>
              </span>
            )}
            {loadingMore && <Spinner label="Loading more requests" />}
          </p>
        </div>
        <div className="header-actions">
          {isFiltered && (
            <button type="button" className="button button-ghost" onClick={() => setFilters(EMPTY_FILTERS)}>
              <Icon name="close" />
              Clear filters
            </button>
          )}
          <LogExport filters={filters} />
          <button type="button" className="button button-secondary" onClick={() => void load()}>
            <Icon name="refresh" />
            Refresh
          </button>
        </div>
      </header>

      <div className={`filter-bar${routes.length > 0 || filters.route ? ' filter-bar-routes' : ''}`} role="search" aria-label="Filter requests">
        <label className="search-input">
          <Icon name="search" />
          <input type="search" className="input" aria-label="Search" placeholder="Search id, model, error…" title="Search the trace id, model and error text (press / to jump here)" value={searchDraft} onChange={(event) => setSearchDraft(event.target.value)} />
        </label>
        <select className="input" aria-label="Provider filter" value={filters.provider} onChange={(event) => setFilters({ provider: event.target.value })}>
          <option value="">All providers</option>
          {providerSlugs.map((slug) => (
            <option key={slug} value={slug}>
              {slug}
            </option>
          ))}
        </select>
        <input className="input" aria-label="Model filter" placeholder="Model (exact)" list="log-model-options" value={modelDraft} onChange={(event) => setModelDraft(event.target.value)} />
        <datalist id="log-model-options">
          {knownModels.map((model) => (
            <option key={model} value={model} />
          ))}
        </datalist>
        <select className="input" aria-label="Dialect filter" title="The API the client spoke" value={filters.dialect} onChange={(event) => setFilters({ dialect: event.target.value })}>
          <option value="">All dialects</option>
          {CLIENT_DIALECTS.map((dialect) => (
            <option key={dialect} value={dialect} title={DIALECT_DESCRIPTIONS[dialect]}>
              {DIALECT_LABELS[dialect]}
            </option>
          ))}
        </select>
        {(routes.length > 0 || filters.route) && (
          <select className="input" aria-label="Route filter" title="The route that matched the model name" value={filters.route} onChange={(event) => setFilters({ route: event.target.value })}>
            <option value="">All routes</option>
            {filters.route && !routes.some((route) => route.name === filters.route) && <option value={filters.route}>{filters.route}</option>}
            {routes.map((route) => (
              <option key={route.id} value={route.name}>
                {route.name}
              </option>
            ))}
          </select>
        )}
        <select className="input" aria-label="Key filter" title="The key that made the call" value={filters.key} onChange={(event) => setFilters({ key: event.target.value })}>
          <option value="">All keys</option>
          {filters.key && !keyNames.has(filters.key) && <option value={filters.key}>{filters.key}</option>}
          {keyOptions.map((key) => (
            <option key={key.id} value={key.id}>
              {key.name}
            </option>
          ))}
        </select>
        <select className="input" aria-label="Kind filter" title="Model calls, embeddings or MCP tool calls" value={filters.kind} onChange={(event) => setFilters(event.target.value === 'mcp' ? { kind: 'mcp' } : { kind: event.target.value, server: '', tool: '' })}>
          <option value="">All kinds</option>
          {Object.entries(KIND_LABELS).map(([kind, label]) => (
            <option key={kind} value={kind}>
              {label}
            </option>
          ))}
        </select>
        {showsMcp && (
          <select className="input" aria-label="MCP server filter" value={filters.server} onChange={(event) => setFilters({ server: event.target.value })}>
            <option value="">All MCP servers</option>
            {filters.server && !mcpServers.some((server) => server.name === filters.server) && <option value={filters.server}>{filters.server}</option>}
            {mcpServers.map((server) => (
              <option key={server.name} value={server.name}>
                {server.name}
              </option>
            ))}
          </select>
        )}
        {showsMcp && (
          <>
            <input className="input" aria-label="Tool filter" placeholder="Tool (exact)" list="log-tool-options" value={toolDraft} onChange={(event) => setToolDraft(event.target.value)} />
            <datalist id="log-tool-options">
              {knownTools.map((tool) => (
                <option key={tool} value={tool} />
              ))}
            </datalist>
          </>
        )}
        {teamMode && (
          <select className="input" aria-label="Instance filter" title="The team instance that served the call" value={filters.instance} onChange={(event) => setFilters({ instance: event.target.value })}>
            <option value="">All instances</option>
            {filters.instance && !instanceNames.includes(filters.instance) && <option value={filters.instance}>{filters.instance}</option>}
            {instanceNames.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        )}
        {filters.client && (
          <select className="input" aria-label="Client filter" title="The client tool that made the call" value={filters.client} onChange={(event) => setFilters({ client: event.target.value })}>
            <option value="">All clients</option>
            <option value={filters.client}>{filters.client}</option>
          </select>
        )}
        <input
          className="input"
          aria-label="Metadata filter"
          placeholder="Metadata name=value"
          title="Calls whose x-gateway-metadata has this entry, exactly (team=search)"
          value={metadataDraft}
          onChange={(event) => setMetadataDraft(event.target.value)}
        />
        <span className="date-range" role="group" aria-label="Date range">
          <input className="input" type="date" aria-label="From day" title="From this day (included)" value={filters.from} max={filters.to || undefined} onChange={(event) => setFilters({ from: event.target.value })} />
          <span className="muted" aria-hidden="true">–</span>
          <input className="input" type="date" aria-label="To day" title="To this day (included)" value={filters.to} min={filters.from || undefined} onChange={(event) => setFilters({ to: event.target.value })} />
        </span>
        <select className="input" aria-label="Status filter" value={filters.status} onChange={(event) => setFilters({ status: event.target.value })}>
          <option value="">All statuses</option>
          <option value="error">Failed (400 and up)</option>
          {FILTERABLE_STATUS_CODES.map((code) => (
            <option key={code} value={String(code)}>
              {code}
            </option>
          ))}
        </select>
      </div>

      {status === 'error' && rows.length > 0 && <ErrorNotice message={loadError ?? ''} onRetry={() => void load()} />}

      <div className={`logs-layout${selectedId ? ' logs-layout-detail' : ''}`}>
        <div className="logs-list card card-flush">{body}</div>
        <LogDetailPanel />
      </div>
    </div>
  );
}
