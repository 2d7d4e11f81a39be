// What the key and value codecs say when they are handed something that is not a key or value of ours. These
// messages are what an operator reads when an index is damaged, so each is checked word for word; and every
// refusal has to happen, since a key built from a bad field would sort in the wrong place for ever.
import { describe, expect, it } from 'vitest';
import { MAX_ID } from '../../keys/ids.js';
import { decodeKey, encodeKey, inKnownSpace, KeyDecodeError, KeyFormatError, keyPrefix, keyToString, prefixEnd, readU64 } from '../../keys/key-codec.js';
import { decodeValue, encodeValue } from '../../keys/value-codec.js';
import { Space } from '../../keys/spaces.js';
import { frame } from '../../keys/framing.js';
import { versionRunProblems } from '../../keys/versions.js';
import { StrataError } from '../../src/errors.js';

const REBUILD = '; rebuild the index from the store (strata repair --rebuild-index)';
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bytes = (...parts: (number | number[])[]) => Uint8Array.from(parts.flat());
const u64Bytes = (n: number) => [...Buffer.from(BigInt(n).toString(16).padStart(16, '0'), 'hex')];

function formatError(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(KeyFormatError);
    return (e as Error).message;
  }
  throw new Error('no KeyFormatError');
}

function decodeError(key: Uint8Array): string {
  try {
    decodeKey(key);
  } catch (e) {
    expect(e).toBeInstanceOf(KeyDecodeError);
    expect((e as StrataError).code).toBe('CORRUPT');
    return (e as Error).message;
  }
  throw new Error(`0x${hex(key)} decoded`);
}

describe('building a key refuses what would not sort as its tuple', () => {
  it('counts fields against the space, and begin_snapshot where the space has one', () => {
    expect(formatError(() => encodeKey(Space.Table, [1, 2], 3))).toBe('Table key: 2 fields given, it needs 1');
    expect(formatError(() => encodeKey(Space.Column, [1], 3))).toBe('Column key: 1 fields given, it needs 2');
    expect(formatError(() => encodeKey(Space.Table, [1]))).toBe('Table key: begin_snapshot is required');
    expect(formatError(() => encodeKey(Space.Metadata, ['k'], 1))).toBe('Metadata key: begin_snapshot is not part of it');
    expect(formatError(() => keyPrefix(Space.Table, [1, 2]))).toBe('Table key: 2 fields given, it has 1');
  });

  it('takes every u64 from 0 to MAX_ID, and nothing else, as a field or as begin_snapshot', () => {
    expect(decodeKey(encodeKey(Space.Column, [0, MAX_ID], MAX_ID))).toEqual({ space: Space.Column, fields: [0, MAX_ID], begin: MAX_ID });
    for (const bad of [-1, 1.5, MAX_ID + 1, Number.NaN, Infinity]) {
      expect(formatError(() => encodeKey(Space.Table, [bad], 1))).toBe(`Table key: expected a u64 field, got ${String(bad)}`);
      expect(formatError(() => encodeKey(Space.Table, [1], bad))).toBe(`Table key: expected a u64 field, got ${String(bad)}`);
    }
    expect(formatError(() => encodeKey(Space.Table, ['1'], 1))).toBe('Table key: expected a u64 field, got 1');
  });

  it('takes a name only when it is non-empty, free of NUL and well-formed', () => {
    expect(decodeKey(encodeKey(Space.Metadata, ['é\u{1F600}'])).fields).toEqual(['é\u{1F600}']);
    for (const bad of ['', 'a\0b', '\uD800']) {
      expect(formatError(() => encodeKey(Space.Metadata, [bad]))).toBe(`Metadata key: expected a non-empty name without NUL, got ${JSON.stringify(bad)}`);
    }
    expect(formatError(() => encodeKey(Space.Metadata, [5]))).toBe('Metadata key: expected a non-empty name without NUL, got 5');
  });

  it('lays a prefix out as the key it begins, with no begin_snapshot', () => {
    const prefix = keyPrefix(Space.ObjectTag, [7, 'owner']);
    expect(hex(prefix)).toBe(`16${hex(bytes(u64Bytes(7)))}${Buffer.from('owner').toString('hex')}00`);
    expect(hex(encodeKey(Space.ObjectTag, [7, 'owner'], 9))).toBe(`${hex(prefix)}${hex(bytes(u64Bytes(9)))}`);
    expect(hex(keyPrefix(Space.Column, [3]))).toBe(`12${hex(bytes(u64Bytes(3)))}`);
  });

  it('ends a prefix range past every key it begins, and refuses a prefix that has no end', () => {
    expect(hex(prefixEnd(bytes(0x12, 0x01, 0xff, 0xff)))).toBe('1202');
    expect(formatError(() => prefixEnd(bytes(0xff, 0xff)))).toBe('a prefix of only 0xff bytes has no end');
  });

  it('reads a u64 from all eight of its bytes', () => {
    expect(readU64(bytes(1, 0, 0, 0, 0, 0, 0, 0), 0)).toBe(2 ** 56);
    expect(readU64(bytes(9, 0, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), 1)).toBe(MAX_ID);
  });
});

