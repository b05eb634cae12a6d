// Agent sessions read from PostgreSQL's request log: the same walk and shapes as SQLite's
// (store/session-queries.ts), its reads in PostgreSQL's SQL, off the serving thread (queryForAdmin).
import type { SessionDetail, SessionQuery, SessionRepository, SessionSummary } from '../core/agent-sessions.js';
import { CALL_COLUMNS, getSession, listSessions, sessionFilters, TOTALS_SELECT, type CallRow, type SeenRow, type SessionReads, type TotalsRow } from '../store/session-queries.js';
import type { PgBridge } from './pg-bridge.js';

/** `?` placeholders numbered from `first`. */
function numbered(sql: string, first = 1): string {
  let n = first;
  return sql.replace(/\?/g, () => `$${n++}`);
}

export class PgSessions implements SessionRepository {
  private readonly reads: SessionReads;

  constructor(bridge: PgBridge) {
    const filtersAfter = (query: SessionQuery, first: number) => {
      const { where, params } = sessionFilters(query);
      return { sql: numbered(where.map((w) => `AND ${w}`).join(' '), first), params };
    };
    this.reads = {
      seen: async (query, before, limit) => {
        const filters = filtersAfter(query, 4);
        return bridge.queryForAdmin<SeenRow>(
          `SELECT session_id, created_at, id FROM request_log WHERE session_id IS NOT NULL AND (created_at, id) < ($1, $2) ${filters.sql} ORDER BY created_at DESC, id DESC LIMIT $3`,
          [before.at, before.id, limit, ...filters.params],
        );
      },
      seenAfter: async (sessionId, query, at) => {
        const filters = filtersAfter(query, 3);
        return (await bridge.queryForAdmin(`SELECT 1 FROM request_log WHERE session_id = $1 AND created_at > $2 ${filters.sql} LIMIT 1`, [sessionId, at, ...filters.params])).length > 0;
      },
      totals: async (ids) => (ids.length === 0 ? [] : bridge.queryForAdmin<TotalsRow>(`${TOTALS_SELECT} WHERE session_id = ANY($1) GROUP BY session_id`, [ids])),
      calls: (id, limit) => bridge.queryForAdmin<CallRow>(`SELECT ${CALL_COLUMNS} FROM request_log WHERE session_id = $1 ORDER BY created_at, id LIMIT $2`, [id, limit]),
    };
  }

  list(query: SessionQuery): Promise<{ items: SessionSummary[]; next: number | null }> {
    return listSessions(this.reads, query);
  }

  get(id: string): Promise<SessionDetail | undefined> {
    return getSession(this.reads, id);
  }
}
