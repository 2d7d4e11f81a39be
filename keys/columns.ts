// Columns (ducklake_column): `[Column][table_id][column_id][begin]`. A table's columns are one group, read and
// cached together. Column ids are per table (DuckLake's field ids) and never reused: a data file keeps the
// id of a column long after the column is dropped, and a new column under that id would read its values.
// The next id comes after every version's id, and after the table's column id floor: the ids whose last
// versions excision took (`[ColumnIdFloor][table_id]`, written by excision alone, so no commit can lose it).
import type { CatalogId, ColumnId } from './ids.js';
import { group, type Group } from './groups.js';
import { encodeKey, type Key } from './key-codec.js';
import { del, type Mutation, putRow } from './mutation.js';
import { Space } from './spaces.js';
import type { Violation } from './violation.js';
import { Entity, type Versioned } from './versions.js';

export interface ColumnRow extends Versioned {
  name: string;
  type: string;
  /** Position in the table, 1-based, dense among the columns live at the same snapshot. */
  order: number;
  nullsAllowed: boolean;
  defaultValue: string | null;
  parentColumn: ColumnId | null;
}

export const columnEntity = (tableId: CatalogId, id: ColumnId): Entity<ColumnRow> => new Entity(Space.Column, [tableId, id]);

/** Every version of every column of one table. */
export const columnsOfTable = (tableId: CatalogId): Group => group(Space.Column, [tableId]);

/** The column id of a version read from columnsOfTable. */
export const columnIdOf = (fields: readonly unknown[]): ColumnId => fields[1] as ColumnId;

export interface ColumnIdFloorRow {
  /** No new column of the table takes an id below this. */
  next: number;
}

export const columnIdFloorKey = (tableId: CatalogId): Key => encodeKey(Space.ColumnIdFloor, [tableId]);

/** The floor after excision took versions of columns up to id `taken` (never lowered). */
export const raisedColumnIdFloor = (tableId: CatalogId, stored: ColumnIdFloorRow | undefined, taken: number): Mutation | undefined =>
  stored !== undefined && stored.next > taken ? undefined : putRow(columnIdFloorKey(tableId), { next: taken + 1 } satisfies ColumnIdFloorRow);

/** A table whose last version excision removed leaves no floor behind. */
export const excisedColumnIdFloor = (tableId: CatalogId): Mutation => del(columnIdFloorKey(tableId));

/** A floor is kept for a table that still has a version, and only past an id (ids start at 1). */
export function columnIdFloorProblems(floors: readonly { tableId: number; row: ColumnIdFloorRow; key: string }[], tablesWithVersions: ReadonlySet<number>): Violation[] {
  const out: Violation[] = [];
  for (const { tableId, row, key } of floors) {
    if (!Number.isSafeInteger(row.next) || row.next < 2) {
      out.push({ invariant: 'column-id-floor', key, message: `table ${tableId}'s column id floor is ${String(row.next)}; it lies past a column id, so at least 2` });
    }
    if (!tablesWithVersions.has(tableId)) {
      out.push({ invariant: 'column-id-floor', key, message: `table ${tableId} has no version left, but its column id floor is kept: excision removes it with the table's last version` });
    }
  }
  return out;
}
