// Server-sent events read from text: the one reader of SSE in src-main. The gateway reads providers'
// streams with it as they arrive (gateway/sse.ts); the usage and answered-model reads and the usage
// estimate read what a client received with it.

/** One event of a stream: its `event:` name (undefined when none), its `data:` lines joined by LF, its `id:`. */
export interface SseEvent {
  event: string | undefined;
  data: string;
  id: string | undefined;
}

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;

/**
 * The SSE line format (WHATWG): lines end in LF, CR or CRLF; a blank line ends an event; `:` starts a
 * comment. Each piece of text fed is searched once from where the last line ended: the unfinished line is
 * kept as a list of pieces and joined once its end arrives (a general parser searched a chunk for a CR
 * again from every line: a chunk of LFs ending in one CR was quadratic in its length). Past `maxBuffered`
 * characters of unfinished line plus event data, `feed` returns false and the stream must be given up.
 */
export class SseLineReader {
  private pieces: string[] = [];
  private piecesLength = 0;
  /** The last piece ended in CR: an LF starting the next one belongs to it. */
  private afterCr = false;
  private data = '';
  private dataLines = 0;
  private eventName: string | undefined;
  private id: string | undefined;

  constructor(
    private readonly onEvent: (event: SseEvent) => void,
    private readonly maxBuffered = Number.POSITIVE_INFINITY,
  ) {}

  /** Takes the next piece of the stream's text; false once what is held is over the bound. */
  feed(text: string): boolean {
    let start = 0;
    if (this.afterCr && text.length > 0) {
      if (text.charCodeAt(0) === LF) start = 1;
      this.afterCr = false;
    }
    let nextLf = text.indexOf('\n', start);
    let nextCr = text.indexOf('\r', start);
    while (nextLf !== -1 || nextCr !== -1) {
      const end = nextLf === -1 ? nextCr : nextCr === -1 ? nextLf : Math.min(nextLf, nextCr);
      let line = text.slice(start, end);
      if (this.pieces.length) {
        this.pieces.push(line);
        line = this.pieces.join('');
        this.pieces = [];
        this.piecesLength = 0;
      }
      this.line(line);
      start = end + 1;
      if (text.charCodeAt(end) === CR) {
        if (start === text.length) this.afterCr = true;
        else if (text.charCodeAt(start) === LF) start++;
      }
      // Each search runs from past the line just read, and only once that line passed what it found.
      if (nextLf !== -1 && nextLf < start) nextLf = text.indexOf('\n', start);
      if (nextCr !== -1 && nextCr < start) nextCr = text.indexOf('\r', start);
    }
    if (start < text.length) {
      this.pieces.push(start === 0 ? text : text.slice(start));
      this.piecesLength += text.length - start;
    }
    return this.piecesLength + this.data.length <= this.maxBuffered;
  }

  /** The stream ended: an unfinished line and an event without its blank line still count (some servers close right after it). */
  end(): void {
    if (this.pieces.length) {
      const line = this.pieces.join('');
      this.pieces = [];
      this.piecesLength = 0;
      this.line(line);
    }
    this.dispatch();
  }

  private line(line: string): void {
    if (line === '') return this.dispatch();
    if (line.charCodeAt(0) === COLON) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1);
    if (field === 'data') {
      this.data = this.dataLines === 0 ? value : `${this.data}\n${value}`;
      this.dataLines++;
    } else if (field === 'event') this.eventName = value || undefined;
    else if (field === 'id') {
      if (!value.includes('\0')) this.id = value;
    }
    // `retry:` and unknown fields: nothing the gateway acts on.
  }

  private dispatch(): void {
    if (this.dataLines > 0) this.onEvent({ id: this.id, event: this.eventName, data: this.data });
    this.data = '';
    this.dataLines = 0;
    this.eventName = undefined;
    this.id = undefined;
  }
}

/** Every event of an SSE text already in memory (a captured answer), in order. */
export function sseEvents(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const reader = new SseLineReader((event) => events.push(event));
  reader.feed(text);
  reader.end();
  return events;
}

/**
 * The events of the lines of an SSE text that hold `needle`, each line read by SseLineReader: from the
 * last such line back (`fromEnd`) or from the first on. The lines are found by searching for the needle,
 * not by reading every line: a long stream is thousands of lines and usage is on one or two of them. A
 * line is read once however often the needle is on it; a line that is no `data:` line yields nothing.
 */
export function* sseEventsWith(text: string, needle: string, fromEnd: boolean): Generator<SseEvent> {
  let at = fromEnd ? text.lastIndexOf(needle) : text.indexOf(needle);
  while (at !== -1) {
    const start = lineStart(text, at);
    const end = lineEnd(text, at);
    const event = eventOfLine(text.slice(start, end));
    if (event) yield event;
    if (fromEnd) at = start === 0 ? -1 : text.lastIndexOf(needle, start - 1);
    else at = end === text.length ? -1 : text.indexOf(needle, end);
  }
}

/** Where the line holding `at` starts: past the LF or CR before it. A loop, not lastIndexOf: that would search past the line. */
function lineStart(text: string, at: number): number {
  let start = at;
  while (start > 0 && !isLineEnd(text.charCodeAt(start - 1))) start--;
  return start;
}

/** Where the line holding `at` ends: its LF or CR, or the end of the text. */
function lineEnd(text: string, at: number): number {
  let end = at;
  while (end < text.length && !isLineEnd(text.charCodeAt(end))) end++;
  return end;
}

const isLineEnd = (code: number): boolean => code === LF || code === CR;

function eventOfLine(line: string): SseEvent | undefined {
  let found: SseEvent | undefined;
  const reader = new SseLineReader((event) => (found = event));
  reader.feed(line);
  reader.end();
  return found;
}
