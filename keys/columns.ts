// Columns (ducklake_column): `[Column][table_id][column_id][begin]`. A table's columns are one group, read and
// cached together. Column ids are per table (DuckLake's field ids) and never reused.
import type { CatalogId, ColumnId } from './ids.js';
import { group, type Group } from './groups.js';
import { Space } from './spaces.js';
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
