// The SELECT that reads one table as it was at one snapshot: its data files by Parquet field id (= the
// catalog's column ids, so a renamed column reads old files under its new name, a column added later reads
// as its default or NULL, a dropped one is not read), in the types the catalog has at that snapshot, with
// the positional delete files applied (each belongs to one data file; a delete file holds every deleted
// position of its data file, DuckLake's `pos`).
import type { NameMappingColumn } from '../../keys/name-mappings.js';
import type { ColumnInfo } from '../read/records.js';
import { duckType } from './duck-types.js';
import { ident, literal } from './sql-text.js';

export interface ScanFile {
  /** Where DuckDB reads it: a local path. */
  local: string;
  /** The row id of its first row: row i's id is this plus i, unless the file carries its rows' ids. */
  rowIdStart: number;
  /** A file without field ids: the names its columns are read by (its name mapping's rows). */
  mapping?: readonly NameMappingColumn[] | undefined;
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
  /** Each delete file with the local path of the data file it deletes from. */
  deletes: readonly { local: string; dataFile: string }[];
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
  const located = t.deletes.length > 0 || positions;
  const byId = t.files.filter((f) => f.mapping === undefined);
  const idRead = `read_parquet([${byId.map((f) => literal(f.local)).join(', ')}], schema = map {${entries.join(', ')}}${located ? `, filename = '${FILE}', file_row_number = true` : ''})`;
  const byName = mappedReads(columns, t.files, located, positions);
  // Files read by name join those read by id by column name; with none, the read is the one read_parquet.
  const source = byName.length === 0 ? idRead : `(${[...(byId.length > 0 ? [`SELECT * FROM ${idRead}`] : []), ...byName].join(' UNION ALL BY NAME ')})`;
  const select =
    `${columns.map((c) => `d.${ident(c.name)}`).join(', ')}` +
    (positions ? `, d.${FILE} AS ${POSITION[0]}, d.file_row_number AS ${POSITION[1]}, coalesce(d.${EMBEDDED}, f.start + d.file_row_number) AS ${POSITION[2]}` : '');
  const starts = positions ? ` JOIN (VALUES ${t.files.map((f) => `(${literal(f.local)}, ${f.rowIdStart}::BIGINT)`).join(', ')}) AS f(l, start) ON f.l = d.${FILE}` : '';
  const read = `${source} AS d${starts}`;
  if (t.deletes.length === 0) return `SELECT ${select} FROM ${read}`;
  // One read of every delete file (one read_parquet per file made DuckDB's scan ~17% slower), each mapped to
  // its data file by the catalog, not by the path written inside it.
  const owners = t.deletes.map((d) => `(${literal(d.local)}, ${literal(d.dataFile)})`).join(', ');
  const deleted =
    `SELECT m.f, x.pos FROM read_parquet([${t.deletes.map((d) => literal(d.local)).join(', ')}], filename = true) AS x ` +
    `JOIN (VALUES ${owners}) AS m(d, f) ON m.d = x.filename`;
  return `SELECT ${select} FROM ${read} ANTI JOIN (${deleted}) AS x ON x.f = d.${FILE} AND x.pos = d.file_row_number`;
}

/**
 * The reads of the files without field ids, one per mapping (files of one mapping share a read): each column
 * by the name the mapping gives it, in the column's type, or its default where the mapping has none (a
 * column added after the file); then, as the read by id has them, the file, the row number and no carried id.
 */
function mappedReads(columns: readonly ColumnInfo[], files: readonly ScanFile[], located: boolean, positions: boolean): string[] {
  const groups = new Map<string, { mapping: readonly NameMappingColumn[]; locals: string[] }>();
  for (const f of files) {
    if (f.mapping === undefined) continue;
    const key = JSON.stringify(f.mapping);
    const g = groups.get(key);
    if (g === undefined) groups.set(key, { mapping: f.mapping, locals: [f.local] });
    else g.locals.push(f.local);
  }
  return [...groups.values()].map(({ mapping, locals }) => {
    const source = new Map(mapping.filter((m) => m.parentColumn === null).map((m) => [m.targetFieldId, m.sourceName]));
    const cols = columns.map((c) => {
      const name = source.get(c.id);
      return `${name === undefined ? defaultOf(c) : `CAST(${ident(name)} AS ${duckType(c)})`} AS ${ident(c.name)}`;
    });
    if (located) cols.push(`${FILE}`, 'file_row_number');
    if (positions) cols.push(`NULL::BIGINT AS ${EMBEDDED}`);
    return `SELECT ${cols.join(', ')} FROM read_parquet([${locals.map(literal).join(', ')}]${located ? `, filename = '${FILE}', file_row_number = true` : ''})`;
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
