// What an imported lake's files hold must be what its rows say, or a reader would count other rows than
// DuckLake's table does: a data file's rows as its Parquet footer counts them (record_count), a delete file's
// positions distinct and inside its data file, as many as it records (delete_count). Read by DuckDB from the
// store the import placed them in, once each.
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { StrataError } from '../errors.js';
import { run } from '../sql/engine.js';
import { type FileColumn, fileColumns } from '../sql/file-columns.js';
import { withImportDuckDB } from './import-sql.js';
import { literal } from '../sql/sql-text.js';
import type { ObjectStore } from '../store/object-store.js';
import { randomUUID } from '../random.js';

/** What a file row says its object holds. */
export type Contents = { rel: string; row: string } & ({ kind: 'data'; recordCount: number; mapped: boolean } | { kind: 'delete'; deleteCount: number; dataRecords: number | undefined });

/** What DuckDB finds in one object: its rows, and for a delete file its positions' count, distinct count and range. */
interface Found {
  rows: number;
  distinct: number;
  lowest: number | null;
  highest: number | null;
  /** A data file read through a name mapping: its columns (what the mapping must name). */
  columns?: FileColumn[];
}

const wrong = (c: Contents, problem: string) => new StrataError('INVALID_ARGUMENT', `${c.row} (${c.rel}) ${problem}`);

/**
 * Checks every file's contents against what its row records; refuses the first that differs, naming it. The
 * columns of each data file a name mapping reads, by its path under the data path.
 */
export async function checkContents(files: readonly Contents[], store: ObjectStore, dataKey: string): Promise<Map<string, FileColumn[]>> {
  const columns = new Map<string, FileColumn[]>();
  if (files.length === 0) return columns;
  await withImportDuckDB(async (c) => {
    const found = new Map<string, Found>();
    for (const f of files) {
      const key = `${f.kind}:${f.rel}:${f.kind === 'data' && f.mapped}`;
      let got = found.get(key);
      if (got === undefined) found.set(key, (got = await read(c, store, `${dataKey}${f.rel}`, f)));
      if (got.columns !== undefined) columns.set(f.rel, got.columns);
      if (f.kind === 'data' && got.rows !== f.recordCount) throw wrong(f, `holds ${got.rows} rows by its Parquet footer; the lake records ${f.recordCount}`);
      if (f.kind !== 'delete') continue;
      if (got.rows !== f.deleteCount) throw wrong(f, `holds ${got.rows} positions; the lake records ${f.deleteCount} deletes`);
      if (got.distinct !== got.rows) throw wrong(f, 'names a position twice');
      if (got.lowest !== null && (got.lowest < 0 || (f.dataRecords !== undefined && got.highest! >= f.dataRecords))) {
        throw wrong(f, `names positions ${got.lowest} to ${got.highest}, outside its data file's ${f.dataRecords ?? 0} rows`);
      }
    }
  });
  return columns;
}

/** Reads one object: in place on a directory store, else through a temporary copy. */
async function read(c: DuckDBConnection, store: ObjectStore, key: string, f: Contents): Promise<Found> {
  const local = store.localRoot === undefined ? path.join(tmpdir(), `strata-import-read-${randomUUID()}.parquet`) : path.join(store.localRoot, key);
  try {
    if (store.localRoot === undefined) await writeFile(local, (await store.get(key)) ?? new Uint8Array(0));
    const query =
      f.kind === 'data'
        ? `SELECT num_rows AS rows, 0 AS distinct_, NULL AS lowest, NULL AS highest FROM parquet_file_metadata(${literal(local)})`
        : `SELECT count(*) AS rows, count(DISTINCT pos) AS distinct_, min(pos) AS lowest, max(pos) AS highest FROM read_parquet(${literal(local)})`;
    const [r] = (await run(() => c.runAndReadAll(query))).getRowObjectsJS() as { rows: bigint; distinct_: bigint | number; lowest: bigint | null; highest: bigint | null }[];
    const found: Found = { rows: Number(r!.rows), distinct: Number(r!.distinct_), lowest: r!.lowest === null ? null : Number(r!.lowest), highest: r!.highest === null ? null : Number(r!.highest) };
    if (f.kind === 'data' && f.mapped) found.columns = (await fileColumns(c, [local])).get(local)!;
    return found;
  } catch (e) {
    if (e instanceof StrataError) throw wrong(f, `is not a Parquet file DuckDB reads as a ${f.kind} file: ${e.message}`);
    throw e;
  } finally {
    if (store.localRoot === undefined) await rm(local, { force: true });
  }
}
