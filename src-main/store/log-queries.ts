// The request log read back: a page of entries (filtered, or searched through the index of migration 5),
// one entry in full, and the purge that keeps the log within its age and size.
import type { SqliteDatabase } from './database.js';
import type { AttemptRecord } from '../core/call-record.js';
import { EMBEDDINGS_DIALECT, type LogEntry, type LogEntryDetail, type LogQuery } from '../core/log-store.js';
import { LIST_COLUMNS, toEntry, type Row } from './log-row.js';
import type { LogReader } from './request-log.js';

/** Text with a letter or digit has words for the index (migration 5); text of punctuation only is scanned for. */
function hasWords(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(text);
}

/**
 * An FTS5 phrase of the text's words, the last one a prefix: "gpt-4o-m" finds gpt-4o-mini. Quotes and
 * operators in the text are taken as plain text.
 */
function searchPhrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"*`;
}

/** SQLite answers at once: each read is a resolved promise, to the one asynchronous contract of LogReader. */
export class LogQueries implements LogReader {
  constructor(
    private readonly db: SqliteDatabase,
    /** A purge stops between slices once the log is closed. */
    private readonly isClosed: () => boolean,
  ) {}

  async list(query: LogQuery = {}): Promise<{ items: LogEntry[]; next: string | null }> {
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
    // A search walks the index's matches newest first and stops at a full page; the other filters are
    // checked on each match's row.
    const searchesIndex = query.q !== undefined && hasWords(query.q);
    const newestFirst = searchesIndex ? 'request_log_search.rowid' : 'request_log.id';
    const where: string[] = [];
    const params: Record<string, string | number> = {};
    if (query.before) {
      where.push(`${newestFirst} < @before`);
      params.before = Number(query.before);
    }
    if (query.provider) {
      where.push('request_log.provider = @provider');
      params.provider = query.provider;
    }
    if (query.model) {
      where.push('request_log.model = @model');
      params.model = query.model;
    }
    if (query.dialect) {
      where.push('request_log.dialect = @dialect');
      params.dialect = query.dialect;
    }
    if (query.route) {
      where.push('request_log.route = @route');
      params.route = query.route;
    }
    if (query.since !== undefined) {
      where.push('request_log.created_at >= @since');
      params.since = query.since;
    }
    if (query.until !== undefined) {
      where.push('request_log.created_at < @until');
      params.until = query.until;
    }
    if (query.key) {
      where.push('request_log.key_id = @key');
      params.key = query.key;
    }
    if (query.client) {
      where.push('request_log.client = @client');
      params.client = query.client;
    }
    if (query.kind === 'mcp') where.push("request_log.kind = 'mcp'");
    else if (query.kind === 'embeddings') where.push(`request_log.kind IS NULL AND request_log.dialect = '${EMBEDDINGS_DIALECT}'`);
    else if (query.kind === 'model') where.push(`request_log.kind IS NULL AND request_log.dialect IS NOT '${EMBEDDINGS_DIALECT}'`);
    // A desktop log has no instances: no row was served by a named one.
    if (query.instance) where.push('0');
    query.metadata?.forEach(([name, value], index) => {
      // The text index (migration 5 keeps the metadata's JSON text) narrows to rows with the pair's words in
      // a row, so a rare pair is not looked for in every row's JSON; the exact test is on the JSON itself.
      // The phrase is the pair as the row's JSON text writes it, so its words are the stored words.
      const pair = `${JSON.stringify(name)}:${JSON.stringify(value)}`;
      if (hasWords(pair)) {
        where.push(`request_log.id IN (SELECT rowid FROM request_log_search WHERE request_log_search MATCH @metaWords${index})`);
        params[`metaWords${index}`] = `metadata : "${pair.replaceAll('"', '""')}"`;
      }
      where.push(`EXISTS (SELECT 1 FROM json_each(request_log.metadata) WHERE json_each.key = @metaName${index} AND json_each.value = @metaValue${index})`);
      params[`metaName${index}`] = name;
      params[`metaValue${index}`] = value;
    });
    if (query.server) {
      where.push('request_log.mcp_server = @server');
      params.server = query.server;
    }
    if (query.tool) {
      where.push('request_log.mcp_tool = @tool');
      params.tool = query.tool;
    }
    if (query.status === 'error') where.push('request_log.status >= 400');
    else if (typeof query.status === 'number') {
      where.push('request_log.status = @status');
      params.status = query.status;
    }
    if (searchesIndex) {
      where.push('request_log_search MATCH @phrase');
      params.phrase = searchPhrase(query.q!);
    } else if (query.q) {
      where.push(
        "(instr(request_log.model, @q) > 0 OR instr(request_log.trace_id, @q) > 0 OR instr(ifnull(request_log.error, ''), @q) > 0 OR instr(request_log.metadata, @q) > 0 OR instr(request_log.path, @q) > 0)",
      );
      params.q = query.q;
    }
    const from = searchesIndex ? 'request_log_search JOIN request_log ON request_log.id = request_log_search.rowid' : 'request_log';
    const sql = `SELECT ${LIST_COLUMNS} FROM ${from} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${newestFirst} DESC LIMIT ${limit + 1}`;
    const rows = this.db.prepare(sql).all(params) as Row[];
    const items = rows.slice(0, limit).map(toEntry);
    return { items, next: rows.length > limit ? items[items.length - 1].id : null };
  }

