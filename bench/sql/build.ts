// The catalogs the SQL section queries, built once per section and never timed: relaxed durability and
// checkpointEvery: 0, since only the queries on them are measured. Every data file goes in through
// catalog.load (a Parquet source written by DuckDB), so it carries whatever load records for a file — field
// ids today, column statistics once they land, which is what file skipping will read. Both catalogs are
// directory stores, so DuckDB reads the catalog's files in place and the direct side reads the very same files.
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { Catalog, type SnapshotId } from '../../src/index.js';
import { writeDeleteFile, writeParquet } from './parquet-writer.js';

export const OPEN = { durability: 'relaxed', checkpointEvery: 0 } as const;

/**
 * The rows the "sql writes" section's MERGE brings into a table of `rows` ids (0 to rows − 1, a multiple of 100):
 * every hundredth id, and a hundredth as many again, at least one, that are new.
 */
export const mergedRows = (rows: number) => rows / 100 + Math.max(1, Math.floor(rows / 10_000));

/** One in a hundred rows of each data file is deleted. */
export const DELETED = 'pos % 100 = 7';

export interface ScanTable {
  dir: string;
  /** Local paths of the data files, in id order: file i holds ids [i * perFile, (i + 1) * perFile). */
  data: string[];
  /** The live delete file of each data file (none where nothing was deleted). */
  deletes: string[];
  perFile: number;
  deleted: number;
  /** The commits that deleted rows from each data file, each a delete file replacing the one before. */
  deleteCommits: number;
}

/** The local path of the one file a load added. */
async function loaded(catalog: Catalog, schema: string, table: string, source: string) {
  const { files, snapshot } = await catalog.load(schema, table, source);
  return { path: files[0]!.path, local: catalog.dataFileLocation(files[0]!.path), snapshot: snapshot! };
}

/**
 * main.t: id BIGINT (sorted across files), k INTEGER, v DOUBLE, s VARCHAR. Of each data file, `deletes`
 * commits (as many DELETEs) delete DELETED's rows a part at a time, each adding a delete file that holds the
 * file's positions deleted so far, as a DELETE writes it; 0: nothing deleted.
 */
export async function buildScanTable(dir: string, rows: number, files: number, deletes = 1): Promise<ScanTable> {
  const perFile = Math.ceil(rows / files);
  const catalog = await Catalog.open({ dir, ...OPEN });
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const out: ScanTable = { dir, data: [], deletes: [], perFile, deleted: 0, deleteCommits: deletes };
  try {
    await catalog.transaction((tx) =>
      tx.createTable('main', 't', [
        { name: 'id', type: 'int64' },
        { name: 'k', type: 'int32' },
        { name: 'v', type: 'float64' },
        { name: 's', type: 'varchar' },
      ]),
    );
    for (let i = 0; i < files; i++) {
      const [lo, hi] = [i * perFile, Math.min(rows, (i + 1) * perFile)];
      const source = path.join(dir, 'sources', `${i}.parquet`);
      // v in eighths: sums are exact in a double whatever order DuckDB adds them in, so answers compare exactly.
      await writeParquet(c, source, `SELECT i AS id, (i * 7919 % 1000)::INTEGER AS k, (i % 1000) / 8.0 AS v, 'row ' || i AS s FROM range(${lo}, ${hi}) t(i)`);
      const f = await loaded(catalog, 'main', 't', source);
      out.data.push(f.local);
      if (deletes === 0) continue;
      const r = await catalog.reader();
      const dataFileId = (await r.dataFiles('main', 't').finally(() => r.close())).find((x) => x.path === f.path)!.id;
      let d = { rows: 0, bytes: 0 };
      for (let j = 0; j < deletes; j++) {
        const relative = `main/t/delete-${i}-${j}.parquet`;
        const sofar = `SELECT pos FROM range(0, ${hi - lo}) t(pos) WHERE ${DELETED} AND (pos // 100) % ${deletes} <= ${j}`;
        d = await writeDeleteFile(c, catalog.dataFileLocation(relative), f.local, sofar);
        await catalog.transaction((tx) => tx.addDeleteFile('main', 't', { dataFileId, path: relative, deleteCount: d.rows, fileSizeBytes: d.bytes }));
        if (j === deletes - 1) out.deletes.push(catalog.dataFileLocation(relative));
      }
      out.deleted += d.rows;
    }
    return out;
  } finally {
    c.closeSync();
    db.closeSync();
    await catalog.close();
  }
}

export interface ManyTables {
  dir: string;
  /** files[t][j]: the local path of table t_<t>'s j-th file; versions[t][j]: the snapshot that added it. */
  files: string[][];
  versions: SnapshotId[][];
}

const LOADERS = 4;

/**
 * Schema s of `tables` tables (id BIGINT, v DOUBLE), each given `perTable` files of `rowsPerFile` rows, a
 * load (a commit) each, round by round, so each table has a snapshot per file count. Loads run a few at a
 * time: one costs tens of ms here, mostly in DuckDB.
 */
export async function buildManyTables(dir: string, tables: number, perTable: number, rowsPerFile: number): Promise<ManyTables> {
  const catalog = await Catalog.open({ dir, ...OPEN });
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    await catalog.transaction(async (tx) => {
      await tx.createSchema('s');
      for (let t = 0; t < tables; t++) await tx.createTable('s', `t_${t}`, [{ name: 'id', type: 'int64' }, { name: 'v', type: 'float64' }]);
    });
    const files: string[][] = Array.from({ length: tables }, () => []);
    const versions: SnapshotId[][] = Array.from({ length: tables }, () => []);
    for (let j = 0; j < perTable; j++) {
      const source = path.join(dir, 'sources', `${j}.parquet`);
      await writeParquet(c, source, `SELECT i AS id, i / 4.0 AS v FROM range(${j * rowsPerFile}, ${(j + 1) * rowsPerFile}) t(i)`);
      let next = 0;
      const loader = async () => {
        for (let t = next++; t < tables; t = next++) {
          const f = await loaded(catalog, 's', `t_${t}`, source);
          files[t]![j] = f.local;
          versions[t]![j] = f.snapshot;
        }
      };
      await Promise.all(Array.from({ length: LOADERS }, loader));
    }
    return { dir, files, versions };
  } finally {
    c.closeSync();
    db.closeSync();
    await catalog.close();
  }
}
