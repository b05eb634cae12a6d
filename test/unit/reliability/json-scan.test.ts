// The scan that runs before JSON.parse: duplicate member names found at any depth (escapes included), and
// never one where there is none; the depth limit as the parsed value's depth has it (json-depth.test.ts).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { scanJson } from '../../../src-main/core/json-scan.js';
import { depthOf } from '../../helpers/json-depth.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const trickyString = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', ',', ':', 'a', 'é', '😀', '\n'), maxLength: 80 });
const trickyJson = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, trickyString, fc.integer(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 3 }),
  object: fc.dictionary(trickyString, tie('value'), { maxKeys: 20 }),
})).value;

/** Every character of a name as a \u escape: the same name to JSON.parse, other bytes to the scan. */
const escaped = (name: string) => `"${[...name].map((char) => (char.length === 1 ? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}` : JSON.stringify(char).slice(1, -1))).join('')}"`;

describe('scanJson', () => {
  it('finds no duplicate in any JSON that has none, and agrees with the parsed value on depth', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), trickyJson), fc.integer({ min: 0, max: 8 }), (value, limit) => {
        const text = bytes(JSON.stringify(value));
        const problem = scanJson(text, limit);
        expect(problem === null ? null : problem.kind).toBe(depthOf(value) > limit ? 'too-deep' : null);
      }),
      { numRuns: 2_000 },
    );
  });

  it('finds a name given twice, written plainly or escaped, inside any nesting', () => {
    fc.assert(
      fc.property(fc.dictionary(trickyString, trickyJson, { minKeys: 1, maxKeys: 20 }), fc.boolean(), fc.integer({ min: 0, max: 3 }), (object, escape, wraps) => {
        const name = Object.keys(object)[0];
        let text = JSON.stringify(object).replace(/^\{/, `{${escape ? escaped(name) : JSON.stringify(name)}:0,`);
        let path = name;
        for (let i = 0; i < wraps; i++) {
          text = i % 2 ? `{"before":[1,{"x":"}"}],"inner":${text}}` : `[0,"[",${text}]`;
          path = i % 2 ? `inner${path.startsWith('[') ? '' : '.'}${path}` : `[2].${path}`;
        }
        expect(Object.keys(JSON.parse(text)).length).toBeGreaterThan(0);
        const problem = scanJson(bytes(text), 64);
        expect(problem).toEqual({ kind: 'duplicate-name', name, path });
      }),
      { numRuns: 1_000 },
    );
  });

  it('never throws on text that is not JSON', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', ',', ':', 'a', '1') }), (text) => void scanJson(bytes(text))), { numRuns: 2_000 });
  });
});
