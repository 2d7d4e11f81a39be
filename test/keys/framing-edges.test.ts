// The frame's edges, as the bytes on disk and in the store must stay: the exact bytes of a small frame (any
// reader of MessagePack decodes them, with no state shared with the writer), each way a byte string is refused
// and what the refusal says, the record test every decoded value passes, and the sizes at which the fast
// writer of a log entry's list changes its headers (15 and 16 fields, 15 and 16 pairs, 65,535 and 65,536).
import { unpack } from 'msgpackr';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { type BytePairs, checkedFrame, checkedFrameEndingIn, frame, FrameError, isRecord, unframe } from '../../keys/framing.js';

const refused = (bytes: number[]) => {
  try {
    unframe(Uint8Array.from(bytes));
  } catch (e) {
    expect(e).toBeInstanceOf(FrameError);
    return (e as Error).message;
  }
  throw new Error(`[${bytes.join(', ')}] was read as a frame`);
};

describe('frame and checkedFrame', () => {
  it('write plain MessagePack maps with the shortest headers: what any reader decodes, with nothing shared', () => {
    expect([...frame({ a: 1 })]).toEqual([1, 0x81, 0xa1, 0x61, 0x01]);
    const checked = checkedFrame({ a: 1 });
    expect([...checked.subarray(5)]).toEqual([0x81, 0xa1, 0x61, 0x01]);
    expect(new DataView(checked.buffer).getUint32(1)).toBe(crc32(Uint8Array.from([0x81, 0xa1, 0x61, 0x01])));
    expect(unpack(checked.subarray(5))).toEqual({ a: 1 });
  });
});

describe('unframe', () => {
  it('refuses what is not a frame, saying why', () => {
    expect(refused([])).toBe('0 bytes is too short for a frame');
    expect(refused([1])).toBe('1 bytes is too short for a frame');
    expect(refused([2, 0, 0, 0, 0])).toBe('5 bytes is too short for a checksummed frame');
    expect(refused([9, 0x80])).toBe('unknown format 9');
    // A string of five bytes that holds one: msgpackr's own error, as a FrameError.
    expect(refused([1, 0xa5, 0x61])).not.toBe('');
  });

  it('reads the shortest frames of each format, and names both checksums of one that fails', () => {
    expect(unframe(Uint8Array.from([1, 0xc0]))).toBe(null);
    expect(unframe(checkedFrame(null))).toBe(null);
    const bad = checkedFrame(7);
    bad[4]! ^= 1;
    const actual = crc32(Uint8Array.from([7]));
    const hex = (n: number) => `0x${(n >>> 0).toString(16).padStart(8, '0')}`;
    expect(refused([...bad])).toBe(`checksum mismatch (stored ${hex(actual ^ 1)}, the bytes give ${hex(actual)})`);
  });
});

describe('isRecord', () => {
  it('is a plain object and nothing else', () => {
    expect(isRecord({})).toBe(true);
    expect(isRecord({ a: 1 })).toBe(true);
    const others: unknown[] = [null, undefined, 1, 'a', true, [], new Map(), new Uint8Array(1), Object.create(null), new (class {})()];
    expect(others.map(isRecord)).toEqual(others.map(() => false));
  });
});

describe('checkedFrameEndingIn at the sizes where headers change', () => {
  const pairs = (n: number): BytePairs => Array.from({ length: n }, (_, i) => [new Uint8Array([i & 0xff]), i % 2 === 0 ? null : new Uint8Array([2])]);
  const head = (fields: number) => Object.fromEntries(Array.from({ length: fields }, (_, i) => [`f${i}`, i]));
  const same = (h: Record<string, unknown>, ps: BytePairs) =>
    expect(Buffer.from(checkedFrameEndingIn(h, 'mutations', ps)).equals(Buffer.from(checkedFrame({ ...h, mutations: ps })))).toBe(true);

  it('makes the same bytes as checkedFrame for 14 and 15 fields, for a head that holds the list, and for 15, 16, 65,535 pairs', () => {
    for (const fields of [14, 15]) same(head(fields), pairs(2));
    same({ a: 1, mutations: 2 }, pairs(2));
    same({ mutations: 2 }, pairs(2));
    for (const n of [15, 16, 300, 65_535]) same({ a: 1 }, pairs(n));
  });
});
