// The bounded token count (token-count.ts) against the tokenizer itself: the same figure on ordinary
// text, a close one where long runs are cut, and bounded time on the inputs that broke the tokenizer.
import { describe, expect, it } from 'vitest';
import { encode as encodeO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { encode as encodeCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens } from '../../../src-main/gateway/token-count.js';

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

  it('counts nothing for no text, without starting the thread', async () => {
    expect(await countTokens('o200k_base', ['', ''])).toEqual({ tokens: 0, basis: 'counted' });
  });
});
