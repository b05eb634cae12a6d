// The request log: pages fetched newest first, new entries pushed live from the event feed, and
// the one entry whose detail is open. Live entries are batched so a burst of traffic costs one
// render, not one per request.
import { create } from 'zustand';
import { ApiError, describeError, isAbortError } from '../api/api-error';
import type { LogDetail, LogEntry, LogQuery } from '../api/types';
import type { LoadStatus } from './keys-store';
import { matchesSearch } from '../logs/search-text';
import { connectionMayHaveDropped, requireAdminClient } from './session-store';

/** '' for all, 'error' for any status of 400 or more, or one exact status code (the admin API's forms). */
export type StatusFilter = string;

export interface LogFilters {
  provider: string;
  model: string;
  /** '' for all, or one client dialect (CLIENT_DIALECTS). */
  dialect: string;
  status: StatusFilter;
  q: string;
  /** '' for all, or a route's name. */
  route: string;
  /** A date range in local days (YYYY-MM-DD, as a date input gives it), both days included; '' for open. */
  from: string;
  to: string;
  /** '' for all, or the caller's key id. */
  key: string;
  /** '' for all, or 'model', 'embeddings', 'mcp' (the admin API's kinds). */
  kind: string;
  /** An MCP server's and tool's name, exact; '' for all. */
  server: string;
  tool: string;
  /** Team mode: an instance's name; '' for all. */
  instance: string;
  /** One metadata entry as name=value; '' for none. */
  metadata: string;
  /** '' for all, or a client tool (the Usage page's client breakdown opens Logs with it). */
  client: string;
}

export const EMPTY_FILTERS: LogFilters = { provider: '', model: '', dialect: '', status: '', q: '', route: '', from: '', to: '', key: '', kind: '', server: '', tool: '', instance: '', metadata: '', client: '' };

/** The kind of a row as the `kind` filter names it: an embeddings call is a model call of the embeddings dialect. */
export function kindOf(entry: Pick<LogEntry, 'kind' | 'dialect'>): 'model' | 'embeddings' | 'mcp' {
  if (entry.kind === 'mcp') return 'mcp';
  return entry.dialect === 'openai-embeddings' ? 'embeddings' : 'model';
}

/** A metadata filter as typed ("team=search"): its name and value, or null while it has no '=' after a name. */
export function metadataPair(text: string): [string, string] | null {
  const split = text.indexOf('=');
  return split > 0 ? [text.slice(0, split).trim(), text.slice(split + 1).trim()] : null;
}

/** The start of a local day (YYYY-MM-DD) in epoch ms, `days` later; undefined for ''. */
function localDayStart(day: string, days = 0): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  return new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + days).getTime();
}

/** The date range as the admin API's bounds: from the first day's midnight to the midnight after the last. */
export function rangeOf(filters: Pick<LogFilters, 'from' | 'to'>): { since?: number; until?: number } {
  return { since: localDayStart(filters.from), until: localDayStart(filters.to, 1) };
}
export const LOG_PAGE_SIZE = 200;
const LIVE_FLUSH_MS = 120;
/** A page left open for days keeps at most this many rows; the oldest fall off (they stay in the log). */
export const MAX_ROWS_IN_MEMORY = 250_000;
const LIVE_RETRY_MS = 3000;

export type LiveState = 'off' | 'connecting' | 'live' | 'retrying';

/**
 * Whether a live entry belongs in the list under the current filters. Pages are filtered by the
 * server; this mirrors it for entries pushed live: provider, model and dialect match exactly, and the
 * search text by the server's own rule (word prefixes), as there.
 */
