// Rows become data files of a table: DuckDB writes a SELECT's rows as Parquet with field ids equal to the
// column ids (so later renames, additions and drops read them right), each file goes into the table's data
// path on the catalog's store, and one commit registers them all with the record count, size, footer size
// and per-column statistics their footers give. Loads and INSERTs both write through here.
import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { SnapshotId } from '../../keys/ids.js';
import { StrataError } from '../errors.js';
import { icebergSchema } from '../iceberg/types.js';
import type { TableInfo, ColumnInfo } from '../read/records.js';
import type { ColumnStatsSpec, DataFileSpec } from '../txn/transaction.js';
import { duckType } from './duck-types.js';
import { run, withProgress } from './engine.js';
import type { DeletePositionChecks } from './delete-positions.js';
import type { FieldIdChecks } from './file-columns.js';
import { identityOf } from './local-files.js';
import type { PlaneContext } from './query.js';
import { ident, literal } from './sql-text.js';
import { ROW_ID_COLUMN, ROW_ID_FIELD_ID } from './table-scan.js';
import { randomUUID } from '../random.js';

export interface WrittenFiles {
  /** The commit that registered the files (null: the rows were none, nothing committed). */
  snapshot: SnapshotId | null;
  files: { path: string; recordCount: number; fileSizeBytes: number }[];
  rows: number;
}

/** Where rows go: a table as the head has it, and how big its files grow. */
export interface WriteTarget {
  schema: string;
  table: string;
  info: TableInfo;
  /** Roll to a new data file past this many bytes. */
  targetFileSize: number;
  onProgress: ((percent: number) => void) | undefined;
  /** The commit's message. */
  message: string;
}

/** Where a written data file rolls over to the next, unless the caller says (DuckLake's default too). */
export const DEFAULT_TARGET_FILE_SIZE = 128 * 2 ** 20;

/** A data path segment for a name: the name itself when it makes a plain segment, else the object's id. */
const segment = (name: string, id: number, kind: string) => (/^[A-Za-z0-9_][A-Za-z0-9_-]{0,100}$/.test(name) ? name : `${kind}_${id}`);

/** A new file's path in the table's data path, relative to the catalog's: a fresh name, never one reused. */
export function newFilePath(to: { schema: string; table: string; info: TableInfo }, suffix: string): string {
  return `${segment(to.schema, to.info.schemaId, 'schema')}/${segment(to.table, to.info.id, 'table')}/${randomUUID()}${suffix}.parquet`;
}

/** What the catalog records of a file's bytes: its size and CRC-32 (checked when a process first reads it). */
export interface StoredBytes {
  fileSizeBytes: number;
  contentCrc32: number;
}

/**
 * What writing files needs: the store and its data path, the statement's session (its scratch directory), and
 * — in a catalog, not an import — the process's record of files written with field ids and of delete files
 * whose positions it made.
 */
export type WriteContext = Pick<PlaneContext, 'store' | 'dataPath' | 'engine'> & { fieldIds?: Pick<FieldIdChecks, 'wrote'>; positions?: Pick<DeletePositionChecks, 'wrote'> };

/** Puts a local file into the store at `relative` (under the data path): its size and CRC-32. */
export async function storeFile(ctx: Pick<WriteContext, 'store' | 'dataPath'>, local: string, relative: string): Promise<StoredBytes> {
  const bytes = await readFile(local);
  await ctx.store.putIfAbsent(`${ctx.dataPath}${relative}`, bytes);
  return { fileSizeBytes: bytes.length, contentCrc32: crc32(bytes) };
}

/** A positional delete file put in the store, as addDeleteFile takes it (less the data file's id). */
export interface StoredDeleteFile extends StoredBytes {
  path: string;
  deleteCount: number;
}

/**
 * Writes the positions `positions` (a query of one column, `pos`: rows of `dataFile`, each once) as a delete
 * file of it (DuckLake's `file_path`, `pos`, sorted), and puts it in the table's data path. Positions made so
 * need no check when the file is registered or applied in this process (decision 0041).
 */
export async function storeDeleteFile(
  ctx: WriteContext,
  c: DuckDBConnection,
  to: { schema: string; table: string; info: TableInfo },
  dataFile: { path: string; recordCount: number },
  positions: string,
): Promise<StoredDeleteFile> {
  const local = `${ctx.engine.path('delete')}.parquet`;
  try {
    // COPY answers how many rows it wrote.
    const copied = await run(() => c.runAndReadAll(`COPY (SELECT ${literal(dataFile.path)} AS file_path, pos::BIGINT AS pos FROM (${positions}) ORDER BY pos) TO ${literal(local)} (FORMAT parquet)`));
    const deleteCount = Number(copied.getRows()[0]![0]);
    const relative = newFilePath(to, '-deletes');
    const stored = await storeFile(ctx, local, relative);
    ctx.positions?.wrote(identityOf({ key: `${ctx.dataPath}${relative}`, ...stored }), dataFile.recordCount, deleteCount);
    return { path: relative, deleteCount, ...stored };
  } finally {
    await rm(local, { force: true });
  }
}

