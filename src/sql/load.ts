// Loading a CSV or Parquet file into a table: its rows checked against the table's columns at the head, then
// written and registered as the table's data files (write-files.ts).
import { existsSync, statSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import * as path from 'node:path';
import { isWidening } from '../../keys/column-types.js';
import { options, positiveCount } from '../arguments.js';
import { StrataError } from '../errors.js';
import { listed } from '../messages.js';
import type { ColumnInfo } from '../read/records.js';
import { duckType, lakeType } from './duck-types.js';
import { run } from './engine.js';
import type { StopOptions } from './stop.js';
import { authorship, committing, type PlaneContext } from './query.js';
import { defaultOf } from './table-scan.js';
import { ident, literal } from './sql-text.js';
import { DEFAULT_TARGET_FILE_SIZE, type WrittenFiles, writeRows } from './write-files.js';

export type LoadResult = WrittenFiles;

const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);

/**
 * A CSV file's dialect and header as DuckDB's sniffer finds them. It is asked to tolerate bad rows (a row
 * with too few or too many fields): otherwise it takes the file for one of a single column, or starts it at a
 * later line that fits the others, and the load names columns the file does not have. The rows are then read
 * in that dialect, strictly, where a bad row fails naming its line.
 */
interface CsvFile {
  dialect: string;
  names: string[];
}

async function sniffCsv(c: DuckDBConnection, file: string): Promise<CsvFile> {
  if (statSync(file).size === 0) throw invalid(`${file} is empty; a CSV file to load starts with a header line naming its columns`);
  const [found] = (await run(() => c.runAndReadAll(`SELECT Delimiter, Quote, Escape, Comment, Columns FROM sniff_csv(${literal(file)}, header = true, skip = 0, ignore_errors = true)`))).getRowObjectsJS() as {
    Delimiter: string;
    Quote: string;
    Escape: string;
    Comment: string;
    Columns: { name: string }[];
  }[];
  const given = (v: string) => literal(v === '(empty)' ? '' : v);
  // Not its line ends: DuckDB finds those itself, and reads no row at all of a CRLF file told new_line = '\r\n'.
  return {
    dialect: `delim = ${given(found!.Delimiter)}, quote = ${given(found!.Quote)}, escape = ${given(found!.Escape)}, comment = ${given(found!.Comment)}`,
    names: found!.Columns.map((col) => col.name),
  };
}

/** A CSV file's rows in the table's types, in its own dialect: a bad row or value fails naming its line. */
function csvRows(file: string, csv: CsvFile, columns: readonly ColumnInfo[]): string {
  const byName = new Map(columns.map((col) => [col.name, col]));
  const types = csv.names.map((name) => `${literal(name)}: ${literal(duckType(byName.get(name)!))}`);
  return `read_csv(${literal(file)}, auto_detect = false, header = true, skip = 0, strict_mode = true, ${csv.dialect}, columns = {${types.join(', ')}})`;
}

const isCsv = (file: string) => /\.(csv|tsv|txt)(\.gz)?$/i.test(file);
const isParquet = (file: string) => /\.parquet$/i.test(file);

/**
 * The names of the columns `file` holds (a CSV file's header), and how DuckDB reads its rows in the table's
 * types (once every name is known to be a column of the table).
 */
async function sourceOf(c: DuckDBConnection, file: string, columns: readonly ColumnInfo[]): Promise<{ described: { column_name: string; column_type: string }[]; rows: () => string }> {
  if (isParquet(file)) {
    const from = `read_parquet(${literal(file)})`;
    const described = (await run(() => c.runAndReadAll(`DESCRIBE SELECT * FROM ${from}`))).getRowObjectsJS() as { column_name: string; column_type: string }[];
    return { described, rows: () => from };
  }
  if (!isCsv(file)) throw invalid(`load() reads CSV (.csv, .tsv, .txt, optionally .gz) and Parquet (.parquet) files; ${JSON.stringify(file)} is neither`);
  const csv = await sniffCsv(c, file);
  return { described: csv.names.map((name) => ({ column_name: name, column_type: 'VARCHAR' })), rows: () => csvRows(file, csv, columns) };
}

/**
 * DuckDB's error for a bad line of a CSV file: the line and what is wrong with it, without its advice to
 * relax the reader or change the types (a load reads every row, in the table's types, or none).
 */
