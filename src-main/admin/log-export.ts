// `GET /admin/api/logs/export?format=csv|jsonl` with the filters of `GET /admin/api/logs`: the filtered
// log written as CSV or JSON Lines, streamed page by page from the database (500 rows a page, waiting for
// the client to take each before the next is read), so a million rows never sit in memory at once.
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { invalidRequest } from '../core/errors.js';
import { EMBEDDINGS_DIALECT, type ExportedLogEntry, type LogKind, type LogQuery } from '../core/log-store.js';
import type { AdminServices } from './services.js';
import { STREAMED, type AdminRoute } from './router.js';

const PAGE_ROWS = 500;

/** The columns of an export, in order: a header in CSV, the fields of each JSON line. */
const COLUMNS = [
  ['id', (row) => row.id],
  ['createdAt', (row) => row.createdAt],
  ['keyName', (row) => row.keyName],
  ['keyId', (row) => row.keyId],
  ['provider', (row) => row.provider],
  ['model', (row) => row.model],
  ['route', (row) => row.route ?? null],
  ['routeTarget', (row) => row.routeTarget ?? null],
  ['status', (row) => row.status],
  ['costUsd', (row) => row.costUsd],
  ['promptTokens', (row) => row.promptTokens],
  ['completionTokens', (row) => row.completionTokens],
  ['cacheReadTokens', (row) => row.cacheReadTokens],
  ['cacheWriteTokens', (row) => row.cacheWriteTokens],
  ['reasoningTokens', (row) => row.reasoningTokens],
  ['latencyMs', (row) => row.latencyMs],
  ['ttfbMs', (row) => row.ttfbMs],
  ['stream', (row) => row.stream],
  ['attempts', (row) => row.attempts],
  ['count', (row) => row.count ?? 1],
  ['client', (row) => row.client],
  ['dialect', (row) => row.dialect],
  ['path', (row) => row.path],
  ['traceId', (row) => row.traceId],
  ['error', (row) => row.error],
  // Last, so exports read by column position before they were added stay as they were.
  ['servedModel', (row) => row.servedModel ?? row.model],
  ['kind', (row) => kindOf(row)],
  ['server', (row) => row.server ?? null],
  ['tool', (row) => row.tool ?? null],
  ['instance', (row) => row.instanceName ?? row.instance ?? null],
  // An object in a JSON line; its JSON text in a CSV cell.
  ['metadata', (row) => row.metadata],
  ['sessionId', (row) => row.sessionId ?? null],
] as const satisfies ReadonlyArray<readonly [string, (row: ExportRow) => unknown]>;

type ExportRow = ExportedLogEntry & { keyName: string | null };

/** The kind as the `kind` filter takes it: an embeddings call is told from the other model calls by its dialect. */
function kindOf(row: ExportRow): LogKind {
  if (row.kind === 'mcp') return 'mcp';
  return row.dialect === EMBEDDINGS_DIALECT ? 'embeddings' : 'model';
}

/**
 * One CSV cell (RFC 4180 quoting). Text a spreadsheet would run as a formula (=, +, -, @ first) gets a
 * leading apostrophe: a model name or an error message from a provider is data, never a formula.
 */
function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return csvCell(JSON.stringify(value));
  if (typeof value !== 'string') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function csvLine(row: ExportRow): string {
  return `${COLUMNS.map(([, read]) => csvCell(read(row))).join(',')}\r\n`;
}

function jsonLine(row: ExportRow): string {
  return `${JSON.stringify(Object.fromEntries(COLUMNS.map(([name, read]) => [name, read(row) ?? null])))}\n`;
}

/** Writes a chunk, waiting while the client's socket is full; false once the client has gone. */
async function write(res: ServerResponse, chunk: string): Promise<boolean> {
  if (res.destroyed) return false;
  if (!res.write(chunk)) {
    // Whichever comes first; the other's listeners are removed, or a long export of a slow client
    // would leave one 'close' and one 'error' listener per wait on the response.
    const waited = new AbortController();
    try {
      await Promise.race([once(res, 'drain', { signal: waited.signal }), once(res, 'close', { signal: waited.signal })]);
    } finally {
      waited.abort();
    }
  }
  return !res.destroyed;
}

async function streamExport(services: Pick<AdminServices, 'requestLog' | 'keys' | 'shutdown'>, query: LogQuery, format: 'csv' | 'jsonl', res: ServerResponse): Promise<void> {
  const stamp = new Date().toISOString().slice(0, 19).replaceAll(':', '-');
  res.writeHead(200, {
    'content-type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
    'content-disposition': `attachment; filename="gatehouse-logs-${stamp}.${format === 'csv' ? 'csv' : 'jsonl'}"`,
    'cache-control': 'no-store',
  });
  const line = format === 'csv' ? csvLine : jsonLine;
  if (format === 'csv' && !(await write(res, `${COLUMNS.map(([name]) => name).join(',')}\r\n`))) return;
  // Rows still queued for the writer are part of the log the person is looking at.
  await services.requestLog.flush();
  const names = new Map<string, string | null>();
  const nameOf = (keyId: string | null) => {
    if (keyId === null) return null;
    if (!names.has(keyId)) names.set(keyId, services.keys.keyName(keyId) ?? null);
    return names.get(keyId)!;
  };
  let before = query.before;
  for (;;) {
    const page = await services.requestLog.exportPage({ ...query, limit: PAGE_ROWS, before });
    const text = page.items.map((item) => line({ ...item, keyName: nameOf(item.keyId) })).join('');
    if (text && !(await write(res, text))) return;
    if (!page.next || services.shutdown.aborted) break;
    before = page.next;
    // Each page is one short query: the server answers other requests between them.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  res.end();
}

/** Registered before `/logs/:id`, which would take `export` for an id. */
export function logExportRoute(parseLogQuery: (query: URLSearchParams) => LogQuery): AdminRoute {
  return {
    method: 'GET',
    path: '/logs/export',
    handle: async ({ services, query, raw }) => {
      const format = query.get('format') ?? 'csv';
      if (format !== 'csv' && format !== 'jsonl') throw invalidRequest("'format' must be csv or jsonl", 'format');
      const filters = parseLogQuery(query);
      // `limit` pages the list; an export has every row the filters take.
      delete filters.limit;
      await streamExport(services, filters, format, raw.res);
      return { status: 200, body: STREAMED };
    },
  };
}
