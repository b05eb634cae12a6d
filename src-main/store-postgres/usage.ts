// Usage totals from PostgreSQL's usage_daily and usage_monthly, which the log writer adds each batch to
// (and deleted rows are taken back out of): the same report as the SQLite store gives, over local days.
import { defaultFrom, localDay, type KeySpend, type UsageFigures, type UsageReport, type UsageReportOptions, type UsageRepository } from '../core/usage.js';
import type { PgBridge } from './pg-bridge.js';
import { usageReport, wholeMonths, type PeriodRow } from '../store/usage-report.js';

const SUMS = `sum(requests)::float8 AS requests, sum(errors)::float8 AS errors, sum(prompt_tokens)::float8 AS "promptTokens",
  sum(completion_tokens)::float8 AS "completionTokens", sum(cache_read_tokens)::float8 AS "cacheReadTokens",
  sum(cache_write_tokens)::float8 AS "cacheWriteTokens", sum(reasoning_tokens)::float8 AS "reasoningTokens",
  sum(cost_nanos)::float8 AS "costNanos", sum(unpriced_requests)::float8 AS "unpricedRequests", sum(unpriced_tokens)::float8 AS "unpricedTokens"`;

type McpCalls = UsageReport['mcpCalls'];
type KeySpendRow = { keyId: string; todayNanos: number; monthNanos: number; todayUnpriced: number; monthUnpriced: number };

export class PgUsageStore implements UsageRepository {
  constructor(
    private readonly bridge: PgBridge,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Read off the serving thread (queryForAdmin: a 503 naming PostgreSQL after 5 s). */
  async report(options: UsageReportOptions): Promise<UsageReport> {
    const today = localDay(this.now());
    const to = options.to ?? today;
    const from = options.from ?? defaultFrom(options.range, this.now());
    const dim = options.by;
    let rows: PeriodRow[];
    if (options.range === 'month') {
      const { fullFrom, fullEnd } = wholeMonths(from, to, today);
      rows = (await this.bridge.queryForAdmin(`SELECT month AS period, name, ${SUMS} FROM usage_monthly WHERE dim = $1 AND month >= $4 AND month < $5 GROUP BY month, name
         UNION ALL
         SELECT substr(day, 1, 8) || '01' AS period, name, ${SUMS} FROM usage_daily
           WHERE dim = $1 AND day BETWEEN $2 AND $3 AND NOT (day >= $4 AND day < $5) GROUP BY 1, 2`, [dim, from, to, fullFrom, fullEnd])) as PeriodRow[];
    } else {
      const period = options.range === 'day' ? 'day' : "to_char(date_trunc('week', day::date), 'YYYY-MM-DD')";
      rows = (await this.bridge.queryForAdmin(`SELECT ${period} AS period, name, ${SUMS} FROM usage_daily WHERE dim = $1 AND day BETWEEN $2 AND $3 GROUP BY 1, 2`, [dim, from, to])) as PeriodRow[];
    }
    // MCP calls per server and tool over the days, most called first (read from the log's MCP rows, as on SQLite).
    const mcpCalls = (await this.bridge.queryForAdmin(`SELECT mcp_server AS server, mcp_tool AS tool, count(*)::float8 AS calls, sum((status >= 400)::int)::float8 AS errors FROM request_log
       WHERE kind = 'mcp' AND day BETWEEN $1 AND $2 GROUP BY 1, 2 ORDER BY calls DESC, server, tool LIMIT 500`, [from, to])) as McpCalls;
    return usageReport(rows, options, { from, to, now: this.now() }, mcpCalls);
  }

  async keySpend(): Promise<KeySpend[]> {
    const today = localDay(this.now());
    const monthStart = `${today.slice(0, 8)}01`;
    const rows = (await this.bridge.queryForAdmin(`SELECT name AS "keyId",
         sum(CASE WHEN day = $1 THEN cost_nanos ELSE 0 END)::float8 AS "todayNanos", sum(cost_nanos)::float8 AS "monthNanos",
         sum(CASE WHEN day = $1 THEN unpriced_requests ELSE 0 END)::float8 AS "todayUnpriced", sum(unpriced_requests)::float8 AS "monthUnpriced"
       FROM usage_daily WHERE dim = 'key' AND day BETWEEN $2 AND $1 AND name != '' GROUP BY name`, [today, monthStart])) as KeySpendRow[];
    return rows.map((row) => ({ keyId: row.keyId, todayUsd: row.todayNanos / 1e9, monthUsd: row.monthNanos / 1e9, todayUnpriced: row.todayUnpriced, monthUnpriced: row.monthUnpriced }));
  }
}
