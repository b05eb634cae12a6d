// JSON text for request bodies and code snippets. JSON.stringify cannot write a bigint, and a seed
// near 2^63 must reach the server digit for digit, so bigints are written as bare integers.
import type { JsonValue } from './parameters';

export function stringifyJson(value: JsonValue, indent = 0, depth = 0): string {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const pad = indent ? '\n' + ' '.repeat(indent * (depth + 1)) : '';
  const closePad = indent ? '\n' + ' '.repeat(indent * depth) : '';
  const separator = indent ? ': ' : ':';
  if (Array.isArray(value)) {
    if (!value.length) return '[]';
    return `[${value.map((item) => pad + stringifyJson(item, indent, depth + 1)).join(',')}${closePad}]`;
  }
  const entries = Object.entries(value);
  if (!entries.length) return '{}';
  return `{${entries.map(([key, item]) => `${pad}${JSON.stringify(key)}${separator}${stringifyJson(item, indent, depth + 1)}`).join(',')}${closePad}}`;
}

/** Pretty-prints text that may be JSON; anything else comes back unchanged. */
export function prettyJsonText(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
