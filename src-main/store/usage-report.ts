// The Usage report from summed usage rows, whichever database summed them (SQLite here, PostgreSQL in
// store-postgres/): the whole months a month view reads from the monthly totals, and the rows folded into
// totals, a series per period and a breakdown per name.
import { localDay, type UsageFigures, type UsageReport, type UsageReportOptions } from '../core/usage.js';

/** A summed row: UsageFigures with the cost still in nano-dollars. */
export type SumRow = Omit<UsageFigures, 'costUsd'> & { costNanos: number };
export type PeriodRow = SumRow & { period: string; name: string };

const zero = (): SumRow => ({ requests: 0, errors: 0, promptTokens: 0, completionTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, costNanos: 0, unpricedRequests: 0, unpricedTokens: 0 });

function add(into: SumRow, row: SumRow): void {
  for (const figure of Object.keys(into) as (keyof SumRow)[]) into[figure] += row[figure];
}

function figures(sums: SumRow): UsageFigures {
  const { costNanos, ...rest } = sums;
  return { ...rest, costUsd: costNanos / 1e9 };
}

/** The day `days` after a YYYY-MM-DD day. */
function shiftDay(day: string, days: number): string {
  const date = new Date(`${day}T12:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** The first day of the month after a month's first day. */
function nextMonth(month: string): string {
  const date = new Date(`${month}T12:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + 1, 1);
  return date.toISOString().slice(0, 10);
}

/**
 * The whole months of from..to, [fullFrom, fullEnd): read from the monthly totals; the days outside them
 * (a month cut by from or to) from the daily ones. A month holding today counts as whole: nothing is later.
 */
export function wholeMonths(from: string, to: string, today: string): { fullFrom: string; fullEnd: string } {
  const fullFrom = from.endsWith('-01') ? from : nextMonth(`${from.slice(0, 8)}01`);
  const toMonth = `${to.slice(0, 8)}01`;
  const fullEnd = to >= today || shiftDay(to, 1) === nextMonth(toMonth) ? nextMonth(toMonth) : toMonth;
  return { fullFrom, fullEnd };
}

/** The report from one breakdown's rows over from..to (local days). */
export function usageReport(rows: readonly PeriodRow[], options: UsageReportOptions, span: { from: string; to: string; now: Date }, mcpCalls: UsageReport['mcpCalls']): UsageReport {
  const { from, to } = span;
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
  const retainedFrom = options.logRetentionDays === undefined ? null : localDay(new Date(span.now.getTime() - options.logRetentionDays * 86_400_000));
  const countedFrom = retainedFrom !== null && retainedFrom > from ? retainedFrom : null;
  return { range: options.range, by: options.by, from, to, totals: figures(totals), series, breakdown, countedFrom, logRetentionDays: options.logRetentionDays ?? null, mcpCalls };
}
