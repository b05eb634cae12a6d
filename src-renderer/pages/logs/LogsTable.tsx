// The request log as an ARIA table whose body is windowed: only visible rows are in the DOM,
// and aria-rowcount/aria-rowindex tell assistive technology how many there really are.
import { useCallback, useRef, type CSSProperties, type KeyboardEvent } from 'react';
import type { LogEntry } from '../../api/types';
import { formatCount, formatDuration, formatLogTime } from '../../components/format';
import { formatUsd } from '../usage/usage-format';
import { StatusBadge } from '../../components/StatusBadge';
import { dialectDescription, dialectLabel } from '../../logs/dialects';
import { VirtualList, type VirtualListHandle } from '../../components/VirtualList';

export const LOG_ROW_HEIGHT = 40;

interface LogsTableProps {
  rows: readonly LogEntry[];
  /** Key names by id (virtual and gateway keys); a key gone from the list shows its id. */
  keyNames?: ReadonlyMap<string, KeyLabel>;
  /** Team mode: an Instance column (the name of the instance that served each call). */
  showInstance?: boolean;
  selectedId: string | null;
  onSelect(id: string): void;
  onNearEnd(): void;
}

const logKey = (entry: LogEntry) => entry.id;

interface RowTag {
  text: string;
  title?: string;
  className?: string;
  dialect?: string;
}

/** What an MCP call's status says of the tool's answer (mcp/call-log.ts statusOf). */
export function mcpResult(status: number): { text: string; className: string } {
  if (status < 400) return { text: 'ok', className: 'tag-ok' };
  const failures: Record<number, string> = { 422: 'tool error', 499: 'cancelled', 504: 'timed out', 502: 'server failed', 403: 'refused', 404: 'not found', 400: 'bad call' };
  return { text: failures[status] ?? 'failed', className: 'tag-warning' };
}

/** The small labels after the model: dialect, route, streaming, retries; for an MCP call, MCP and the tool's result. */
function rowTags(entry: LogEntry): RowTag[] {
  const tags: RowTag[] = [];
  if (entry.kind === 'mcp') {
    const result = mcpResult(entry.status);
    tags.push({ text: 'MCP', title: 'A tool call through the MCP gateway', className: 'tag-mcp' });
    tags.push({ text: result.text, title: entry.error ?? `The tool answered (${entry.status})`, className: result.className });
    return tags;
  }
  if (entry.dialect) tags.push({ text: dialectLabel(entry.dialect) ?? entry.dialect, title: dialectDescription(entry.dialect) ?? undefined, className: 'tag-dialect', dialect: entry.dialect });
  if (entry.route) tags.push({ text: `route ${entry.route}`, title: entry.routeTarget ? `Route ${entry.route}: ${entry.routeTarget}` : `Route ${entry.route}`, className: 'tag-route' });
  if (entry.stream) tags.push({ text: 'stream' });
  if (entry.attempts > 1) tags.push({ text: `${entry.attempts} attempts`, title: 'Retried by the gateway (x-gateway-retry-count)', className: 'tag-warning' });
  return tags;
}

export interface KeyLabel {
  name: string;
  /** A virtual key's provider; null for a gateway key. */
  provider: string | null;
}

/** What the row's cost cell says: a price, or "unknown" where there were tokens but no price (never a blank). */
export function logCostText(entry: LogEntry): string {
  if (entry.costUsd !== null) return formatUsd(entry.costUsd);
  return entry.promptTokens !== null || entry.completionTokens !== null ? 'unknown' : '—';
}

/**
 * Provider and model of a row. A call refused before its body was read (a key over its limits: 429)
 * has neither on record; the key's own provider is then the one it asked for, and its model was never read.
 */
export function askedTarget(entry: LogEntry, key: KeyLabel | undefined): { provider: string | null; model: string | null; inferred: boolean } {
  // An MCP call names no provider or model: its server and tool stand in their columns.
  if (entry.kind === 'mcp') return { provider: entry.server ?? null, model: entry.tool ?? null, inferred: false };
  if (entry.provider || entry.model) return { provider: entry.provider, model: entry.model, inferred: false };
  return { provider: key?.provider ?? null, model: null, inferred: Boolean(key?.provider) };
}

const NO_KEY_NAMES: ReadonlyMap<string, KeyLabel> = new Map();

