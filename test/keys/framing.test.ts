import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BytePairs, checkedFrame, checkedFrameEndingIn, unframe } from '../../keys/framing.js';
import { decodeEntry, encodeEntry, type LogEntry } from '../../src/log/log-entry.js';
import { kvSeq, snapshotId } from '../../keys/ids.js';

// Lengths on both sides of each msgpack size class: fix, 8-bit, 16-bit.
const bytes: fc.Arbitrary<Uint8Array> = fc.oneof(
  { weight: 10, arbitrary: fc.uint8Array({ minLength: 0, maxLength: 40 }) },
  { weight: 3, arbitrary: fc.uint8Array({ minLength: 250, maxLength: 260 }) },
  { weight: 1, arbitrary: fc.constantFrom(65_535, 65_536).map((n) => new Uint8Array(n).fill(n & 0xff)) },
);
const same = (a: Uint8Array | null, b: Uint8Array | null) => (a === null || b === null ? a === b : Buffer.from(a).equals(Buffer.from(b)));
const pairs: fc.Arbitrary<BytePairs> = fc.array(fc.tuple(bytes, fc.option(bytes, { nil: null })), { maxLength: 20 });
const value = fc.oneof(fc.maxSafeNat(), fc.string(), fc.constant(null), fc.array(fc.maxSafeNat(), { maxLength: 20 }), fc.boolean());
const head = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), value, { maxKeys: 17 });

describe('checkedFrameEndingIn', () => {
  it('makes the bytes msgpackr makes of the whole record', () => {
    fc.assert(
      fc.property(head, pairs, (h, ps) => {
        const name = 'mutations';
        const fast = checkedFrameEndingIn(h, name, ps);
        expect(Buffer.from(fast).equals(Buffer.from(checkedFrame({ ...h, [name]: ps })))).toBe(true);
        const back = (unframe(fast) as Record<string, [Uint8Array, Uint8Array | null][]>)[name]!;
        expect(back.length === ps.length && back.every(([a, b], i) => same(a, ps[i]![0]) && same(b, ps[i]![1]))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('does so past 15 fields, for a head that names the list itself, and for 65,536 pairs', () => {
    const many: BytePairs = Array.from({ length: 65_536 }, (_, i) => [new Uint8Array([i & 0xff, i >> 8]), i % 3 === 0 ? null : new Uint8Array([1])]);
    const wide = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`f${i}`, i]));
    for (const [h, ps] of [[{}, many], [wide, many.slice(0, 3)], [{ mutations: 1, a: 2 }, many.slice(0, 2)], [{ a: 1 }, []]] as const) {
      expect(Buffer.from(checkedFrameEndingIn(h, 'mutations', ps)).equals(Buffer.from(checkedFrame({ ...h, mutations: ps })))).toBe(true);
    }
  });

  it('carries a log entry through encodeEntry and decodeEntry', () => {
    const entry: LogEntry = {
      seq: kvSeq(9),
      kind: 'commit',
      epoch: 3,
      snapshots: [snapshotId(4), snapshotId(5)],
      txn: 't9',
      prev: 't8',
      mutations: [
        { type: 'put', key: new Uint8Array([1, 2]), value: new Uint8Array(300).fill(7) },
        { type: 'del', key: new Uint8Array([3]) },
      ],
    };
    const back = decodeEntry('entry 9', encodeEntry(entry));
    expect(back).toEqual(entry);
  });
});
