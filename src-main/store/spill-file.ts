// The spill file: what a store did not take by the end of a graceful stop (log rows, and in team mode key
// spend), kept in the data dir and written at the next start, exactly once. One format for both backends:
// PostgreSQL's `pg-spill-<id>.ndjson` (store-postgres/spill.ts) and SQLite's `log-spill-<id>.ndjson`
// (log-spill.ts), each replayed only into its own backend.
//
// The file is written whole or not at all (a temporary file, fsync, rename; owner-only). Its rows are the
// log's rows as they would have been stored (already redacted, bodies as the settings keep them). At start
// each file is written in chunks by the backend's chunk writer, which records each chunk so that none is
// written twice; the file is removed once every chunk is in, and kept while the database refuses.
import { randomBytes } from 'node:crypto';
import { closeSync, createReadStream, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { SpendDelta, SpendWrite } from '../core/limits.js';
import { COLUMN_INDEX, type RowValues } from './log-row.js';
import type { UnwrittenRows } from './request-log.js';

export const SPILL_PREFIX = 'pg-spill-';
/** The same files of a SQLite data dir (store/log-spill.ts): their own name, never replayed into the other backend. */
export const SQLITE_SPILL_PREFIX = 'log-spill-';
export const SPILL_SUFFIX = '.ndjson';
const FORMAT = 'gatehouse-pg-spill';
/** The values of a row (RowValues). */
const ROW_WIDTH = Object.keys(COLUMN_INDEX).length;

/** Rows per chunk (one transaction each), and the row text a chunk stops growing at. */
const CHUNK_ROWS = 1_000;
const CHUNK_CHARS = 16 * 1024 * 1024;
/** Bytes written to the file at a time. */
const WRITE_CHUNK_CHARS = 1024 * 1024;

/** The first line of a spill file. */
export interface SpillHeader {
  format: typeof FORMAT;
  /**
   * 3: the log's batches named (`batches`); 2 (read still): spend as numbered writes (key-limits.ts);
   * 1 (read still): spend as plain amounts.
   */
  version: 3;
  id: string;
  /** The instance that served the rows: they are written as its rows. */
  instanceId: string;
  createdAt: number;
  /**
   * Version 2 only: rows of that instance above this id may be committed copies of this file's rows (a
   * batch whose answer never came back); the first chunk deletes them before it writes.
   */
  unansweredAfter?: number | null;
  /**
   * The log's batches handed over and not known to be written (UnwrittenRows.batches): the first rows of
   * the file, in this order. Each is written as one chunk under its own mark, which refuses it when the
   * batch was committed before; the spend and the rest come in chunks of their own.
   */
  batches: SpillBatch[];
  rows: number;
  spend: SpendWrite[];
}

/** A batch of the log, as its writer numbered it. */
export interface SpillBatch {
  writer: string;
  seq: number;
  rows: number;
}

export interface SpillContent {
  instanceId: string;
  /** Made one at a time as they are written: a stop need not hold them all at once beside the queue. */
  rows: Iterable<RowValues>;
  rowCount: number;
  batches?: SpillBatch[];
  spend: SpendWrite[];
}

/** Writes a spill file in `dataDir` (nothing when there is nothing to keep); throws when it could not. */
export function writeSpill(dataDir: string, content: SpillContent, prefix = SPILL_PREFIX): string | null {
  if (content.rowCount === 0 && content.spend.length === 0) return null;
  const id = `${Date.now().toString(36)}-${randomBytes(8).toString('hex')}`;
  const file = join(dataDir, `${prefix}${id}${SPILL_SUFFIX}`);
  const temporary = `${file}.tmp`;
  const header: SpillHeader = {
    format: FORMAT,
    version: 3,
    id,
    instanceId: content.instanceId,
    createdAt: Date.now(),
    batches: content.batches ?? [],
    rows: content.rowCount,
    spend: content.spend,
  };
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    let text = `${JSON.stringify(header)}\n`;
    let count = 0;
    for (const row of content.rows) {
      text += `${JSON.stringify(row)}\n`;
      count++;
      if (text.length >= WRITE_CHUNK_CHARS) {
        writeAll(fd, text);
        text = '';
      }
    }
    writeAll(fd, text);
    if (count !== content.rowCount) throw new Error(`${count} rows to keep, not ${content.rowCount}`);
    fsyncSync(fd);
    closeSync(fd);
  } catch (error) {
    closeSync(fd);
    removeQuietly(temporary);
    throw error;
  }
  try {
    renameSync(temporary, file);
  } catch (error) {
    removeQuietly(temporary);
    throw error;
  }
  syncFolder(dataDir);
  return file;
}

/** The spill of the request log's unwritten rows, for RequestLog's `spill` option (SQLite: its prefix, instance 'sqlite'). */
export function spillRows(dataDir: string, instanceId: string, prefix = SPILL_PREFIX): (unwritten: UnwrittenRows) => void {
  const store = prefix === SPILL_PREFIX ? 'PostgreSQL' : 'The database';
  return (unwritten) => {
    const file = writeSpill(dataDir, { instanceId, rows: unwritten.rows, rowCount: unwritten.count, batches: unwritten.batches, spend: [] }, prefix);
    if (file) console.error(`Gatehouse: ${store} did not take ${unwritten.count} request log rows; kept in ${file} and written at the next start.`);
  };
}

