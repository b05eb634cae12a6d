// A batch's additions to the usage totals (usage_daily and usage_monthly, migration 8), summed in memory
// as the batch is written. log-writer-thread.ts runs the same function on its thread, with USAGE_COLUMNS.
import { USAGE_DIMENSION_COLUMNS, USAGE_ON_CONFLICT, usageUpsert } from './migrations.js';
import { COLUMN_INDEX, type RowValues } from './log-row.js';

/**
 * Add the rows of request_log from an id on to the daily and monthly usage totals (migration 8) in SQL:
 * for rows written in bulk (the benchmark). The log writer adds its batches with USAGE_UPSERT instead.
 */
export const USAGE_FOR_BATCH: readonly string[] = [usageUpsert('usage_daily', '?'), usageUpsert('usage_monthly', '?')];

const usageValues = (table: string, period: string) =>
  `INSERT INTO ${table} (${period}, dim, name, requests, errors, prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens,
     reasoning_tokens, cost_nanos, unpriced_requests, unpriced_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ${USAGE_ON_CONFLICT}`;

/** One usage row's additions, for usage_daily and usage_monthly: the batch's figures summed per day (month), breakdown and name. */
export const USAGE_UPSERT = { daily: usageValues('usage_daily', 'day'), monthly: usageValues('usage_monthly', 'month') } as const;

/** A batch's additions to the usage tables, in the columns of USAGE_UPSERT. */
export interface UsageDeltas {
  daily: RowValues[];
  monthly: RowValues[];
}

const DIMENSION_INDEXES = Object.entries(USAGE_DIMENSION_COLUMNS).map(([dim, column]) => [dim, COLUMN_INDEX[column]] as const);

/** Where usageOfBatch finds its figures in a row: handed to the writer thread, which sums its batches itself. */
export const USAGE_COLUMNS = {
  day: COLUMN_INDEX.day,
  status: COLUMN_INDEX.status,
  prompt: COLUMN_INDEX.prompt_tokens,
  completion: COLUMN_INDEX.completion_tokens,
  cacheRead: COLUMN_INDEX.cache_read_tokens,
  cacheWrite: COLUMN_INDEX.cache_write_tokens,
  reasoning: COLUMN_INDEX.reasoning_tokens,
  cost: COLUMN_INDEX.cost_usd,
  dimensions: DIMENSION_INDEXES.map(([dim, index]) => [dim, index] as [string, number]),
};
export type UsageColumns = typeof USAGE_COLUMNS;

/**
 * A batch's usage, summed in memory per day and month, breakdown and name, with the same figures as the
 * SQL of migration 8 (usageUpsert): a batch then costs the writer a handful of single-row upserts rather
 * than grouping queries over the rows it just wrote.
 */
export function usageOfBatch(rows: RowValues[]): UsageDeltas {
  return sumBatchUsage(rows, USAGE_COLUMNS);
}

/**
 * usageOfBatch's work, given where the figures are. It refers to nothing outside itself: the log writer
 * thread runs this very function from its source text (log-writer-thread.ts), so both writers sum alike.
 */
export function sumBatchUsage(rows: RowValues[], columns: UsageColumns): UsageDeltas {
  // The rows of a batch mostly share their day, key, model, provider and client: summed per distinct
  // such row first, then spread over the breakdowns (a map key per row rather than one per breakdown).
  const groups = new Map<string, { row: RowValues; figures: number[] }>();
  for (const row of rows) {
    let group = row[columns.day] as string;
    // Each name with its length: no name (a model may be any string) can run into the next.
    for (const [, index] of columns.dimensions) {
      const name = (row[index] as string | null) ?? '';
      group += '\u0000' + name.length + ':' + name;
    }
    const prompt = row[columns.prompt] as number | null;
    const completion = row[columns.completion] as number | null;
    const cost = row[columns.cost] as number | null;
    const unpriced = cost === null && prompt !== null;
    const figures = [
      1,
      (row[columns.status] as number) >= 400 ? 1 : 0,
      prompt ?? 0,
      completion ?? 0,
      (row[columns.cacheRead] as number | null) ?? 0,
      (row[columns.cacheWrite] as number | null) ?? 0,
      (row[columns.reasoning] as number | null) ?? 0,
      cost === null ? 0 : Math.round(cost * 1e9),
      unpriced ? 1 : 0,
      cost === null ? (prompt ?? 0) + (completion ?? 0) : 0,
    ];
    const existing = groups.get(group);
    if (!existing) groups.set(group, { row, figures });
    else for (let index = 0; index < figures.length; index++) existing.figures[index] += figures[index];
  }
  const daily = new Map<string, RowValues>();
  const monthly = new Map<string, RowValues>();
  for (const { row, figures } of groups.values()) {
    const day = row[columns.day] as string;
    const month = day.slice(0, 8) + '01';
    for (const [dim, index] of columns.dimensions) {
      const name = (row[index] as string | null) ?? '';
      for (const [table, period] of [[daily, day], [monthly, month]] as const) {
        const key = period + '\u0000' + dim + '\u0000' + name;
        const existing = table.get(key);
        if (!existing) table.set(key, [period, dim, name, ...figures]);
        else for (let index = 0; index < figures.length; index++) (existing[index + 3] as number) += figures[index];
      }
    }
  }
  return { daily: [...daily.values()], monthly: [...monthly.values()] };
}
