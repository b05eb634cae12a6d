// Server-sent events: reading a provider's stream event by event, and writing OpenAI-style `data:` lines.
import { MAX_STREAM_FRAME_BYTES, oversizedStreamPiece } from './stream-bounds.js';

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
    private readonly maxBuffered = MAX_STREAM_FRAME_BYTES,
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

/** Yields each SSE event of a byte stream as soon as its terminating blank line arrived. */
export async function* readSseEvents(body: AsyncIterable<Buffer | Uint8Array>): AsyncGenerator<SseEvent> {
  const pending: SseEvent[] = [];
  // The reader holds an unfinished line and the data of an unfinished event; past the bound the stream is
  // given up (counted in characters, at most the bytes they came in).
  const reader = new SseLineReader((event) => pending.push(event));
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    const within = reader.feed(decoder.decode(chunk, { stream: true }));
    // A plain loop, not shift(): a chunk can end many events.
    for (const event of pending) yield event;
    pending.length = 0;
    if (!within) throw oversizedStreamPiece('a line or event', MAX_STREAM_FRAME_BYTES);
  }
  reader.feed(decoder.decode());
  reader.end();
  for (const event of pending) yield event;
}

export const sseData = (payload: string): string => `data: ${payload}\n\n`;
export const SSE_DONE = 'data: [DONE]\n\n';
