// Name mappings (ducklake_column_mapping and ducklake_name_mapping): how a data file whose Parquet columns carry
// no field ids is read — each of its columns, by name, as a column id of its table — recorded when the file is
// registered (decision 0041). DuckLake keeps a mapping once under its mapping_id (taken from next_catalog_id)
// and has every file that uses it name that id; here one value per mapped data file holds the mapping id, its
// type and its rows, written with the file's row in the same commit and gone with it at excision, as the
// file's column statistics are. Files of one transaction laid out alike share one mapping id, so an export
// writes each mapping once.
//   [NameMapping][table_id][data_file_id][begin_snapshot]   → { mappingId, type: 'map_by_name', columns: [...] }
import type { CatalogId, FileId, SnapshotId } from './ids.js';
import { encodeKey, type Key } from './key-codec.js';
import { del, type Mutation, putRow } from './mutation.js';
import { Space } from './spaces.js';
import { decodeValue, ValueDecodeError } from './value-codec.js';
import type { Violation } from './violation.js';

/** One row of ducklake_name_mapping: a field of the file, by name, and the column id it is read as. */
export interface NameMappingColumn {
  /** The row's own id in its mapping (what parentColumn names). */
  columnId: number;
  /** The field's name in the file. */
  sourceName: string;
  /** The table's column id it is read as (DuckLake's target field id). */
  targetFieldId: number;
  /** The columnId of the row of the field it is inside (a struct's, a list's, a map's), or null at the top. */
  parentColumn: number | null;
  /** Read from a hive partition of the path instead of the file (never, so far: Strata writes no partitions). */
  isPartition: boolean;
}

/** ducklake_column_mapping's row, with its name rows. `map_by_name` is DuckLake's one type. */
export interface NameMapping {
  mappingId: CatalogId;
  type: 'map_by_name';
  columns: NameMappingColumn[];
}

export const nameMappingKey = (tableId: CatalogId, fileId: FileId, begin: SnapshotId): Key => encodeKey(Space.NameMapping, [tableId, fileId], begin);

export const putNameMapping = (tableId: CatalogId, fileId: FileId, begin: SnapshotId, mapping: NameMapping): Mutation =>
  putRow(nameMappingKey(tableId, fileId, begin), mapping);

export function decodeNameMapping(key: Key, bytes: Uint8Array): NameMapping {
  const m = decodeValue<NameMapping>(key, bytes);
  // decodeValue has refused anything but a record.
  if (m.type !== 'map_by_name' || typeof m.mappingId !== 'number' || !Array.isArray(m.columns)) {
    throw new ValueDecodeError(key, 'a name mapping without its id, its type (map_by_name) or its columns');
  }
  for (const c of m.columns) {
    if (c === null || typeof c !== 'object' || typeof c.sourceName !== 'string' || typeof c.targetFieldId !== 'number' || typeof c.columnId !== 'number') {
      throw new ValueDecodeError(key, 'a name mapping column without its source name, its target field id or its own id');
    }
  }
  return m;
}

/** The mapping of an excised data file row goes with it (the file's fields and begin, as in its row's key). */
export const excisedNameMapping = (fields: readonly unknown[], begin: number): Mutation =>
  del(nameMappingKey(fields[0] as CatalogId, fields[1] as FileId, begin as SnapshotId));

/**
 * Every mapping belongs to a data file row with the same table, id and begin, which names its mapping id; and
 * every row that names a mapping id has its mapping: a file without one would be read by field ids it lacks.
 */
export function nameMappingProblems(
  mappings: readonly { tableId: number; fileId: number; begin: number; mappingId: number; key: string }[],
  files: readonly { tableId: number; id: number; begin: number; row: { mappingId?: number }; key: string }[],
): Violation[] {
  const out: Violation[] = [];
  const rows = new Map(files.map((f) => [`${f.tableId}/${f.id}/${f.begin}`, f]));
  const mapped = new Set<string>();
  for (const m of mappings) {
    const at = `${m.tableId}/${m.fileId}/${m.begin}`;
    mapped.add(at);
    const file = rows.get(at);
    if (file === undefined) out.push({ invariant: 'name-mappings-have-their-file', key: m.key, message: `the name mapping of data file ${m.fileId} (table ${m.tableId}, snapshot ${m.begin}), whose row does not exist` });
    else if (file.row.mappingId !== m.mappingId) {
      out.push({ invariant: 'name-mappings-have-their-file', key: m.key, message: `mapping ${m.mappingId} of data file ${m.fileId}, whose row names mapping ${file.row.mappingId ?? 'none'}` });
    }
  }
  for (const f of files) {
    if (f.row.mappingId !== undefined && !mapped.has(`${f.tableId}/${f.id}/${f.begin}`)) {
      out.push({ invariant: 'name-mappings-have-their-file', key: f.key, message: `data file ${f.id} names mapping ${f.row.mappingId}, which it has no value for: it would be read by field ids it lacks` });
    }
  }
  return out;
}
