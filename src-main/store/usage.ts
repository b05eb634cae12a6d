// Usage totals for the Usage page and the Keys page, read from the daily totals the log writer keeps
// (usage_daily, migration 8) rather than from the log: a view costs a few hundred rows, not a scan of a
// million. Days are the gateway's local days, as the log writer dates them.
import type { SqliteDatabase } from './database.js';

export const USAGE_RANGES = ['day', 'week', 'month'] as const;
export type UsageRange = (typeof USAGE_RANGES)[number];
export const USAGE_DIMENSIONS = ['key', 'model', 'provider', 'client'] as const;
export type UsageDimension = (typeof USAGE_DIMENSIONS)[number];

export interface UsageFigures {
  requests: number;
  errors: number;
  promptTokens: number;
  completionTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  /** The cost of the priced calls, USD. */
  costUsd: number;
  /** Calls with usage whose model has no price: their cost is unknown, and not in costUsd. */
  unpricedRequests: number;
  unpricedTokens: number;
}

export interface UsagePeriod extends UsageFigures {
  /** The first day of the period (YYYY-MM-DD): the day, the Monday of the week, the 1st of the month. */
  period: string;
}

export interface UsageGroup extends UsageFigures {
  /** The key id, model, provider slug or client name; '' for calls without one (no key, no model). */
  name: string;
}

export interface UsageReport {
  range: UsageRange;
  by: UsageDimension;
  from: string;
  to: string;
  totals: UsageFigures;
  series: UsagePeriod[];
  breakdown: UsageGroup[];
}

export interface KeySpend {
  keyId: string;
  todayUsd: number;
  monthUsd: number;
  /** Calls today / this month whose cost is unknown. */
  todayUnpriced: number;
  monthUnpriced: number;
}

const SUMS = `
  sum(requests) AS requests, sum(errors) AS errors, sum(prompt_tokens) AS promptTokens, sum(completion_tokens) AS completionTokens,
  sum(cache_read_tokens) AS cacheReadTokens, sum(cache_write_tokens) AS cacheWriteTokens, sum(reasoning_tokens) AS reasoningTokens,
  sum(cost_nanos) AS costNanos, sum(unpriced_requests) AS unpricedRequests, sum(unpriced_tokens) AS unpricedTokens`;

/** SQL for the first day of a day's period. */
const PERIOD_OF: Record<UsageRange, string> = {
  day: 'day',
  // SQLite's 'weekday 1' moves forward to a Monday: from six days back that is the week's own Monday.
  week: "date(day, '-6 days', 'weekday 1')",
  month: "date(day, 'start of month')",
};

const COLUMN_OF: Record<UsageDimension, string> = { key: 'key_id', model: 'model', provider: 'provider', client: 'client' };

interface SumRow {
  requests: number | null;
  errors: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  reasoningTokens: number | null;
  costNanos: number | null;
  unpricedRequests: number | null;
  unpricedTokens: number | null;
}

function figures(row: SumRow | undefined): UsageFigures {
  return {
    requests: row?.requests ?? 0,
    errors: row?.errors ?? 0,
    promptTokens: row?.promptTokens ?? 0,
    completionTokens: row?.completionTokens ?? 0,
    cacheReadTokens: row?.cacheReadTokens ?? 0,
    cacheWriteTokens: row?.cacheWriteTokens ?? 0,
    reasoningTokens: row?.reasoningTokens ?? 0,
    costUsd: (row?.costNanos ?? 0) / 1e9,
    unpricedRequests: row?.unpricedRequests ?? 0,
    unpricedTokens: row?.unpricedTokens ?? 0,
  };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A local day as YYYY-MM-DD, as SQLite's date(…, 'localtime') writes it. */
export function localDay(time: Date): string {
  return `${time.getFullYear()}-${pad(time.getMonth() + 1)}-${pad(time.getDate())}`;
}

/** The default span of each range, ending today: 30 days, 12 weeks, 12 months. */
export function defaultFrom(range: UsageRange, now: Date): string {
  const start = new Date(now);
  if (range === 'day') start.setDate(start.getDate() - 29);
  else if (range === 'week') start.setDate(start.getDate() - 7 * 11 - ((start.getDay() + 6) % 7));
  else {
    start.setDate(1);
    start.setMonth(start.getMonth() - 11);
  }
  return localDay(start);
}

export class UsageStore {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Totals, one row per period, and one per key / model / provider / client, over local days from..to (inclusive). */
  report(options: { range: UsageRange; by: UsageDimension; from?: string; to?: string }): UsageReport {
    const now = this.now();
    const to = options.to ?? localDay(now);
    const from = options.from ?? defaultFrom(options.range, now);
    const span = { from, to };
    const totals = this.db.prepare(`SELECT ${SUMS} FROM usage_daily WHERE day BETWEEN @from AND @to`).get(span) as SumRow;
    const period = PERIOD_OF[options.range];
    const series = (
      this.db.prepare(`SELECT ${period} AS period, ${SUMS} FROM usage_daily WHERE day BETWEEN @from AND @to GROUP BY 1 ORDER BY 1`).all(span) as (SumRow & { period: string })[]
    ).map((row) => ({ period: row.period, ...figures(row) }));
    const column = COLUMN_OF[options.by];
    const breakdown = (
      this.db
        .prepare(`SELECT ${column} AS name, ${SUMS} FROM usage_daily WHERE day BETWEEN @from AND @to GROUP BY 1 ORDER BY sum(cost_nanos) DESC, sum(requests) DESC, 1`)
        .all(span) as (SumRow & { name: string })[]
    ).map((row) => ({ name: row.name, ...figures(row) }));
    return { range: options.range, by: options.by, from, to, totals: figures(totals), series, breakdown };
  }

  /** Each key's spend today and this month (local days), for the Keys page. */
  keySpend(): KeySpend[] {
    const now = this.now();
    const today = localDay(now);
    const monthStart = `${today.slice(0, 8)}01`;
    const rows = this.db
      .prepare(
        `SELECT key_id AS keyId,
           sum(CASE WHEN day = @today THEN cost_nanos ELSE 0 END) AS todayNanos, sum(cost_nanos) AS monthNanos,
           sum(CASE WHEN day = @today THEN unpriced_requests ELSE 0 END) AS todayUnpriced, sum(unpriced_requests) AS monthUnpriced
         FROM usage_daily WHERE day BETWEEN @monthStart AND @today AND key_id != '' GROUP BY key_id`,
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
