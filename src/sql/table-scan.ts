// The SELECT that reads one table as it was at one snapshot: its data files by Parquet field id (= the
// catalog's column ids, so a renamed column reads old files under its new name, a column added later reads
// as its default or NULL, a dropped one is not read), in the types the catalog has at that snapshot, with
// the positional delete files applied (each belongs to one data file; a delete file holds every deleted
// position of its data file, DuckLake's `pos`).
import type { NameMappingColumn } from '../../keys/name-mappings.js';
import type { ColumnInfo } from '../read/records.js';
import { DELETE_FILE, deleteRowsOf } from './delete-positions.js';
import { duckType } from './duck-types.js';
import type { FileLayout } from './file-columns.js';
import { ident, literal } from './sql-text.js';

export interface ScanFile {
  /** Where DuckDB reads it: a local path. */
  local: string;
  /** The row id of its first row: row i's id is this plus i, unless the file carries its rows' ids. */
  rowIdStart: number;
  /** A file without field ids: the names its columns are read by (its name mapping's rows). */
  mapping?: readonly NameMappingColumn[] | undefined;
  /** A file with field ids: each one's column name, where the footer was looked at (file-columns.ts). */
  layout?: FileLayout | undefined;
}

/**
 * The Parquet field id DuckDB reserves for a row id carried in the file (DuckLake's
 * `_ducklake_internal_row_id`): the rows an UPDATE rewrites keep their ids through it.
 */
export const ROW_ID_FIELD_ID = 2_147_483_540;
export const ROW_ID_COLUMN = '_ducklake_internal_row_id';

export interface ScanInput {
  columns: readonly ColumnInfo[];
  files: readonly ScanFile[];
  /**
   * Each delete file with the local path of the data file it deletes from, and its slot where its positions
   * are kept in the `kept` table (kept-positions.ts) rather than read from it.
   */
  deletes: readonly { local: string; dataFile: string; slot?: number | undefined }[];
  kept?: string;
}


/** What a column reads as in a file written before it existed: its default, cast to its type, or NULL. */
export function defaultOf(c: ColumnInfo): string {
  return c.defaultValue === null ? 'NULL' : `CAST(${literal(c.defaultValue)} AS ${duckType(c)})`;
}

/**
 * The column read_parquet adds with each row's file: not `filename`, which a table may have as a column. (A
 * column named file_row_number cannot be renamed away; DuckDB refuses deletes on such a table's files.)
 */
const FILE = '__strata_filename';

/**
 * The scan's SELECT; with `positions`, each row also carries its file's local path (`__strata_file`), its
 * row number in that file (`__strata_pos`), which DELETE and UPDATE turn into delete files, and its row id
 * (`__strata_rowid`), which an UPDATE's new rows keep.
 */
