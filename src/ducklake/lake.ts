// A DuckLake catalog (its SQLite file) read into typed rows, every value checked as it is read: an id or a
// count is a whole number in range (SQLite keeps whatever a column is given, and a BIGINT past 2^53 would
// lose digits as a JS number), a time a real instant, a boolean a boolean. A value that is none of these is
// INVALID_ARGUMENT naming the table, the row and the column, never a raw SQLite, JSON or range error. What
// the rows mean together (a table in a live schema, a delete file of a live data file) is checked where they
// are applied, by the transaction's own checks (src/txn/imported.ts).
import type Database from 'better-sqlite3';
import { checkCount, checkOptionalCrc32, MAX_TIME_MS } from '../arguments.js';
import { StrataError } from '../errors.js';
import { onFirstUse } from '../on-first-use.js';
import { parseSqlTime, sqlBool } from './values.js';

/** Where a path is: relative to its parent's (the data path, the schema's, the table's), or absolute. */
export interface LakePath {
  path: string;
  relative: boolean;
}

/** A version's lifetime: `end` null while current, else after `begin` (a delete file may end where it begins). */
export interface Life {
  begin: number;
  end: number | null;
}

export interface LakeSnapshot {
  id: number;
  time: number;
  nextCatalogId: number;
  nextFileId: number;
  author: string | null;
  message: string | null;
  extraInfo: string | null;
  changesMade: string;
  /** Strata's own record of the commit (strata_snapshot), when the lake has one. */
  maintenance: boolean | null;
  readSources: unknown;
  /** The tables a restore changed (Strata's restored_table, kept beside changes_made, which DuckLake reads). */
  restoredTables: number[];
}

export interface LakeSchema extends Life {
  id: number;
  uuid: string;
  name: string;
  path: LakePath | null;
}

export interface LakeTable extends Life {
  id: number;
  uuid: string;
  schemaId: number;
  name: string;
  path: LakePath | null;
}

export interface LakeView extends Life {
  id: number;
  uuid: string;
  schemaId: number;
  name: string;
  dialect: string;
  sql: string;
}

export interface LakeColumn extends Life {
  tableId: number;
  id: number;
  order: number;
  name: string;
  type: string;
  /** The value files written before the column read (DuckLake's initial_default), as text. */
  initialDefault: string | null;
  /** What new rows get: DuckLake writes 'NULL' for none. */
  defaultValue: string | null;
  /** 'literal' or 'expression' (a default DuckDB computes per row). */
  defaultType: string | null;
  nullsAllowed: boolean;
  parent: number | null;
}

export interface LakeDataFile extends Life {
  id: number;
  tableId: number;
  path: LakePath;
  format: string;
  recordCount: number;
  fileSizeBytes: number;
  footerSize: number | null;
  rowIdStart: number | null;
  mappingId: number | null;
  partialMax: number | null;
  encrypted: boolean;
}

export interface LakeDeleteFile extends Life {
  id: number;
  tableId: number;
  dataFileId: number;
  path: LakePath;
  format: string;
  deleteCount: number;
  fileSizeBytes: number;
  partialMax: number | null;
  encrypted: boolean;
}

export interface LakeFileStats {
  dataFileId: number;
  columnId: number;
  valueCount: number | null;
  nullCount: number | null;
  min: string | null;
  max: string | null;
  containsNan: boolean | null;
}

/** A table of inlined rows (ducklake_inlined_data_<table>_<schema version>): row id, begin, end, then the columns. */
export interface LakeInlinedTable {
  tableId: number;
  name: string;
  schemaVersion: number;
  /** The user columns, named as the table named them at that schema version. */
  columns: string[];
  rows: { rowId: number; begin: number; end: number | null; values: unknown[] }[];
}

/** Rows deleted from a data file without a delete file (ducklake_inlined_delete_<table>): by position. */
export interface LakeInlinedDelete {
  tableId: number;
  dataFileId: number;
  position: number;
  begin: number;
}