export function matchesFilters(entry: LogEntry, filters: LogFilters): boolean {
  if (filters.provider && entry.provider !== filters.provider) return false;
  if (filters.model && entry.model !== filters.model) return false;
  if (filters.dialect && entry.dialect !== filters.dialect) return false;
  if (filters.route && entry.route !== filters.route) return false;
  if (filters.key && entry.keyId !== filters.key) return false;
  if (filters.client && entry.client !== filters.client) return false;
  if (filters.kind && kindOf(entry) !== filters.kind) return false;
  if (filters.server && entry.server !== filters.server) return false;
  if (filters.tool && entry.tool !== filters.tool) return false;
  if (filters.instance && entry.instanceName !== filters.instance) return false;
  const pair = metadataPair(filters.metadata);
  if (pair && entry.metadata?.[pair[0]] !== pair[1]) return false;
  if (filters.status === 'error' && entry.status < 400) return false;
  if (filters.status && filters.status !== 'error' && entry.status !== Number(filters.status)) return false;
  // The same search as the server's (search-text.ts), so a live row shows only if a reload would show it.
  if (filters.q && !matchesSearch(entry, filters.q)) return false;
  const { since, until } = rangeOf(filters);
  const at = Date.parse(entry.createdAt);
  if ((since !== undefined && at < since) || (until !== undefined && at >= until)) return false;
  return true;
}

export interface LogSummary {
  sampled: number;
  errorRate: number;
  medianLatencyMs: number | null;
}

/** How the most recent requests went: share of failures and median latency, over at most `limit` rows. */
export function summarize(rows: readonly LogEntry[], limit = 2000): LogSummary {
  const sample = rows.slice(0, limit);
  if (!sample.length) return { sampled: 0, errorRate: 0, medianLatencyMs: null };
  const failures = sample.filter((entry) => entry.status >= 400 || entry.error).length;
  const latencies = sample.map((entry) => entry.latencyMs).filter((value): value is number => typeof value === 'number').sort((a, b) => a - b);
  return {
    sampled: sample.length,
    errorRate: failures / sample.length,
    medianLatencyMs: latencies.length ? latencies[Math.floor((latencies.length - 1) / 2)] : null,
  };
}

/** The metadata filter as the query's pairs; a text without a name and '=' is not a filter yet. */
function metadataOf(text: string): LogQuery['metadata'] {
  const pair = metadataPair(text);
  return pair ? [pair] : undefined;
}

/** The filters as the admin API's query: the list's, and the export's (which takes the same). */
export function filterQueryOf(filters: LogFilters): Omit<LogQuery, 'limit' | 'before'> {
  return {
    provider: filters.provider || undefined,
    model: filters.model || undefined,
    dialect: filters.dialect || undefined,
    status: filters.status || undefined,
    q: filters.q || undefined,
    route: filters.route || undefined,
    key: filters.key || undefined,
    client: filters.client || undefined,
    kind: (filters.kind || undefined) as LogQuery['kind'],
    server: filters.server || undefined,
    tool: filters.tool || undefined,
    instance: filters.instance || undefined,
    metadata: metadataOf(filters.metadata),
    ...rangeOf(filters),
  };
}

export function queryOf(filters: LogFilters, before?: string): LogQuery {
  return {
    limit: LOG_PAGE_SIZE,
    before,
    ...filterQueryOf(filters),
  };
}

interface LogsState {
  rows: LogEntry[];
  next: string | null;
  filters: LogFilters;
  status: LoadStatus;
  loadError: string | null;
  loadingMore: boolean;
  live: LiveState;
  liveError: string | null;
  selectedId: string | null;
  detail: LogDetail | null;
  detailStatus: LoadStatus;
  detailError: string | null;

  load(): Promise<void>;
  loadMore(): Promise<void>;
  setFilters(patch: Partial<LogFilters>): void;
  receiveLive(entry: LogEntry): void;
  startLive(): void;
  stopLive(): void;
  select(id: string | null): Promise<void>;
}

let listRequest: AbortController | null = null;
let detailRequest: AbortController | null = null;
let liveConnection: AbortController | null = null;
let liveBuffer: LogEntry[] = [];
let liveFlushTimer: ReturnType<typeof setTimeout> | null = null;
const knownIds = new Set<string>();

