// The NameMapping family (keys/name-mappings.ts): a mapping round-trips through its value; a value of another
// shape is CORRUPT naming its key, never a wrong mapping; verify's rule ties each mapping to its file's row.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { catalogId, fileId, snapshotId } from '../../keys/ids.js';
import { decodeNameMapping, excisedNameMapping, type NameMapping, nameMappingKey, nameMappingProblems, putNameMapping } from '../../keys/name-mappings.js';
import { encodeValue } from '../../keys/value-codec.js';
import { isStrataError } from '../../src/index.js';

const column = fc.record({
  columnId: fc.nat({ max: 1000 }),
  sourceName: fc.string({ maxLength: 20 }),
  targetFieldId: fc.integer({ min: 1, max: 2 ** 31 }),
  parentColumn: fc.option(fc.nat({ max: 1000 }), { nil: null }),
  isPartition: fc.boolean(),
});
const mapping: fc.Arbitrary<NameMapping> = fc.record({
  mappingId: fc.nat({ max: 2 ** 40 }).map(catalogId),
  type: fc.constant('map_by_name' as const),
  columns: fc.array(column, { maxLength: 12 }),
});
const place = fc.tuple(fc.nat({ max: 2 ** 40 }), fc.nat({ max: 2 ** 40 }), fc.nat({ max: 2 ** 40 }));