describe('decoding a key that is not ours is CORRUPT, saying where it broke', () => {
  const tableKey = encodeKey(Space.Table, [5], 6);

  it('an empty key, and a first byte that is no space', () => {
    expect(decodeError(bytes())).toBe(`index key 0x cannot be decoded: it is empty${REBUILD}`);
    expect(decodeError(bytes(0x7e, 1))).toBe(`index key 0x7e01 cannot be decoded: no key space 0x7e${REBUILD}`);
  });

  it('a u64 or begin_snapshot cut short, and bytes after the last field', () => {
    expect(decodeError(tableKey.subarray(0, 5))).toBe(`index key 0x${hex(tableKey.subarray(0, 5))} cannot be decoded: Table key truncated at byte 1${REBUILD}`);
    expect(decodeError(tableKey.subarray(0, 12))).toBe(`index key 0x${hex(tableKey.subarray(0, 12))} cannot be decoded: Table key truncated at byte 9${REBUILD}`);
    const long = bytes([...tableKey], 0, 0, 0);
    expect(decodeError(long)).toBe(`index key 0x${hex(long)} cannot be decoded: Table key: 3 trailing bytes${REBUILD}`);
  });

  it('a name with no terminator, and one that is not UTF-8', () => {
    const open = bytes(0x30, [...Buffer.from('key')]);
    expect(decodeError(open)).toBe(`index key 0x${hex(open)} cannot be decoded: Metadata key: unterminated name at byte 1${REBUILD}`);
    const notUtf8 = bytes(0x16, u64Bytes(1), 0xc3, 0x28, 0, u64Bytes(2));
    expect(decodeError(notUtf8)).toBe(`index key 0x${hex(notUtf8)} cannot be decoded: ObjectTag key: the name at byte 9 is not UTF-8${REBUILD}`);
  });

  it('shows at most 64 bytes of the key, and says when it cut', () => {
    const at64 = bytes(0x7e, new Array(63).fill(0xab));
    expect(decodeError(at64)).toBe(`index key 0x${hex(at64)} cannot be decoded: no key space 0x7e${REBUILD}`);
    const at65 = bytes([...at64], 0xcd);
    expect(decodeError(at65)).toBe(`index key 0x${hex(at64)}… cannot be decoded: no key space 0x7e${REBUILD}`);
  });

  it('prints a key it can decode by its fields, and one it cannot in hex', () => {
    expect(keyToString(encodeKey(Space.ObjectTag, [7, 'owner'], 9))).toBe('ObjectTag[7,"owner",@9]');
    expect(keyToString(encodeKey(Space.Metadata, ['version']))).toBe('Metadata["version"]');
    expect(keyToString(bytes(0x7e, 1))).toBe('0x7e01');
  });

  it('tells a key in a known space from one the index check must refuse', () => {
    expect(inKnownSpace(tableKey)).toBe(true);
    expect(inKnownSpace(bytes(0x7e))).toBe(false);
    expect(inKnownSpace(bytes())).toBe(false);
  });
});

describe('decoding a value that is not ours is CORRUPT naming its key', () => {
  const key = encodeKey(Space.Table, [5], 6);
  const refusal = (bytes: Uint8Array) => {
    try {
      decodeValue(key, bytes);
    } catch (e) {
      expect((e as StrataError).code).toBe('CORRUPT');
      return (e as Error).message;
    }
    throw new Error('decoded');
  };

  it('a frame that does not read, and a value that is not a record', () => {
    expect(decodeValue(key, encodeValue({ a: 1 }))).toEqual({ a: 1 });
    expect(refusal(bytes(0x09, 1, 2))).toMatch(/^value under Table\[5,@6\] cannot be decoded: .+; rebuild the index from the store$/);
    expect(refusal(bytes(0x09, 1, 2))).not.toContain('expected a record');
    expect(refusal(frame(5))).toBe('value under Table[5,@6] cannot be decoded: expected a record, found Number; rebuild the index from the store');
    expect(refusal(frame([1]))).toBe('value under Table[5,@6] cannot be decoded: expected a record, found Array; rebuild the index from the store');
    expect(refusal(frame(null))).toBe('value under Table[5,@6] cannot be decoded: expected a record, found null; rebuild the index from the store');
  });
});

describe('the versions of one entity', () => {
  const v = (begin: number, end: number | null, recordOnly?: boolean) => ({ key: `k${begin}`, begin, end, ...(recordOnly === undefined ? {} : { recordOnly }) });

  it('each ends after it begins; a record-only one may end as it begins', () => {
    expect(versionRunProblems([v(3, 5), v(5, null)])).toEqual([]);
    expect(versionRunProblems([v(3, 3, true)])).toEqual([]);
    expect(versionRunProblems([v(3, 3)])).toEqual([{ invariant: 'version-ends-after-it-begins', key: 'k3', message: 'a version that begins at snapshot 3 ends at 3' }]);
    expect(versionRunProblems([v(3, 2, true)])).toEqual([{ invariant: 'version-ends-after-it-begins', key: 'k3', message: 'a version that begins at snapshot 3 ends at 2' }]);
  });

  it('none overlaps the next, an open one included', () => {
    expect(versionRunProblems([v(3, 6), v(5, null)])).toEqual([
      { invariant: 'versions-do-not-overlap', key: 'k3', message: 'this version (snapshots 3–6) overlaps the next one of the same entity, which begins at 5' },
    ]);
    expect(versionRunProblems([v(3, null), v(5, null)])).toEqual([
      { invariant: 'versions-do-not-overlap', key: 'k3', message: 'this version (snapshots 3–now) overlaps the next one of the same entity, which begins at 5' },
    ]);
  });
});
