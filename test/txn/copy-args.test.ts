import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copyArgs } from '../../src/txn/copy-args.js';

// Arguments as the API takes them, and some it does not (dates, bytes, maps) that must still be copied.
const plain = fc.jsonValue();
const other = fc.oneof(fc.date({ noInvalidDate: true }), fc.uint8Array({ maxLength: 8 }), fc.constant(new Map([[1, 'a']])), fc.bigInt());
const args = fc.array(fc.oneof(plain, other, fc.dictionary(fc.string(), fc.oneof(plain, other))), { maxLength: 4 });

describe('copyArgs', () => {
  it('copies what structuredClone copies, to an equal value sharing no object with the arguments', () => {
    fc.assert(
      fc.property(args, (a) => {
        const copy = copyArgs(a);
        expect(copy).toStrictEqual(structuredClone(a));
        const objects = (v: unknown, seen: Set<object>): Set<object> => {
          if (typeof v === 'object' && v !== null && !seen.has(v)) {
            seen.add(v);
            for (const x of v instanceof Map ? v.values() : Object.values(v)) objects(x, seen);
          }
          return seen;
        };
        const theirs = objects(a, new Set());
        for (const o of objects(copy, new Set())) expect(theirs.has(o)).toBe(false);
      }),
    );
  });

  it('is not changed by a caller changing its arguments after the call', () => {
    const spec = { path: 'a.parquet', stats: { rows: 3, columns: [{ id: 1, min: 0 }] } };
    const copy = copyArgs(['t', spec]) as [string, typeof spec];
    spec.stats.rows = 99;
    spec.stats.columns[0]!.min = -1;
    spec.path = 'b.parquet';
    expect(copy[1]).toStrictEqual({ path: 'a.parquet', stats: { rows: 3, columns: [{ id: 1, min: 0 }] } });
  });

  it('keeps a class instance, a null prototype, an own __proto__ key, holes and cycles as structuredClone does', () => {
    class Spec {
      constructor(readonly path: string) {}
    }
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 });
    const proto = JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as unknown;
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    // eslint-disable-next-line no-sparse-arrays
    const holes = [1, , 3];
    for (const a of [[new Spec('p')], [bare], [proto], [holes], [cycle]]) {
      const copy = copyArgs(a);
      expect(copy).toStrictEqual(structuredClone(a));
      expect(Object.getPrototypeOf(copy[0])).toBe(Object.getPrototypeOf(structuredClone(a)[0]));
    }
    expect(Object.keys(copyArgs([proto])[0] as object)).toEqual(['__proto__', 'y']);
    expect(1 in (copyArgs([holes])[0] as unknown[])).toBe(false);
  });

  it('passes on what cannot be copied (a function), for validation to refuse', () => {
    const f = () => 1;
    expect(copyArgs(['t', f])[1]).toBe(f);
  });
});
