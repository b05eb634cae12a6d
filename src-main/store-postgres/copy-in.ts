// COPY … FROM STDIN with `pg` alone: a query object `pg.Client#query` runs as is (a "submittable"), which
// answers the server's CopyInResponse with the rows as CopyData in PostgreSQL's text format, waiting for
// the socket to drain between chunks so a large log is never held in memory at once. The rows are read
// lazily from an iterator (the SQLite rows of `gatehouse migrate`).
import type pg from 'pg';

/** The part of pg's Connection a copy writes to (not in @types/pg). */
interface CopyConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
  sendCopyFail(message: string): void;
  stream: NodeJS.WritableStream & { writableNeedDrain?: boolean };
}

/** Bytes gathered before one CopyData message is sent. */
const CHUNK_BYTES = 256 * 1024;

/**
 * One value in COPY's text format: \N for NULL, and backslash, tab, newline and carriage return escaped.
 * Self-contained: pg-bridge.ts's worker runs its source text.
 */
export function copyText(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const text = typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
  return /[\\\t\n\r]/.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r')) : text;
}

class CopyFromRows {
  private failure: Error | null = null;
  private finishedWriting = false;
  private serverReady = false;
  private settle!: (error: Error | null) => void;
  readonly done: Promise<number>;
  private count = 0;

  constructor(
    private readonly text: string,
    private readonly rows: Iterator<unknown[]>,
  ) {
    this.done = new Promise<number>((resolve, reject) => {
      this.settle = (error) => (error ? reject(error) : resolve(this.count));
    });
  }

  // ---- called by pg.Client ----

  submit(connection: CopyConnection): void {
    connection.query(this.text);
  }

  handleCopyInResponse(connection: CopyConnection): void {
    this.write(connection).then(
      () => this.finishWriting(),
      (error: Error) => {
        this.failure ??= error;
        connection.sendCopyFail(error.message);
        this.finishWriting();
      },
    );
  }

  handleError(error: Error): void {
    // The server dropped the COPY; whatever is still sent is ignored by it, so the writing stops.
    this.failure ??= error;
  }

  handleReadyForQuery(): void {
    this.serverReady = true;
    this.maybeSettle();
  }

  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}

  // ---- internals ----

  private async write(connection: CopyConnection): Promise<void> {
    let lines: string[] = [];
    let bytes = 0;
    for (let next = this.rows.next(); !next.done; next = this.rows.next()) {
      if (this.failure) return;
      const line = next.value.map(copyText).join('\t');
      lines.push(line);
      bytes += line.length + 1;
      this.count++;
      if (bytes >= CHUNK_BYTES) {
        connection.sendCopyFromChunk(Buffer.from(`${lines.join('\n')}\n`));
        lines = [];
        bytes = 0;
        if (connection.stream.writableNeedDrain) await new Promise((resolve) => connection.stream.once('drain', resolve));
      }
    }
    if (this.failure) return;
    if (lines.length) connection.sendCopyFromChunk(Buffer.from(`${lines.join('\n')}\n`));
    connection.endCopyFrom();
  }

  private finishWriting(): void {
    this.finishedWriting = true;
    this.maybeSettle();
  }

  private maybeSettle(): void {
    // Done when the server is ready again and nothing more will be written (even after an error).
    if (this.serverReady && (this.finishedWriting || this.failure)) this.settle(this.failure);
  }
}

/**
 * Runs `COPY table (columns) FROM STDIN` on `client` with `rows` (each in `columns`' order) and returns
 * how many were sent. A row the server refuses fails the COPY, and so the transaction it is in.
 */
export function copyRows(client: pg.Client, table: string, columns: readonly string[], rows: Iterable<unknown[]>): Promise<number> {
  const copy = new CopyFromRows(`COPY ${table} (${columns.join(', ')}) FROM STDIN`, rows[Symbol.iterator]());
  client.query(copy as unknown as pg.Submittable);
  return copy.done;
}
