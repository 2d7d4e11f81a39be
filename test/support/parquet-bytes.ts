// A Parquet file as another engine would hand one over: written by DuckDB from a SELECT, without field ids
// unless asked for (FIELD_IDS), and read back as bytes to be put in a store.
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { tempDir } from '../helpers.js';

export async function parquet(select: string, fieldIds?: string): Promise<Uint8Array> {
  const local = path.join(await tempDir(), 'f.parquet');
  const db = await DuckDBInstance.create(':memory:');
  const k = await db.connect();
  try {
    await k.run(`COPY (${select}) TO '${local}' (FORMAT parquet${fieldIds ? `, FIELD_IDS ${fieldIds}` : ''})`);
  } finally {
    k.closeSync();
    db.closeSync();
  }
  return readFile(local);
}
