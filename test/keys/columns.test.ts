// A table's column id floor (keys/columns.ts): column ids are never reused, so once excision took the last
// versions of columns up to some id, no new column may take an id at or below it.
import { describe, expect, it } from 'vitest';
import { columnIdFloorKey, columnIdFloorProblems, raisedColumnIdFloor } from '../../keys/columns.js';
import { catalogId } from '../../keys/ids.js';
import { decodeValue } from '../../keys/value-codec.js';

function floorWritten(m: ReturnType<typeof raisedColumnIdFloor>): unknown {
  if (m === undefined) return undefined;
  if (m.type !== 'put') throw new Error('the floor is deleted instead of raised');
  expect(Buffer.from(m.key).equals(Buffer.from(columnIdFloorKey(catalogId(4))))).toBe(true);
  return decodeValue(m.key, m.value);
}

describe('raising the column id floor', () => {
  it('puts it past the ids taken when the table has none', () => {
    expect(floorWritten(raisedColumnIdFloor(catalogId(4), undefined, 6))).toEqual({ next: 7 });
  });

  it('raises one at or below the ids taken, to just past them', () => {
    expect(floorWritten(raisedColumnIdFloor(catalogId(4), { next: 3 }, 6))).toEqual({ next: 7 });
    expect(floorWritten(raisedColumnIdFloor(catalogId(4), { next: 6 }, 6))).toEqual({ next: 7 });
  });

  it('never lowers one already past them: writes nothing', () => {
    expect(raisedColumnIdFloor(catalogId(4), { next: 7 }, 6)).toBeUndefined();
    expect(raisedColumnIdFloor(catalogId(4), { next: 20 }, 6)).toBeUndefined();
  });
});

describe('column-id-floor', () => {
  const floor = (tableId: number, next: number) => ({ tableId, row: { next }, key: `ColumnIdFloor/${tableId}` });
  const low = (tableId: number, shown: string) => ({ invariant: 'column-id-floor', key: `ColumnIdFloor/${tableId}`, message: `table ${tableId}'s column id floor is ${shown}; it lies past a column id, so at least 2` });

  it('finds nothing in floors past a column id of tables that have versions', () => {
    expect(columnIdFloorProblems([floor(1, 2), floor(2, 40)], new Set([1, 2]))).toEqual([]);
  });

  it('reports a floor that lies past no column id (ids start at 1), or is no whole number', () => {
    expect(columnIdFloorProblems([floor(1, 1), floor(2, 0), floor(3, 2.5), floor(5, Number.NaN)], new Set([1, 2, 3, 5]))).toEqual([low(1, '1'), low(2, '0'), low(3, '2.5'), low(5, 'NaN')]);
  });

  it('reports the floor of a table with no version left', () => {
    expect(columnIdFloorProblems([floor(1, 5), floor(2, 5)], new Set([1]))).toEqual([
      { invariant: 'column-id-floor', key: 'ColumnIdFloor/2', message: "table 2 has no version left, but its column id floor is kept: excision removes it with the table's last version" },
    ]);
  });

  it('reports both of one floor', () => {
    expect(columnIdFloorProblems([floor(9, 1)], new Set())).toHaveLength(2);
  });
});
