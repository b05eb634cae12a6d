// The open line of a relayed stream, chunk by chunk: it ends at an LF or a CR, wherever in the chunk.
import { describe, expect, it } from 'vitest';
import { LineLength, MAX_STREAM_FRAME_BYTES } from '../../../src-main/gateway/stream-bounds.js';

const bytes = (length: number, fill = 'a') => Buffer.alloc(length, fill);

describe('the open line of a passthrough stream', () => {
  it('grows across chunks without a break and is over the bound one byte past it', () => {
    const line = new LineLength();
    expect(line.overAfter(bytes(MAX_STREAM_FRAME_BYTES - 10))).toBe(false);
    expect(line.overAfter(bytes(10))).toBe(false);
    expect(line.overAfter(bytes(1))).toBe(true);
  });

  it('starts again after the last LF of a chunk, and counts what follows it', () => {
    const line = new LineLength();
    expect(line.overAfter(bytes(MAX_STREAM_FRAME_BYTES))).toBe(false);
    expect(line.overAfter(Buffer.concat([bytes(5), Buffer.from('\n'), bytes(3)]))).toBe(false);
    // 3 bytes open: 16 MB - 3 more stay within the bound, one more does not.
    expect(line.overAfter(bytes(MAX_STREAM_FRAME_BYTES - 3))).toBe(false);
    expect(line.overAfter(bytes(1))).toBe(true);
  });

  it('takes a CR after the last LF as the break (old Mac line ends), and an LF after a CR', () => {
    const afterReturn = new LineLength();
    afterReturn.overAfter(bytes(MAX_STREAM_FRAME_BYTES));
    expect(afterReturn.overAfter(Buffer.concat([Buffer.from('x\ny'), Buffer.from('\r'), bytes(2)]))).toBe(false);
    expect(afterReturn.overAfter(bytes(MAX_STREAM_FRAME_BYTES - 2))).toBe(false);
    expect(afterReturn.overAfter(bytes(1))).toBe(true);

    const crlf = new LineLength();
    crlf.overAfter(bytes(MAX_STREAM_FRAME_BYTES));
    expect(crlf.overAfter(Buffer.from('data: {}\r\n'))).toBe(false);
    expect(crlf.overAfter(bytes(MAX_STREAM_FRAME_BYTES))).toBe(false);
    expect(crlf.overAfter(bytes(1))).toBe(true);
  });
});
