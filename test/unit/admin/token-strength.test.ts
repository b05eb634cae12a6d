// The admin token's strength estimate: random tokens of 128 bits and more pass, short or repetitive ones do not.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MIN_EXPOSED_TOKEN_BITS, estimateTokenBits } from '../../../src-main/core/token-strength.js';

describe('estimateTokenBits', () => {
  it('passes the tokens Gatehouse generates and the usual random ones, every time', () => {
    for (let i = 0; i < 500; i++) {
      expect(estimateTokenBits(randomBytes(32).toString('base64url'))).toBeGreaterThanOrEqual(MIN_EXPOSED_TOKEN_BITS);
      expect(estimateTokenBits(randomBytes(32).toString('base64'))).toBeGreaterThanOrEqual(MIN_EXPOSED_TOKEN_BITS);
      expect(estimateTokenBits(randomBytes(32).toString('hex'))).toBeGreaterThanOrEqual(MIN_EXPOSED_TOKEN_BITS);
    }
  });

  it('refuses short tokens and the obviously repetitive, however long', () => {
    for (const weak of ['', 'x', 'admin', 'correct-horse', 'a'.repeat(200), 'abc'.repeat(60), 'passw0rd!'.repeat(20), 'abcdefghijklmnopqrstuvwxyz'.repeat(4), '0123456789'.repeat(20), 'aabbccddeeff'.repeat(10)]) {
      expect({ weak, bits: estimateTokenBits(weak) < MIN_EXPOSED_TOKEN_BITS }).toEqual({ weak, bits: true });
    }
  });

  it('counts the alphabet of the classes used and the length', () => {
    expect(estimateTokenBits('q7')).toBeCloseTo(2 * Math.log2(36));
    expect(estimateTokenBits('Zq7!')).toBeCloseTo(4 * Math.log2(95));
  });
});
