// Sends a body with another model name while keeping every other byte as the client sent it: only the
// value of the top-level "model" key is replaced (or the key added, when the body had none and a
// default model stands in). Nested "model" keys (tool schemas, metadata) are left alone.

/**
 * Where the JSON string starting at `start` (its opening quote) ends, just past its closing quote. Found
 * with indexOf rather than a character at a time: most of a long agent session's body is inside strings.
 */
function stringEnd(text: string, start: number): number {
  for (let quote = text.indexOf('"', start + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    // A quote is escaped when an odd number of backslashes stands right before it.
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 92) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
  }
  return text.length;
}

/** A key's JSON text is "model": as written plainly, or spelled with escapes (decoded then). */
function isModelKey(raw: string): boolean {
  if (raw === '"model"') return true;
  return raw.includes('\\') && JSON.parse(raw) === 'model';
}

/** The spans of every top-level "model" string value in a JSON object's text (a duplicate key included). */
function modelValueSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  let depth = 0;
  /** The last significant character at depth 1 ('{', ',', ':'), or 'k' right after a key. */
  let previous = '';
  let keyIsModel = false;
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char === '"') {
      const start = i;
      i = stringEnd(text, i);
      if (depth === 1 && (previous === '{' || previous === ',')) {
        keyIsModel = isModelKey(text.slice(start, i));
        previous = 'k';
      } else {
        if (depth === 1 && previous === ':' && keyIsModel) spans.push([start, i]);
        if (depth === 1) previous = 's';
      }
      continue;
    }
    if (char === '{' || char === '[') {
      depth++;
      if (depth === 1) previous = char;
    } else if (char === '}' || char === ']') depth--;
    else if (depth === 1 && (char === ',' || char === ':')) previous = char;
    i++;
  }
  return spans;
}

/** The body's text with `model` as its top-level model (replacing each occurrence, or added first). */
export function withModelField(text: string, model: string): string {
  const value = JSON.stringify(model);
  const spans = modelValueSpans(text);
  if (spans.length === 0) {
    const open = text.indexOf('{');
    const rest = text.slice(open + 1);
    const separator = rest.trim().startsWith('}') ? '' : ',';
    return `${text.slice(0, open + 1)}"model":${value}${separator}${rest}`;
  }
  let result = '';
  let from = 0;
  for (const [start, end] of spans) {
    result += text.slice(from, start) + value;
    from = end;
  }
  return result + text.slice(from);
}
