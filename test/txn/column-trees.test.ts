// A table's columns given flat, as an import reads them from a lake, made into the trees createTable takes:
// whatever the lake's rows say, the answer is the trees or an INVALID_ARGUMENT naming what is wrong.
import { describe, expect, it } from 'vitest';
import { columnTrees, type FlatColumn } from '../../src/txn/column-specs.js';
import { isStrataError } from '../../src/index.js';

const col = (id: number, name: string, parentColumn: number | null, type = 'struct', order = id): FlatColumn => ({ id, parentColumn, order, name, type, nullsAllowed: true, defaultValue: null });

const refusal = (rows: FlatColumn[]) => {
  try {
    columnTrees(rows);
  } catch (e) {
    return e;
  }
  return undefined;
};

describe('columnTrees', () => {
  it('makes a struct and its fields one tree, with their ids', () => {
    const [tree] = columnTrees([col(1, 's', null), col(2, 'a', 1, 'int32'), col(3, 'b', 1, 'varchar')]);
    expect([tree!.id, tree!.row.name, tree!.children.map((c) => [c.id, c.row.name, c.row.type])]).toEqual([1, 's', [[2, 'a', 'int32'], [3, 'b', 'varchar']]]);
  });

  it('refuses parents that go round in a cycle no top-level column reaches', () => {
    const e = refusal([col(1, 'id', null, 'int64'), col(2, 'a', 3), col(3, 'b', 2)]);
    expect(isStrataError(e, 'INVALID_ARGUMENT'), String(e)).toBe(true);
    expect((e as Error).message).toMatch(/parents go round in a cycle/);
  });

  it('refuses a cycle a top-level column reaches through an id two columns share (found by the import fuzzer: a stack overflow)', () => {
    // 'c' has the top-level column's id and lies under 'b', which lies under the id: from 'top', a, b, c, a, …
    const e = refusal([col(1, 'top', null), col(2, 'b', 1), col(1, 'c', 2)]);
    expect(isStrataError(e, 'INVALID_ARGUMENT'), String(e)).toBe(true);
    expect((e as Error).message).toContain('its column id 1 is reached twice from its top-level columns');
  });
});
