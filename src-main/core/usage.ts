// Usage totals as the Usage and Keys pages read them: the figures, the report's shape, the local days
// they are counted in, and the contract of the store that sums them (SQLite in store/usage.ts).

export const USAGE_RANGES = ['day', 'week', 'month'] as const;
export type UsageRange = (typeof USAGE_RANGES)[number];
export const USAGE_DIMENSIONS = ['key', 'model', 'provider', 'client', 'route'] as const;
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
  /**
   * The key id, model (the one that served the call), provider slug, client name or route name; '' for calls
   * without one (no key, no model, no route).
   */
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
  /**
   * The local day the log's retention starts on, when it falls after `from`: the figures are sums over
   * the log, so calls from before it are no longer in them. null when the log still covers the range.
   */
  countedFrom: string | null;
  /** How many days the log keeps its rows (Settings), when the caller said. */
  logRetentionDays: number | null;
  /** Calls through the MCP gateway per server and tool over the same days (errors: status >= 400, a tool's isError included). */
  mcpCalls?: { server: string; tool: string; calls: number; errors: number }[];
}

export interface KeySpend {
  keyId: string;
  todayUsd: number;
  monthUsd: number;
  /** Calls today / this month whose cost is unknown. */
  todayUnpriced: number;
  monthUnpriced: number;
}

export interface UsageReportOptions {
  range: UsageRange;
  by: UsageDimension;
  /** Local days, YYYY-MM-DD, inclusive; by default the range's usual span ending today (defaultFrom). */
  from?: string;
  to?: string;
  /** How many days the log keeps its rows, for `countedFrom`. */
  logRetentionDays?: number;
}

/**
 * Where usage totals are read from. Days are the gateway's local days, as the log dates its rows. Promises on
 * both backends: PostgreSQL answers off the serving thread.
 */
export interface UsageRepository {
  /** Totals, one row per period, and one per key / model / provider / client, over local days from..to. */
  report(options: UsageReportOptions): Promise<UsageReport>;
  /** Each key's spend today and this month (local days), for the Keys page. */
  keySpend(): Promise<KeySpend[]>;
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
