// Compares a presented token with the expected one in constant time, whatever their lengths.
import { createHash, timingSafeEqual } from 'node:crypto';

/** Equal tokens; hashed first so that neither the length nor a prefix leaks through timing. */
export function tokensMatch(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