export const useLogsStore = create<LogsState>()((set, get) => ({
  rows: [],
  next: null,
  filters: EMPTY_FILTERS,
  status: 'idle',
  loadError: null,
  loadingMore: false,
  live: 'off',
  liveError: null,
  selectedId: null,
  detail: null,
  detailStatus: 'idle',
  detailError: null,

  async load() {
    listRequest?.abort();
    const controller = new AbortController();
    listRequest = controller;
    set({ status: 'loading', loadError: null });
    try {
      const page = await requireAdminClient().logs(queryOf(get().filters), controller.signal);
      knownIds.clear();
      for (const entry of page.items) knownIds.add(entry.id);
      set({ rows: page.items, next: page.next, status: 'ready' });
    } catch (error) {
      if (!isAbortError(error)) set({ status: 'error', loadError: describeError(error) });
    }
  },
  async loadMore() {
    const { next, loadingMore, filters } = get();
    if (!next || loadingMore) return;
    set({ loadingMore: true });
    try {
      const page = await requireAdminClient().logs(queryOf(filters, next));
      const fresh = page.items.filter((entry) => !knownIds.has(entry.id));
      for (const entry of fresh) knownIds.add(entry.id);
      set({ rows: get().rows.concat(fresh), next: page.next, loadingMore: false });
    } catch (error) {
      set({ loadingMore: false, loadError: describeError(error) });
    }
  },
  setFilters(patch) {
    set({ filters: { ...get().filters, ...patch } });
    void get().load();
  },
  receiveLive(entry) {
    liveBuffer.push(entry);
    if (liveFlushTimer) return;
    liveFlushTimer = setTimeout(() => {
      liveFlushTimer = null;
      const { filters, rows } = get();
      const arrivals = liveBuffer.filter((item) => !knownIds.has(item.id) && matchesFilters(item, filters));
      liveBuffer = [];
      if (!arrivals.length) return;
      for (const item of arrivals) knownIds.add(item.id);
      // Events arrive oldest first; the list is newest first.
      arrivals.reverse();
      let next = arrivals.concat(rows);
      if (next.length > MAX_ROWS_IN_MEMORY) {
        for (const dropped of next.slice(MAX_ROWS_IN_MEMORY)) knownIds.delete(dropped.id);
        next = next.slice(0, MAX_ROWS_IN_MEMORY);
      }
      set({ rows: next });
    }, LIVE_FLUSH_MS);
  },
  startLive() {
    if (liveConnection) return;
    const controller = new AbortController();
    liveConnection = controller;
    const connect = async (): Promise<void> => {
      while (!controller.signal.aborted) {
        set({ live: get().live === 'retrying' ? 'retrying' : 'connecting' });
        try {
          const client = requireAdminClient();
          const isReconnect = get().live === 'retrying';
          await client.followLogEvents((entry) => get().receiveLive(entry), controller.signal, () => {
            set({ live: 'live', liveError: null });
            // Entries written while the feed was down are fetched again with the first page.
            if (isReconnect) void get().load();
          });
        } catch (error) {
          if (controller.signal.aborted || isAbortError(error)) return;
          set({ live: 'retrying', liveError: describeError(error) });
        }
        if (controller.signal.aborted) return;
        connectionMayHaveDropped();
        set({ live: 'retrying' });
        await new Promise((resolve) => setTimeout(resolve, LIVE_RETRY_MS));
      }
    };
    void connect();
  },
  stopLive() {
    liveConnection?.abort();
    liveConnection = null;
    set({ live: 'off' });
  },
  async select(id) {
    detailRequest?.abort();
    if (!id) {
      set({ selectedId: null, detail: null, detailStatus: 'idle', detailError: null });
      return;
    }
    const controller = new AbortController();
    detailRequest = controller;
    set({ selectedId: id, detailStatus: 'loading', detailError: null });
    try {
      const detail = await requireAdminClient().logDetail(id, controller.signal);
      if (get().selectedId === id) set({ detail, detailStatus: 'ready' });
    } catch (error) {
      if (isAbortError(error)) return;
      const message = error instanceof ApiError && error.status === 404 ? 'This entry is no longer in the log (retention may have removed it).' : describeError(error);
      set({ detail: null, detailStatus: 'error', detailError: message });
    }
  },
}));

/** For tests: forget ids and pending live entries between cases. */
export function resetLogsStoreForTests(): void {
  knownIds.clear();
  liveBuffer = [];
  if (liveFlushTimer) clearTimeout(liveFlushTimer);
  liveFlushTimer = null;
  listRequest = null;
  detailRequest = null;
  liveConnection?.abort();
  liveConnection = null;
  useLogsStore.setState({ rows: [], next: null, filters: EMPTY_FILTERS, status: 'idle', loadError: null, live: 'off', selectedId: null, detail: null, detailStatus: 'idle' });
}
