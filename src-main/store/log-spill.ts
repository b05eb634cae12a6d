// The request log's spill on SQLite: rows the database refused until the log closed (locked by another
// program past the busy timeout, a full disk) are kept in the data dir as `log-spill-<id>.ndjson`, in team
// mode's format and by its code (store-postgres/spill.ts), and written at the next start, exactly once:
// each chunk is recorded in `log_spills` in the transaction that writes it, so a start that stopped before
// removing the file adds nothing twice.
import type { SqliteDatabase } from './database.js';
import type { RowValues } from './log-row.js';
import { SameThreadLogWriter } from './log-writer.js';
import type { UnwrittenRows } from './request-log.js';
import { replaySpillFiles, spillRows, SQLITE_SPILL_PREFIX, type SpillHeader } from './spill-file.js';

/** The instance a SQLite spill names: one process has the data dir at a time. */
const SQLITE_INSTANCE = 'sqlite';

/** RequestLog's `spill` for SQLite. */
export function spillSqliteRows(dataDir: string): (unwritten: UnwrittenRows) => void {
  return spillRows(dataDir, SQLITE_INSTANCE, SQLITE_SPILL_PREFIX);
}

/** Writes every SQLite spill file of `dataDir` into `db` and removes it; returns the rows written. */
export function replaySqliteSpills(db: SqliteDatabase, dataDir: string): Promise<number> {
  const writer = new SameThreadLogWriter(db);
  const mark = db.prepare('INSERT INTO log_spills (chunk, rows, written_at) VALUES (?, ?, ?) ON CONFLICT (chunk) DO NOTHING');
  // The file's batch marks (and a version 2 file's `unansweredAfter`) are not used here: SQLite's writer
  // names no batches (its refusals are certain), and answers every batch before the log
  // closes (written or refused), and a delete above an id would take another run's rows.
  const writeChunk = db.transaction((header: SpillHeader, index: number, rows: RowValues[]): number => {
    if (mark.run(`${header.id}/${index}`, rows.length, Date.now()).changes === 0) return 0;
    if (rows.length === 0) return 0;
    let refused: Error | undefined;
    writer.write(rows, (outcome) => {
      if ('error' in outcome) refused = outcome.error;
    });
    if (refused) throw refused;
    return rows.length;
  });
  return replaySpillFiles(dataDir, SQLITE_SPILL_PREFIX, (header, index, rows) => writeChunk(header, index, rows));
}
