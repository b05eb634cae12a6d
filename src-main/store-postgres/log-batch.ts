// A batch of log rows as the statements that write it to PostgreSQL: its mark in log_batches with the ids
// taken for it from the log's sequence, the rows by COPY with their search words and the instance that served them, the batch's usage added to
// the daily and monthly totals. The statements are built on the PostgreSQL bridge's thread from the rows
// themselves (pg-bridge.ts runs logBatchStatements from its source text), so the gateway's thread only
// hands the rows over, as it does to SQLite's writer thread.
//
// The mark comes first, in the statement that takes the ids: a batch sent again (retried after an error
// whose COMMIT may have landed, or replayed from a spill) is refused there by the primary key, so its
// rows and usage are never added twice, and a second writer of the same batch waits for the first.
import { COLUMN_INDEX, type RowValues } from '../store/log-row.js';
import { sumBatchUsage, USAGE_COLUMNS, type UsageColumns, type UsageDeltas } from '../store/log-usage-rollup.js';
import type { Statement } from './pg-bridge.js';
import { searchText } from './search-vector.js';

/** Which batch it is: the same on every write of it. `forget`: batches of this writer answered since, whose marks go. */
export interface BatchMark {
  writer: string;
  seq: number;
  forget: number[];
}

/** What logBatchStatements is given besides the rows: plain data, so the bridge's worker can be handed it. */
export interface LogBatchPlan {
  /**
   * The batch's mark, with its ids taken from the log's sequence in order (a COPY returns none), and the
   * marks of answered batches removed; $1 is how many rows, $2 the writer, $3 the batch, $4 the batches forgotten.
   */
  markAndTakeIds: Statement;
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
  markAndTakeIds: {
    name: 'gatehouse_mark_log_batch',
    sql: `WITH forgotten AS (DELETE FROM log_batches WHERE writer = $2 AND seq = ANY($4::bigint[])),
      mark AS (INSERT INTO log_batches (writer, seq, ids, written_at)
        SELECT $2, $3, ARRAY(SELECT nextval(pg_get_serial_sequence('request_log', 'id')) FROM generate_series(1, $1::int)), $5
        RETURNING ids)
      SELECT unnest(ids) AS id FROM mark`,
  },
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
export function logBatchStatements(rows: RowValues[], instanceId: string | null, mark: BatchMark, plan: LogBatchPlan, helpers: LogBatchHelpers): Statement[] {
  const statements: Statement[] = [
    { ...plan.markAndTakeIds, params: [rows.length, mark.writer, mark.seq, mark.forget, Date.now()] },
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

/** Whether a write of a batch was refused because the batch is written already (its mark is there). */
export const isWrittenBefore = (error: unknown): boolean => (error as { code?: string }).code === '23505' && /log_batches/.test((error as Error).message);

/** The ids a batch written before got, from its mark. */
export const BATCH_IDS = 'SELECT unnest(ids) AS id FROM log_batches WHERE writer = $1 AND seq = $2';

/** The helpers as this thread runs them. */
export const LOG_BATCH_HELPERS: LogBatchHelpers = { searchVector: searchText().vector, sumBatchUsage };

/**
 * For the bridge's worker (plain JavaScript, `workerData.logBatchPlan` = LOG_BATCH_PLAN): defines
 * buildLogBatch(rows, instanceId, mark) from the source text of the functions above. (__name is what a bundler
 * that keeps function names may wrap inner functions in.)
 */
export const LOG_BATCH_WORKER_SOURCE = `
const __name = (target) => target;
const logBatchHelpers = { searchVector: (${searchText.toString()})().vector, sumBatchUsage: ${sumBatchUsage.toString()} };
const logBatchStatements = ${logBatchStatements.toString()};
const buildLogBatch = (rows, instanceId, mark) => logBatchStatements(rows, instanceId, mark, workerData.logBatchPlan, logBatchHelpers);
`;
