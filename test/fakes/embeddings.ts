// What the embedding doubles answer: a vector made from the text alone (the same text gives the same
// vector at every double), so a test can tell which input each vector belongs to and check its length.
import { createHash } from 'node:crypto';

/** A unit-ish vector of `dimensions` floats from the text's SHA-256 (float32-exact: it survives base64). */
export function fakeVector(text: string, dimensions: number): number[] {
  const vector: number[] = [];
  let seed = createHash('sha256').update(text).digest();
  while (vector.length < dimensions) {
    for (let offset = 0; offset + 2 <= seed.length && vector.length < dimensions; offset += 2) {
      // Multiples of 1/1024 in [-1, 1): exact in float32, so base64 round trips compare equal.
      vector.push((seed.readUInt16BE(offset) % 2048) / 1024 - 1);
    }
    seed = createHash('sha256').update(seed).digest();
  }
  return vector;
}

/** The tokens a double reports for a text: its words (enough to tell a reported count from the gateway's own). */
export const fakeTokenCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;
