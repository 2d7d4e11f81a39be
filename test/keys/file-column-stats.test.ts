// Per-file column statistics (keys/file-column-stats.ts): a value that lost its columns is CORRUPT naming its
// key, and verify reports statistics whose data file row is not there.
import { describe, expect, it } from 'vitest';
import { decodeFileColumnStats, fileColumnStatsKey, fileColumnStatsProblems, putFileColumnStats, type ColumnStats } from '../../keys/file-column-stats.js';
import { catalogId, columnId, fileId, snapshotId } from '../../keys/ids.js';
import { keyToString } from '../../keys/key-codec.js';
import { encodeValue } from '../../keys/value-codec.js';
import { StrataError } from '../../src/errors.js';

const key = fileColumnStatsKey(catalogId(2), fileId(30), snapshotId(5));

describe('decodeFileColumnStats', () => {
  it('gives back the columns written', () => {
    const columns: ColumnStats[] = [
      { columnId: columnId(1), valueCount: 10, nullCount: 1, min: '-3', max: '7', containsNan: null },
      { columnId: columnId(2), valueCount: null, nullCount: null, min: null, max: null, containsNan: false },
    ];
    const put = putFileColumnStats(catalogId(2), fileId(30), snapshotId(5), columns);
    if (put.type !== 'put') throw new Error('not a put');
    expect(Buffer.from(put.key).equals(Buffer.from(key))).toBe(true);
    expect(decodeFileColumnStats(put.key, put.value)).toEqual(columns);
  });

  it('refuses a record without its columns as CORRUPT, naming the key', () => {
    for (const value of [{}, { columns: 3 }, { columns: { 0: 'a' } }]) {
      let error: unknown;
      try {
        decodeFileColumnStats(key, encodeValue(value));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(StrataError);
      expect((error as StrataError).code).toBe('CORRUPT');
      expect((error as Error).message).toContain(`value under ${keyToString(key)} cannot be decoded: file column statistics without their columns; rebuild the index from the store`);
    }
  });
});

describe('file-stats-have-their-file', () => {
  const files = [
    { tableId: 2, id: 30, begin: 5 },
    { tableId: 2, id: 31, begin: 6 },
  ];

  it('finds nothing when every stats value has its row', () => {
    expect(fileColumnStatsProblems([{ tableId: 2, fileId: 30, begin: 5, key: 'a' }, { tableId: 2, fileId: 31, begin: 6, key: 'b' }], files)).toEqual([]);
    expect(fileColumnStatsProblems([], files)).toEqual([]);
  });

  it('reports stats whose row has another table, id or begin', () => {
    const stats = [
      { tableId: 2, fileId: 30, begin: 5, key: 'ok' },
      { tableId: 3, fileId: 30, begin: 5, key: 'table' },
      { tableId: 2, fileId: 32, begin: 5, key: 'id' },
      { tableId: 2, fileId: 31, begin: 5, key: 'begin' },
    ];
    expect(fileColumnStatsProblems(stats, files)).toEqual([
      { invariant: 'file-stats-have-their-file', key: 'table', message: 'column statistics of data file 30 (table 3, snapshot 5) whose row does not exist' },
      { invariant: 'file-stats-have-their-file', key: 'id', message: 'column statistics of data file 32 (table 2, snapshot 5) whose row does not exist' },
      { invariant: 'file-stats-have-their-file', key: 'begin', message: 'column statistics of data file 31 (table 2, snapshot 5) whose row does not exist' },
    ]);
  });
});
