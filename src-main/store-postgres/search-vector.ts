// The words a log row is found by in the search box, written as PostgreSQL's own tsvector and tsquery
// literals. They are made in the gateway as a batch is written (a few µs a row, on the PostgreSQL bridge's
// thread), not by to_tsvector in the database: there a regular expression and the text parser cost
// PostgreSQL about a third of each row's insert. Both sides come from the same words, so a search finds
// the words as indexed.

/**
 * The three functions, made by one function that refers to nothing outside itself: the bridge's worker
 * runs this very function from its source text (pg-bridge.ts), so the words written there are the words
 * searched for here.
 */
export function searchText() {
  /** Runs of letters and digits, lower case: the words SQLite's unicode61 tokenizer makes. */
  const NOT_A_WORD = /[^\p{L}\p{N}]+/u;
  /** PostgreSQL refuses a lexeme of 2 KiB or more; a word that long is not indexed. */
  const MAX_LEXEME_BYTES = 2_047;
  /** Positions above this are stored as this (PostgreSQL's bound); words past it are not indexed. */
  const MAX_POSITION = 16_383;
  /** PostgreSQL keeps at most this many positions of one lexeme. */
  const MAX_POSITIONS_PER_LEXEME = 256;
  // A character is at most 4 bytes: only a long word needs counting.
  const tooLong = (word: string) => word.length > MAX_LEXEME_BYTES / 4 && Buffer.byteLength(word) > MAX_LEXEME_BYTES;

  function words(text: string): string[] {
    // ASCII text (models, trace ids, paths: nearly every row) is split by its character codes, the same
    // words the regular expression makes, at a fraction of its cost; any other character takes the general way.
    const found: string[] = [];
    let start = -1;
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (code >= 0x80) return text.toLowerCase().split(NOT_A_WORD).filter(Boolean);
      const inWord = (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
      if (inWord) {
        if (start < 0) start = index;
      } else if (start >= 0) {
        found.push(text.slice(start, index).toLowerCase());
        start = -1;
      }
    }
    if (start >= 0) found.push(text.slice(start).toLowerCase());
    return found;
  }

  /** The tsvector of the texts, in order, as one text: each word with its positions ("'gpt':1 '4o':2"). */
  function vector(texts: readonly (string | null | undefined)[]): string {
    // Each word's positions as written ("1,7") and how many; in the order the words first appear.
    const positions = new Map<string, string>();
    const counts = new Map<string, number>();
    let position = 0;
    for (const text of texts) {
      if (!text) continue;
      for (const word of words(text)) {
        if (++position > MAX_POSITION) break;
        if (tooLong(word)) continue;
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
    let literal = '';
    // Words are letters and digits only: nothing in them to escape inside the quotes.
    for (const [word, at] of positions) literal += `${literal ? ' ' : ''}'${word}':${at}`;
    return literal;
  }

  /**
   * The tsquery of a search: its words one after another, the last one a prefix ("gpt-4o-m" finds
   * gpt-4o-mini). Null when a word is too long to have been indexed.
   */
  function query(searched: readonly string[]): string | null {
    if (searched.some(tooLong)) return null;
    return searched.map((word, index) => `'${word}'${index === searched.length - 1 ? ':*' : ''}`).join(' <-> ');
  }

  return { words, vector, query };
}

export const { words: searchWords, vector: searchVector, query: searchQuery } = searchText();
