// One pass over a request body's bytes before JSON.parse, for what JSON.parse cannot refuse:
// - nesting deeper than MAX_JSON_DEPTH (a million `[` costs seconds to parse and overflows whatever recurses later);
// - a member name given twice in one object (`{"max_tokens": -5, "max_tokens": 5}`): JSON.parse keeps the last
//   value, which is what was validated, while the body is forwarded byte for byte and a provider may read the first.
// Strings are skipped with a native byte search, so a typical chat body costs a few µs (docs/contract-additions.md).
import { invalidRequest } from './errors.js';

/** How deeply a request body may nest arrays and objects. */
export const MAX_JSON_DEPTH = 64;

export type JsonScanProblem = { kind: 'too-deep' } | { kind: 'duplicate-name'; name: string; path: string };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** Past this many names an object's names are looked up in a Set rather than compared one by one. */
const LINEAR_NAMES = 12;

/** The names of one open object so far; null for an array. */
type Names = string[] | Set<string> | null;

/** Strings shorter than this are walked byte by byte: a native search costs more to call than it saves on them. */
const SHORT_STRING = 64;

/** The index of the quote that closes the string whose first byte is at `from`, or -1. */
function closingQuote(bytes: Buffer, from: number): number {
  const walked = Math.min(bytes.length, from + SHORT_STRING);
  let i = from;
  for (; i < walked; i++) {
    const byte = bytes[i];
    if (byte === QUOTE) return i;
    if (byte === BACKSLASH) i++;
  }
  // Resumed where the walk stopped (past an escaped byte, when the walk ended on a backslash).
  let end = i < bytes.length ? bytes.indexOf(QUOTE, i) : -1;
  while (end !== -1) {
    // An odd run of backslashes escapes this quote (the run never reaches past the opening quote).
    let backslashes = 0;
    while (bytes[end - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = bytes.indexOf(QUOTE, end + 1);
  }
  return -1;
}

/** Whether the bytes from start to end (exclusive) hold a backslash; never looks past end. */
function hasBackslash(bytes: Buffer, start: number, end: number): boolean {
  if (end - start < SHORT_STRING) {
    for (let i = start; i < end; i++) if (bytes[i] === BACKSLASH) return true;
    return false;
  }
  // A view, not a copy: the native search then stops at the name's end (searching the whole body from each
  // name was quadratic: 80,000 one-word messages held the thread for 2 s).
  return bytes.subarray(start, end).includes(BACKSLASH);
}

/** A member name as JSON.parse would read it: `"a"` and `"\u0061"` are the same name. */
function nameAt(bytes: Buffer, start: number, end: number): string {
  if (!hasBackslash(bytes, start, end)) return bytes.toString('utf8', start, end);
  try {
    return JSON.parse(bytes.toString('utf8', start - 1, end + 1)) as string;
  } catch {
    // Malformed: JSON.parse of the whole body will say so.
    return bytes.toString('utf8', start, end);
  }
}

/** Adds a name; false when the object has it already. */
function addName(names: string[] | Set<string>, name: string): { names: string[] | Set<string>; added: boolean } {
  if (Array.isArray(names)) {
    if (names.includes(name)) return { names, added: false };
    names.push(name);
    return { names: names.length > LINEAR_NAMES ? new Set(names) : names, added: true };
  }
  if (names.has(name)) return { names, added: false };
  names.add(name);
  return { names, added: true };
}

/** `messages[0].content`: where a member sits, from the names and indexes open at that point. */
function pathOf(namesStack: Names[], indexes: number[], depth: number, name: string): string {
  let path = '';
  for (let level = 1; level < depth; level++) {
    const names = namesStack[level];
    if (names === null) path += `[${indexes[level]}]`;
    else {
      const last = Array.isArray(names) ? names[names.length - 1] : [...names].pop();
      path += path === '' ? last : `.${last}`;
    }
  }
  return path === '' ? name : `${path}.${name}`;
}

/**
 * The first problem found, or null. Malformed JSON is not its business (JSON.parse reports that), and it
 * never throws on it. Works on the raw UTF-8 bytes: a multi-byte character never contains an ASCII byte.
 */
export function scanJson(bytes: Buffer, maxDepth = MAX_JSON_DEPTH): JsonScanProblem | null {
  // Per open container (index = depth): its names so far (objects) or null (arrays), and an array's element index.
  const namesStack: Names[] = [null];
  const indexes: number[] = [0];
  let depth = 0;
  /** In an object, after `{` or `,`: the next string is a member name. */
  let expectingName = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === QUOTE) {
      const end = closingQuote(bytes, i + 1);
      if (end === -1) return null;
      if (expectingName) {
        const name = nameAt(bytes, i + 1, end);
        const names = namesStack[depth] ?? [];
        const { names: grown, added } = addName(names, name);
        if (!added) return { kind: 'duplicate-name', name, path: pathOf(namesStack, indexes, depth, name) };
        namesStack[depth] = grown;
        expectingName = false;
      }
      i = end;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++depth > maxDepth) return { kind: 'too-deep' };
      const isObject = byte === OPEN_OBJECT;
      namesStack[depth] = isObject ? [] : null;
      indexes[depth] = 0;
      expectingName = isObject;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      if (depth > 0) depth--;
      expectingName = false;
    } else if (byte === COMMA) {
      if (namesStack[depth] === null) indexes[depth]++;
      else if (depth > 0) expectingName = true;
    } else if (byte === COLON) {
      expectingName = false;
    }
  }
  return null;
}

/**
 * Refuses, with the 400 that says why, a body JSON.parse would take but must not: nested too deeply, or
 * naming a member twice (validated on its last value while a provider, sent the same bytes, may read the first).
 */
export function refuseUnsafeJson(raw: Buffer): void {
  const problem = scanJson(raw);
  if (problem?.kind === 'too-deep') throw invalidRequest(`The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  if (problem?.kind === 'duplicate-name') {
    throw invalidRequest(`The request body names '${problem.name}' twice${problem.path === problem.name ? '' : ` (at ${problem.path})`}; send each member once`, problem.path);
  }
}
