// Where the request log's batches are written: the contract a writer keeps, and the writer that does the
// work on the caller's thread (log-writer-thread.ts is the one that moves it to a worker).
import type { SqliteDatabase } from './database.js';
import { INSERT_ROW, type RowValues } from './log-row.js';
import { USAGE_UPSERT, usageOfBatch, type UsageDeltas } from './log-usage-rollup.js';

/**
 * Adds the rows from an id on to the search index (migration 5). One statement per batch costs about
 * half of what a trigger firing per row did. Also used by whatever writes rows in bulk (the benchmark).
 */
export const INDEX_FOR_SEARCH = `
  INSERT INTO request_log_search (rowid, model, trace_id, error, metadata, path)
    SELECT id, model, trace_id, error, metadata, path FROM request_log WHERE id >= ?`;

/** What became of a batch: the ids its rows got, in order, or why it could not be written. */
export type BatchOutcome = { ids: number[] } | { error: Error };

/**
 * Where batches of rows are written. Batches are written in the order they are handed over, each in one
 * transaction together with its search index entries.
 */
export interface LogBatchWriter {
  /**
   * Writes the rows, their search entries and their usage (usageOfBatch) in one transaction. The writer
   * sums the usage itself: on the writer thread that work is off the gateway's thread. `batch` numbers the
   * batch: a refused batch is handed over again whole, with the same rows and number.
   */
  write(rows: RowValues[], done: (outcome: BatchOutcome) => void, batch: number): void;
  /**
   * Set by a writer that cannot tell whether a refused batch was committed (another server, whose answer
   * can be lost after its COMMIT): it writes each batch once by its number, and the spill keeps every batch
   * handed over whole, under this id and its number, for the replay to write it once too.
   */
  readonly batchWriterId?: string;
  /** Rows handed over whose batch is not answered yet. */
  readonly rowsInFlight: number;
  /**
   * Resolves once every batch handed over so far is written and its `done` has run, or once the writer
   * gave up waiting (its bound); never holds this thread.
   */
  whenWritten(): Promise<void>;
  close(): Promise<void>;
}

/** Writes on the caller's thread, at once: for tests, tools, and when no writer thread can be had. */
export class SameThreadLogWriter implements LogBatchWriter {
  private readonly writeBatch: (rows: RowValues[], usage: UsageDeltas) => number[];
  readonly rowsInFlight = 0;

  constructor(db: SqliteDatabase) {
    const insert = db.prepare(INSERT_ROW);
    const indexForSearch = db.prepare(INDEX_FOR_SEARCH);
    const addDaily = db.prepare(USAGE_UPSERT.daily);
    const addMonthly = db.prepare(USAGE_UPSERT.monthly);
    this.writeBatch = db.transaction((rows: RowValues[], usage: UsageDeltas) => {
      const ids = rows.map((row) => Number(insert.run(row).lastInsertRowid));
      if (ids.length) indexForSearch.run(ids[0]);
      for (const values of usage.daily) addDaily.run(values);
      for (const values of usage.monthly) addMonthly.run(values);
      return ids;
    });
  }

  write(rows: RowValues[], done: (outcome: BatchOutcome) => void): void {
    let outcome: BatchOutcome;
    try {
      outcome = { ids: this.writeBatch(rows, usageOfBatch(rows)) };
    } catch (error) {
      outcome = { error: error as Error };
    }
    done(outcome);
  }

  async whenWritten(): Promise<void> {}

  async close(): Promise<void> {}
}
