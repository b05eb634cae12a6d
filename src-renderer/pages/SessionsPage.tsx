// Sessions: each agent run (its model calls and MCP tool calls, grouped by gateway/agent-session.ts) with
// its client tool, key, start, duration, calls, tokens and cost; one session as a timeline of its calls in
// order with the idle gaps between them. Any call opens its log entry on the Logs page.
import { useEffect } from 'react';
import type { SessionCall, SessionSummary } from '../../src-main/core/agent-sessions';
import { EmptyState, ErrorNotice, LoadingState } from '../components/StatusViews';
import { StatusBadge } from '../components/StatusBadge';
import { useLogsStore } from '../stores/logs-store';
import { useRouteStore } from '../stores/route-store';
import { useSessionsStore } from './sessions/sessions-store';

const duration = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`);
const cost = (usd: number | null): string => (usd === null ? '—' : `$${usd.toFixed(usd < 0.01 ? 4 : 2)}`);
const tokens = (count: number): string => count.toLocaleString();

/** A gap shorter than this is the gateway's and the client's own time, not waiting: not drawn. */
const VISIBLE_GAP_MS = 250;

function SessionRow({ session, selected, onOpen }: { session: SessionSummary; selected: boolean; onOpen: () => void }) {
  return (
    <tr className={selected ? 'selected' : undefined} aria-selected={selected} onClick={onOpen} style={{ cursor: 'pointer' }}>
      <td>{new Date(session.startedAt).toLocaleString()}</td>
      <td>{session.client ?? '—'}</td>
      <td className="truncate">{session.keyId ?? '—'}</td>
      <td>{duration(session.durationMs)}</td>
      <td>{session.modelCalls}</td>
      <td>{session.toolCalls}</td>
      <td>{tokens(session.promptTokens + session.completionTokens)}</td>
      <td>{cost(session.costUsd)}</td>
    </tr>
  );
}

function CallItem({ call, onOpen }: { call: SessionCall; onOpen: () => void }) {
  const label = call.kind === 'mcp' ? `${call.server ?? ''} · ${call.tool ?? ''}` : (call.servedModel ?? call.model ?? 'model call');
  const figures =
    call.kind === 'mcp'
      ? [duration(call.latencyMs)]
      : [
          `${tokens(call.promptTokens ?? 0)} in · ${tokens(call.completionTokens ?? 0)} out`,
          call.ttfbMs === null ? null : `first token ${duration(call.ttfbMs)}`,
          duration(call.latencyMs),
          cost(call.costUsd),
          call.attempts > 1 ? `${call.attempts} attempts` : null,
        ];
  return (
    <li>
      {call.gapMs >= VISIBLE_GAP_MS && (
        <div className="session-gap" aria-label={`Idle ${duration(call.gapMs)}`} style={{ padding: '4px 12px', color: 'var(--text-muted, #888)', fontSize: 12 }}>
          ⋯ idle {duration(call.gapMs)}
        </div>
      )}
      <button type="button" className="session-call" onClick={onOpen} aria-label={`${call.kind === 'mcp' ? 'Tool call' : 'Model call'} ${label}`} style={{ display: 'flex', gap: 12, alignItems: 'center', width: '100%', textAlign: 'left', padding: '8px 12px' }}>
        <span className="tag">{call.kind === 'mcp' ? 'tool' : 'model'}</span>
        <strong className="truncate">{label}</strong>
        <StatusBadge status={call.status} error={call.error} />
        <span className="muted">{figures.filter(Boolean).join(' · ')}</span>
      </button>
    </li>
  );
}

function SessionTimeline() {
  const { selectedId, detail, detailStatus, open } = useSessionsStore();
  const navigate = useRouteStore((state) => state.navigate);
  const selectLog = useLogsStore((state) => state.select);
  if (!selectedId) return null;
  const openCall = (id: string) => {
    void selectLog(id);
    navigate('logs');
  };
  return (
    <section className="detail-panel" aria-label="Session">
      <header className="detail-header">
        <h2 className="truncate">{detail ? `${detail.client ?? 'Session'} · ${new Date(detail.startedAt).toLocaleString()}` : 'Session'}</h2>
        <button type="button" className="button button-ghost" onClick={() => void open(null)}>
          Close
        </button>
      </header>
      <div className="detail-scroll">
        {detailStatus === 'loading' && <LoadingState label="Loading session" />}
        {detailStatus === 'error' && <ErrorNotice message="Could not load this session" onRetry={() => void open(selectedId)} />}
        {detail && (
          <>
            <p className="muted" style={{ padding: '0 12px' }}>
              {`${detail.modelCalls} model calls · ${detail.toolCalls} tool calls · ${tokens(detail.promptTokens + detail.completionTokens)} tokens · ${cost(detail.costUsd)} · ${duration(detail.durationMs)}`}
              {detail.truncated ? ` · the first ${detail.calls.length} calls shown` : ''}
            </p>
            <ol className="session-timeline" aria-label="Calls in order" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
              {detail.calls.map((call) => (
                <CallItem key={call.id} call={call} onOpen={() => openCall(call.id)} />
              ))}
            </ol>
          </>
        )}
      </div>
    </section>
  );
}

export function SessionsPage() {
  const { items, status, error, client, selectedId, load, setClient, open } = useSessionsStore();
  useEffect(() => {
    void load();
  }, [load]);
  let body;
  if (status === 'error') body = <ErrorNotice message={error ?? 'Could not load sessions'} onRetry={() => void load()} />;
  else if (status !== 'ready' && items.length === 0) body = <LoadingState label="Loading sessions" />;
  else if (items.length === 0)
    body = (
      <EmptyState icon="chart" title="No agent sessions yet">
        Calls from Claude Code, Codex, OpenCode and other agents through Gatehouse appear here, one row per run, with their MCP tool calls.
      </EmptyState>
    );
  else
    body = (
      <table className="table" aria-label="Sessions">
        <thead>
          <tr>
            <th>Started</th>
            <th>Client tool</th>
            <th>Key</th>
            <th>Duration</th>
            <th>Model calls</th>
            <th>Tool calls</th>
            <th>Tokens</th>
            <th>Cost</th>
          </tr>
        </thead>
        <tbody>
          {items.map((session) => (
            <SessionRow key={session.id} session={session} selected={session.id === selectedId} onOpen={() => void open(session.id)} />
          ))}
        </tbody>
      </table>
    );
  return (
    <div className="page page-fill">
      <header className="page-header">
        <h1>Sessions</h1>
        <label>
          Client tool{' '}
          <input className="input" value={client} placeholder="all" onChange={(event) => setClient(event.target.value.trim())} aria-label="Client tool" />
        </label>
      </header>
      <div className={`logs-layout${selectedId ? ' logs-layout-detail' : ''}`}>
        <div className="logs-main">{body}</div>
        <SessionTimeline />
      </div>
    </div>
  );
}
