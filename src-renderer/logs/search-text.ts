// The log search box's one meaning, shared by the live feed and the server (request-log.ts, whose word
// index is SQLite FTS5 with the unicode61 tokenizer): the words of the text, in order and side by side
// in one field, the last one a prefix ("gpt-4o-m" finds gpt-4o-mini, "limit reach" finds "Rate limit
// reached"); case and Latin accents ignored. Text with no letter or digit (say "{" or "/") is looked for
// as it is written. The fields are those the server indexes: model, trace id, error, metadata, path.
import type { LogEntry } from '../api/types';

/** Word characters as unicode61 counts them: letters, digits and private-use characters. */
const WORD = /[\p{L}\p{N}\p{Co}]+/gu;

/** unicode61's folding: lower case, Latin diacritics removed (é → e). */
function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{Mn}/gu, '').normalize('NFC').toLowerCase();
}

export function searchWords(text: string): string[] {
  return fold(text).match(WORD) ?? [];
}

/** The fields as the server's index holds them (metadata as its stored JSON text). */
export function searchedFields(entry: Pick<LogEntry, 'model' | 'traceId' | 'error' | 'metadata' | 'path'>): string[] {
  return [entry.model ?? '', entry.traceId, entry.error ?? '', JSON.stringify(entry.metadata ?? {}), entry.path];
}

/** Whether `words` occur side by side in `fieldWords`, the last one as a prefix. */
function containsPhrase(fieldWords: readonly string[], words: readonly string[]): boolean {
  const last = words.length - 1;
  for (let start = 0; start + last < fieldWords.length; start += 1) {
    let matched = true;
    for (let i = 0; i < last && matched; i += 1) matched = fieldWords[start + i] === words[i];
    if (matched && fieldWords[start + last].startsWith(words[last])) return true;
  }
  return false;
}

/** Whether a log entry matches the search text, exactly as the server's search decides. */
export function matchesSearch(entry: Pick<LogEntry, 'model' | 'traceId' | 'error' | 'metadata' | 'path'>, text: string): boolean {
  if (!text) return true;
  const fields = searchedFields(entry);
  const words = searchWords(text);
  if (!words.length) return fields.some((field) => field.includes(text));
  return fields.some((field) => containsPhrase(searchWords(field), words));
}
