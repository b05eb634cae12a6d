// The Usage charts' money axis: round steps from zero past the largest value, whatever one day of data holds.
import { describe, expect, it } from 'vitest';
import { niceTicks } from '../../../src-renderer/pages/usage/usage-format';

describe('niceTicks', () => {
  it('steps in 1-2-5 multiples and reaches past the maximum', () => {
    expect(niceTicks(0.035)).toEqual([0, 0.01, 0.02, 0.03, 0.04]);
    expect(niceTicks(0.066)).toEqual([0, 0.02, 0.04, 0.06, 0.08]);
    expect(niceTicks(7.2)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(0.0000051)).toEqual([0, 0.000002, 0.000004, 0.000006]);
  });

  it('gives a plain axis for no spend', () => {
    expect(niceTicks(0)).toEqual([0, 1]);
  });
});
