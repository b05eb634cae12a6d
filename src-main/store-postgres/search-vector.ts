// The words a log row is found by in the search box, written as PostgreSQL's own tsvector and tsquery
// literals. They are made in the gateway as a batch is handed to the writer (a few µs a row), not by
// to_tsvector in the database: there a regular expression and the text parser cost PostgreSQL about a
// third of each row's insert. Both sides come from searchWords, so a search finds the words as indexed.

/** Runs of letters and digits, lower case: the words SQLite's unicode61 tokenizer makes. */
const NOT_A_WORD = /[^\p{L}\p{N}]+/u;
/** PostgreSQL refuses a lexeme of 2 KiB or more; a word that long is not indexed. */
const MAX_LEXEME_BYTES = 2_047;
/** Positions above this are stored as this (PostgreSQL's bound); words past it are not indexed. */
const MAX_POSITION = 16_383;
/** PostgreSQL keeps at most this many positions of one lexeme. */
const MAX_POSITIONS_PER_LEXEME = 256;

export function searchWords(text: string): string[] {
  // ASCII text (models, trace ids, paths: nearly every row) is split by its character codes, the same
  // words the regular expression makes, at a fraction of its cost; any other character takes the general way.
  const words: string[] = [];
  let start = -1;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0x80) return text.toLowerCase().split(NOT_A_WORD).filter(Boolean);
    const inWord = (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
    if (inWord) {
      if (start < 0) start = index;
    } else if (start >= 0) {
      words.push(text.slice(start, index).toLowerCase());
      start = -1;
    }
  }
  if (start >= 0) words.push(text.slice(start).toLowerCase());
  return words;
}

/** The tsvector of the texts, in order, as one text: each word with its positions ("'gpt':1 '4o':2"). */
export function searchVector(texts: readonly (string | null | undefined)[]): string {
  // Each word's positions as written ("1,7") and how many; in the order the words first appear.
  const positions = new Map<string, string>();
  const counts = new Map<string, number>();
  let position = 0;
  for (const text of texts) {
    if (!text) continue;
    for (const word of searchWords(text)) {
      if (++position > MAX_POSITION) break;
      // A character is at most 4 bytes: only a long word needs counting.
      if (word.length > MAX_LEXEME_BYTES / 4 && Buffer.byteLength(word) > MAX_LEXEME_BYTES) continue;
      const at = positions.get(word);
      if (at === undefined) positions.set(word, String(position));
      else {
        const count = counts.get(word) ?? 1;
        if (count >= MAX_POSITIONS_PER_LEXEME) continue;
        positions.set(word, `${at},${position}`);
        counts.set(word, count + 1);
      }
    }
  }
  let vector = '';
  // Words are letters and digits only: nothing in them to escape inside the quotes.
  for (const [word, at] of positions) vector += `${vector ? ' ' : ''}'${word}':${at}`;
  return vector;
}

/**
 * The tsquery of a search: its words one after another, the last one a prefix ("gpt-4o-m" finds
 * gpt-4o-mini). Null when a word is too long to have been indexed.
 */
export function searchQuery(words: readonly string[]): string | null {
  if (words.some((word) => word.length > MAX_LEXEME_BYTES / 4 && Buffer.byteLength(word) > MAX_LEXEME_BYTES)) return null;
  return words.map((word, index) => `'${word}'${index === words.length - 1 ? ':*' : ''}`).join(' <-> ');
}
