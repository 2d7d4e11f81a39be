// Tables and views (ducklake_table, ducklake_view): one namespace per schema, as in DuckDB, kept by one
// name index `[RelationNameIndex][schema_id][name][begin]` → { kind, id }, for the same reason as schema
// names (schemas.ts). Their versions are `[Table][table_id][begin]` and `[View][view_id][begin]`.
import type { CatalogId } from './ids.js';
import { group, type Group } from './groups.js';
import { Space } from './spaces.js';
import { Entity, type Versioned } from './versions.js';

export interface TableRow extends Versioned {
  schemaId: CatalogId;
  name: string;
  uuid: string;
}

export interface ViewRow extends Versioned {
  schemaId: CatalogId;
  name: string;
  uuid: string;
  dialect: string;
  /** The text as it was given (DuckLake's `sql`): shown and exported, never run. */
  sql: string;
  /**
   * DuckDB's serialised parse of `sql` (json_serialize_sql: exactly one SELECT), checked when the view was
   * created: what the catalog reads the view by. Null for a view in another dialect, which DuckDB does not
   * read; absent in views stored before definitions were kept, which are parsed (never run) when read.
   */
  definition?: string | null;
}

export type RelationKind = 'table' | 'view';

export interface RelationNameIndexRow extends Versioned {
  kind: RelationKind;
  id: CatalogId;
}

export const tableEntity = (id: CatalogId): Entity<TableRow> => new Entity(Space.Table, [id]);
export const viewEntity = (id: CatalogId): Entity<ViewRow> => new Entity(Space.View, [id]);

/** Every version of every table, and of every view. */
export const ALL_TABLES: Group = group(Space.Table);
export const ALL_VIEWS: Group = group(Space.View);

export const relationNameEntity = (schemaId: CatalogId, name: string): Entity<RelationNameIndexRow> =>
  new Entity(Space.RelationNameIndex, [schemaId, name]);

/** The name index entries of one schema: its tables and views by name. */
export const relationNamesIn = (schemaId: CatalogId): Group => group(Space.RelationNameIndex, [schemaId]);

/** The relation name of an entry read from relationNamesIn. */
export const relationNameOf = (fields: readonly unknown[]): string => fields[1] as string;

/** The entity id of a version read from ALL_TABLES or ALL_VIEWS. */
export const relationIdOf = (fields: readonly unknown[]): CatalogId => fields[0] as CatalogId;
