// What the log keeps of an answer: its head whole, and past the limit the last 16 KB (where a stream's usage is).
import { describe, expect, it } from 'vitest';
import { BodyCapture } from '../../../src-main/gateway/relay/client-writer.js';

describe('BodyCapture', () => {
  it('keeps an answer under the limit whole', () => {
    const capture = new BodyCapture(100);
    for (const piece of ['data: a\n\n', 'data: b\n\n']) capture.add(piece);
    expect(capture.text()).toBe('data: a\n\ndata: b\n\n');
  });

  it('past the limit keeps the head and exactly the last 16 KB, however small the pieces came', () => {
    const capture = new BodyCapture(64);
    const pieces: string[] = [];
    for (let i = 0; i < 20_000; i++) pieces.push(`w${i};`);
    const headEnd = pieces.reduce((end, piece) => (end < 64 ? end + piece.length : end), 0);
    let sent = '';
    for (const [index, piece] of pieces.entries()) {
      capture.add(piece);
      sent += piece;
      // Checked all along the way: the kept tail is cut back from time to time, and never below 16 KB.
      if (index % 101 !== 0 || sent.length < headEnd + 16 * 1024) continue;
      const text = capture.text();
      expect(text.startsWith(`${sent.slice(0, headEnd)}\n… [middle of the answer not kept]\n`)).toBe(true);
      expect(text.slice(-16 * 1024)).toBe(sent.slice(-16 * 1024));
      expect(text.length).toBe(headEnd + '\n… [middle of the answer not kept]\n'.length + 16 * 1024);
    }
  });
});