export function LogsTable({ rows, keyNames = NO_KEY_NAMES, showInstance = false, selectedId, onSelect, onNearEnd }: LogsTableProps) {
  const listRef = useRef<VirtualListHandle>(null);
  // The row the keyboard last moved to. Focus follows a frame later, so a key pressed in between
  // (a held arrow key, fast typing) must move on from here, not from the row that still has focus.
  const movedTo = useRef<number | null>(null);
  const now = new Date();

  const focusRow = useCallback((index: number) => {
    movedTo.current = index;
    listRef.current?.scrollToIndex(index);
    // The row may only exist after the list re-renders at its new scroll position.
    requestAnimationFrame(() => {
      listRef.current?.element()?.querySelector<HTMLElement>(`[data-index="${index}"]`)?.focus();
      if (movedTo.current === index) movedTo.current = null;
    });
  }, []);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>, focusedIndex: number) => {
    const index = Math.min(rows.length - 1, movedTo.current ?? focusedIndex);
    let target = index;
    if (event.key === 'ArrowDown') target = Math.min(rows.length - 1, index + 1);
    else if (event.key === 'ArrowUp') target = Math.max(0, index - 1);
    else if (event.key === 'Home') target = 0;
    else if (event.key === 'End') target = rows.length - 1;
    else if (event.key === 'PageDown') target = Math.min(rows.length - 1, index + 10);
    else if (event.key === 'PageUp') target = Math.max(0, index - 10);
    else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      onSelect(rows[index].id);
      return;
    } else return;
    event.preventDefault();
    onSelect(rows[target].id);
    focusRow(target);
  };

  const selectedIndex = selectedId ? rows.findIndex((row) => row.id === selectedId) : -1;
  const tabStop = selectedIndex >= 0 ? selectedIndex : 0;

  const renderRow = (entry: LogEntry, index: number, style: CSSProperties) => {
    const isSelected = entry.id === selectedId;
    const tokens = entry.promptTokens !== null || entry.completionTokens !== null ? `${formatCount(entry.promptTokens)} / ${formatCount(entry.completionTokens)}` : '—';
    const key = entry.keyId ? keyNames.get(entry.keyId) : undefined;
    const target = askedTarget(entry, key);
    const tags = rowTags(entry);
    return (
      <div
        key={entry.id}
        role="row"
        aria-rowindex={index + 2}
        aria-selected={isSelected}
        data-index={index}
        tabIndex={index === tabStop ? 0 : -1}
        className={`log-row${isSelected ? ' log-row-selected' : ''}${entry.error || entry.status >= 400 ? ' log-row-failed' : ''}`}
        style={style}
        onClick={() => {
          movedTo.current = null;
          onSelect(entry.id);
        }}
        onKeyDown={(event) => onKeyDown(event, index)}
      >
        <div role="cell" className="col-time">
          {formatLogTime(entry.createdAt, now)}
        </div>
        <div role="cell" className="col-status">
          <StatusBadge status={entry.status} error={entry.error} />
          {(entry.count ?? 1) > 1 && (
            <span className="tag tag-count" title={`${entry.count} requests like this one in one window, logged as one row`}>
              {`×${entry.count}`}
            </span>
          )}
        </div>
        <div role="cell" className="col-key truncate" title={key ? `${key.name} (${entry.keyId})` : (entry.keyId ?? 'No key accepted')}>
          {key?.name ?? entry.keyId ?? '—'}
        </div>
        {showInstance && (
          <div role="cell" className="col-instance truncate" title={entry.instance ? `${entry.instanceName ?? entry.instance} (${entry.instance})` : 'Not served by a named instance'}>
            {entry.instanceName ?? entry.instance ?? '—'}
          </div>
        )}
        <div
          role="cell"
          className={`col-provider${target.inferred ? ' inferred' : ''}`}
          title={entry.kind === 'mcp' ? `MCP server ${entry.server ?? ''}` : target.inferred ? "Refused before the request was read: the key's provider" : undefined}
        >
          {target.provider ?? '—'}
        </div>
        <div role="cell" className="col-model" title={[entry.model, ...tags.map((tag) => tag.title)].filter(Boolean).join(' · ') || undefined}>
          <span className={`log-model truncate${target.model ? '' : ' inferred'}`}>{target.model ?? (target.inferred ? 'not read' : '—')}</span>
          {tags.length > 0 && (
            <span className="log-tags">
              {tags.map((tag) => (
                <span key={tag.text} className={`tag${tag.className ? ` ${tag.className}` : ''}`} data-dialect={tag.dialect} title={tag.title}>
                  {tag.text}
                </span>
              ))}
            </span>
          )}
        </div>
        <div role="cell" className="col-path truncate">
          {entry.path}
        </div>
        <div role="cell" className="col-latency">
          {formatDuration(entry.latencyMs)}
        </div>
        <div role="cell" className="col-tokens">
          {tokens}
        </div>
        <div role="cell" className={`col-cost${entry.costUsd === null ? ' inferred' : ''}`} title={entry.costUsd === null && tokens !== '—' ? 'No price for this model: set one in Settings → Model prices' : undefined}>
          {logCostText(entry)}
        </div>
      </div>
    );
  };

  return (
    <div role="table" aria-label="Requests" aria-rowcount={rows.length + 1} className={`log-table${showInstance ? ' log-table-instances' : ''}`}>
      <div role="rowgroup" className="log-head">
        <div role="row" aria-rowindex={1} className="log-row log-row-head">
          <div role="columnheader" className="col-time">Time</div>
          <div role="columnheader" className="col-status">Status</div>
          <div role="columnheader" className="col-key">Key</div>
          {showInstance && (
            <div role="columnheader" className="col-instance" title="The team instance that served the call">
              Instance
            </div>
          )}
          <div role="columnheader" className="col-provider" title="The provider; for an MCP call, its server">Provider</div>
          <div role="columnheader" className="col-model" title="The model; for an MCP call, its tool">Model</div>
          <div role="columnheader" className="col-path">Path</div>
          <div role="columnheader" className="col-latency">Latency</div>
          <div role="columnheader" className="col-tokens" title="Prompt / completion tokens">Tokens</div>
          <div role="columnheader" className="col-cost" title="What the call cost, in USD">Cost</div>
        </div>
      </div>
      <VirtualList<LogEntry>
        ref={listRef}
        role="rowgroup"
        className="log-body"
        items={rows}
        rowHeight={LOG_ROW_HEIGHT}
        itemKey={logKey}
        renderRow={renderRow}
        onNearEnd={onNearEnd}
      />
    </div>
  );
}
