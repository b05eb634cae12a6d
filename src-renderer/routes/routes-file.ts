// Reading a routes file picked for import (JSON or YAML: JSON is read by the same YAML parser) and
// finding the line a server error points at, so "routes[1].targets[0].key" reads as "line 12".
import { LineCounter, parseDocument, type Document } from 'yaml';
import type { RoutesFile } from '../api/types';

export interface ParsedRoutesFile {
  file: RoutesFile;
  /** The 1-based line of the value a param path names (or of its nearest parent), if known. */
  lineOf(param: string | null | undefined): number | null;
}

export class RoutesFileError extends Error {
  constructor(
    message: string,
    readonly line: number | null = null,
  ) {
    super(line ? `Line ${line}: ${message}` : message);
    this.name = 'RoutesFileError';
  }
}

/** `routes[1].targets[0].key` → ['routes', 1, 'targets', 0, 'key']. */
export function pathOfParam(param: string): Array<string | number> {
  const path: Array<string | number> = [];
  for (const part of param.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (part[2] !== undefined) path.push(Number(part[2]));
    else path.push(part[1]);
  }
  return path;
}

function lineLocator(document: Document, lines: LineCounter): ParsedRoutesFile['lineOf'] {
  return (param) => {
    if (!param) return null;
    const path = pathOfParam(param);
    // A missing field has no node of its own: point at the nearest thing that is there.
    for (let length = path.length; length > 0; length -= 1) {
      const node = document.getIn(path.slice(0, length), true) as { range?: [number, number, number] } | undefined;
      if (node && typeof node === 'object' && node.range) return lines.linePos(node.range[0]).line;
    }
    return null;
  };
}

/** Parses the text of a routes file; throws RoutesFileError naming the line of a syntax error. */
export function parseRoutesFile(text: string): ParsedRoutesFile {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const [syntaxError] = document.errors;
  if (syntaxError) {
    const line = syntaxError.linePos?.[0]?.line ?? lines.linePos(syntaxError.pos[0]).line;
    throw new RoutesFileError(syntaxError.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, ''), line);
  }
  const value: unknown = document.toJS();
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Array.isArray((value as { routes?: unknown }).routes)) {
    throw new RoutesFileError('A routes file is an object with a "routes" list, as Export writes it.', text.trim() ? 1 : null);
  }
  return { file: value as RoutesFile, lineOf: lineLocator(document, lines) };
}

