// Sends a body with another model name while keeping every other byte as the client sent it: only the
// value of the top-level "model" key is replaced (or the key added, when the body had none and a
// default model stands in). Nested "model" keys (tool schemas, metadata) are left alone.

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
      const start = i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      if (depth === 1 && (previous === '{' || previous === ',')) {
        keyIsModel = JSON.parse(text.slice(start, i)) === 'model';
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
