// Usage totals for the Usage page and the Keys page, read from the daily totals the log writer keeps
// (usage_daily, migration 8) rather than from the log: a view costs a few hundred rows, not a scan of a
// million. Days are the gateway's local days, as the log writer dates them.
import type { SqliteDatabase } from './database.js';
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

/** A summed row: UsageFigures with the cost still in nano-dollars. */
type SumRow = Omit<UsageFigures, 'costUsd'> & { costNanos: number };

const zero = (): SumRow => ({
  requests: 0,
  errors: 0,
  promptTokens: 0,
  completionTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  costNanos: 0,
  unpricedRequests: 0,
  unpricedTokens: 0,
});

function add(into: SumRow, row: SumRow): void {
  for (const figure of Object.keys(into) as (keyof SumRow)[]) into[figure] += row[figure];
}

function figures(sums: SumRow): UsageFigures {
  const { costNanos, ...rest } = sums;
  return { ...rest, costUsd: costNanos / 1e9 };
}

/** The day after a YYYY-MM-DD day, and the first day of the month after a month's first day. */
function shiftDay(day: string, days: number): string {
  const date = new Date(`${day}T12:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

function nextMonth(month: string): string {
  const date = new Date(`${month}T12:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + 1, 1);
  return date.toISOString().slice(0, 10);
}

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
  report(options: UsageReportOptions): UsageReport {
    const today = localDay(this.now());
    const to = options.to ?? today;
    const from = options.from ?? defaultFrom(options.range, this.now());
    const dim = options.by;
    let rows: (SumRow & { period: string; name: string })[];
    if (options.range === 'month') {
      // Whole months: from their first day, up to one that ends by `to` (or holds today: nothing is later).
      const fullFrom = from.endsWith('-01') ? from : nextMonth(`${from.slice(0, 8)}01`);
      const toMonth = `${to.slice(0, 8)}01`;
      const fullEnd = to >= today || shiftDay(to, 1) === nextMonth(toMonth) ? nextMonth(toMonth) : toMonth;
      rows = this.db
        .prepare(
          `SELECT month AS period, name, ${SUMS} FROM usage_monthly WHERE dim = @dim AND month >= @fullFrom AND month < @fullEnd GROUP BY month, name
           UNION ALL
           SELECT date(day, 'start of month') AS period, name, ${SUMS} FROM usage_daily
             WHERE dim = @dim AND day BETWEEN @from AND @to AND NOT (day >= @fullFrom AND day < @fullEnd) GROUP BY 1, 2`,
        )
        .all({ dim, from, to, fullFrom, fullEnd }) as (SumRow & { period: string; name: string })[];
    } else {
      rows = this.db
        .prepare(`SELECT ${PERIOD_OF_DAY[options.range]} AS period, name, ${SUMS} FROM usage_daily WHERE dim = @dim AND day BETWEEN @from AND @to GROUP BY 1, 2`)
        .all({ dim, from, to }) as (SumRow & { period: string; name: string })[];
    }
    const totals = zero();
    const byPeriod = new Map<string, SumRow>();
    const byName = new Map<string, SumRow>();
    for (const row of rows) {
      add(totals, row);
      let period = byPeriod.get(row.period);
      if (!period) byPeriod.set(row.period, (period = zero()));
      add(period, row);
      let group = byName.get(row.name);
      if (!group) byName.set(row.name, (group = zero()));
      add(group, row);
    }
    // Rows whose calls were all deleted (retention) stay at zero in the tables: not shown.
    const series = [...byPeriod]
      .filter(([, sums]) => sums.requests > 0)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([period, sums]) => ({ period, ...figures(sums) }));
    const breakdown = [...byName]
      .filter(([, sums]) => sums.requests > 0)
      .sort(([nameA, a], [nameB, b]) => b.costNanos - a.costNanos || b.requests - a.requests || (nameA < nameB ? -1 : 1))
      .map(([name, sums]) => ({ name, ...figures(sums) }));
    const retainedFrom = options.logRetentionDays === undefined ? null : localDay(new Date(this.now().getTime() - options.logRetentionDays * 86_400_000));
    const countedFrom = retainedFrom !== null && retainedFrom > from ? retainedFrom : null;
    return { range: options.range, by: dim, from, to, totals: figures(totals), series, breakdown, countedFrom, logRetentionDays: options.logRetentionDays ?? null, mcpCalls: this.mcpCalls(from, to) };
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

  keySpend(): KeySpend[] {
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
