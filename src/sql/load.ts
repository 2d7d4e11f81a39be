// Loading a CSV or Parquet file into a table: its rows checked against the table's columns at the head, then
// written and registered as the table's data files (write-files.ts).
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { isWidening } from '../../keys/column-types.js';
import { options, positiveCount } from '../arguments.js';
import { StrataError } from '../errors.js';
import type { ColumnInfo } from '../read/records.js';
import { duckType, lakeType } from './duck-types.js';
import { run } from './engine.js';
import type { StopOptions } from './stop.js';
import type { PlaneContext } from './query.js';
import { defaultOf } from './table-scan.js';
import { ident, literal } from './sql-text.js';
import { DEFAULT_TARGET_FILE_SIZE, type WrittenFiles, writeRows } from './write-files.js';

export type LoadResult = WrittenFiles;

const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);

/** How DuckDB reads the source: CSV in the table's types (a value that does not parse names its column), or Parquet. */
function sourceOf(file: string, columns: readonly ColumnInfo[], present: ReadonlySet<string> | undefined): string {
  if (/\.parquet$/i.test(file)) return `read_parquet(${literal(file)})`;
  if (/\.(csv|tsv|txt)(\.gz)?$/i.test(file)) {
    if (present === undefined) return `read_csv(${literal(file)}, header = true)`;
    const types = columns.filter((c) => present.has(c.name)).map((c) => `${literal(c.name)}: ${literal(duckType(c))}`);
    return `read_csv(${literal(file)}, header = true, types = {${types.join(', ')}})`;
  }
  throw invalid(`load() reads CSV (.csv, .tsv, .txt, optionally .gz) and Parquet (.parquet) files; ${JSON.stringify(file)} is neither`);
}

export interface LoadOptions extends StopOptions {
  /** Told DuckDB's estimate of how far the write is (0–100) while it runs. */
  onProgress?: (percent: number) => void;
  /** Roll to a new data file past this many bytes (default 128 MiB): all of them registered in the one commit. */
  targetFileSize?: number;
}

export async function load(ctx: PlaneContext, schema: string, table: string, source: string, given?: LoadOptions): Promise<LoadResult> {
  const { onProgress, targetFileSize: size } = options('load()', given, ['onProgress', 'targetFileSize', 'timeoutMs', 'signal']);
  const targetFileSize = positiveCount('targetFileSize', size, DEFAULT_TARGET_FILE_SIZE);
  if (onProgress !== undefined && typeof onProgress !== 'function') throw invalid('load() onProgress must be a function (percent) => void');
  if (typeof source !== 'string' || source === '') throw invalid('load() takes the path of a CSV or Parquet file');
  const file = path.resolve(source);
  if (!existsSync(file)) throw invalid(`load(): there is no file ${file}`);
  const head = await ctx.reader();
  const info = await head.table(schema, table).finally(() => head.close());
  // The caller named the file: DuckDB reads it, and nothing else outside the statement's own directory.
  return ctx.engine.withFile(file, async (c) => {
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
      // CSV values are parsed in the table's types below; a Parquet column must already be one that widens
      // (a nested one DuckDB casts field by field, and refuses if its fields differ).
      if (/\.parquet$/i.test(file) && col.children === undefined && t !== col.type && !(t !== undefined && isWidening(t, col.type))) {
        throw invalid(`column ${JSON.stringify(col.name)} is ${d.column_type} in ${file} and ${col.type} in ${quoted}; give it as ${duckType(col)} or a type that widens to it`);
      }
    }
    const present = new Set(described.map((d) => d.column_name));
    for (const col of info.columns) {
      if (!present.has(col.name) && !col.nullsAllowed && col.defaultValue === null) {
        throw invalid(`${file} has no column ${JSON.stringify(col.name)}, which ${quoted} requires (NOT NULL, no default)`);
      }
    }
    // A column the file lacks gets its default, as an INSERT naming other columns would give it.
    const exprs = info.columns.map((col) => `${present.has(col.name) ? `CAST(${ident(col.name)} AS ${duckType(col)})` : defaultOf(col)} AS ${ident(col.name)}`);
    return writeRows(
      ctx,
      c,
      { schema, table, info, targetFileSize, onProgress, message: `load ${path.basename(file)} into ${schema}.${table}` },
      `SELECT ${exprs.join(', ')} FROM ${sourceOf(file, info.columns, present)}`,
    );
  });
}
