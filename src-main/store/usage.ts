// Usage totals for the Usage page and the Keys page, read from the daily totals the log writer keeps
// (usage_daily, migration 8) rather than from the log: a view costs a few hundred rows, not a scan of a
// million. Days are the gateway's local days, as the log writer dates them.
import type { SqliteDatabase } from './database.js';
import { usageReport, wholeMonths, type PeriodRow } from './usage-report.js';
import { defaultFrom, localDay, type KeySpend, type UsageFigures, type UsageReport, type UsageReportOptions, type UsageRange, type UsageRepository } from '../core/usage.js';

/** The figures of usage rows summed, named as in UsageFigures (cost still in nano-dollars). */
const SUMS = `
  sum(requests) AS requests, sum(errors) AS errors, sum(prompt_tokens) AS promptTokens, sum(completion_tokens) AS completionTokens,
  sum(cache_read_tokens) AS cacheReadTokens, sum(cache_write_tokens) AS cacheWriteTokens, sum(reasoning_tokens) AS reasoningTokens,
  sum(cost_nanos) AS costNanos, sum(unpriced_requests) AS unpricedRequests, sum(unpriced_tokens) AS unpricedTokens`;

/** SQL for the first day of a day's period (weeks start on Monday). */
const PERIOD_OF_DAY: Record<Exclude<UsageRange, 'month'>, string> = {
  day: 'day',
  // SQLite's 'weekday 1' moves forward to a Monday: from six days back that is the week's own Monday.
  week: "date(day, '-6 days', 'weekday 1')",
};

export class UsageStore implements UsageRepository {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Totals, one row per period, and one per key / model / provider / client, over local days from..to
   * (inclusive). One pass over the rows of one breakdown: days for days and weeks; for months, the monthly
   * totals of whole months and the daily ones of a month cut by from or to.
   */
  async report(options: UsageReportOptions): Promise<UsageReport> {
    const today = localDay(this.now());
    const to = options.to ?? today;
    const from = options.from ?? defaultFrom(options.range, this.now());
    const dim = options.by;
    let rows: PeriodRow[];
    if (options.range === 'month') {
      const { fullFrom, fullEnd } = wholeMonths(from, to, today);
      rows = this.db
        .prepare(
          `SELECT month AS period, name, ${SUMS} FROM usage_monthly WHERE dim = @dim AND month >= @fullFrom AND month < @fullEnd GROUP BY month, name
           UNION ALL
           SELECT date(day, 'start of month') AS period, name, ${SUMS} FROM usage_daily
             WHERE dim = @dim AND day BETWEEN @from AND @to AND NOT (day >= @fullFrom AND day < @fullEnd) GROUP BY 1, 2`,
        )
        .all({ dim, from, to, fullFrom, fullEnd }) as PeriodRow[];
    } else {
      rows = this.db
        .prepare(`SELECT ${PERIOD_OF_DAY[options.range]} AS period, name, ${SUMS} FROM usage_daily WHERE dim = @dim AND day BETWEEN @from AND @to GROUP BY 1, 2`)
        .all({ dim, from, to }) as PeriodRow[];
    }
    return usageReport(rows, options, { from, to, now: this.now() }, this.mcpCalls(from, to));
  }

  /** Each key's spend today and this month (local days), for the Keys page. */
  /** MCP calls per server and tool over local days from..to, most called first (read from the log's MCP rows, migration 14). */
  private mcpCalls(from: string, to: string): UsageReport['mcpCalls'] {
    return this.db
      .prepare(
        `SELECT mcp_server AS server, mcp_tool AS tool, COUNT(*) AS calls, SUM(status >= 400) AS errors FROM request_log
         WHERE kind = 'mcp' AND day BETWEEN @from AND @to GROUP BY 1, 2 ORDER BY calls DESC, server, tool LIMIT 500`,
      )
      .all({ from, to }) as UsageReport['mcpCalls'];
  }

  async keySpend(): Promise<KeySpend[]> {
    const today = localDay(this.now());
    const monthStart = `${today.slice(0, 8)}01`;
    const rows = this.db
      .prepare(
        `SELECT name AS keyId,
           sum(CASE WHEN day = @today THEN cost_nanos ELSE 0 END) AS todayNanos, sum(cost_nanos) AS monthNanos,
           sum(CASE WHEN day = @today THEN unpriced_requests ELSE 0 END) AS todayUnpriced, sum(unpriced_requests) AS monthUnpriced
         FROM usage_daily WHERE dim = 'key' AND day BETWEEN @monthStart AND @today AND name != '' GROUP BY name`,
      )
      .all({ today, monthStart }) as { keyId: string; todayNanos: number; monthNanos: number; todayUnpriced: number; monthUnpriced: number }[];
    return rows.map((row) => ({
      keyId: row.keyId,
      todayUsd: row.todayNanos / 1e9,
      monthUsd: row.monthNanos / 1e9,
      todayUnpriced: row.todayUnpriced,
      monthUnpriced: row.monthUnpriced,
    }));
  }
}