/** A name mapping of the lake: how a data file without field ids is read, by name, as columns of its table. */
export interface LakeMapping {
  tableId: number;
  type: string;
  columns: { columnId: number; sourceName: string; targetFieldId: number; parentColumn: number | null; isPartition: boolean }[];
}

export interface Lake {
  file: string;
  /** ducklake_metadata's global keys. */
  metadata: Map<string, string>;
  snapshots: LakeSnapshot[];
  schemas: LakeSchema[];
  tables: LakeTable[];
  views: LakeView[];
  columns: LakeColumn[];
  dataFiles: LakeDataFile[];
  deleteFiles: LakeDeleteFile[];
  fileStats: LakeFileStats[];
  inlined: LakeInlinedTable[];
  inlinedDeletes: LakeInlinedDelete[];
  /** Name mappings (ducklake_column_mapping with its ducklake_name_mapping rows), by mapping id. */
  mappings: Map<number, LakeMapping>;
  /** CRC-32s Strata recorded of files (strata_file), by file id. */
  crcs: Map<number, number>;
  tags: { name: string; snapshot: number; createdAt: number }[];
  retainFrom: number | null;
}

type Raw = Record<string, unknown>;

/** The import's refusal of the lake: what is wrong, and that nothing was made. */
export const badLake = (file: string, what: string, cause?: unknown) =>
  new StrataError('INVALID_ARGUMENT', `${file} is not a DuckLake catalog Strata can import: ${what.replace(/; nothing was imported$/, '')}; nothing was imported`, cause === undefined ? {} : { cause });

/** A whole number as SQLite gave it (a BigInt: the connection reads safely), or undefined if it is not one. */
function whole(v: unknown): number | undefined {
  if (typeof v === 'bigint') return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : undefined;
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined;
}

/** The checked fields of one row: each failure names the table, the row and the column. */
class Fields {
  constructor(
    private readonly table: string,
    private readonly row: Raw,
    private readonly key: string,
  ) {}

  private where(column: string): string {
    const id = this.row[this.key];
    return `${this.table} row${this.key === '' ? '' : ` ${this.key} ${typeof id === 'bigint' || typeof id === 'number' ? String(id) : JSON.stringify(id)}`}: ${column}`;
  }

  private raw(column: string): unknown {
    return this.row[column];
  }

  present(column: string): boolean {
    return this.row[column] !== null && this.row[column] !== undefined;
  }

  /** A count or id: a whole number from `min` on (the API's checkCount). */
  count(column: string, min = 0): number {
    const v = this.raw(column);
    return checkCount(this.where(column), whole(v) ?? (typeof v === 'bigint' ? String(v) : v), min);
  }

  optCount(column: string, min = 0): number | null {
    return this.present(column) ? this.count(column, min) : null;
  }

  crc(column: string): number | null {
    const v = this.raw(column);
    return checkOptionalCrc32(this.where(column), whole(v) ?? v);
  }

  text(column: string): string {
    const v = this.raw(column);
    if (typeof v !== 'string') throw new StrataError('INVALID_ARGUMENT', `${this.where(column)} must be text, got ${v === null || v === undefined ? 'NULL' : typeof v}`);
    return v;
  }

  optText(column: string): string | null {
    return this.present(column) ? this.text(column) : null;
  }

  bool(column: string): boolean | null {
    try {
      return sqlBool(this.raw(column));
    } catch (e) {
      throw new StrataError('INVALID_ARGUMENT', `${this.where(column)}: ${(e as Error).message}`);
    }
  }

  time(column: string): number {
    const ms = parseSqlTime(this.where(column), this.raw(column));
    if (ms < 0 || ms > MAX_TIME_MS) throw new StrataError('INVALID_ARGUMENT', `${this.where(column)} is ${JSON.stringify(this.raw(column))}, outside 1970 to 9999, where Strata keeps snapshot times`);
    return ms;
  }