function csvError(file: string, e: unknown): unknown {
  const m = e instanceof Error ? e.message : '';
  const at = /^(?:Invalid Input|Conversion) Error: (CSV Error on Line: \d+[^]*)$/.exec(m);
  if (!(e instanceof StrataError) || at === null) return e;
  const said = at[1]!.split(/\n\s*\n|\nPossible (?:fixes|solutions):/)[0]!.trim().replace(/\s*\n\s*/g, '; ');
  return invalid(`${file}: ${said}. Nothing was loaded: fix that line (or remove it) and load the file again`);
}

export interface LoadOptions extends StopOptions {
  /** Told DuckDB's estimate of how far the write is (0–100) while it runs. */
  onProgress?: (percent: number) => void;
  /** Roll to a new data file past this many bytes (default 128 MiB): all of them registered in the one commit. */
  targetFileSize?: number;
  /** The author and message of the load's commit (the message defaults to "load <file> into <table>"). */
  author?: string;
  message?: string;
}

export async function load(ctx: PlaneContext, schema: string, table: string, source: string, given?: LoadOptions): Promise<LoadResult> {
  const { onProgress, targetFileSize: size, author, message } = options('load()', given, ['onProgress', 'targetFileSize', 'timeoutMs', 'signal', 'author', 'message']);
  const meta = authorship({ author, message });
  const targetFileSize = positiveCount('targetFileSize', size, DEFAULT_TARGET_FILE_SIZE);
  if (onProgress !== undefined && typeof onProgress !== 'function') throw invalid('load() onProgress must be a function (percent) => void');
  if (typeof source !== 'string' || source === '') throw invalid('load() takes the path of a CSV or Parquet file');
  const file = path.resolve(source);
  if (!existsSync(file)) throw invalid(`load(): there is no file ${file}`);
  const head = await ctx.reads.reader();
  const info = await head.table(schema, table).finally(() => head.close());
  // The caller named the file: DuckDB reads it, and nothing else outside the statement's own directory.
  return ctx.engine.withFile(file, async (c) => {
    const source = await sourceOf(c, file, info.columns);
    const byName = new Map(info.columns.map((col) => [col.name, col]));
    const quoted = `${JSON.stringify(schema)}.${JSON.stringify(table)}`;
    const unknown = source.described.filter((d) => !byName.has(d.column_name));
    if (unknown.length > 0) {
      const names = listed(source.described.map((d) => d.column_name));
      const theirs = `${quoted} has ${listed(info.columns.map((x) => x.name))}`;
      throw invalid(
        isCsv(file) && unknown.length === source.described.length
          ? `the first line of a CSV file names its columns, and the first line of ${file} names ${names}, none of them a column of ${quoted}; ${theirs}: give the file a header line naming them`
          : `${file} has a column ${JSON.stringify(unknown[0]!.column_name)} that ${quoted} does not have; ${theirs}`,
      );
    }
    for (const d of source.described) {
      const col = byName.get(d.column_name)!;
      const t = lakeType(d.column_type);
      // CSV values are parsed in the table's types; a Parquet column must already be one that widens (a
      // nested one DuckDB casts field by field, and refuses if its fields differ).
      if (isParquet(file) && col.children === undefined && t !== col.type && !(t !== undefined && isWidening(t, col.type))) {
        throw invalid(`column ${JSON.stringify(col.name)} is ${d.column_type} in ${file} and ${col.type} in ${quoted}; give it as ${duckType(col)} or a type that widens to it`);
      }
    }
    const present = new Set(source.described.map((d) => d.column_name));
    for (const col of info.columns) {
      if (!present.has(col.name) && !col.nullsAllowed && col.defaultValue === null) {
        throw invalid(`${file} has no column ${JSON.stringify(col.name)}, which ${quoted} requires (NOT NULL, no default)`);
      }
    }
    // A column the file lacks gets its default, as an INSERT naming other columns would give it.
    const exprs = info.columns.map((col) => `${present.has(col.name) ? `CAST(${ident(col.name)} AS ${duckType(col)})` : defaultOf(col)} AS ${ident(col.name)}`);
    return writeRows(
      committing(ctx, meta),
      c,
      { schema, table, info, targetFileSize, onProgress, message: `load ${path.basename(file)} into ${schema}.${table}` },
      `SELECT ${exprs.join(', ')} FROM ${source.rows()}`,
    ).catch((e: unknown) => Promise.reject(csvError(file, e)));
  });
}