/** The spill files in `dataDir`, oldest first. */
export function spillFiles(dataDir: string, prefix = SPILL_PREFIX): string[] {
  if (!existsSync(dataDir)) return [];
  return readdirSync(dataDir)
    .filter((name) => name.startsWith(prefix) && name.endsWith(SPILL_SUFFIX))
    .sort()
    .map((name) => join(dataDir, name));
}

/**
 * Writes one chunk of a file (and, with chunk 0, its spend) exactly once: it records `<file id>/<index>`
 * with it in one transaction, and returns 0 for a chunk recorded before. `batch`: the chunk is that batch
 * of the log, whole (a store that may hold it already writes it under the batch's own mark).
 */
export type SpillChunkWriter = (header: SpillHeader, index: number, rows: RowValues[], batch?: SpillBatch) => Promise<number> | number;

/** replaySpills for any store: every file of `prefix` in `dataDir`, written chunk by chunk by `writeChunk`, then removed. */
export async function replaySpillFiles(dataDir: string, prefix: string, writeChunk: SpillChunkWriter): Promise<number> {
  let written = 0;
  for (const file of spillFiles(dataDir, prefix)) {
    try {
      written += await replayFile(writeChunk, file);
    } catch (error) {
      // Written and removed meanwhile by another instance on this data dir.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      console.error(`Gatehouse: could not write ${file} to the database (${(error as Error).message}); it is kept for the next start.`);
      if (!(error instanceof SpillFileError)) break;
      continue;
    }
    removeQuietly(file);
  }
  return written;
}

class SpillFileError extends Error {}

function readHeader(value: unknown): SpillHeader {
  const header = value as
    | (Omit<SpillHeader, 'version' | 'spend' | 'batches'> & { version: 1; spend: SpendDelta[] })
    | (Omit<SpillHeader, 'version' | 'batches'> & { version: 2 })
    | SpillHeader;
  if (header?.format !== FORMAT || ![1, 2, 3].includes(header.version) || typeof header.id !== 'string' || typeof header.instanceId !== 'string' || !Array.isArray(header.spend)) {
    throw new SpillFileError('not a spill file of a version this Gatehouse reads');
  }
  if (header.version === 3) {
    if (!Array.isArray(header.batches) || header.batches.some((batch) => typeof batch?.writer !== 'string' || !Number.isSafeInteger(batch.seq) || !Number.isSafeInteger(batch.rows) || batch.rows < 1)) {
      throw new SpillFileError('its batches are not readable');
    }
    return header;
  }
  if (header.version === 2) return { ...header, version: 3, batches: [] };
  // Version 1 kept the amounts unnumbered, as one write: numbered here by the file, which log_spills already keeps from being written twice.
  return { ...header, version: 3, batches: [], spend: header.spend.length > 0 ? [{ writer: `spill/${header.id}`, seq: 1, spend: header.spend }] : [] };
}

async function replayFile(writeChunk: SpillChunkWriter, file: string): Promise<number> {
  let header: SpillHeader | null = null;
  let chunk: RowValues[] = [];
  let chunkChars = 0;
  let index = 0;
  let rows = 0;
  let written = 0;
  /** The batch the next rows belong to (its place in header.batches), and how many of its rows are read. */
  let batchAt = 0;
  const inBatch = () => batchAt < header!.batches.length;
  const nextChunk = async () => {
    const batch = inBatch() && chunk.length > 0 ? header!.batches[batchAt] : undefined;
    written += await writeChunk(header!, index, chunk, batch);
    if (batch) batchAt++;
    index++;
    chunk = [];
    chunkChars = 0;
  };
  const input = createReadStream(file, { encoding: 'utf8' });
  try {
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new SpillFileError(`line ${rows + 2} is not JSON`);
    }
    if (header === null) {
      header = readHeader(value);
      // The spend (and the rest of chunk 0's work) alone: a batch found written before refuses its whole chunk.
      if (header.batches.length > 0) await nextChunk();
      continue;
    }
    if (!Array.isArray(value) || value.length !== ROW_WIDTH) throw new SpillFileError(`line ${rows + 2} is not a row`);
    chunk.push(value as RowValues);
    chunkChars += line.length;
    rows++;
    // A batch is one chunk, whole, as it was one transaction when it was first sent.
    if (inBatch() ? chunk.length === header.batches[batchAt].rows : chunk.length >= CHUNK_ROWS || chunkChars >= CHUNK_CHARS) await nextChunk();
    }
  } finally {
    input.destroy();
  }
  if (header === null) throw new SpillFileError('empty');
  if (rows !== header.rows || batchAt < header.batches.length) throw new SpillFileError(`${rows} of its ${header.rows} rows are there`);
  // The last chunk (or the only one, with the spend alone).
  if (chunk.length > 0 || index === 0) await nextChunk();
  return written;
}

function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
}

/** The rename itself made durable (where a folder can be opened for it: not on Windows). */
function syncFolder(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Not supported here; the file's own data is synced.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone (another instance on this data dir removed it).
  }
}
