// Whether anything else has a data dir's database open. Gatehouse marks no running data dir with a pid
// or lock file (the desktop's single-instance lock is Electron's, on its own profile dir), so this asks
// SQLite: an EXCLUSIVE lock in WAL mode is refused while another connection (a `gatehouse serve`, the
// desktop app, its log writer thread) has the database open. Once taken, it is held until `db` is closed,
// so nothing starts on the data dir meanwhile.
import type { SqliteDatabase } from './database.js';

/** Takes `db` for this connection alone; false when another process or connection has it open. */
export function takeExclusiveUse(db: SqliteDatabase): boolean {
  const busyTimeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // The lock is taken by the first write transaction and kept after it, as locking_mode says.
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      db.pragma('locking_mode = NORMAL');
      return false;
    }
    throw error;
  } finally {
    db.pragma(`busy_timeout = ${busyTimeout}`);
  }
}
