// A catalog and a plain DuckDB given the same statements before each test of the describe block that calls
// sideBySide: what the SQL tests compare the lake with (DuckDB running the same statement over the same rows
// in plain tables). The catalog is closed by the helpers after each test, the DuckDB here.
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach } from 'vitest';
import type { Catalog } from '../../src/index.js';
import { openCatalog, tempDir } from '../helpers.js';

export interface SideBySide {
  /** The catalog's directory. */
  dir: string;
  c: Catalog;
  k: DuckDBConnection;
}

export function sideBySide(setup: readonly string[]): SideBySide {
  const sides = {} as SideBySide;
  let db: DuckDBInstance | undefined;
  beforeEach(async () => {
    sides.dir = await tempDir();
    sides.c = await openCatalog({ dir: sides.dir });
    db = await DuckDBInstance.create(':memory:');
    sides.k = await db.connect();
    for (const sql of setup) {
      await sides.c.sql(sql);
      await sides.k.run(sql);
    }
  });
  afterEach(() => {
    sides.k.closeSync();
    db?.closeSync();
  });
  return sides;
}

/** Rows as JSON with every bigint as its digits: values compared exactly, from the lake and from DuckDB. */
export const asJson = (rows: readonly Record<string, unknown>[]) => JSON.parse(JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as unknown;