/** Whether a column holds a 128-bit integer somewhere in it, which Parquet has no type for. */
const wide = (c: ColumnInfo): boolean => c.type === 'int128' || c.type === 'uint128' || (c.children ?? []).some(wide);

/** A column as it is stored: its 128-bit integers as DECIMAL(38,0), which Parquet holds exactly. */
const stored = (c: ColumnInfo): ColumnInfo => ({ ...c, type: c.type === 'int128' || c.type === 'uint128' ? 'decimal(38,0)' : c.type, ...(c.children === undefined ? {} : { children: c.children.map(stored) }) });

/**
 * `select` with its 128-bit integer columns cast to DECIMAL(38,0). DuckDB writes HUGEINT and UHUGEINT to Parquet
 * as DOUBLE, which rounds them (and fails to read back past ±2^127); read by field id, a DECIMAL(38,0) column
 * casts back to the column's type exactly.
 */
function storable(columns: readonly ColumnInfo[], select: string, rowIds: boolean): string {
  if (!columns.some(wide)) return select;
  const list = columns.map((c) => (wide(c) ? `CAST(${ident(c.name)} AS ${duckType(stored(c))}) AS ${ident(c.name)}` : ident(c.name)));
  return `SELECT ${[...list, ...(rowIds ? [ident(ROW_ID_COLUMN)] : [])].join(', ')} FROM (${select})`;
}

const tooWide = (e: StrataError) =>
  new StrataError(
    'INVALID_ARGUMENT',
    `a HUGEINT or UHUGEINT value is beyond ±(10^38 − 1), which Parquet holds exactly (as DECIMAL(38,0); it has no 128-bit integer, and DuckDB's DOUBLE would round it); nothing was written — keep such values as VARCHAR (DuckDB: ${e.message})`,
    { cause: e },
  );

const partNumber = (name: string) => Number(/(\d+)\.parquet$/.exec(name)?.[1] ?? 0);

/** A data file written and put in the store, as addDataFile takes it. */
export type WrittenSpec = DataFileSpec & { recordCount: number; fileSizeBytes: number };

/**
 * Writes the rows of `select` (one column per column of the target, named and typed as it has them; with
 * `rowIds`, then a BIGINT column ROW_ID_COLUMN) as data files and puts them in the store, not yet named by
 * any snapshot: a commit that never comes leaves objects reclamation finds.
 */
