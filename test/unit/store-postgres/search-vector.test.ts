// The log's search words on PostgreSQL are written by the gateway as tsvector literals and searched as
// tsquery literals, both from the same words: what a row is indexed by is exactly what a search looks for.
import { describe, expect, it } from 'vitest';
import { searchQuery, searchVector, searchWords } from '../../../src-main/store-postgres/search-vector.js';

describe('search words for PostgreSQL', () => {
  it('numbers the words of every text in order, one entry per word with all its positions', () => {
    expect(searchVector(['gpt-4o-mini', 'trace-7F3A', null, '{"team":"payments"}', '/v1/chat/completions'])).toBe(
      "'gpt':1 '4o':2 'mini':3 'trace':4 '7f3a':5 'team':6 'payments':7 'v1':8 'chat':9 'completions':10",
    );
    expect(searchVector(['a b a', 'b'])).toBe("'a':1,3 'b':2,4");
    expect(searchVector([null, '', '—'])).toBe('');
  });

  it('keeps letters of any script and leaves out what PostgreSQL would refuse', () => {
    expect(searchWords('Überweisung: 東京-Tower')).toEqual(['überweisung', '東京', 'tower']);
    const long = 'x'.repeat(3_000);
    expect(searchVector([`before ${long} after`])).toBe("'before':1 'after':3");
    expect(searchVector([Array.from({ length: 300 }, () => 'same').join(' ')]).split(',')).toHaveLength(256);
    expect(searchVector([Array.from({ length: 20_000 }, (_, n) => `w${n}`).join(' ')]).split(' ')).toHaveLength(16_383);
  });

  it('splits ASCII text (its quick way) into exactly the words the general rule makes', () => {
    const general = (text: string) => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    const printable = Array.from({ length: 0x7f }, (_, code) => String.fromCharCode(code)).join('');
    expect(searchWords(printable)).toEqual(general(printable));
    expect(searchWords(printable)).toEqual(['0123456789', 'abcdefghijklmnopqrstuvwxyz', 'abcdefghijklmnopqrstuvwxyz']);
    let seed = 7;
    const random = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    for (let n = 0; n < 500; n++) {
      const text = Array.from({ length: Math.floor(random() * 40) }, () => printable[Math.floor(random() * printable.length)]).join('');
      expect(searchWords(text)).toEqual(general(text));
    }
    // One character past ASCII anywhere: the general way for the whole text.
    expect(searchWords('Model-X café_2')).toEqual(['model', 'x', 'café', '2']);
  });

  it('searches the words as a phrase, the last a prefix; a word too long to be indexed finds nothing', () => {
    expect(searchQuery(searchWords('gpt-4o-m'))).toBe("'gpt' <-> '4o' <-> 'm':*");
    expect(searchQuery([])).toBe('');
    expect(searchQuery(['ok', 'y'.repeat(3_000)])).toBeNull();
  });
});
