// A positional delete file as DuckLake writes one (file_path, pos), made by DuckDB and put in a store: what
// an engine registers with addDeleteFile. Its positions are what the test gives, right or wrong.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { ObjectStore } from '../../src/store/object-store.js';

/** The file's bytes: `positions` of data file `dataFile`, one row each, in the order given. */
export async function deleteFileBytes(dataFile: string, positions: readonly number[]): Promise<Uint8Array> {
  const dir = await mkdtemp(path.join(tmpdir(), 'strata-delete-file-'));
  const local = path.join(dir, 'd.parquet');
  const db = await DuckDBInstance.create(':memory:');
  const k = await db.connect();
  try {
    const rows = positions.map((p) => `('${dataFile.replaceAll("'", "''")}', ${p}::BIGINT)`).join(', ');
    await k.run(`COPY (SELECT * FROM (VALUES ${rows}) AS d(file_path, pos)) TO '${local}' (FORMAT parquet)`);
    return await readFile(local);
  } finally {
    k.closeSync();
    db.closeSync();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Puts such a file at `key` of `store`; returns its size, as addDeleteFile takes it. */
export async function putDeleteFile(store: ObjectStore, key: string, dataFile: string, positions: readonly number[]): Promise<{ fileSizeBytes: number }> {
  const bytes = await deleteFileBytes(dataFile, positions);
  await store.putIfAbsent(key, bytes);
  return { fileSizeBytes: bytes.length };
}
