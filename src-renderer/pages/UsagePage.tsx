// What the gateway's calls cost and used: totals, spend and tokens per day / week / month, and a breakdown
// by key, model (the one that served the call, not a route's name), provider, client tool or route. Calls whose model has no price are counted apart as
// "unknown", never as $0.
import { useEffect } from 'react';
import type { UsageDimension, UsageFigures, UsageGroupView, UsageRange, UsageReportView } from '../api/types';
import { SegmentedControl } from '../components/SegmentedControl';
import { EmptyState, ErrorNotice, LoadingState } from '../components/StatusViews';
import { useUsageStore } from '../stores/usage-store';
import { SpendBreakdown, SpendOverTime, TokensOverTime } from './usage/UsageCharts';
import { formatDay, formatTokens, formatUsd } from './usage/usage-format';
import { useRouteStore } from '../stores/route-store';
import { EMPTY_FILTERS, useLogsStore, type LogFilters } from '../stores/logs-store';
import './usage/usage.css';

const RANGES: Array<{ value: UsageRange; label: string }> = [
  { value: 'day', label: 'Days' },
  { value: 'week', label: 'Weeks' },
  { value: 'month', label: 'Months' },
];

const DIMENSIONS: Array<{ value: UsageDimension; label: string }> = [
  { value: 'key', label: 'Key' },
  { value: 'model', label: 'Model' },
  { value: 'provider', label: 'Provider' },
  { value: 'client', label: 'Client tool' },
  { value: 'route', label: 'Route' },
];

const SPAN: Record<UsageRange, string> = { day: 'Last 30 days', week: 'Last 12 weeks', month: 'Last 12 months' };

/** A spend figure: "unknown" when nothing in it is priced, "+ unknown" when some calls lack a price. */
export function SpendText({ figures }: { figures: Pick<UsageFigures, 'costUsd' | 'unpricedRequests' | 'requests'> }) {
  const priced = figures.requests - figures.unpricedRequests;
  if (figures.unpricedRequests > 0 && figures.costUsd === 0 && priced === 0) return <span className="usage-unknown">unknown</span>;
  return (
    <>
      {formatUsd(figures.costUsd)}
      {figures.unpricedRequests > 0 && <span className="usage-unknown"> + unknown</span>}
    </>
  );
}

function Totals({ totals }: { totals: UsageFigures }) {
  return (
    <dl className="usage-totals" aria-label="Totals">
      <div className="usage-total">
        <dt>Spend</dt>
        <dd data-testid="usage-total-spend">{formatUsd(totals.costUsd)}</dd>
      </div>
      <div className="usage-total">
        <dt>Requests</dt>
        <dd data-testid="usage-total-requests">{totals.requests.toLocaleString('en-US')}</dd>
      </div>
      <div className="usage-total">
        <dt>Input tokens</dt>
        <dd data-testid="usage-total-input" title={totals.promptTokens.toLocaleString('en-US')}>
          {formatTokens(totals.promptTokens)}
          {totals.cacheReadTokens > 0 && <span className="usage-total-note">{formatTokens(totals.cacheReadTokens)} cached</span>}
        </dd>
      </div>
      <div className="usage-total">
        <dt>Output tokens</dt>
        <dd data-testid="usage-total-output" title={totals.completionTokens.toLocaleString('en-US')}>
          {formatTokens(totals.completionTokens)}
          {totals.reasoningTokens > 0 && <span className="usage-total-note">{formatTokens(totals.reasoningTokens)} reasoning</span>}
        </dd>
      </div>
      <div className={`usage-total${totals.unpricedRequests > 0 ? ' usage-total-warn' : ''}`}>
        <dt>Unknown cost</dt>
        <dd data-testid="usage-total-unknown">
          {totals.unpricedRequests.toLocaleString('en-US')} {totals.unpricedRequests === 1 ? 'call' : 'calls'}
          {totals.unpricedTokens > 0 && <span className="usage-total-note">{formatTokens(totals.unpricedTokens)} tokens</span>}
        </dd>
      </div>
    </dl>
  );
}

/** The Logs filter that shows a breakdown group's calls; null for a group of calls without one ("No key"). */
function logsFilterOf(by: UsageDimension, name: string): Partial<LogFilters> | null {
  if (!name) return null;
  if (by === 'key') return { key: name };
  if (by === 'model') return { model: name };
  if (by === 'provider') return { provider: name };
  if (by === 'route') return { route: name };
  if (by === 'client') return { client: name };
  return null;
}

/** Opens Logs with only these filters and the report's days. */
function useOpenLogs(report: { from: string; to: string }) {
  const navigate = useRouteStore((state) => state.navigate);
  return (filter: Partial<LogFilters>) => {
    useLogsStore.setState({ filters: { ...EMPTY_FILTERS, from: report.from, to: report.to, ...filter } });
    navigate('logs');
  };
}

