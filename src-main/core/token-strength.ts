// How hard a secret token is to guess, estimated from its text: the admin token must be strong when
// other machines can reach the admin API (--allow-remote, team mode), since the admin API can add a
// stdio MCP server, which runs a command.

/** The least estimated entropy of an admin token that other machines can reach. */
export const MIN_EXPOSED_TOKEN_BITS = 128;

/** The character classes a token draws from, and how many characters each has. */
const CLASSES: ReadonlyArray<[RegExp, number]> = [
  [/[a-z]/, 26],
  [/[A-Z]/, 26],
  [/[0-9]/, 10],
  // Punctuation and anything else: the 33 printable ASCII symbols and space.
  [/[^a-zA-Z0-9]/, 33],
];

/** The shortest p such that the text is its first p characters repeated (`abcabcab` → 3). */
function period(chars: readonly number[]): number {
  for (let p = 1; p < chars.length; p++) {
    let repeats = true;
    for (let i = p; i < chars.length && repeats; i++) repeats = chars[i] === chars[i - p];
    if (repeats) return p;
  }
  return chars.length;
}

/**
 * The estimated entropy in bits: the characters that count × log2 of the alphabet of the character
 * classes used. What does not count: a repeated stretch (`abcabcabc` counts as `abc`), and a character
 * that continues the even step of the two before it (`aaaa`, `abcd`, `1357`). A random token loses a
 * character or two to chance; an obviously repetitive one loses nearly all.
 */
export function estimateTokenBits(token: string): number {
  // A thousand characters say all there is to say (and keep the period search quick on a huge token).
  const all = Array.from(token.slice(0, 1024), (char) => char.codePointAt(0) ?? 0);
  if (all.length === 0) return 0;
  const chars = all.slice(0, period(all));
  let counted = 0;
  for (let i = 0; i < chars.length; i++) {
    if (i === 1 && chars[1] === chars[0]) continue;
    if (i >= 2 && chars[i] - chars[i - 1] === chars[i - 1] - chars[i - 2]) continue;
    counted++;
  }
  let alphabet = 0;
  for (const [pattern, size] of CLASSES) if (pattern.test(token)) alphabet += size;
  return counted * Math.log2(alphabet);
}
