// The end index (keys/end-index.ts): `[EndIndex][end][the ended version's key]`, read back whole; keys that are
// not its own refused; and verify's rule that it lists every end, once, under that end, with a file's path.
import { describe, expect, it } from 'vitest';
import { decodeEndIndexKey, endIndexKey, endIndexProblems } from '../../keys/end-index.js';
import { encodeKey, KeyDecodeError } from '../../keys/key-codec.js';
import { Space } from '../../keys/spaces.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

function refusal(k: Uint8Array): string {
  try {
    decodeEndIndexKey(k);
  } catch (e) {
    expect(e).toBeInstanceOf(KeyDecodeError);
    return (e as Error).message;
  }
  throw new Error(`0x${hex(k)} decoded`);
}

describe('end index keys', () => {
  it('hold the end, then the ended key whole', () => {
    const table = encodeKey(Space.Table, [4], 2);
    const k = endIndexKey(9, table);
    const { end, key } = decodeEndIndexKey(k);
    expect(end).toBe(9);
    expect(hex(key)).toBe(hex(table));
    // The shortest there is: one byte of key after the end.
    expect(hex(decodeEndIndexKey(endIndexKey(1, Uint8Array.of(0x11))).key)).toBe('11');
  });

  it('refuse a key of another space, and one with nothing after its end', () => {
    const table = encodeKey(Space.Table, [4], 2);
    const why = (k: Uint8Array) => `index key 0x${hex(k)} cannot be decoded: not an end-index key; rebuild the index from the store (strata repair --rebuild-index)`;
    const other = Uint8Array.from([Space.DataFileEndIndex, ...endIndexKey(9, table).subarray(1)]);
    expect(refusal(other)).toBe(why(other));
    const bare = endIndexKey(9, new Uint8Array());
    expect(bare).toHaveLength(9);
    expect(refusal(bare)).toBe(why(bare));
    expect(refusal(Uint8Array.of(Space.EndIndex))).toBe(why(Uint8Array.of(Space.EndIndex)));
  });
});

describe("verify's end index rule", () => {
  const ended = (keyHex: string, end: number, path?: string) => ({ keyHex, key: `version ${keyHex}`, end, path });
  const entry = (keyHex: string, end: number, path?: string) => ({ keyHex, end, path, key: `entry ${keyHex}@${end}` });

  it('every ended version with its entry, a file with its path: nothing to say', () => {
    expect(endIndexProblems([ended('aa', 3), ended('bb', 4, 'p.parquet')], [entry('aa', 3), entry('bb', 4, 'p.parquet')])).toEqual([]);
  });

  it('a missing entry, an entry under another end, a file entry with another path', () => {
    expect(endIndexProblems([ended('aa', 3), ended('bb', 4, 'p.parquet'), ended('cc', 5, 'q.parquet')], [entry('aa', 2), entry('bb', 4, 'x.parquet'), entry('cc', 5)])).toEqual([
      { invariant: 'end-index-lists-every-end', key: 'version aa', message: 'this version ends at snapshot 3, but the end index has no entry for it' },
      { invariant: 'end-index-lists-every-end', key: 'version bb', message: 'the end index records path "x.parquet" for this file row of path "p.parquet"' },
      { invariant: 'end-index-lists-every-end', key: 'version cc', message: 'the end index records path undefined for this file row of path "q.parquet"' },
      { invariant: 'end-index-lists-every-end', key: 'entry aa@2', message: 'an end-index entry for a version that does not end at snapshot 2' },
    ]);
  });
});
