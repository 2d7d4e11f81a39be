// The records the public API returns. They are plain data, detached from the index.
import type { CatalogId, ColumnId, FileId, SnapshotId } from '../../keys/ids.js';

export interface SnapshotInfo {
  id: SnapshotId;
  time: Date;
  schemaVersion: number;
  author: string | null;
  message: string | null;
  extraInfo: string | null;
  /** DuckLake changes_made entries, e.g. `created_table:"sales"."orders"`, `inserted_into_table:3`. */
  changes: string[];
  maintenance: boolean;
}

export interface SchemaInfo {
  id: CatalogId;
  name: string;
}

export interface TableSummary {
  id: CatalogId;
  name: string;
}

/**
 * A table's size at a snapshot (DuckLake's ducklake_table_info): its live data files, the live delete files
 * applying to them, and the rows left. At the newest snapshot from the table's stats, else by a listing.
 */
export interface TableTotals {
  dataFiles: number;
  dataBytes: number;
  deleteFiles: number;
  deleteBytes: number;
  /** Rows in the live data files, less the rows their delete files delete. */
  rows: number;
}

/** The live schemas, tables and views at a snapshot, and their tables' totals added up. */
export interface CatalogTotals extends TableTotals {
  schemas: number;
  tables: number;
  views: number;
}

export interface ColumnInfo {
  id: ColumnId;
  name: string;
  type: string;
  /** 1-based position. */
  order: number;
  nullsAllowed: boolean;
  defaultValue: string | null;
  /** A struct's fields, a list's element, a map's key and value: present on nested columns only. */
  children?: ColumnInfo[];
}

export interface TableInfo {
  id: CatalogId;
  name: string;
  schemaId: CatalogId;
  uuid: string;
  /** The snapshot that wrote this version of the table (its creation, or its last rename). */
  beginSnapshot: SnapshotId;
  columns: ColumnInfo[];
}

export interface ViewInfo {
  id: CatalogId;
  name: string;
  schemaId: CatalogId;
  dialect: string;
  sql: string;
  /** DuckDB's serialised parse of `sql`, one SELECT (see ViewRow); null when the catalog has none for it. */
  definition: string | null;
}

export interface DataFileInfo {
  id: FileId;
  path: string;
  format: string;
  recordCount: number;
  fileSizeBytes: number;
  footerSize: number | null;
  rowIdStart: number;
  /** CRC-32 of the file's bytes (null: its writer gave none; then only its size is checked). */
  contentCrc32: number | null;
  /** DuckLake's mapping_id: the file carries no field ids and is read by name through this mapping (null: by field id). */
  mappingId: CatalogId | null;
  beginSnapshot: SnapshotId;
  endSnapshot: SnapshotId | null;
}

export interface DeleteFileInfo {
  id: FileId;
  dataFileId: FileId;
  path: string;
  format: string;
  deleteCount: number;
  fileSizeBytes: number;
  contentCrc32: number | null;
  beginSnapshot: SnapshotId;
  endSnapshot: SnapshotId | null;
}
