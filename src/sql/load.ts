// Loading a CSV or Parquet file into a table: its rows checked against the table's columns at the head,
// written by DuckDB as Parquet with field ids equal to the column ids (so later renames, additions and drops
// read it right), put into the table's data path on the catalog's store, and registered in one commit with
// the record count, size and footer size the file's footer gives.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { isWidening } from '../../keys/column-types.js';
import type { SnapshotId } from '../../keys/ids.js';
import { options, positiveCount } from '../arguments.js';
import { StrataError } from '../errors.js';
import type { ColumnInfo } from '../read/records.js';
import type { TransactionFn } from '../txn/prepared.js';
import type { ColumnStatsSpec, DataFileSpec } from '../txn/transaction.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import { duckType, lakeType } from './duck-types.js';
import { run, withProgress } from './engine.js';
import type { PlaneContext } from './query.js';
import { ident, literal } from './table-scan.js';

export interface LoadResult {
  snapshot: SnapshotId | null;
  files: { path: string; recordCount: number; fileSizeBytes: number }[];
  rows: number;
}

export interface LoadContext extends PlaneContext {
  transaction(fn: TransactionFn, meta?: { message?: string }): Promise<{ snapshot: SnapshotId | null }>;
}

const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);

/** How DuckDB reads the source: CSV in the table's types (a value that does not parse names its column), or Parquet. */
function sourceOf(file: string, columns: readonly ColumnInfo[], present: ReadonlySet<string> | undefined): string {
  if (/\.parquet$/i.test(file)) return `read_parquet(${literal(file)})`;
  if (/\.(csv|tsv|txt)(\.gz)?$/i.test(file)) {
    if (present === undefined) return `read_csv(${literal(file)}, header = true)`;
    const types = columns.filter((c) => present.has(c.name)).map((c) => `${literal(c.name)}: ${literal(duckType(c.type))}`);
    return `read_csv(${literal(file)}, header = true, types = {${types.join(', ')}})`;
  }
  throw invalid(`load() reads CSV (.csv, .tsv, .txt, optionally .gz) and Parquet (.parquet) files; ${JSON.stringify(file)} is neither`);
}

/** A data path segment for a name: the name itself when it makes a plain segment, else the object's id. */
const segment = (name: string, id: number, kind: string) => (/^[A-Za-z0-9_][A-Za-z0-9_-]{0,100}$/.test(name) ? name : `${kind}_${id}`);

/**
 * Each column's statistics as the file's footer gives them, over its row groups: min and max in the
 * column's type (then as text), null and value counts summed. A column whose footer has no min or max
 * (DuckDB leaves out long strings) gets none, and no query skips the file by it.
 */
async function footerStats(c: DuckDBConnection, file: string, columns: readonly ColumnInfo[]): Promise<ColumnStatsSpec[]> {
  const per = columns.map(
    (col) =>
      `SELECT ${col.id} AS id, CAST(min(TRY_CAST(stats_min AS ${duckType(col.type)})) AS VARCHAR) AS lo, ` +
      `CAST(max(TRY_CAST(stats_max AS ${duckType(col.type)})) AS VARCHAR) AS hi, sum(stats_null_count)::BIGINT AS nulls, sum(num_values)::BIGINT AS n ` +
      `FROM parquet_metadata(${literal(file)}) WHERE path_in_schema = ${literal(col.name)}`,
  );
  const rows = (await run(() => c.runAndReadAll(per.join(' UNION ALL ')))).getRowObjectsJS() as { id: number; lo: string | null; hi: string | null; nulls: bigint | null; n: bigint | null }[];
  return rows.map((r) => ({
    columnId: Number(r.id),
    min: r.lo,
    max: r.hi,
    nullCount: r.nulls === null ? null : Number(r.nulls),
    valueCount: r.n === null ? null : Number(r.n),
  }));
}

export interface LoadOptions {
  /** Told DuckDB's estimate of how far the write is (0–100) while it runs. */
  onProgress?: (percent: number) => void;
  /** Roll to a new data file past this many bytes (default 128 MiB): all of them registered in the one commit. */
  targetFileSize?: number;
}

const MiB = 2 ** 20;
const partNumber = (name: string) => Number(/(\d+)\.parquet$/.exec(name)?.[1] ?? 0);

