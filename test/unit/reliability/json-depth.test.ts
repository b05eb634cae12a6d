// The nesting scan that runs before JSON.parse must agree with the real depth of any JSON text.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, scanJson } from '../../../src-main/core/json-scan.js';
import { depthOf } from '../../helpers/json-depth.js';

/** Whether the scan refuses the text as nested too deeply. */
const exceedsJsonDepth = (text: Buffer, limit?: number): boolean => scanJson(text, limit)?.kind === 'too-deep';


const bytes = (text: string) => Buffer.from(text, 'utf8');
// Strings full of brackets, quotes and backslashes are where a naive scan goes wrong.
const trickyString = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', 'é', '😀', '\n'), maxLength: 12 });
const trickyJson = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, trickyString, fc.integer(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 3 }),
  object: fc.dictionary(trickyString, tie('value'), { maxKeys: 3 }),
})).value;

describe('exceedsJsonDepth', () => {
  it('agrees with the depth of the parsed value for any JSON, at any limit', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), trickyJson), fc.integer({ min: 0, max: 8 }), (value, limit) => {
        expect(exceedsJsonDepth(bytes(JSON.stringify(value)), limit)).toBe(depthOf(value) > limit);
      }),
      { numRuns: 2_000 },
    );
  });

  it(`allows ${MAX_JSON_DEPTH} levels by default and refuses ${MAX_JSON_DEPTH + 1}`, () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    expect(exceedsJsonDepth(bytes(nested(MAX_JSON_DEPTH)))).toBe(false);
    expect(exceedsJsonDepth(bytes(nested(MAX_JSON_DEPTH + 1)))).toBe(true);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(exceedsJsonDepth(bytes(JSON.stringify({ prompt: '['.repeat(500) + '\\"' + '{'.repeat(500) })), 1)).toBe(false);
    expect(exceedsJsonDepth(bytes('["\\\\", [[1]]]'), 2)).toBe(true);
  });

  it('scans a 10 MiB body in well under a second', () => {
    const body = bytes(JSON.stringify({ model: 'm', prompt: 'x[{"'.repeat(2_600_000) }));
    const started = performance.now();
    expect(exceedsJsonDepth(body)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