export function tableScan(t: ScanInput, positions = false): string {
  const columns = [...t.columns].sort((a, b) => a.order - b.order);
  const extra = positions ? `, CAST(NULL AS VARCHAR) AS ${POSITION[0]}, CAST(NULL AS BIGINT) AS ${POSITION[1]}, CAST(NULL AS BIGINT) AS ${POSITION[2]}` : '';
  if (t.files.length === 0) {
    return `SELECT ${typedNulls(columns)}${extra} WHERE false`;
  }
  // Every entry of the map is one struct type, so each default travels as text; DuckDB casts it to the column's type.
  const fill = (c: ColumnInfo) => (c.defaultValue === null ? 'NULL::VARCHAR' : literal(c.defaultValue));
  const entries = columns.map((c) => `${c.id}: {name: ${literal(c.name)}, type: ${literal(duckType(c))}, default_value: ${fill(c)}}`);
  // A file that carries its rows' ids gives them; in any other the entry reads NULL, and the id is the position's.
  if (positions) entries.push(`${ROW_ID_FIELD_ID}: {name: '${EMBEDDED}', type: 'BIGINT', default_value: NULL::VARCHAR}`);
  const files = positions || columns.some((c) => (c.children ?? []).length > 0) ? t.files : byNames(t.files, columns);
  const byId = files.filter((f) => f.mapping === undefined);
  // A delete file applies to a data file the scan reads (scanAt passes no other).
  const deleting = t.deletes.length > 0;
  const reads = { filename: positions, rowNumber: positions || deleting, ordinal: deleting };
  const idRead = `read_parquet([${byId.map((f) => literal(f.local)).join(', ')}], schema = map {${entries.join(', ')}}${readOptions(reads)})`;
  const byName = mappedReads(columns, files, byId.length, reads, positions);
  // Files read by name join those read by id by column name; with none, the read is the one read_parquet.
  const idPart = `SELECT *${deleting ? `, file_index::BIGINT AS ${ORDINAL}` : ''} FROM ${idRead}`;
  const source = byName.length === 0 ? idRead : `(${[...(byId.length > 0 ? [idPart] : []), ...byName.map((r) => r.sql)].join(' UNION ALL BY NAME ')})`;
  const select =
    `${columns.map((c) => `d.${ident(c.name)}`).join(', ')}` +
    (positions ? `, d.${FILE} AS ${POSITION[0]}, d.file_row_number AS ${POSITION[1]}, coalesce(d.${EMBEDDED}, f.start + d.file_row_number) AS ${POSITION[2]}` : '');
  const starts = positions ? ` JOIN (VALUES ${files.map((f) => `(${literal(f.local)}, ${f.rowIdStart}::BIGINT)`).join(', ')}) AS f(l, start) ON f.l = d.${FILE}` : '';
  const read = `${source} AS d${starts}`;
  if (!deleting) return `SELECT ${select} FROM ${read}`;
  // A row is its file's ordinal in the scan (read_parquet's file_index, past the reads before its own) and its
  // row number, made one BIGINT; the positions kept in memory (kept-positions.ts) and every other delete file
  // in one read (one read_parquet per file made DuckDB's scan ~17% slower), each position keyed by the ordinal
  // of the data file the catalog says it deletes from, not by the path written inside it. NOT IN, not an anti
  // join: DuckDB builds an anti join's hash table on whichever side it estimates smaller, and a read by field id
  // has no estimate, so it hashed the whole table (GROUP BY over 4M rows 465 ms against 94, LIMIT 5 365 ms
  // against 4); NOT IN always hashes the deleted positions.
  const ordinals = new Map([...byId.map((f, i) => [f.local, i] as const), ...byName.flatMap((r) => r.locals.map((l, i) => [l, r.offset + i] as const))]);
  // Each delete file's rows in `source`, named by its `key` (a SQL value) in column `by`, keyed by its data file's ordinal.
  const deletedFrom = (source: string, by: string, files: readonly { key: string; dataFile: string }[]) =>
    `SELECT (v.o << ${ORDINAL_SHIFT}) + x.pos FROM ${source} AS x JOIN (VALUES ${files.map((f) => `(${f.key}, ${ordinals.get(f.dataFile)!}::BIGINT)`).join(', ')}) AS v(k, o) ` +
    // NOT IN over a NULL answers NULL for every row: a position that is not one deletes nothing.
    `ON v.k = x.${by} WHERE x.pos IS NOT NULL`;
  const [kept, unkept] = [t.deletes.filter((d) => d.slot !== undefined), t.deletes.filter((d) => d.slot === undefined)];
  const deleted = [
    ...(kept.length === 0 ? [] : [deletedFrom(t.kept!, 'slot', kept.map((d) => ({ key: String(d.slot), dataFile: d.dataFile })))]),
    ...(unkept.length === 0 ? [] : [deletedFrom(deleteRowsOf(unkept.map((d) => d.local)), DELETE_FILE, unkept.map((d) => ({ key: literal(d.local), dataFile: d.dataFile })))]),
  ].join(' UNION ALL ');
  const ordinal = byName.length === 0 ? 'd.file_index::BIGINT' : `d.${ORDINAL}`;
  return `SELECT ${select} FROM ${read} WHERE (${ordinal} << ${ORDINAL_SHIFT}) + d.file_row_number NOT IN (${deleted})`;
}

/**
 * Files with field ids whose footers name them, read by those names: DuckDB reads a file through a field-id
 * `schema` on one thread (a GROUP BY over one 4M-row file 30 ms against 17 by name, two threads). Each column
 * of the table is the file's column with its id, or its default where the file has none, as the field-id read
 * gives it; files of one layout share one mapping. Tables with nested columns stay with field ids: a struct's
 * fields are matched by id too.
 */
