// Each live row's id (by its `id` column) as a table's files on a directory store give it, read past the
// catalog with DuckDB: the id the file carries (DuckLake's _ducklake_internal_row_id), else row_id_start +
// position — what UPDATE and compaction must keep.
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Catalog } from '../../src/index.js';

export async function rowIds(c: Catalog, dir: string, table: string): Promise<Map<bigint, bigint>> {
  const r = await c.reader();
  const files = await r.dataFiles('main', table);
  const deletes = await r.deleteFiles('main', table);
  await r.close();
  const db = await DuckDBInstance.create(':memory:');
  const k = await db.connect();
  const out = new Map<bigint, bigint>();
  try {
    for (const f of files) {
      const local = path.join(dir, 'store', c.dataPath, f.path);
      const carried = (await k.runAndReadAll(`SELECT count(*) FROM parquet_schema('${local}') WHERE name = '_ducklake_internal_row_id'`)).getRows()[0]![0] === 1n;
      const del = deletes.find((d) => d.dataFileId === f.id);
      const gone = del ? `WHERE file_row_number NOT IN (SELECT pos FROM read_parquet('${path.join(dir, 'store', c.dataPath, del.path)}'))` : '';
      const sql = `SELECT id, ${carried ? '_ducklake_internal_row_id' : `${f.rowIdStart} + file_row_number`} AS rowid FROM read_parquet('${local}', file_row_number = true) ${gone}`;
      for (const [id, rowid] of (await k.runAndReadAll(sql)).getRows()) out.set(id as bigint, BigInt(rowid as bigint));
    }
  } finally {
    k.closeSync();
    db.closeSync();
  }
  return out;
}

