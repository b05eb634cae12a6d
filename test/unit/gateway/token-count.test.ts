// The bounded token count (token-count.ts) against the tokenizer itself: the same figure on ordinary
// text, a close one where long runs are cut, and bounded time on the inputs that broke the tokenizer; and
// its 1 MiB cap: however large the body (10 MiB may reach count_tokens), the counting thread is handed at
// most SAMPLE_CHARS of it, and the rest is extrapolated.
import { Worker } from 'node:worker_threads';
import { describe, expect, it, vi } from 'vitest';
import { encode as encodeO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { encode as encodeCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens, SAMPLE_CHARS } from '../../../src-main/gateway/token-count.js';

const PROSE =
  'The gateway answers every request in the dialect it came in, with the error shape of that dialect. ' +
  'Numbers like 1234567 and code like `const x = f(a, b);` count as the tokenizer says.\n\n';

describe('countTokens', () => {
  it('gives the tokenizer’s own figure on ordinary text, for both encodings', async () => {
    const texts = [PROSE, PROSE.repeat(40), 'Hello, world!'];
    const o200k = texts.reduce((sum, text) => sum + encodeO200k(text).length, 0);
    const cl100k = texts.reduce((sum, text) => sum + encodeCl100k(text).length, 0);
    expect(await countTokens('o200k_base', texts)).toEqual({ tokens: o200k, basis: 'counted' });
    expect(await countTokens('cl100k_base', texts)).toEqual({ tokens: cl100k, basis: 'counted' });
  }, 20_000);

  it('stays within a few percent of the tokenizer on a long word it can still encode', async () => {
    const word = 'x'.repeat(3000);
    const exact = encodeO200k(word).length;
    const { tokens, basis } = await countTokens('o200k_base', [word]);
    expect(basis).toBe('counted');
    expect(Math.abs(tokens - exact) / exact).toBeLessThan(0.1);
  }, 20_000);

  it('answers within a second for 10 MiB of one letter and for 250,000 random letters (a sample, extrapolated)', async () => {
    let random = '';
    for (let i = 0; i < 250_000; i++) random += String.fromCharCode(97 + ((i * 7919) % 26));
    for (const text of ['a'.repeat(10 * 1024 * 1024), random]) {
      const started = performance.now();
      const { tokens, basis } = await countTokens('o200k_base', [text]);
      // Generous for a slow CI machine: the count itself stops at 250 ms.
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(basis).not.toBe('guessed');
      expect(tokens).toBeGreaterThan(text.length / 16);
      expect(tokens).toBeLessThan(text.length);
    }
  }, 20_000);

  it('hands the counting thread at most 1 MiB of text, whatever it is asked to count, and extrapolates the rest', async () => {
    expect(SAMPLE_CHARS).toBe(1024 * 1024);
    const posted = vi.spyOn(Worker.prototype, 'postMessage');
    try {
      // Ten messages of 1 MiB of prose each (as a 10 MiB count_tokens body would carry them).
      const message = PROSE.repeat(Math.ceil(SAMPLE_CHARS / PROSE.length)).slice(0, SAMPLE_CHARS);
      const texts = Array.from({ length: 10 }, () => message);
      const { tokens, basis } = await countTokens('o200k_base', texts);
      const handed = posted.mock.calls.map(([value]) => (value as { texts: string[] }).texts.reduce((sum, text) => sum + text.length, 0));
      expect(handed.length).toBeGreaterThan(0);
      for (const chars of handed) expect(chars).toBeLessThanOrEqual(SAMPLE_CHARS);
      // Ten times what a counted megabyte holds, within the sample's error.
      expect(basis).not.toBe('guessed');
      const perMessage = encodeO200k(message.slice(0, 64 * 1024)).length * (SAMPLE_CHARS / (64 * 1024));
      expect(tokens / (10 * perMessage)).toBeGreaterThan(0.8);
      expect(tokens / (10 * perMessage)).toBeLessThan(1.25);
    } finally {
      posted.mockRestore();
    }
  }, 20_000);

  it('counts nothing for no text, without starting the thread', async () => {
    expect(await countTokens('o200k_base', ['', ''])).toEqual({ tokens: 0, basis: 'counted' });
  });
});
