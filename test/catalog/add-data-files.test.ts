// tx.addDataFiles: many data files of one table in one operation, as DuckLake's ducklake_add_data_files
// takes a list. Held to addDataFile called once per file in the same order (ids, row ids, statistics, name
// mappings, totals, what DuckDB reads), all or none of a call when one file is refused, and replayed like
// any operation when its commit loses the race to another writer.
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { type Catalog, type DataFileSpec, isStrataError } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { openCatalog, tempDir } from '../helpers.js';

/** A Parquet file without field ids, as DuckDB writes it from `select`. */
async function parquet(select: string): Promise<Uint8Array> {
  const local = path.join(await tempDir(), 'f.parquet');
  const db = await DuckDBInstance.create(':memory:');
  const k = await db.connect();
  try {
    await k.run(`COPY (${select}) TO '${local}' (FORMAT parquet)`);
  } finally {
    k.closeSync();
    db.closeSync();
  }
  return readFile(local);
}

/** A catalog with table main.t (id, name) and `files` put in its store, ready to register. */
async function lakeWith(files: { name: string; bytes: Uint8Array }[]): Promise<Catalog> {
  const dir = await tempDir();
  const c = await openCatalog({ dir });
  await c.sql('CREATE TABLE t (id BIGINT, name VARCHAR)');
  const store = new DirectoryStore(path.join(dir, 'store'));
  for (const f of files) await store.putIfAbsent(`${c.dataPath}${f.name}`, f.bytes);
  return c;
}

/** Everything a reader says of t's files, and what DuckDB reads from them. */
async function seen(c: Catalog) {
  const r = await c.reader();
  try {
    return {
      files: await r.dataFiles('main', 't'),
      totals: await r.tableTotals('main', 't'),
      rows: (await c.sql('SELECT id, name FROM t ORDER BY id, name')).rows,
      changes: (await c.snapshots()).at(-1)!.changes,
      violations: (await c.verify()).violations,
    };
  } finally {
    await r.close();
  }
}