  /** begin_snapshot and end_snapshot: the end after the begin (or at it, where `mayEndAtBegin`). */
  life(mayEndAtBegin = false): Life {
    const begin = this.count('begin_snapshot');
    const end = this.optCount('end_snapshot');
    if (end !== null && (end < begin || (end === begin && !mayEndAtBegin))) {
      throw new StrataError('INVALID_ARGUMENT', `${this.where('end_snapshot')} is ${end}, but a version ends after it begins (at ${begin})`);
    }
    return { begin, end };
  }

  /** A schema's or table's path (none: its parent's), or a file's (which it must have). */
  path(): LakePath | null {
    return this.present('path') ? this.filePath() : null;
  }

  filePath(): LakePath {
    return { path: this.text('path'), relative: this.bool('path_is_relative') ?? true };
  }
}

/** Reads every row of `table` (empty when the lake has no such table) through `make`. */
function rowsOf<T>(db: Database.Database, present: ReadonlySet<string>, table: string, key: string, make: (f: Fields) => T): T[] {
  if (!present.has(table)) return [];
  return (db.prepare(`SELECT * FROM "${table}"`).safeIntegers(true).all() as Raw[]).map((r) => make(new Fields(table, r, key)));
}

/** SQLite, in which DuckLake keeps its catalog: loaded by the first lake read or written. */
export const sqlite: () => typeof Database = onFirstUse('better-sqlite3');

const REQUIRED = ['ducklake_metadata', 'ducklake_snapshot', 'ducklake_schema', 'ducklake_table', 'ducklake_column', 'ducklake_data_file'];
const INLINED_DATA = /^ducklake_inlined_data_(\d+)_(\d+)$/;
const INLINED_DELETE = /^ducklake_inlined_delete_(\d+)$/;

