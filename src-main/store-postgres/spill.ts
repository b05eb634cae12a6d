// What PostgreSQL did not take by the end of a graceful stop: log rows (with the usage totals they carry)
// and key spend, kept in the data dir as `pg-spill-<id>.ndjson` and written at the next start, exactly once.
//
// The file is written whole or not at all (a temporary file, fsync, rename; owner-only). Its rows are the
// log's rows as they would have been stored (already redacted, bodies as the settings keep them). At start
// each file is written in chunks, each in one transaction that first records the chunk in `log_spills`:
// a chunk already there (written by a start that stopped before it removed the file, or by another
// instance on the same data dir doing the same at the same time) is refused by its primary key and
// skipped, so no row or amount is added twice. The file is removed once every chunk is in; while
// PostgreSQL refuses, it stays for the next start.
import type { RowValues } from '../store/log-row.js';
import { replaySpillFiles, writeSpill, SPILL_PREFIX, type SpillHeader } from '../store/spill-file.js';
import type { SpendWrite } from '../core/limits.js';
import { spendStatement } from './key-limits.js';
import { LOG_BATCH_HELPERS, LOG_BATCH_PLAN, logBatchStatements } from './log-batch.js';
import { isUniqueViolation, type PgBridge, type Statement } from './pg-bridge.js';

/** The spill of key spend PostgreSQL did not take, for PgKeyLimitsStore. */
export function spillSpend(dataDir: string, instanceId: string): (spend: SpendWrite[]) => void {
  return (spend) => {
    const file = writeSpill(dataDir, { instanceId, rows: [], rowCount: 0, unansweredAfter: null, spend });
    if (file) console.error(`Gatehouse: PostgreSQL did not take the last key spend; kept in ${file} and written at the next start.`);
  };
}

/**
 * Writes every spill file of `dataDir` to PostgreSQL and removes it. A file PostgreSQL refused stays (and
 * the rest wait with it: it is away); a file that cannot be read stays too, named in the message.
 * Returns the rows written.
 */
export async function replaySpills(bridge: PgBridge, dataDir: string): Promise<number> {
  return replaySpillFiles(dataDir, SPILL_PREFIX, (header, index, rows) => replayChunk(bridge, header, index, rows));
}

/**
 * One chunk in one transaction: its mark in log_spills first (a chunk written before is refused there, and
 * a second instance writing it at the same moment waits for the first and is refused), then, with the first
 * chunk, the copies left by unanswered batches and the spend, then the rows and their usage totals.
 */
async function replayChunk(bridge: PgBridge, header: SpillHeader, index: number, rows: RowValues[]): Promise<number> {
  const statements: Statement[] = [
    { sql: 'INSERT INTO log_spills (chunk, instance_id, rows, written_at) VALUES ($1, $2, $3, $4)', params: [`${header.id}/${index}`, header.instanceId, rows.length, Date.now()] },
  ];
  if (index === 0) {
    // The instance that wrote the file had stopped: its registration (which it could not take back, with
    // PostgreSQL away) must not hold up a lone instance's start until its heartbeat is stale.
    statements.push({ sql: 'DELETE FROM instances WHERE id = $1', params: [header.instanceId] });
    if (header.unansweredAfter !== null) {
      // The delete takes their usage back out of the totals (request_log_usage_delete): added again below.
      statements.push({ sql: 'DELETE FROM request_log WHERE instance_id = $1 AND id > $2', params: [header.instanceId, header.unansweredAfter] });
    }
    // Each with its number: a write committed before (its answer lost) is not applied again.
    for (const write of header.spend) statements.push(spendStatement(write));
  }
  if (rows.length > 0) {
    const offset = statements.length;
    for (const statement of logBatchStatements(rows, header.instanceId, LOG_BATCH_PLAN, LOG_BATCH_HELPERS)) {
      statements.push(statement.idsFrom === undefined ? statement : { ...statement, idsFrom: statement.idsFrom + offset });
    }
  }
  try {
    await bridge.run(statements, { transaction: true });
  } catch (error) {
    // Only log_spills can refuse a duplicate here: the chunk is in already.
    if (isUniqueViolation(error) && /log_spills/.test((error as Error).message)) return 0;
    throw error;
  }
  return rows.length;
}
