// What PostgreSQL did not take by the end of a graceful stop: log rows (with the usage totals they carry)
// and key spend, kept in the data dir as `pg-spill-<id>.ndjson` and written at the next start, exactly once.
//
// The file is written whole or not at all (a temporary file, fsync, rename; owner-only). Its rows are the
// log's rows as they would have been stored (already redacted, bodies as the settings keep them). At start
// each file is written in chunks, each in one transaction that first records the chunk in `log_spills`:
// a chunk already there (written by a start that stopped before it removed the file, or by another
// instance on the same data dir doing the same at the same time) is refused by its primary key and
// skipped, so no row or amount is added twice. A batch of the log that was handed over and not known to be
// written (its COMMIT may have landed, its answer lost) is a chunk of its own, written under the batch's own
// mark (log-batch.ts): a batch committed before is refused there. The file is removed once every chunk is
// in; while PostgreSQL refuses, it stays for the next start.
import type { RowValues } from '../store/log-row.js';
import { replaySpillFiles, writeSpill, SPILL_PREFIX, type SpillBatch, type SpillHeader } from '../store/spill-file.js';
import type { SpendWrite } from '../core/limits.js';
import { spendStatement } from './key-limits.js';
import { isWrittenBefore, LOG_BATCH_HELPERS, LOG_BATCH_PLAN, logBatchStatements } from './log-batch.js';
import { isUniqueViolation, type PgBridge, type Statement } from './pg-bridge.js';

/** The spill of key spend PostgreSQL did not take, for PgKeyLimitsStore. */
export function spillSpend(dataDir: string, instanceId: string): (spend: SpendWrite[]) => void {
  return (spend) => {
    const file = writeSpill(dataDir, { instanceId, rows: [], rowCount: 0, spend });
    if (file) console.error(`Gatehouse: PostgreSQL did not take the last key spend; kept in ${file} and written at the next start.`);
  };
}

/**
 * Writes every spill file of `dataDir` to PostgreSQL and removes it. A file PostgreSQL refused stays (and
 * the rest wait with it: it is away); a file that cannot be read stays too, named in the message.
 * Returns the rows written.
 */
export async function replaySpills(bridge: PgBridge, dataDir: string): Promise<number> {
  return replaySpillFiles(dataDir, SPILL_PREFIX, (header, index, rows, batch) => replayChunk(bridge, header, index, rows, batch));
}

/**
 * One chunk in one transaction: its mark in log_spills first (a chunk written before is refused there, and
 * a second instance writing it at the same moment waits for the first and is refused), then, with the first
 * chunk, the copies left by unanswered batches and the spend, then the rows and their usage totals.
 */
async function replayChunk(bridge: PgBridge, header: SpillHeader, index: number, rows: RowValues[], batch?: SpillBatch): Promise<number> {
  const statements: Statement[] = [
    { sql: 'INSERT INTO log_spills (chunk, instance_id, rows, written_at) VALUES ($1, $2, $3, $4)', params: [`${header.id}/${index}`, header.instanceId, rows.length, Date.now()] },
  ];
  if (index === 0) {
    // The instance that wrote the file had stopped: its registration (which it could not take back, with
    // PostgreSQL away) must not hold up a lone instance's start until its heartbeat is stale.
    statements.push({ sql: 'DELETE FROM instances WHERE id = $1', params: [header.instanceId] });
    if (header.unansweredAfter != null) {
      // A version 2 file, whose batches were not marked. The delete takes their usage back out of the totals (request_log_usage_delete): added again below.
      statements.push({ sql: 'DELETE FROM request_log WHERE instance_id = $1 AND id > $2', params: [header.instanceId, header.unansweredAfter] });
    }
    // Each with its number: a write committed before (its answer lost) is not applied again.
    for (const write of header.spend) statements.push(spendStatement(write));
  }
  if (rows.length > 0) {
    const offset = statements.length;
    // A batch under its own mark, taken back at the end (log_spills now keeps this chunk from coming
    // again); the other rows under a mark of the file's chunk, which nothing sends twice.
    const mark = batch ? { writer: batch.writer, seq: batch.seq, forget: [] } : { writer: `spill/${header.id}`, seq: index, forget: [] };
    for (const statement of logBatchStatements(rows, header.instanceId, mark, LOG_BATCH_PLAN, LOG_BATCH_HELPERS)) {
      statements.push(statement.idsFrom === undefined ? statement : { ...statement, idsFrom: statement.idsFrom + offset });
    }
    statements.push({ sql: 'DELETE FROM log_batches WHERE writer = $1 AND seq = $2', params: [mark.writer, mark.seq] });
  }
  try {
    await bridge.run(statements, { transaction: true });
  } catch (error) {
    // The chunk is in already (log_spills), or it is a batch committed before its answer was lost (log_batches).
    if (isUniqueViolation(error) && /log_spills/.test((error as Error).message)) return 0;
    if (isWrittenBefore(error) && batch) {
      // Committed before: its mark goes now, with this chunk recorded, so no copy of the file writes it.
      await bridge.run(
        [
          { sql: 'INSERT INTO log_spills (chunk, instance_id, rows, written_at) VALUES ($1, $2, 0, $3) ON CONFLICT (chunk) DO NOTHING', params: [`${header.id}/${index}`, header.instanceId, Date.now()] },
          { sql: 'DELETE FROM log_batches WHERE writer = $1 AND seq = $2', params: [batch.writer, batch.seq] },
        ],
        { transaction: true },
      );
      return 0;
    }
    throw error;
  }
  return rows.length;
}
