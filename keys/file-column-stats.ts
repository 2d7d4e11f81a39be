// Per-file column statistics (ducklake_file_column_stats): what DuckDB's Parquet footer says of each column of
// a data file — value count, null count, min and max (as text, DuckLake's min_value/max_value), whether a
// float column holds NaN — written with the file's row in the same commit and gone with it at excision. One
// value per file holds all its columns: a query planner asks for a table's files and their stats together, and
// excision deletes one key, not one per column.
//   [FileColumnStats][table_id][data_file_id][begin_snapshot]   → { columns: [...] }
import type { CatalogId, ColumnId, FileId, SnapshotId } from './ids.js';
import { encodeKey, type Key } from './key-codec.js';
import { del, type Mutation, putRow } from './mutation.js';
import { Space } from './spaces.js';
import { decodeValue, ValueDecodeError } from './value-codec.js';
import type { Violation } from './violation.js';

export interface ColumnStats {
  columnId: ColumnId;
  valueCount: number | null;
  nullCount: number | null;
  /** The smallest and largest value, as DuckDB prints them; null when the file does not say. */
  min: string | null;
  max: string | null;
  containsNan: boolean | null;
}

interface FileColumnStatsRow {
  columns: ColumnStats[];
}

export const fileColumnStatsKey = (tableId: CatalogId, fileId: FileId, begin: SnapshotId): Key => encodeKey(Space.FileColumnStats, [tableId, fileId], begin);

export const putFileColumnStats = (tableId: CatalogId, fileId: FileId, begin: SnapshotId, columns: ColumnStats[]): Mutation =>
  putRow(fileColumnStatsKey(tableId, fileId, begin), { columns } satisfies FileColumnStatsRow);

export function decodeFileColumnStats(key: Key, bytes: Uint8Array): ColumnStats[] {
  const { columns } = decodeValue<FileColumnStatsRow>(key, bytes);
  if (!Array.isArray(columns)) throw new ValueDecodeError(key, 'file column statistics without their columns');
  return columns;
}

/** The stats of an excised data file row go with it (the file's fields and begin, as in its row's key). */
export const excisedFileColumnStats = (fields: readonly unknown[], begin: number): Mutation =>
  del(fileColumnStatsKey(fields[0] as CatalogId, fields[1] as FileId, begin as SnapshotId));

/** Every stats value belongs to a data file row with the same table, id and begin. */
export function fileColumnStatsProblems(
  stats: readonly { tableId: number; fileId: number; begin: number; key: string }[],
  files: readonly { tableId: number; id: number; begin: number }[],
): Violation[] {
  const rows = new Set(files.map((f) => `${f.tableId}/${f.id}/${f.begin}`));
  return stats
    .filter((s) => !rows.has(`${s.tableId}/${s.fileId}/${s.begin}`))
    .map((s) => ({ invariant: 'file-stats-have-their-file', key: s.key, message: `column statistics of data file ${s.fileId} (table ${s.tableId}, snapshot ${s.begin}) whose row does not exist` }));
}