function byNames(files: readonly ScanFile[], columns: readonly ColumnInfo[]): ScanFile[] {
  const mappings = new Map<string, NameMappingColumn[] | undefined>();
  const mappingOf = ({ names, key }: FileLayout) => {
    if (!mappings.has(key)) {
      // A column named as one DuckDB adds to a read (or this scan does) would be read in its place.
      const clash = [...names.values()].some((n) => ADDED.has(n.toLowerCase()) || n.toLowerCase().startsWith('__strata'));
      const mapping = columns
        .filter((c) => names.has(c.id))
        .map((c, i): NameMappingColumn => ({ columnId: i, sourceName: names.get(c.id)!, targetFieldId: c.id, parentColumn: null, isPartition: false }));
      mappings.set(key, clash ? undefined : mapping);
    }
    return mappings.get(key);
  };
  return files.map((f) => {
    const mapping = f.mapping === undefined && f.layout !== undefined ? mappingOf(f.layout) : undefined;
    return mapping === undefined ? f : { ...f, mapping };
  });
}

/** The columns DuckDB's read_parquet can add to a file's own (its virtual columns). */
const ADDED = new Set(['filename', 'file_row_number', 'file_index']);

/** What each read_parquet of a scan adds to its rows: the file's path, the row's number in it, the file's ordinal. */
interface ReadExtras {
  filename: boolean;
  rowNumber: boolean;
  ordinal: boolean;
}

const readOptions = (r: ReadExtras) => `${r.filename ? `, filename = '${FILE}'` : ''}${r.rowNumber ? ', file_row_number = true' : ''}`;

/**
 * A row's key among the deleted positions: its file's ordinal shifted past any row number a file can have
 * (2^40 rows), plus its row number.
 */
const ORDINAL_SHIFT = 40;

/**
 * The reads of the files without field ids, one per mapping (files of one mapping share a read): each column
 * by the name the mapping gives it, in the column's type, or its default where the mapping has none (a
 * column added after the file); then, as the read by id has them, the file, the row number, the file's ordinal
 * in the scan (the reads' files are numbered on from `first`) and no carried id.
 */
function mappedReads(columns: readonly ColumnInfo[], files: readonly ScanFile[], first: number, reads: ReadExtras, positions: boolean): { sql: string; locals: string[]; offset: number }[] {
  const groups = new Map<string, { mapping: readonly NameMappingColumn[]; locals: string[] }>();
  for (const f of files) {
    if (f.mapping === undefined) continue;
    // Files read by names their footers gave share a read only with files of the same columns and types,
    // whose mapping is then the same too.
    const key = f.layout === undefined ? `mapping ${JSON.stringify(f.mapping)}` : `footer ${f.layout.key}`;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, { mapping: f.mapping, locals: [f.local] });
    else g.locals.push(f.local);
  }
  let offset = first;
  return [...groups.values()].map(({ mapping, locals }) => {
    const source = new Map(mapping.filter((m) => m.parentColumn === null).map((m) => [m.targetFieldId, m.sourceName]));
    const cols = columns.map((c) => {
      const name = source.get(c.id);
      return `${name === undefined ? defaultOf(c) : `CAST(${ident(name)} AS ${duckType(c)})`} AS ${ident(c.name)}`;
    });
    if (reads.filename) cols.push(`${FILE}`);
    if (reads.rowNumber) cols.push('file_row_number');
    if (reads.ordinal) cols.push(`file_index::BIGINT + ${offset} AS ${ORDINAL}`);
    if (positions) cols.push(`NULL::BIGINT AS ${EMBEDDED}`);
    const read = { sql: `SELECT ${cols.join(', ')} FROM read_parquet([${locals.map(literal).join(', ')}]${readOptions(reads)})`, locals, offset };
    offset += locals.length;
    return read;
  });
}

/** A select list of the columns, in order, each a NULL of its type: the shape of a table without its rows. */
export function typedNulls(columns: readonly ColumnInfo[]): string {
  return [...columns].sort((a, b) => a.order - b.order).map((c) => `CAST(NULL AS ${duckType(c)}) AS ${ident(c.name)}`).join(', ');
}

/** The columns a scan with positions adds: the row's file (its local path), its row number there, its row id. */
export const POSITION = ['__strata_file', '__strata_pos', '__strata_rowid'] as const;

/** The name a carried row id reads under in a scan with positions. */
const EMBEDDED = '__strata_embedded_rowid';

/** The name a file's ordinal in the scan reads under where files are read by more than one read_parquet. */
const ORDINAL = '__strata_file_ordinal';