function McpCallsTable({ calls, onOpen }: { calls: NonNullable<UsageReportView['mcpCalls']>; onOpen(filter: Partial<LogFilters>): void }) {
  return (
    <div className="usage-table-wrap">
      <table className="usage-table" aria-label="MCP calls by server and tool">
        <thead>
          <tr>
            <th scope="col">Server</th>
            <th scope="col">Tool</th>
            <th scope="col" className="numeric">Calls</th>
            <th scope="col" className="numeric">Errors</th>
          </tr>
        </thead>
        <tbody>
          {calls.map((call) => (
            <tr key={`${call.server}\u0000${call.tool}`}>
              <th scope="row">
                <button type="button" className="link-button" title={`Open the Logs of ${call.server} · ${call.tool}`} onClick={() => onOpen({ kind: 'mcp', server: call.server, tool: call.tool })}>
                  {call.server}
                </button>
              </th>
              <td className="truncate" title={call.tool}>
                {call.tool}
              </td>
              <td className="numeric">{call.calls.toLocaleString('en-US')}</td>
              <td className="numeric">{call.errors.toLocaleString('en-US')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function BreakdownTable({ groups, dimension, by, onOpen }: { groups: UsageGroupView[]; dimension: string; by: UsageDimension; onOpen(filter: Partial<LogFilters>): void }) {
  return (
    <div className="usage-table-wrap">
      <table className="usage-table">
        <thead>
          <tr>
            <th scope="col">{dimension}</th>
            <th scope="col" className="numeric">Requests</th>
            <th scope="col" className="numeric">Errors</th>
            <th scope="col" className="numeric">Input</th>
            <th scope="col" className="numeric">Cached</th>
            <th scope="col" className="numeric">Output</th>
            <th scope="col" className="numeric">Spend</th>
          </tr>
        </thead>
        <tbody>
          {groups.map((group) => (
            <tr key={group.name}>
              <th scope="row" title={group.name || undefined}>
                {logsFilterOf(by, group.name) ? (
                  <button type="button" className="link-button" title={`Open the Logs of ${group.label}`} onClick={() => onOpen(logsFilterOf(by, group.name)!)}>
                    {group.label}
                  </button>
                ) : (
                  group.label
                )}
              </th>
              <td className="numeric">{group.requests.toLocaleString('en-US')}</td>
              <td className="numeric">{group.errors.toLocaleString('en-US')}</td>
              <td className="numeric">{formatTokens(group.promptTokens)}</td>
              <td className="numeric">{formatTokens(group.cacheReadTokens)}</td>
              <td className="numeric">{formatTokens(group.completionTokens)}</td>
              <td className="numeric">
                <SpendText figures={group} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function UsagePage() {
  const { range, by, from, to, report, status, error } = useUsageStore();
  const { setRange, setBy, setDates, load } = useUsageStore.getState();
  const openLogs = useOpenLogs(report ?? { from, to });

  useEffect(() => {
    void load();
  }, [load]);

  const navigate = useRouteStore((state) => state.navigate);
  const dimensionLabel = DIMENSIONS.find((item) => item.value === by)?.label ?? by;

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Usage</h1>
          <p className="page-subtitle">
            What your tools and keys spent, priced from the model catalog. {from || to ? `${report ? formatDay(report.from) : from} to ${report ? formatDay(report.to) : to}` : SPAN[range]}, by local day.
          </p>
          {report?.countedFrom && (
            <p className="muted small usage-retention">
              Counted from {formatDay(report.countedFrom)}: these figures are sums over the request log, which keeps{' '}
              {report.logRetentionDays === 1 ? '1 day' : `${report.logRetentionDays} days`} of calls (
              <button type="button" className="link-button" onClick={() => navigate('settings')}>
                Settings
              </button>
              ).
            </p>
          )}
        </div>
        <div className="page-actions usage-actions">
          <SegmentedControl label="Period" options={RANGES} value={range} onChange={setRange} />
          <span className="date-range" role="group" aria-label="Date range">
            <input className="input" type="date" aria-label="From day" title="From this day (included)" value={from} max={to || undefined} onChange={(event) => setDates({ from: event.target.value })} />
            <span className="muted" aria-hidden="true">–</span>
            <input className="input" type="date" aria-label="To day" title="To this day (included)" value={to} min={from || undefined} onChange={(event) => setDates({ to: event.target.value })} />
          </span>
        </div>
      </header>
      {status === 'error' && error && <ErrorNotice title="Could not load usage" message={error} onRetry={() => void load()} />}
      {status === 'loading' && !report && <LoadingState label="Loading usage" />}
      {report && report.totals.requests === 0 && !report.mcpCalls?.length && (
        <EmptyState icon="chart" title="No calls yet">
          Calls through the gateway show up here with their tokens and cost.
        </EmptyState>
      )}
      {report && report.totals.requests > 0 && (
        <div className="stack">
          <Totals totals={report.totals} />
          <div className="usage-grid">
            <section className="card" aria-labelledby="usage-spend-heading">
              <h2 id="usage-spend-heading" className="card-title">
                Spend
              </h2>
              <SpendOverTime series={report.series} range={range} />
            </section>
            <section className="card" aria-labelledby="usage-tokens-heading">
              <h2 id="usage-tokens-heading" className="card-title">
                Tokens
              </h2>
              <TokensOverTime series={report.series} range={range} />
            </section>
          </div>
          <section className="card" aria-labelledby="usage-breakdown-heading">
            <div className="card-header">
              <h2 id="usage-breakdown-heading" className="card-title">
                By {dimensionLabel.toLowerCase()}
              </h2>
              <SegmentedControl label="Break down by" options={DIMENSIONS} value={by} onChange={setBy} />
            </div>
            <SpendBreakdown groups={report.breakdown} title={`Spend by ${dimensionLabel.toLowerCase()}`} />
            <BreakdownTable groups={report.breakdown} dimension={dimensionLabel} by={by} onOpen={openLogs} />
          </section>
        </div>
      )}
      {report && report.mcpCalls && report.mcpCalls.length > 0 && (
        <section className="card usage-mcp" aria-labelledby="usage-mcp-heading">
          <h2 id="usage-mcp-heading" className="card-title">
            MCP calls
          </h2>
          <McpCallsTable calls={report.mcpCalls} onOpen={openLogs} />
        </section>
      )}
    </div>
  );
}
