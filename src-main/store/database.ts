// Opens the SQLite database of a data directory: WAL mode, private file modes, migrations applied,
// and a clear refusal for a file that is damaged, foreign, or made by a newer Gatehouse.
import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { migrations, type Migration } from './migrations.js';

export type SqliteDatabase = Database.Database;

export const DATABASE_FILE = 'gatehouse.db';

export class DatabaseOpenError extends Error {
  override name = 'DatabaseOpenError';
}

export interface OpenDatabaseOptions {
  /** A better-sqlite3 addon built for another ABI (Electron's), see STACK.md. */
  nativeBinding?: string;
  migrations?: readonly Migration[];
}

/** Creates the data directory readable by its owner only. */
export function ensureDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
}

export function openDatabase(dataDir: string, options: OpenDatabaseOptions = {}): SqliteDatabase {
  ensureDataDir(dataDir);
  const file = join(dataDir, DATABASE_FILE);
  // SQLite gives -wal and -shm the mode of the main file, so creating it 0600 covers all three.
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);

  const damaged = (error: unknown) =>
    new DatabaseOpenError(`${file} is not a Gatehouse database or is damaged (${(error as Error).message}). It was left untouched; move it away to start afresh.`);
  let db: SqliteDatabase;
  try {
    db = new Database(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  } catch (error) {
    // A native addon built for another runtime (Node's copy in Electron, or the reverse) is not a damaged file.
    if ((error as NodeJS.ErrnoException).code === 'ERR_DLOPEN_FAILED' || /NODE_MODULE_VERSION/.test(String(error))) {
      throw new DatabaseOpenError(`The SQLite driver was built for another runtime and cannot be loaded (${(error as Error).message}). Rebuild it for this one; ${file} was not touched.`);
    }
    throw damaged(error);
  }
  try {
    // Only reads until the file is known to be ours: switching a foreign file to WAL would rewrite its header.
    const list = options.migrations ?? migrations;
    const current = refuseForeignOrNewer(db, list, file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    // SQLite's own page cache (16 MB in this build) fills as the log grows and is never given back; the
    // operating system caches the file anyway, so 4 MB costs the log queries little and the gateway's RSS ~12 MB less.
    db.pragma('cache_size = -4000');
    // A revoked or rotated secret's ciphertext is overwritten, not left behind in free pages.
    db.pragma('secure_delete = ON');
    applyMigrations(db, list, current);
  } catch (error) {
    db.close();
    if (error instanceof DatabaseOpenError) throw error;
    throw isSqliteDamage(error) ? damaged(error) : error;
  }
  return db;
}

/** SQLite's words for a file that is not a database, or one whose pages are broken. */
export function isSqliteDamage(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_NOTADB' || (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT'));
}

/** The schema version of the file, once it is known to be a Gatehouse database this version can use. */
function refuseForeignOrNewer(db: SqliteDatabase, list: readonly Migration[], file: string): number {
  const latest = list.at(-1)?.version ?? 0;
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > latest) {
    throw new DatabaseOpenError(
      `${file} was written by a newer version of Gatehouse (schema ${current}; this version knows up to ${latest}). ` +
        'Update Gatehouse, or use another data directory. The file was not changed.',
    );
  }
  if (current === 0) {
    // A file with tables but no version is not ours: refuse rather than mix schemas.
    const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number };
    if (tables.n > 0) throw new DatabaseOpenError(`${file} holds tables of another program; it was left untouched.`);
  }
  return current;
}

function applyMigrations(db: SqliteDatabase, list: readonly Migration[], current: number): void {
  for (const migration of list) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
}
