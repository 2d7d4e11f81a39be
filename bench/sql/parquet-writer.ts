// The Parquet files the bench makes with DuckDB: sources that catalog.load turns into data files (with
// field ids, and whatever else load records for them), and positional delete files in DuckLake's layout
// (file_path, pos) that the bench, playing the engine as the demo does, writes straight to where the
// catalog will name them (a directory store: `catalog.dataFileLocation`).
import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';

export const sqlText = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** Writes the rows of `select` to `file`; returns its row count and size. */
export async function writeParquet(c: DuckDBConnection, file: string, select: string): Promise<{ rows: number; bytes: number }> {
  await mkdir(path.dirname(file), { recursive: true });
  await c.run(`COPY (${select}) TO ${sqlText(file)} (FORMAT parquet)`);
  const meta = (await c.runAndReadAll(`SELECT num_rows, file_size_bytes FROM parquet_file_metadata(${sqlText(file)})`)).getRows()[0]!;
  return { rows: Number(meta[0]), bytes: Number(meta[1]) };
}

/**
 * A delete file at `file` for the positions `positions` (a SELECT of pos) of the data file DuckDB reads at
 * `dataLocal`; file_path is that path, so a direct reader can join it to read_parquet's `filename`.
 */
export const writeDeleteFile = (c: DuckDBConnection, file: string, dataLocal: string, positions: string) =>
  writeParquet(c, file, `SELECT ${sqlText(dataLocal)} AS file_path, pos::BIGINT AS pos FROM (${positions})`);