  /** The key id of each row of a page (by entry id): one indexed lookup per page of an export. */
  async keyIds(ids: readonly string[]): Promise<Map<string, string | null>> {
    if (ids.length === 0) return new Map();
    const rows = this.db.prepare('SELECT id, key_id FROM request_log WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids.map(Number))) as { id: number; key_id: string | null }[];
    return new Map(rows.map((row) => [String(row.id), row.key_id]));
  }

  async get(id: string): Promise<LogEntryDetail | undefined> {
    if (!/^\d+$/.test(id)) return undefined;
    const row = this.db.prepare('SELECT * FROM request_log WHERE id = ?').get(Number(id)) as Row | undefined;
    if (!row) return undefined;
    return {
      ...toEntry(row),
      targetKeyId: row.target_key_id ?? null,
      attemptLog: row.attempt_log ? (JSON.parse(row.attempt_log) as AttemptRecord[]) : [],
      requestHeaders: row.request_headers ? (JSON.parse(row.request_headers) as Record<string, string>) : {},
      requestBody: row.request_body,
      responseBody: row.response_body,
    };
  }

  /**
   * Deletes every row older than `maxAgeMs`, then every row beyond the newest `maxRows`, one slice per
   * turn of the event loop, so a request waits on one short slice at most, never on the whole purge.
   */
  async prune(maxAgeMs: number, maxRows: number, sliceRows = 2_000): Promise<number> {
    const cutoff = Date.now() - maxAgeMs;
    let removed = await this.deleteInSlices('DELETE FROM request_log WHERE id IN (SELECT id FROM request_log WHERE created_at < ? LIMIT ?)', cutoff, sliceRows);
    if (this.isClosed()) return removed;
    // The cap is fixed once: rows written while the purge runs are never the ones it removes.
    const firstBeyondCap = this.db.prepare('SELECT id FROM request_log ORDER BY id DESC LIMIT 1 OFFSET ?').get(maxRows) as { id: number } | undefined;
    if (firstBeyondCap) {
      removed += await this.deleteInSlices('DELETE FROM request_log WHERE id IN (SELECT id FROM request_log WHERE id <= ? ORDER BY id LIMIT ?)', firstBeyondCap.id, sliceRows);
    }
    return removed;
  }

  private async deleteInSlices(sql: string, bound: number, sliceRows: number): Promise<number> {
    const statement = this.db.prepare(sql);
    let removed = 0;
    while (!this.isClosed()) {
      const changes = statement.run(bound, sliceRows).changes;
      removed += changes;
      if (changes < sliceRows) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return removed;
  }
}