export async function writeDataFiles(ctx: WriteContext, c: DuckDBConnection, to: WriteTarget, select: string, rowIds = false): Promise<WrittenSpec[]> {
  const ids = to.info.columns.map((col) => `${ident(col.name)}: ${fieldIds(col)}`);
  if (rowIds) ids.push(`${ident(ROW_ID_COLUMN)}: ${ROW_ID_FIELD_ID}`);
  const out = ctx.engine.path('write');
  try {
    // DuckDB rolls to a new file past the target size (data_0.parquet, data_1.parquet, … in input order).
    await withProgress(c, to.onProgress, () =>
      c.run(`COPY (${storable(to.info.columns, select, rowIds)}) TO ${literal(out)} (FORMAT parquet, FILE_SIZE_BYTES ${to.targetFileSize}, FIELD_IDS {${ids.join(', ')}}${icebergFooter(to.info)})`),
    ).catch((e: unknown) => {
      if (e instanceof StrataError && /DECIMAL\(38,\s*0\)/.test(e.message)) throw tooWide(e);
      throw e;
    });
    const written = existsSync(out) ? (await readdir(out)).sort((a, b) => partNumber(a) - partNumber(b)) : [];
    const specs: WrittenSpec[] = [];
    for (const name of written) {
      const local = path.join(out, name);
      const meta = (await run(() => c.runAndReadAll(`SELECT num_rows, footer_size FROM parquet_file_metadata(${literal(local)})`))).getRowObjectsJS()[0] as { num_rows: bigint; footer_size: bigint };
      const recordCount = Number(meta.num_rows);
      if (recordCount === 0) continue;
      const relative = newFilePath(to, '');
      const columnStats = await footerStats(c, local, to.info.columns);
      const stored = await storeFile(ctx, local, relative);
      // Written with field ids: its registration and first read need not look.
      ctx.fieldIds?.wrote(identityOf({ key: `${ctx.dataPath}${relative}`, ...stored }));
      specs.push({ path: relative, recordCount, ...stored, footerSize: Number(meta.footer_size), columnStats });
    }
    return specs;
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/** Writes the rows of `select` (as writeDataFiles) and registers the files in one commit. */
export async function writeRows(ctx: PlaneContext, c: DuckDBConnection, to: WriteTarget, select: string): Promise<WrittenFiles> {
  const specs = await writeDataFiles(ctx, c, to, select);
  if (specs.length === 0) return { snapshot: null, files: [], rows: 0 };
  const { snapshot } = await ctx.transaction(
    async (tx) => {
      await tx.addDataFiles(to.schema, to.table, specs);
    },
    { message: to.message },
  );
  return {
    snapshot,
    files: specs.map(({ path: p, recordCount, fileSizeBytes }) => ({ path: p, recordCount, fileSizeBytes })),
    rows: specs.reduce((n, f) => n + f.recordCount, 0),
  };
}

/**
 * The footer entry `iceberg.schema`: the file's columns as an Iceberg schema, so that an Iceberg reader that
 * matches columns by name rather than by field id (icebird) maps a renamed column right. Its `schema-id` is 0:
 * it names the columns' ids, not a schema of the table's history. None for a table Iceberg cannot type.
 */
function icebergFooter(info: TableInfo): string {
  try {
    return `, KV_METADATA {'iceberg.schema': ${literal(JSON.stringify(icebergSchema(info.name, 0, info.columns)))}}`;
  } catch (e) {
    if (e instanceof StrataError && e.code === 'INVALID_ARGUMENT') return '';
    throw e;
  }
}

/** FIELD_IDS of a column: its id, or for a nested one its id and each field's (DuckDB writes both). */
function fieldIds(col: ColumnInfo): string {
  if (col.children === undefined) return String(col.id);
  return `{__duckdb_field_id: ${col.id}, ${col.children.map((f) => `${ident(f.name)}: ${fieldIds(f)}`).join(', ')}}`;
}

/** The leaf (primitive) columns under `columns`, each with its path in the Parquet schema as the footer names it. */
function leaves(columns: readonly ColumnInfo[], prefix: string[] = []): { col: ColumnInfo; path: string }[] {
  return columns.flatMap((col) => {
    // Parquet puts a list's element under a `list` group and a map's key and value under `key_value`.
    const own = [...prefix, col.name];
    if (col.children === undefined) return [{ col, path: own.join(', ') }];
    const group = col.type === 'list' ? ['list'] : col.type === 'map' ? ['key_value'] : [];
    return leaves(col.children, [...own, ...group]);
  });
}

/**
 * Each leaf column's statistics as the file's footer gives them, over its row groups: min and max in the
 * column's type (then as text), null and value counts summed; a nested column's fields have theirs under
 * their own ids, as DuckLake records them. A column whose footer has no min or max (DuckDB leaves out long
 * strings) gets none, and no query skips the file by it.
 */
async function footerStats(c: DuckDBConnection, file: string, columns: readonly ColumnInfo[]): Promise<ColumnStatsSpec[]> {
  const per = leaves(columns).map(
    ({ col, path: at }) =>
      `SELECT ${col.id} AS id, CAST(min(TRY_CAST(stats_min AS ${duckType(col)})) AS VARCHAR) AS lo, ` +
      `CAST(max(TRY_CAST(stats_max AS ${duckType(col)})) AS VARCHAR) AS hi, sum(stats_null_count)::BIGINT AS nulls, sum(num_values)::BIGINT AS n ` +
      `FROM parquet_metadata(${literal(file)}) WHERE path_in_schema = ${literal(at)}`,
  );
  const rows = (await run(() => c.runAndReadAll(per.join(' UNION ALL ')))).getRowObjectsJS() as { id: number; lo: string | null; hi: string | null; nulls: bigint | null; n: bigint | null }[];
  const nan = await nanColumns(c, file, columns);
  return rows.map((r) => ({
    columnId: Number(r.id),
    min: r.lo,
    max: r.hi,
    nullCount: r.nulls === null ? null : Number(r.nulls),
    valueCount: r.n === null ? null : Number(r.n),
    containsNan: nan.get(Number(r.id)) ?? null,
  }));
}

/**
 * Whether each float column of the file holds a NaN: the footer does not say, and a NaN sorts above every
 * number in DuckDB, so a file's min/max bound its floats only when it has none. One read of those columns.
 */
async function nanColumns(c: DuckDBConnection, file: string, columns: readonly ColumnInfo[]): Promise<Map<number, boolean>> {
  const floats = columns.filter((col) => col.type === 'float32' || col.type === 'float64');
  if (floats.length === 0) return new Map();
  const select = floats.map((col) => `coalesce(bool_or(isnan(${ident(col.name)})), false) AS ${ident(String(col.id))}`).join(', ');
  const [row] = (await run(() => c.runAndReadAll(`SELECT ${select} FROM read_parquet(${literal(file)})`))).getRowObjectsJS() as Record<string, boolean>[];
  return new Map(floats.map((col) => [Number(col.id), row![String(col.id)]!]));
}
