// A cheap scan of how deeply a JSON text nests, run before JSON.parse: a body of a million `[` costs
// seconds to parse and walk, and deep values overflow the stack of whatever recurses on them later.

export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * True when arrays and objects nest deeper than `maxDepth`. Works on the raw UTF-8 bytes (a multi-byte
 * character never contains an ASCII byte), and brackets inside strings do not count.
 */
export function exceedsJsonDepth(bytes: Uint8Array, maxDepth = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}
