// One request in full: timing, attempts, redacted headers, and bodies made readable.
import { useState } from 'react';
import type { LogDetail } from '../../api/types';
import { CodeBlock } from '../../components/CodeBlock';
import { logCostText, mcpResult } from './LogsTable';
import { useKeysStore } from '../../stores/keys-store';
import { formatCount, formatDuration, formatFullTime } from '../../components/format';
import { Icon } from '../../components/Icon';
import { StatusBadge } from '../../components/StatusBadge';
import { ErrorNotice, LoadingState } from '../../components/StatusViews';
import { Tabs } from '../../components/Tabs';
import { dialectDescription, providerFormatLabel } from '../../logs/dialects';
import { assembleStream, looksLikeEventStream } from '../../logs/stream-assembly';
import { prettyJsonText } from '../../playground/json-text';
import { draftFromLoggedRequest } from '../../playground/draft-from-log';
import { useLogsStore } from '../../stores/logs-store';
import { usePlaygroundStore } from '../../stores/playground-store';
import { useRouteStore } from '../../stores/route-store';
import { useReplaceConversation } from '../playground/ReplaceConversation';
import { useSessionsStore } from '../sessions/sessions-store';

function TimingBar({ ttfbMs, latencyMs }: { ttfbMs: number | null; latencyMs: number | null }) {
  if (!latencyMs) return null;
  const firstBytePercent = ttfbMs ? Math.min(100, Math.max(2, (ttfbMs / latencyMs) * 100)) : 0;
  return (
    <div className="timing">
      <div className="timing-bar" aria-hidden="true">
        <span className="timing-wait" style={{ width: `${firstBytePercent}%` }} />
        <span className="timing-transfer" style={{ width: `${100 - firstBytePercent}%` }} />
      </div>
      <div className="timing-legend">
        <span>
          <i className="legend-wait" /> First byte {formatDuration(ttfbMs)}
        </span>
        <span>
          <i className="legend-transfer" /> Total {formatDuration(latencyMs)}
        </span>
      </div>
    </div>
  );
}