export async function load(ctx: LoadContext, schema: string, table: string, source: string, given?: LoadOptions): Promise<LoadResult> {
  const { onProgress, targetFileSize: size } = options('load()', given, ['onProgress', 'targetFileSize']);
  const targetFileSize = positiveCount('targetFileSize', size, 128 * MiB);
  if (onProgress !== undefined && typeof onProgress !== 'function') throw invalid('load() onProgress must be a function (percent) => void');
  if (typeof source !== 'string' || source === '') throw invalid('load() takes the path of a CSV or Parquet file');
  const file = path.resolve(source);
  if (!existsSync(file)) throw invalid(`load(): there is no file ${file}`);
  const head = await ctx.reader();
  const info = await head.table(schema, table).finally(() => head.close());
  return ctx.engine.withConnection(async (c) => {
    const described = (await run(() => c.runAndReadAll(`DESCRIBE SELECT * FROM ${sourceOf(file, info.columns, undefined)}`))).getRowObjectsJS() as {
      column_name: string;
      column_type: string;
    }[];
    const byName = new Map(info.columns.map((col) => [col.name, col]));
    const quoted = `${JSON.stringify(schema)}.${JSON.stringify(table)}`;
    for (const d of described) {
      const col = byName.get(d.column_name);
      if (col === undefined) {
        throw invalid(`${file} has a column ${JSON.stringify(d.column_name)} that ${quoted} does not have; its columns: ${info.columns.map((x) => JSON.stringify(x.name)).join(', ')}`);
      }
      const t = lakeType(d.column_type);
      // CSV values are parsed in the table's types below; a Parquet column must already be one that widens.
      if (/\.parquet$/i.test(file) && t !== col.type && !(t !== undefined && isWidening(t, col.type))) {
        throw invalid(`column ${JSON.stringify(col.name)} is ${d.column_type} in ${file} and ${col.type} in ${quoted}; give it as ${duckType(col.type)} or a type that widens to it`);
      }
    }
    const present = new Set(described.map((d) => d.column_name));
    for (const col of info.columns) {
      if (!present.has(col.name) && !col.nullsAllowed) throw invalid(`${file} has no column ${JSON.stringify(col.name)}, which ${quoted} requires (NOT NULL)`);
    }
    const exprs = info.columns.map((col) => `CAST(${present.has(col.name) ? ident(col.name) : 'NULL'} AS ${duckType(col.type)}) AS ${ident(col.name)}`);
    const ids = info.columns.map((col) => `${ident(col.name)}: ${col.id}`);
    const out = path.join(tmpdir(), `strata-load-${randomUUID()}`);
    try {
      // DuckDB rolls to a new file past the target size (data_0.parquet, data_1.parquet, … in input order).
      await withProgress(c, onProgress, () =>
        c.run(`COPY (SELECT ${exprs.join(', ')} FROM ${sourceOf(file, info.columns, present)}) TO ${literal(out)} (FORMAT parquet, FILE_SIZE_BYTES ${targetFileSize}, FIELD_IDS {${ids.join(', ')}})`),
      );
      const written = existsSync(out) ? (await readdir(out)).sort((a, b) => partNumber(a) - partNumber(b)) : [];
      const specs: (DataFileSpec & { recordCount: number; fileSizeBytes: number })[] = [];
      for (const name of written) {
        const local = path.join(out, name);
        const meta = (await run(() => c.runAndReadAll(`SELECT num_rows, footer_size FROM parquet_file_metadata(${literal(local)})`))).getRowObjectsJS()[0] as { num_rows: bigint; footer_size: bigint };
        const recordCount = Number(meta.num_rows);
        if (recordCount === 0) continue;
        const relative = `${segment(schema, info.schemaId, 'schema')}/${segment(table, info.id, 'table')}/${randomUUID()}.parquet`;
        const columnStats = await footerStats(c, local, info.columns);
        const bytes = await readFile(local);
        await ctx.store.putIfAbsent(`${ctx.dataPath}${relative}`, bytes);
        specs.push({ path: relative, recordCount, fileSizeBytes: bytes.length, footerSize: Number(meta.footer_size), columnStats });
      }
      if (specs.length === 0) return { snapshot: null, files: [], rows: 0 };
      const { snapshot } = await ctx.transaction(
        async (tx) => {
          for (const spec of specs) await tx.addDataFile(schema, table, spec);
        },
        { message: `load ${path.basename(file)} into ${schema}.${table}` },
      );
      return {
        snapshot,
        files: specs.map(({ path: p, recordCount, fileSizeBytes }) => ({ path: p, recordCount, fileSizeBytes })),
        rows: specs.reduce((n, f) => n + f.recordCount, 0),
      };
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
}