describe('addDataFiles', () => {
  it('registers what addDataFile called once per file in the same order registers: ids, row ids, statistics, one shared name mapping', async () => {
    const stored = [
      { name: 'ext/a.parquet', bytes: await parquet(`SELECT i AS id, 'a' || i AS name FROM range(3) r(i)`) },
      { name: 'ext/b.parquet', bytes: await parquet(`SELECT i AS id, 'b' || i AS name FROM range(10, 14) r(i)`) },
      { name: 'ext/c.parquet', bytes: await parquet(`SELECT i AS id, 'c' || i AS name FROM range(20, 27) r(i)`) },
    ];
    const specs: DataFileSpec[] = [
      { path: 'ext/a.parquet', recordCount: 3, fileSizeBytes: stored[0]!.bytes.length },
      { path: 'ext/c.parquet', recordCount: 7, fileSizeBytes: stored[2]!.bytes.length, columnStats: [{ columnId: 1, min: '20', max: '26', nullCount: 0 }] },
      { path: 'ext/b.parquet', recordCount: 4, fileSizeBytes: stored[1]!.bytes.length },
    ];
    const one = await lakeWith(stored);
    const eachIds: number[] = [];
    const each = await one.transaction(async (tx) => {
      for (const f of specs) eachIds.push(await tx.addDataFile('main', 't', f));
    });
    const bulk = await lakeWith(stored);
    let allIds: number[] = [];
    const all = await bulk.transaction(async (tx) => {
      allIds = await tx.addDataFiles('main', 't', specs);
    });
    expect(all.snapshot).toBe(each.snapshot);
    expect(allIds).toEqual(eachIds);
    expect(allIds).toHaveLength(3);
    const [a, b] = [await seen(one), await seen(bulk)];
    expect(b).toEqual(a);
    expect(b.violations).toEqual([]);
    // The files laid out alike share one mapping; the row ids run on in the order given.
    const [fa, fc, fb] = b.files;
    expect(fa!.mappingId).toEqual(expect.any(Number));
    expect([fc!.mappingId, fb!.mappingId]).toEqual([fa!.mappingId, fa!.mappingId]);
    expect([fa!.rowIdStart, fc!.rowIdStart, fb!.rowIdStart]).toEqual([0, 3, 10]);
    expect(b.rows).toHaveLength(14);
  });

  it('adds none of a call when one file is refused, names that file, and leaves the transaction able to go on', async () => {
    const c = await lakeWith([]);
    const good = (i: number): DataFileSpec => ({ path: `d/f${i}.parquet`, recordCount: 10, fileSizeBytes: 100 });
    let refused: unknown;
    const { snapshot } = await c.transaction(async (tx) => {
      refused = await tx.addDataFiles('main', 't', [good(0), good(1), { path: 'd/bad.parquet', recordCount: -1, fileSizeBytes: 100 }, good(3)]).catch((x: unknown) => x);
      await tx.addDataFiles('main', 't', [good(4)]);
    });
    expect(isStrataError(refused, 'INVALID_ARGUMENT'), String(refused)).toBe(true);
    expect((refused as Error).message).toMatch(/^addDataFiles\(\) files\[2\] \("d\/bad\.parquet"\): /);
    const listed = async (at?: number) => {
      const r = await c.reader(at === undefined ? {} : { snapshot: at });
      try {
        return (await r.dataFiles('main', 't')).map((f) => [f.path, f.rowIdStart]);
      } finally {
        await r.close();
      }
    };
    expect(await listed(snapshot!)).toEqual([['d/f4.parquet', 0]]);
    // A statistic of a column the table lacks is refused too, before anything is added.
    const stats = await c.transaction((tx) => tx.addDataFiles('main', 't', [good(5), { ...good(6), columnStats: [{ columnId: 99, nullCount: 0 }] }])).catch((x: unknown) => x);
    expect(isStrataError(stats, 'NOT_FOUND'), String(stats)).toBe(true);
    expect((stats as Error).message).toMatch(/^addDataFiles\(\) files\[1\] \("d\/f6\.parquet"\): columnStats names column 99/);
    expect(await listed()).toEqual([['d/f4.parquet', 0]]);
  });

  it('refuses what is not a list of files, and a table that does not exist, as addDataFile does', async () => {
    const c = await lakeWith([]);
    for (const files of [undefined, 'd/f.parquet', { path: 'd/f.parquet', recordCount: 1, fileSizeBytes: 1 }]) {
      const e = await c.transaction((tx) => tx.addDataFiles('main', 't', files as never)).catch((x: unknown) => x);
      expect(isStrataError(e, 'INVALID_ARGUMENT'), String(e)).toBe(true);
      expect((e as Error).message).toMatch(/^addDataFiles\(\) takes an array of data files \{ path, recordCount, fileSizeBytes \}/);
    }
    const missing = await c.transaction((tx) => tx.addDataFiles('main', 'nope', [])).catch((x: unknown) => x);
    expect(isStrataError(missing, 'NOT_FOUND'), String(missing)).toBe(true);
    expect((await c.snapshots()).length).toBe(2);
  });

  it('is replayed on the newer state when its commit loses the race to another writer, keeping the ids it handed out', async () => {
    const root = await tempDir();
    const store = { path: path.join(root, 'store') };
    const a = await openCatalog({ dir: path.join(root, 'a'), store, logLayout: 'objects' });
    await a.sql('CREATE TABLE t (id BIGINT)');
    const b = await openCatalog({ dir: path.join(root, 'b'), store });
    let ids: number[] = [];
    let raced = false;
    const { snapshot } = await a.transaction(async (tx) => {
      ids = await tx.addDataFiles('main', 't', [0, 1, 2].map((i) => ({ path: `a/f${i}.parquet`, recordCount: 5, fileSizeBytes: 50 })));
      // Another writer commits to the same table first: this transaction's entry is taken and it is replayed.
      if (!raced) {
        raced = true;
        await b.transaction((tx2) => tx2.addDataFile('main', 't', { path: 'b/g.parquet', recordCount: 4, fileSizeBytes: 40 }));
      }
    });
    const r = await a.reader({ snapshot: snapshot! });
    const files = await r.dataFiles('main', 't');
    await r.close();
    expect(files.map((f) => [f.path, f.rowIdStart])).toEqual([
      ['b/g.parquet', 0],
      ['a/f0.parquet', 4],
      ['a/f1.parquet', 9],
      ['a/f2.parquet', 14],
    ]);
    expect(files.slice(1).map((f) => f.id)).toEqual(ids);
    expect((await a.verify()).violations).toEqual([]);
  });
});
