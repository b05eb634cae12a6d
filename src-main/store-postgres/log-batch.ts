// A batch of log rows as the statements that write it to PostgreSQL: ids taken from the log's sequence,
// the rows by COPY with their search words and the instance that served them, the batch's usage added to
// the daily and monthly totals. The statements are built on the PostgreSQL bridge's thread from the rows
// themselves (pg-bridge.ts runs logBatchStatements from its source text), so the gateway's thread only
// hands the rows over, as it does to SQLite's writer thread.
import { COLUMN_INDEX, type RowValues } from '../store/log-row.js';
import { sumBatchUsage, USAGE_COLUMNS, type UsageColumns, type UsageDeltas } from '../store/log-usage-rollup.js';
import type { Statement } from './pg-bridge.js';
import { searchText } from './search-vector.js';

/** What logBatchStatements is given besides the rows: plain data, so the bridge's worker can be handed it. */
export interface LogBatchPlan {
  /** The batch's ids, taken from the log's sequence in order (a COPY returns none); $1 is how many. */
  takeIds: Statement;
  /** The COPY of the rows: the id, the row's values, its search words, the instance. */
  copySql: string;
  /** Where the texts a row is searched by are in a row, in the order the search index numbers their words. */
  searched: number[];
  usageColumns: UsageColumns;
  /** The figures of a usage row after its period, dim and name (the columns of sumBatchUsage's rows). */
  usageFigures: string[];
  /** Rows per usage INSERT: PostgreSQL takes at most 65535 parameters a statement. */
  rowsPerInsert: number;
}

export interface LogBatchHelpers {
  searchVector(texts: readonly (string | null | undefined)[]): string;
  sumBatchUsage(rows: RowValues[], columns: UsageColumns): UsageDeltas;
}

/** The written columns, in the order of RowValues; SQLite's dialect_given is PostgreSQL's plain `dialect`. */
const ROW_COLUMNS = Object.keys(COLUMN_INDEX).map((column) => (column === 'dialect_given' ? 'dialect' : column));

export const LOG_BATCH_PLAN: LogBatchPlan = {
  takeIds: { name: 'gatehouse_take_log_ids', sql: "SELECT nextval(pg_get_serial_sequence('request_log', 'id')) AS id FROM generate_series(1, $1::int)" },
  // PostgreSQL reads COPY's text format far more cheaply than the same values as INSERT parameters (array
  // literals to parse, escaped JSON bodies), which cost it about a fifth of each row's insert.
  copySql: `COPY request_log (id, ${ROW_COLUMNS.join(', ')}, search, instance_id) FROM STDIN`,
  searched: [COLUMN_INDEX.model, COLUMN_INDEX.trace_id, COLUMN_INDEX.error, COLUMN_INDEX.metadata, COLUMN_INDEX.path],
  usageColumns: USAGE_COLUMNS,
  usageFigures: ['requests', 'errors', 'prompt_tokens', 'completion_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'cost_nanos', 'unpriced_requests', 'unpriced_tokens'],
  rowsPerInsert: 1_000,
};

/**
 * The statements that write one batch of rows and its usage, for one instance. It refers to nothing
 * outside itself and its arguments: the bridge's worker runs this very function from its source text.
 */
export function logBatchStatements(rows: RowValues[], instanceId: string | null, plan: LogBatchPlan, helpers: LogBatchHelpers): Statement[] {
  const statements: Statement[] = [
    { ...plan.takeIds, params: [rows.length] },
    {
      sql: plan.copySql,
      copyRows: rows.map((row) => [...row, helpers.searchVector(plan.searched.map((column) => row[column] as string | null)), instanceId]),
      idsFrom: 0,
    },
  ];
  const usage = helpers.sumBatchUsage(rows, plan.usageColumns);
  const width = 3 + plan.usageFigures.length;
  for (const [table, period, deltas] of [['usage_daily', 'day', usage.daily], ['usage_monthly', 'month', usage.monthly]] as const) {
    for (let start = 0; start < deltas.length; start += plan.rowsPerInsert) {
      const slice = deltas.slice(start, start + plan.rowsPerInsert);
      const values = slice.map((_, row) => `(${Array.from({ length: width }, (_, column) => `$${row * width + column + 1}`).join(', ')})`).join(', ');
      statements.push({
        sql: `INSERT INTO ${table} (${period}, dim, name, ${plan.usageFigures.join(', ')}) VALUES ${values}
              ON CONFLICT (dim, ${period}, name) DO UPDATE SET ${plan.usageFigures.map((column) => `${column} = ${table}.${column} + excluded.${column}`).join(', ')}`,
        params: slice.flat(),
      });
    }
  }
  return statements;
}

/** The helpers as this thread runs them. */
export const LOG_BATCH_HELPERS: LogBatchHelpers = { searchVector: searchText().vector, sumBatchUsage };

/**
 * For the bridge's worker (plain JavaScript, `workerData.logBatchPlan` = LOG_BATCH_PLAN): defines
 * buildLogBatch(rows, instanceId) from the source text of the functions above. (__name is what a bundler
 * that keeps function names may wrap inner functions in.)
 */
export const LOG_BATCH_WORKER_SOURCE = `
const __name = (target) => target;
const logBatchHelpers = { searchVector: (${searchText.toString()})().vector, sumBatchUsage: ${sumBatchUsage.toString()} };
const logBatchStatements = ${logBatchStatements.toString()};
const buildLogBatch = (rows, instanceId) => logBatchStatements(rows, instanceId, workerData.logBatchPlan, logBatchHelpers);
`;
