// The SSE line reader: what a provider's stream means whichever way its bytes are cut, and its bound.
import { describe, expect, it } from 'vitest';
import { readSseEvents } from '../../../src-main/gateway/sse.js';
import { SseLineReader, type SseEvent } from '../../../src-main/core/sse-reader.js';

function read(pieces: string[]): SseEvent[] {
  const events: SseEvent[] = [];
  const reader = new SseLineReader((event) => events.push(event));
  for (const piece of pieces) reader.feed(piece);
  reader.end();
  return events;
}

/** Every way of cutting `text` in two, and one byte at a time. */
function cuts(text: string): string[][] {
  const all: string[][] = [[text], [...text]];
  for (let at = 1; at < text.length; at++) all.push([text.slice(0, at), text.slice(at)]);
  return all;
}

const STREAM = 'event: message_start\r\ndata: {"a":1}\r\n\r\n: a comment\rdata: one\rdata:two\r\rid: 7\ndata: x\n\nretry: 10\nunknown\ndata\n\n';
const EXPECTED: SseEvent[] = [
  { event: 'message_start', data: '{"a":1}', id: undefined },
  { event: undefined, data: 'one\ntwo', id: undefined },
  { event: undefined, data: 'x', id: '7' },
  { event: undefined, data: '', id: undefined },
];

describe('SseLineReader', () => {
  it('reads LF, CR and CRLF line ends, comments, multi-line data and ids the same however the text is cut', () => {
    for (const pieces of cuts(STREAM)) expect(read(pieces), JSON.stringify(pieces)).toEqual(EXPECTED);
  });

  it('a final event without its blank line still counts, and an event without data is not one', () => {
    expect(read(['event: ping\n\n', 'data: last'])).toEqual([{ event: undefined, data: 'last', id: undefined }]);
    expect(read(['data: last\r'])).toEqual([{ event: undefined, data: 'last', id: undefined }]);
  });

  it('a chunk of many line ends and one CR reads every line (each line found once)', () => {
    const text = 'data: a\n\n'.repeat(50_000) + '\r';
    expect(read([text])).toHaveLength(50_000);
  });

  it('refuses to hold more than its bound of unfinished line and event data', () => {
    const reader = new SseLineReader(() => undefined, 100);
    expect(reader.feed('data: ' + 'x'.repeat(60))).toBe(true);
    expect(reader.feed('y'.repeat(60))).toBe(false);
    const events = new SseLineReader(() => undefined, 100);
    expect(events.feed('data: ' + 'x'.repeat(60) + '\n')).toBe(true);
    expect(events.feed('data: ' + 'x'.repeat(60) + '\n')).toBe(false);
  });

  it('readSseEvents decodes UTF-8 split between chunks and yields every event of a chunk', async () => {
    const bytes = Buffer.from('data: é€\n\ndata: b\n\ndata: c');
    async function* chunks() {
      for (let at = 0; at < bytes.length; at += 3) yield bytes.subarray(at, at + 3);
    }
    const events: string[] = [];
    for await (const event of readSseEvents(chunks())) events.push(event.data);
    expect(events).toEqual(['é€', 'b', 'c']);
  });
});