/** Reads the lake in `file`, every value checked; a file that is not one is INVALID_ARGUMENT. */
export function readLake(file: string): Lake {
  let db: Database.Database;
  try {
    db = new (sqlite())(file, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw badLake(file, e instanceof Error ? e.message : String(e), e);
  }
  try {
    return readOpen(file, db);
  } catch (e) {
    if (e instanceof StrataError) throw e.code === 'INVALID_ARGUMENT' && !e.message.startsWith(file) ? badLake(file, e.message, e) : e;
    throw badLake(file, e instanceof Error ? e.message : String(e), e);
  } finally {
    db.close();
  }
}

function readOpen(file: string, db: Database.Database): Lake {
  const present = new Set((db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map((r) => r.name));
  for (const need of REQUIRED) if (!present.has(need)) throw badLake(file, `it has no table ${need}`);
  const rows = <T>(table: string, key: string, make: (f: Fields) => T) => rowsOf(db, present, table, key, make);

  const metadata = new Map<string, string>();
  for (const m of rows('ducklake_metadata', 'key', (f) => ({ key: f.text('key'), value: f.text('value'), scoped: f.present('scope') }))) {
    if (!m.scoped) metadata.set(m.key, m.value);
  }
  const changes = new Map(rows('ducklake_snapshot_changes', 'snapshot_id', (f) => [f.count('snapshot_id'), f] as const));
  const strata = new Map(rows('strata_snapshot', 'snapshot_id', (f) => [f.count('snapshot_id'), f] as const));
  const snapshots = rows('ducklake_snapshot', 'snapshot_id', (f): LakeSnapshot => {
    const id = f.count('snapshot_id');
    const c = changes.get(id);
    const x = strata.get(id);
    return {
      id,
      time: f.time('snapshot_time'),
      nextCatalogId: f.count('next_catalog_id'),
      nextFileId: f.count('next_file_id'),
      author: c?.optText('author') ?? null,
      message: c?.optText('commit_message') ?? null,
      extraInfo: c?.optText('commit_extra_info') ?? null,
      changesMade: c?.optText('changes_made') ?? '',
      maintenance: x?.bool('maintenance') ?? null,
      readSources: x?.present('read_sources') ? readSources(x) : undefined,
      restoredTables: restoredTables(x?.optText('restored_tables') ?? null),
    };
  });
  const crcs = new Map<number, number>();
  for (const [id, crc] of rows('strata_file', 'file_id', (f) => [f.count('file_id'), f.crc('content_crc32')] as const)) if (crc !== null) crcs.set(id, crc);
  const retention = rows('strata_retention', '', (f) => f.count('retain_from'));
  if (retention.length > 1) throw badLake(file, `strata_retention holds ${retention.length} rows; it holds one retain-from`);

  return {
    file,
    metadata,
    snapshots,
    schemas: rows('ducklake_schema', 'schema_id', (f) => ({ id: f.count('schema_id'), uuid: f.text('schema_uuid'), ...f.life(), name: f.text('schema_name'), path: f.path() })),
    tables: rows('ducklake_table', 'table_id', (f) => ({ id: f.count('table_id'), uuid: f.text('table_uuid'), ...f.life(), schemaId: f.count('schema_id'), name: f.text('table_name'), path: f.path() })),
    views: rows('ducklake_view', 'view_id', (f) => ({
      id: f.count('view_id'), uuid: f.text('view_uuid'), ...f.life(), schemaId: f.count('schema_id'), name: f.text('view_name'), dialect: f.optText('dialect') ?? 'duckdb', sql: f.text('sql'),
    })),
    columns: rows('ducklake_column', 'column_id', (f) => ({
      tableId: f.count('table_id'), id: f.count('column_id'), ...f.life(), order: f.count('column_order'), name: f.text('column_name'), type: f.text('column_type'),
      initialDefault: f.optText('initial_default'), defaultValue: f.optText('default_value'), defaultType: f.optText('default_value_type'),
      nullsAllowed: f.bool('nulls_allowed') ?? true, parent: f.optCount('parent_column'),
    })),
    dataFiles: rows('ducklake_data_file', 'data_file_id', (f) => ({
      id: f.count('data_file_id'), tableId: f.count('table_id'), ...f.life(), path: f.filePath(),
      format: f.optText('file_format') ?? 'parquet', recordCount: f.count('record_count'), fileSizeBytes: f.count('file_size_bytes'), footerSize: f.optCount('footer_size'),
      rowIdStart: f.optCount('row_id_start'), mappingId: f.optCount('mapping_id'), partialMax: f.optCount('partial_max'), encrypted: f.present('encryption_key'),
    })),
    deleteFiles: rows('ducklake_delete_file', 'delete_file_id', (f) => ({
      id: f.count('delete_file_id'), tableId: f.count('table_id'), ...f.life(true), dataFileId: f.count('data_file_id'), path: f.filePath(),
      format: f.optText('format') ?? 'parquet', deleteCount: f.count('delete_count'), fileSizeBytes: f.count('file_size_bytes'), partialMax: f.optCount('partial_max'), encrypted: f.present('encryption_key'),
    })),
    fileStats: rows('ducklake_file_column_stats', 'data_file_id', (f) => ({
      dataFileId: f.count('data_file_id'), columnId: f.count('column_id'), valueCount: f.optCount('value_count'), nullCount: f.optCount('null_count'),
      min: f.optText('min_value'), max: f.optText('max_value'), containsNan: f.bool('contains_nan'),
    })),
    inlined: inlinedTables(db, present, rows),
    inlinedDeletes: [...present].flatMap((name) => {
      const m = INLINED_DELETE.exec(name);
      if (m === null) return [];
      const tableId = Number(m[1]);
      return rows(name, 'file_id', (f) => ({ tableId, dataFileId: f.count('file_id'), position: f.count('row_id'), begin: f.count('begin_snapshot') }));
    }),
    mappings: mappingsOf(rows),
    crcs,
    tags: rows('strata_snapshot_tag', 'tag_name', (f) => ({ name: f.text('tag_name'), snapshot: f.count('snapshot_id'), createdAt: f.time('created_at') })),
    retainFrom: retention[0] ?? null,
  };
}

/** The lake's name mappings, each with its rows; a row of no mapping, or a mapping named twice, is refused. */
function mappingsOf(rows: <T>(table: string, key: string, make: (f: Fields) => T) => T[]): Map<number, LakeMapping> {
  const out = new Map<number, LakeMapping>();
  for (const m of rows('ducklake_column_mapping', 'mapping_id', (f) => ({ id: f.count('mapping_id'), tableId: f.count('table_id'), type: f.text('type') }))) {
    if (out.has(m.id)) throw new StrataError('INVALID_ARGUMENT', `ducklake_column_mapping holds mapping ${m.id} twice`);
    out.set(m.id, { tableId: m.tableId, type: m.type, columns: [] });
  }
  for (const n of rows('ducklake_name_mapping', 'mapping_id', (f) => ({
    mappingId: f.count('mapping_id'), columnId: f.count('column_id'), sourceName: f.text('source_name'), targetFieldId: f.count('target_field_id'),
    parentColumn: f.optCount('parent_column'), isPartition: f.bool('is_partition') ?? false,
  }))) {
    const m = out.get(n.mappingId);
    if (m === undefined) throw new StrataError('INVALID_ARGUMENT', `ducklake_name_mapping row ${n.columnId} names mapping ${n.mappingId}, which ducklake_column_mapping does not hold`);
    const { mappingId: _id, ...column } = n;
    m.columns.push(column);
  }
  return out;
}

/** strata_snapshot's restored_tables: table ids, comma-separated. */
function restoredTables(text: string | null): number[] {
  if (text === null || text === '') return [];
  return text.split(',').map((id) => {
    if (!/^\d+$/.test(id) || !Number.isSafeInteger(Number(id))) throw new StrataError('INVALID_ARGUMENT', `strata_snapshot's restored_tables ${JSON.stringify(text.slice(0, 80))} is not a list of table ids`);
    return Number(id);
  });
}

function readSources(f: Fields): unknown {
  const text = f.text('read_sources');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new StrataError('INVALID_ARGUMENT', `strata_snapshot's read_sources ${JSON.stringify(text.slice(0, 80))} is not JSON (${(e as Error).message})`);
  }
}

/** The tables of inlined rows ducklake_inlined_data_tables registers, each read whole. */
function inlinedTables(db: Database.Database, present: ReadonlySet<string>, rows: <T>(table: string, key: string, make: (f: Fields) => T) => T[]): LakeInlinedTable[] {
  const registered = rows('ducklake_inlined_data_tables', 'table_name', (f) => ({ tableId: f.count('table_id'), name: f.text('table_name'), schemaVersion: f.count('schema_version') }));
  for (const name of present) {
    if (INLINED_DATA.test(name) && !registered.some((r) => r.name === name)) {
      throw new StrataError('INVALID_ARGUMENT', `it has a table of inlined rows, ${name}, that ducklake_inlined_data_tables does not register`);
    }
  }
  return registered.map((r) => {
    const m = INLINED_DATA.exec(r.name);
    if (m === null || Number(m[1]) !== r.tableId || Number(m[2]) !== r.schemaVersion || !present.has(r.name)) {
      throw new StrataError('INVALID_ARGUMENT', `ducklake_inlined_data_tables registers ${JSON.stringify(r.name)} for table ${r.tableId} at schema version ${r.schemaVersion}, and the lake has no table ducklake_inlined_data_${r.tableId}_${r.schemaVersion}`);
    }
    const info = db.prepare(`PRAGMA table_info("${r.name}")`).all() as { name: string }[];
    const names = info.map((c) => c.name);
    if (names[0] !== 'row_id' || names[1] !== 'begin_snapshot' || names[2] !== 'end_snapshot') {
      throw new StrataError('INVALID_ARGUMENT', `${r.name} begins with columns ${names.slice(0, 3).join(', ')}; DuckLake 1.0's inlined rows begin with row_id, begin_snapshot, end_snapshot`);
    }
    const all = db.prepare(`SELECT * FROM "${r.name}"`).safeIntegers(true).raw(true).all() as unknown[][];
    const data = all.map((v) => {
      const f = new Fields(r.name, { row_id: v[0], begin_snapshot: v[1], end_snapshot: v[2] }, 'row_id');
      return { rowId: f.count('row_id'), ...f.life(), values: v.slice(3) };
    });
    return { ...r, columns: names.slice(3), rows: data };
  });
}