describe('name mappings', () => {
  it('round-trip through the value written under their file', () => {
    fc.assert(
      fc.property(mapping, place, (m, [t, f, s]) => {
        const put = putNameMapping(catalogId(t), fileId(f), snapshotId(s), m);
        expect(put.type).toBe('put');
        if (put.type !== 'put') return;
        expect(Buffer.from(put.key)).toEqual(Buffer.from(nameMappingKey(catalogId(t), fileId(f), snapshotId(s))));
        expect(decodeNameMapping(put.key, put.value)).toEqual(m);
        // Excision deletes exactly that key.
        const gone = excisedNameMapping([t, f], s);
        expect(gone.type === 'del' && Buffer.from(gone.key).equals(Buffer.from(put.key))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('a value of another shape is CORRUPT naming the key', () => {
    const key = nameMappingKey(catalogId(1), fileId(2), snapshotId(3));
    const shapes = fc.oneof(
      fc.anything(),
      mapping.map((m) => ({ ...m, type: 'map_by_id' })),
      mapping.map((m) => ({ ...m, mappingId: String(m.mappingId) })),
      mapping.filter((m) => m.columns.length > 0).map((m) => ({ ...m, columns: m.columns.map((c) => ({ ...c, sourceName: 7 })) })),
    );
    fc.assert(
      fc.property(shapes, (value) => {
        let decoded: NameMapping | undefined;
        try {
          decoded = decodeNameMapping(key, encodeValue(value));
        } catch (e) {
          expect(isStrataError(e, 'CORRUPT'), String(e)).toBe(true);
          expect((e as Error).message).toContain('NameMapping');
          return;
        }
        // What decodes is a mapping in every field a reader uses.
        expect(decoded.type).toBe('map_by_name');
        expect(typeof decoded.mappingId).toBe('number');
        for (const c of decoded.columns) expect([typeof c.sourceName, typeof c.targetFieldId]).toEqual(['string', 'number']);
      }),
      { numRuns: 500 },
    );
  });

  it("verify's rule: a mapping without its row, a row naming another mapping or none it has", () => {
    const file = (id: number, mappingId?: number) => ({ tableId: 1, id, begin: 5, row: mappingId === undefined ? {} : { mappingId }, key: `file ${id}` });
    const m = (fileIdOf: number, mappingId: number) => ({ tableId: 1, fileId: fileIdOf, begin: 5, mappingId, key: `mapping ${fileIdOf}` });
    expect(nameMappingProblems([m(1, 9)], [file(1, 9), file(2)])).toEqual([]);
    const found = nameMappingProblems([m(1, 9), m(3, 9), m(4, 8)], [file(1, 9), file(2, 9), file(4, 9)]).map((v) => [v.invariant, v.key]);
    expect(found).toEqual([
      ['name-mappings-have-their-file', 'mapping 3'], // no row
      ['name-mappings-have-their-file', 'mapping 4'], // the row names mapping 9
      ['name-mappings-have-their-file', 'file 2'], // names a mapping it has no value for
    ]);
  });
});

describe('a name mapping of the wrong shape: CORRUPT, each refusal word for word', () => {
  const key = nameMappingKey(catalogId(1), fileId(2), snapshotId(3));
  const good = { columnId: 1, sourceName: 'a', targetFieldId: 4, parentColumn: null, isPartition: false };
  const refusal = (value: unknown): string => {
    try {
      decodeNameMapping(key, encodeValue(value));
    } catch (e) {
      expect(isStrataError(e, 'CORRUPT'), String(e)).toBe(true);
      return (e as Error).message;
    }
    throw new Error(`${JSON.stringify(value)} decoded`);
  };
  const said = (reason: string) => `value under NameMapping[1,2,@3] cannot be decoded: ${reason}; rebuild the index from the store`;
  const mappingRefused = said('a name mapping without its id, its type (map_by_name) or its columns');
  const columnRefused = said('a name mapping column without its source name, its target field id or its own id');

  it('the mapping: its type, its id, its columns', () => {
    expect(refusal({ mappingId: 5, type: 'map_by_id', columns: [] })).toBe(mappingRefused);
    expect(refusal({ mappingId: '5', type: 'map_by_name', columns: [] })).toBe(mappingRefused);
    expect(refusal({ mappingId: 5, type: 'map_by_name', columns: {} })).toBe(mappingRefused);
    expect(refusal({ mappingId: 5, type: 'map_by_name' })).toBe(mappingRefused);
  });

  it('each column: a record, with its source name, its target field id and its own id', () => {
    const withColumn = (c: unknown) => ({ mappingId: 5, type: 'map_by_name', columns: [good, c] });
    for (const c of [null, undefined, 7, 'a', [1], { ...good, sourceName: 1 }, { ...good, targetFieldId: '4' }, { ...good, columnId: null }]) {
      expect(refusal(withColumn(c)), JSON.stringify(c)).toBe(columnRefused);
    }
    const { sourceName: _s, ...noSource } = good;
    const { targetFieldId: _t, ...noTarget } = good;
    const { columnId: _c, ...noId } = good;
    for (const c of [noSource, noTarget, noId]) expect(refusal(withColumn(c))).toBe(columnRefused);
    expect(decodeNameMapping(key, encodeValue(withColumn(good)))).toEqual(withColumn(good));
  });
});

describe("verify's name mapping rule, word for word", () => {
  const file = (id: number, mappingId?: number) => ({ tableId: 1, id, begin: 5, row: mappingId === undefined ? {} : { mappingId }, key: `file ${id}` });
  const m = (fileIdOf: number, mappingId: number, begin = 5) => ({ tableId: 1, fileId: fileIdOf, begin, mappingId, key: `mapping ${fileIdOf}` });

  it('names the file, its table and snapshot, and the mapping ids on each side', () => {
    expect(nameMappingProblems([m(1, 9, 6), m(2, 9), m(3, 8)], [file(1, 9), file(2), file(3, 9)])).toEqual([
      { invariant: 'name-mappings-have-their-file', key: 'mapping 1', message: 'the name mapping of data file 1 (table 1, snapshot 6), whose row does not exist' },
      { invariant: 'name-mappings-have-their-file', key: 'mapping 2', message: 'mapping 9 of data file 2, whose row names mapping none' },
      { invariant: 'name-mappings-have-their-file', key: 'mapping 3', message: 'mapping 8 of data file 3, whose row names mapping 9' },
      { invariant: 'name-mappings-have-their-file', key: 'file 1', message: 'data file 1 names mapping 9, which it has no value for: it would be read by field ids it lacks' },
    ]);
  });
});