function HeadersTable({ headers }: { headers: LogDetail['requestHeaders'] }) {
  const entries = Object.entries(headers ?? {});
  if (!entries.length) return <p className="muted small">No headers recorded.</p>;
  return (
    <table className="kv-table">
      <tbody>
        {entries.map(([name, value]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>{Array.isArray(value) ? value.join(', ') : value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ResponseView({ detail }: { detail: LogDetail }) {
  const [view, setView] = useState<'text' | 'events'>('text');
  const body = detail.responseBody;
  if (body === null || body === undefined) return <p className="muted small">Response body not stored (bodies are off in Settings, or the request failed before one arrived).</p>;
  if (!(detail.stream || looksLikeEventStream(body))) return <CodeBlock code={prettyJsonText(body)} label="response body" maxHeight={420} />;
  const assembled = assembleStream(body);
  return (
    <Tabs<'text' | 'events'>
      label="Stream view"
      variant="pill"
      active={view}
      onChange={setView}
      tabs={[
        { id: 'text', label: 'Assembled text' },
        { id: 'events', label: `Raw events (${assembled.events.length})` },
      ]}
    >
      {view === 'text' ? (
        <div className="stack-small">
          {assembled.choices.length === 0 && <p className="muted small">The stream carried no text.</p>}
          {assembled.choices.map((text, index) => (
            <div key={index} className="assembled">
              {assembled.choices.length > 1 && <div className="output-choice-label">{`Choice ${index + 1}`}</div>}
              <pre className="output-text">{text}</pre>
              {assembled.finishReasons[index] && <p className="muted small">finish reason: {assembled.finishReasons[index]}</p>}
            </div>
          ))}
          {assembled.errors.map((message, index) => (
            <ErrorNotice key={index} title="Error event in the stream" message={message} />
          ))}
        </div>
      ) : (
        <CodeBlock code={assembled.events.map((event) => `data: ${event}`).join('\n\n')} label="raw events" maxHeight={420} />
      )}
    </Tabs>
  );
}

/**
 * The matched route and every call the gateway made for this request, as a timeline: which target,
 * what it answered, how long it took, and why the gateway moved on to the next.
 */
export function RouteTrail({ detail }: { detail: Pick<LogDetail, 'route' | 'routeTarget' | 'attemptLog' | 'status' | 'error'> }) {
  const attempts = detail.attemptLog ?? [];
  if (!detail.route && attempts.length < 2) return null;
  const succeeded = detail.status < 400 && !detail.error;
  return (
    <section className="route-trail" aria-label="Route and attempts">
      <h4 className="subheading">{detail.route ? 'Route' : 'Attempts'}</h4>
      {detail.route && (
        <p className="route-trail-summary">
          <span>
            Route <strong>{detail.route}</strong>
          </span>
          {detail.routeTarget && (
            <span>
              {succeeded ? 'served by ' : 'last tried '}
              <code className="route-match">{detail.routeTarget}</code>
            </span>
          )}
        </p>
      )}
      {attempts.length > 0 && (
        <ol className="attempt-timeline" aria-label="Attempts">
          {attempts.map((attempt, index) => {
            const isLast = index === attempts.length - 1;
            const ok = attempt.status !== null && attempt.status < 400 && !attempt.error;
            const movedOn = !isLast ? (attempt.reason ?? (attempt.status ? String(attempt.status) : 'no answer')) : null;
            return (
              <li key={index} className={`attempt-step ${ok ? 'attempt-ok' : 'attempt-failed'}`}>
                <span className="attempt-dot" aria-hidden="true" />
                <div className="attempt-body">
                  <div className="attempt-line">
                    <StatusBadge status={attempt.status} error={attempt.error} />
                    <span className="mono truncate">{attempt.target ?? `Attempt ${index + 1}`}</span>
                  </div>
                  {movedOn && <span className="muted small">{`moved on: ${movedOn}`}</span>}
                  {isLast && ok && succeeded && <span className="muted small">served the answer</span>}
                  {attempt.error && <span className="field-error">{attempt.error}</span>}
                </div>
                <span className="attempt-duration">{formatDuration(attempt.durationMs)}</span>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}

/** Cache reads and writes are parts of the input count, reasoning a part of the output count. */
function tokenBreakdown(detail: LogDetail): string {
  const parts: string[] = [];
  if (detail.cacheReadTokens) parts.push(`${formatCount(detail.cacheReadTokens)} from cache`);
  if (detail.cacheWriteTokens) parts.push(`${formatCount(detail.cacheWriteTokens)} written to cache`);
  if (detail.reasoningTokens) parts.push(`${formatCount(detail.reasoningTokens)} reasoning`);
  return parts.join(' · ');
}

/** The caller's key by name (with its id), and on a routed call the key whose credentials served it. */
function useKeyName(id: string | null): string {
  const virtualKey = useKeysStore((state) => (id ? state.virtualKeys.find((key) => key.id === id) : undefined));
  const gatewayKey = useKeysStore((state) => (id ? state.gatewayKeys.find((key) => key.id === id) : undefined));
  if (!id) return 'none accepted';
  const name = virtualKey?.name ?? gatewayKey?.name;
  return name ? `${name} (${id})` : `${id} (revoked or not found)`;
}

function DetailBody({ detail }: { detail: LogDetail }) {
  const [tab, setTab] = useState<'response' | 'request'>('response');
  const metadata = Object.entries(detail.metadata ?? {});
  const keyName = useKeyName(detail.keyId);
  const targetKeyName = useKeyName(detail.targetKeyId);
  return (
    <>
      {detail.error && <ErrorNotice title="Error" message={detail.error} />}
      <dl className="detail-grid">
        <div>
          <dt>Time</dt>
          <dd>{formatFullTime(detail.createdAt)}</dd>
        </div>
        <div>
          <dt>Key</dt>
          <dd className="detail-key">{keyName}</dd>
        </div>
        {detail.targetKeyId && detail.targetKeyId !== detail.keyId && (
          <div>
            <dt>Served with</dt>
            <dd className="detail-key">{targetKeyName}</dd>
          </div>
        )}
        {detail.kind === 'mcp' ? (
          <>
            <div>
              <dt>MCP server</dt>
              <dd>{detail.server ?? '—'}</dd>
            </div>
            <div>
              <dt>Tool</dt>
              <dd className="detail-key">{detail.tool ?? '—'}</dd>
            </div>
            <div>
              <dt>Result</dt>
              <dd>{mcpResult(detail.status).text}</dd>
            </div>
          </>
        ) : (
          <div>
            <dt>Provider</dt>
            <dd>{detail.provider ?? '—'}</dd>
          </div>
        )}
        {(detail.instanceName || detail.instance) && (
          <div>
            <dt>Instance</dt>
            <dd className="detail-key" title={detail.instance ?? undefined}>
              {detail.instanceName ?? detail.instance}
            </dd>
          </div>
        )}
        <div>
          <dt>Cost</dt>
          <dd>{logCostText(detail)}</dd>
        </div>
        <div>
          <dt>Path</dt>
          <dd className="mono">{detail.path}</dd>
        </div>
        <div>
          <dt>Client dialect</dt>
          <dd>{dialectDescription(detail.dialect) ?? '—'}</dd>
        </div>
        <div>
          <dt>Provider format</dt>
          <dd>{providerFormatLabel(detail.providerFormat) ?? '—'}</dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd>{detail.promptTokens === null && detail.completionTokens === null ? 'not reported' : `${formatCount(detail.promptTokens)} in · ${formatCount(detail.completionTokens)} out`}</dd>
        </div>
        {(detail.cacheReadTokens || detail.cacheWriteTokens || detail.reasoningTokens) ? (
          <div>
            <dt>Of which</dt>
            <dd>{tokenBreakdown(detail)}</dd>
          </div>
        ) : null}
        <div>
          <dt>Streamed</dt>
          <dd>{detail.stream ? 'yes' : 'no'}</dd>
        </div>
        <div>
          <dt>Attempts</dt>
          <dd>{detail.attempts > 1 ? `${detail.attempts} (${detail.route ? 'across targets' : 'retried'})` : (detail.attempts ?? 1)}</dd>
        </div>
        <div>
          <dt>Trace id</dt>
          <dd className="mono truncate" title={detail.traceId ?? undefined}>
            {detail.traceId ?? '—'}
          </dd>
        </div>
      </dl>
      {detail.dropped?.length > 0 && (
        <div className="notice notice-warning dropped-fields" role="note" aria-label="Dropped in translation">
          <Icon name="alert" size={18} />
          <div className="notice-body">
            <strong>Dropped in translation</strong>
            <span>
              {`The provider's format (${providerFormatLabel(detail.providerFormat) ?? 'unknown'}) has no place for: `}
              {detail.dropped.map((field, index) => (
                <span key={field}>
                  {index > 0 && ', '}
                  <code>{field}</code>
                </span>
              ))}
            </span>
          </div>
        </div>
      )}
      <RouteTrail detail={detail} />
      <TimingBar ttfbMs={detail.ttfbMs} latencyMs={detail.latencyMs} />
      {metadata.length > 0 && (
        <div className="metadata">
          {metadata.map(([name, value]) => (
            <span key={name} className="chip chip-static">
              <span className="muted">{name}</span> {value}
            </span>
          ))}
        </div>
      )}
      <Tabs<'response' | 'request'>
        label="Request and response"
        active={tab}
        onChange={setTab}
        tabs={[
          { id: 'response', label: 'Response' },
          { id: 'request', label: 'Request' },
        ]}
      >
        {tab === 'response' && <ResponseView detail={detail} />}
        {tab === 'request' && (
          <div className="stack-small">
            <h4 className="subheading">Headers (secrets redacted)</h4>
            <HeadersTable headers={detail.requestHeaders} />
            <h4 className="subheading">Body</h4>
            {detail.requestBody ? <CodeBlock code={prettyJsonText(detail.requestBody)} label="request body" maxHeight={420} /> : <p className="muted small">Request body not stored.</p>}
          </div>
        )}
      </Tabs>
    </>
  );
}

function OpenInPlayground({ detail }: { detail: LogDetail }) {
  const loadDraft = usePlaygroundStore((state) => state.loadDraft);
  const navigate = useRouteStore((state) => state.navigate);
  const { replace, dialog } = useReplaceConversation('this request');
  const draft = draftFromLoggedRequest(detail.path, detail.requestBody);
  if (!draft) return null;
  return (
    <>
      <button
        type="button"
        className="button button-secondary button-small"
        onClick={() =>
          replace(() => {
            // A virtual key's row re-opens with that key picked by name (its id is all the log keeps).
            loadDraft(draft, detail.keyId?.startsWith('vk_') ? detail.keyId : null);
            navigate('playground');
          })
        }
      >
        <Icon name="playground" />
        Open in Playground
      </button>
      {dialog}
    </>
  );
}

/** The agent session the call belongs to, on the Sessions page. */
function OpenSession({ sessionId }: { sessionId: string }) {
  const navigate = useRouteStore((state) => state.navigate);
  return (
    <button
      type="button"
      className="button button-secondary"
      onClick={() => {
        void useSessionsStore.getState().open(sessionId);
        navigate('sessions');
      }}
    >
      Open session
    </button>
  );
}

export function LogDetailPanel() {
  const selectedId = useLogsStore((state) => state.selectedId);
  const detail = useLogsStore((state) => state.detail);
  const detailStatus = useLogsStore((state) => state.detailStatus);
  const detailError = useLogsStore((state) => state.detailError);
  const select = useLogsStore((state) => state.select);
  if (!selectedId) return null;
  const current = detail && detail.id === selectedId ? detail : null;
  return (
    <section className="detail-panel" aria-label="Request detail">
      <header className="detail-header">
        <div className="detail-title">
          {current && <StatusBadge status={current.status} error={current.error} />}
          {current && (current.count ?? 1) > 1 && (
            <span className="tag tag-count" title="Refusals like this one in one window, logged as one row">{`×${current.count} requests`}</span>
          )}
          <h2 className="truncate">{(current?.kind === 'mcp' ? `${current.server ?? ''} · ${current.tool ?? ''}` : current?.model) ?? (detailStatus === 'loading' ? 'Loading…' : 'Request')}</h2>
        </div>
        <div className="card-actions">
          {current?.sessionId && <OpenSession sessionId={current.sessionId} />}
          {current && <OpenInPlayground detail={current} />}
          <button type="button" className="button button-ghost button-icon" aria-label="Close detail" onClick={() => void select(null)}>
            <Icon name="close" />
          </button>
        </div>
      </header>
      <div className="detail-scroll">
        {detailStatus === 'loading' && !current && <LoadingState label="Loading request" />}
        {detailStatus === 'error' && <ErrorNotice message={detailError ?? 'Could not load this request'} onRetry={() => void select(selectedId)} />}
        {current && <DetailBody detail={current} />}
      </div>
    </section>
  );
}
