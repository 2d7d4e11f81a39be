// The value stored under each tag: DuckLake's columns minus the ones the key already holds.
// `end` is DuckLake's end_snapshot: null while the version is current.
import type { CatalogId, ColumnId, FileId, SnapshotId } from './ids.js';

export interface Versioned {
  end: SnapshotId | null;
}

export interface SnapshotRow {
  /** ms since epoch, from the catalog clock; never lower than the previous snapshot's. */
  time: number;
  schemaVersion: number;
  nextCatalogId: CatalogId;
  nextFileId: FileId;
}

export interface SnapshotChangesRow {
  /** DuckLake's changes_made entries, e.g. `created_table:"sales"."orders"`, `inserted_into_table:3`. */
  changes: string[];
  author: string | null;
  message: string | null;
  extraInfo: string | null;
  /** Compaction, stats refresh and the like: skipped by "previous". */
  maintenance: boolean;
  /** The table snapshots this commit says it was computed from (lineage); absent when none were given. */
  readSources?: { schema: string; table: string; snapshot: SnapshotId }[];
}

export interface SchemaVersionsRow {
  schemaVersion: number;
}

export interface SchemaRow extends Versioned {
  name: string;
  uuid: string;
}

export interface TableRow extends Versioned {
  schemaId: CatalogId;
  name: string;
  uuid: string;
}

export interface ColumnRow extends Versioned {
  name: string;
  type: string;
  /** Position in the table, 1-based, dense among the columns live at the same snapshot. */
  order: number;
  nullsAllowed: boolean;
  defaultValue: string | null;
  parentColumn: ColumnId | null;
}

export interface ViewRow extends Versioned {
  schemaId: CatalogId;
  name: string;
  uuid: string;
  dialect: string;
  sql: string;
}

export interface MacroRow extends Versioned {
  schemaId: CatalogId;
  name: string;
  dialect: string;
  sql: string;
  parameters: string[];
}

export interface PartitionInfoRow extends Versioned {
  columns: { columnId: ColumnId; transform: string }[];
}

export interface ObjectTagRow extends Versioned {
  value: string;
}

export interface DataFileRow extends Versioned {
  path: string;
  format: string;
  recordCount: number;
  fileSizeBytes: number;
  footerSize: number | null;
  /** First row id of the file within its table (DuckLake's row lineage). */
  rowIdStart: number;
}

export interface DeleteFileRow extends Versioned {
  dataFileId: FileId;
  path: string;
  format: string;
  deleteCount: number;
  fileSizeBytes: number;
}

export interface FileColumnStatsRow {
  valueCount: number | null;
  nullCount: number | null;
  minValue: string | null;
  maxValue: string | null;
  containsNan: boolean | null;
}

export interface MetadataRow {
  value: string;
}

export interface TableStatsRow {
  recordCount: number;
  nextRowId: number;
  fileSizeBytes: number;
}

export interface TableColumnStatsRow {
  containsNull: boolean | null;
  containsNan: boolean | null;
  minValue: string | null;
  maxValue: string | null;
}

export interface SchemaNameIndexRow extends Versioned {
  schemaId: CatalogId;
}

export type RelationKind = 'table' | 'view';

export interface RelationNameIndexRow extends Versioned {
  kind: RelationKind;
  id: CatalogId;
}

/** One manifest entry, positional: [id, path, format, recordCount, fileSizeBytes, footerSize, rowIdStart]. */
export type ManifestFile = [FileId, string, string, number, number, number | null, number];

/** The data files one commit added to one table, ascending by id. */
export interface DataFileManifestRow {
  files: ManifestFile[];
}

export interface DataFileEndRow {
  end: SnapshotId;
}

export interface FileTableIndexRow {
  tableId: CatalogId;
}

/** The time index carries everything in its key. */
export type SnapshotTimeIndexRow = Record<string, never>;

/** The file rows (data and delete files) that name one object path. */
export interface FilePathRow {
  fileIds: FileId[];
}

export interface SnapshotTagRow {
  snapshot: SnapshotId;
  /** ms since epoch, from the catalog clock. */
  createdAt: number;
}
