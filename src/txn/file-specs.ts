// A data or delete file as a caller gives it (DataFileSpec, DeleteFileSpec), checked into the row a
// transaction writes: the API's addDataFile and addDeleteFile check through here, and so does an import, so a
// file row has one set of rules however it arrives; and what reads a registered file's bytes for them
// (FileInspector: the SQL layer's, since this layer knows no Parquet).
import type { DataFileRow } from '../../keys/data-files.js';
import type { DeleteFileRow } from '../../keys/delete-files.js';
import type { ColumnStats } from '../../keys/file-column-stats.js';
import type { ColumnId, FileId } from '../../keys/ids.js';
import type { NameMappingColumn } from '../../keys/name-mappings.js';
import type { ColumnInfo } from '../read/records.js';
import { checkCount, checkFilePath, checkOptionalCount, checkOptionalCrc32, checkOptionalText, options, required, shown } from '../arguments.js';
import { invalid, notFound } from './refusals.js';

export interface DataFileSpec {
  /** Relative to the catalog's data path. */
  path: string;
  recordCount: number;
  fileSizeBytes: number;
  footerSize?: number | null;
  /** CRC-32 of the file's bytes (zlib.crc32): checked the first time a process reads the file. */
  contentCrc32?: number | null;
  /** Default 'parquet'. */
  format?: string;
  /** What the file's footer says of each column (what lets a query skip the file); columns not given have none. */
  columnStats?: ColumnStatsSpec[];
}

export interface ColumnStatsSpec {
  columnId: number;
  valueCount?: number | null;
  nullCount?: number | null;
  /** The smallest and largest value as text (DuckDB's rendering; DuckLake's min_value, max_value). */
  min?: string | null;
  max?: string | null;
  containsNan?: boolean | null;
}

export interface DeleteFileSpec {
  dataFileId: number;
  path: string;
  deleteCount: number;
  fileSizeBytes: number;
  contentCrc32?: number | null;
  format?: string;
}

/**
 * The checks of a registered file that read its bytes, which this layer cannot (it knows no Parquet): the
 * SQL layer's, given by the catalog.
 */
export interface FileInspector {
  /**
   * Refuses (INVALID_ARGUMENT) a delete file the store holds whose positions do not fit its data file: each
   * below its record count, none twice, as many as deleteCount. One the store does not hold yet is checked
   * when a statement first reads it.
   */
  deleteFile(dataFile: { id: number; recordCount: number }, file: { path: string; deleteCount: number; fileSizeBytes: number; contentCrc32: number | null }): Promise<void>;
  /**
   * How a data file is read as `table` (whose live columns `columns` gives, asked only when the file is looked
   * at): undefined when by field id (its columns carry ids, each naming a column of the table), else the name
   * mapping rows to record with it; refuses (INVALID_ARGUMENT) a file it can read neither way. One it cannot
   * look at yet: undefined, and checked when first read.
   */
  dataFile(table: string, columns: () => Promise<readonly ColumnInfo[]>, file: { path: string; fileSizeBytes: number; contentCrc32: number | null }): Promise<NameMappingColumn[] | undefined>;
}

/** A data file as addDataFile (and an import) takes it, checked: the row it becomes, but for its row ids and name mapping. `call` names the caller in a refusal. */
export function checkedDataFile(file: DataFileSpec, maxPathBytes: number, call = 'addDataFile()'): Omit<DataFileRow, 'end' | 'rowIdStart' | 'mappingId'> & { contentCrc32: number | null } {
  required(call, 'a data file { path, recordCount, fileSizeBytes }', file);
  options(call, file, ['path', 'recordCount', 'fileSizeBytes', 'footerSize', 'contentCrc32', 'format', 'columnStats']);
  return {
    path: checkFilePath('data file path', file.path, maxPathBytes),
    format: checkOptionalText('data file format', file.format) ?? 'parquet',
    recordCount: checkCount('recordCount', file.recordCount),
    fileSizeBytes: checkCount('fileSizeBytes', file.fileSizeBytes),
    footerSize: checkOptionalCount('footerSize', file.footerSize),
    contentCrc32: checkOptionalCrc32('contentCrc32', file.contentCrc32),
  };
}

/** A delete file as addDeleteFile (and an import) takes it, checked: the row it becomes, but for its data file. */
export function checkedDeleteFile(spec: DeleteFileSpec, maxPathBytes: number): Omit<DeleteFileRow, 'end' | 'dataFileId'> & { contentCrc32: number | null } {
  required('addDeleteFile()', 'a delete file { dataFileId, path, deleteCount, fileSizeBytes }', spec);
  options('addDeleteFile()', spec, ['dataFileId', 'path', 'deleteCount', 'fileSizeBytes', 'contentCrc32', 'format']);
  return {
    path: checkFilePath('delete file path', spec.path, maxPathBytes),
    format: checkOptionalText('delete file format', spec.format) ?? 'parquet',
    deleteCount: checkCount('deleteCount', spec.deleteCount, 1),
    fileSizeBytes: checkCount('fileSizeBytes', spec.fileSizeBytes),
    contentCrc32: checkOptionalCrc32('contentCrc32', spec.contentCrc32),
  };
}

/** A delete file deletes no more rows than its data file has. */
export function checkDeleteCount(deleteCount: number, dataFileId: FileId, records: number): void {
  if (deleteCount > records) throw invalid(`deleteCount ${deleteCount} exceeds the ${records} rows of data file ${dataFileId}`);
}

/** Column statistics as given, checked against the table's live column ids (`table` names it) and the file's record count. */
export function checkedColumnStats(table: string, live: ReadonlySet<number>, given: unknown, records: number): ColumnStats[] {
  if (!Array.isArray(given)) throw invalid(`columnStats must be an array of { columnId, valueCount, nullCount, min, max, containsNan }, got ${shown(given)}`);
  const seen = new Set<number>();
  return given.map((g: ColumnStatsSpec) => {
    const o = options('columnStats entry', g, ['columnId', 'valueCount', 'nullCount', 'min', 'max', 'containsNan']);
    const columnId = checkCount('columnStats columnId', o.columnId, 1);
    if (!live.has(columnId)) throw notFound(`columnStats names column ${columnId}, which ${table} does not have; its column ids: ${[...live].join(', ')}`);
    if (seen.has(columnId)) throw invalid(`columnStats gives column ${columnId} twice`);
    seen.add(columnId);
    const valueCount = checkOptionalCount('columnStats valueCount', o.valueCount);
    const nullCount = checkOptionalCount('columnStats nullCount', o.nullCount);
    if (nullCount !== null && nullCount > (valueCount ?? records)) throw invalid(`columnStats of column ${columnId}: nullCount ${nullCount} exceeds ${valueCount ?? records} values`);
    if (o.containsNan !== undefined && o.containsNan !== null && typeof o.containsNan !== 'boolean') throw invalid('columnStats containsNan must be a boolean or null');
    return { columnId: columnId as ColumnId, valueCount, nullCount, min: checkOptionalText('columnStats min', o.min), max: checkOptionalText('columnStats max', o.max), containsNan: o.containsNan ?? null };
  });
}
