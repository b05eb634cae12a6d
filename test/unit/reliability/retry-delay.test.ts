// Back-off between retries: exponential with full jitter, capped, and the provider's Retry-After first.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { retryDelayMs } from '../../../src-main/providers/upstream.js';

describe('retryDelayMs', () => {
  it('without Retry-After waits between half and all of 250 ms × 2^attempt, capped at 8 s', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, random) => {
        const ceiling = Math.min(8_000, 250 * 2 ** attempt);
        const delay = retryDelayMs(attempt, undefined, () => random);
        expect(delay).toBeGreaterThanOrEqual(ceiling / 2 - 1);
        expect(delay).toBeLessThanOrEqual(ceiling);
      }),
    );
  });

  it('spreads retries out: the random draw moves the delay (jitter)', () => {
    expect(retryDelayMs(2, undefined, () => 0)).toBe(500);
    expect(retryDelayMs(2, undefined, () => 0.999)).toBeGreaterThan(990);
  });

  it('grows with each attempt', () => {
    const middle = () => 0.5;
    const delays = [0, 1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, undefined, middle));
    expect(delays).toEqual([...delays].sort((a, b) => a - b));
    expect(new Set(delays).size).toBe(delays.length);
  });

  it('honours Retry-After in seconds or as an HTTP date, up to a minute', () => {
    expect(retryDelayMs(0, '2')).toBe(2_000);
    expect(retryDelayMs(3, '0')).toBe(0);
    expect(retryDelayMs(0, '86400')).toBe(60_000);
    const inThreeSeconds = new Date(Date.now() + 3_000).toUTCString();
    const fromDate = retryDelayMs(0, inThreeSeconds);
    expect(fromDate).toBeGreaterThan(1_500);
    expect(fromDate).toBeLessThanOrEqual(3_000);
    expect(retryDelayMs(0, new Date(Date.now() - 60_000).toUTCString())).toBe(0);
  });

  it('falls back to back-off for a Retry-After it cannot read', () => {
    const delay = retryDelayMs(1, 'soon', () => 0);
    expect(delay).toBe(250);
  });
});
