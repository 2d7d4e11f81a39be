// tx.addDataFiles: many data files of one table in one operation, as DuckLake's ducklake_add_data_files
// takes a list. Held to addDataFile called once per file in the same order (ids, row ids, statistics, name
// mappings, totals, what DuckDB reads), all or none of a call when one file is refused, and replayed like
// any operation when its commit loses the race to another writer.
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Catalog, type DataFileSpec, isStrataError, type Transaction } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { openCatalog, tempDir } from '../helpers.js';
import { parquet } from '../support/parquet-bytes.js';

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

  it('takes no id for a refused call: a file refused after one that needed a name mapping leaves the ids as they were', async () => {
    const bytes = await parquet(`SELECT 1::BIGINT AS id, 'x' AS name`);
    const idAfter = async (refusedCall: boolean) => {
      const c = await lakeWith([{ name: 'ext/a.parquet', bytes }]);
      let id = 0;
      await c.transaction(async (tx) => {
        if (refusedCall) {
          const e = await tx
            .addDataFiles('main', 't', [
              { path: 'ext/a.parquet', recordCount: 1, fileSizeBytes: bytes.length },
              // Refused only once the table's columns are read: after the first file's mapping was worked out.
              { path: 'ext/b.parquet', recordCount: 1, fileSizeBytes: 1, columnStats: [{ columnId: 99, nullCount: 0 }] },
            ])
            .catch((x: unknown) => x);
          expect(isStrataError(e, 'NOT_FOUND'), String(e)).toBe(true);
        }
        id = await tx.createTable('main', 'x', [{ name: 'x', type: 'int32' }]);
      });
      return id;
    };
    expect(await idAfter(true)).toBe(await idAfter(false));
  });

  it('commits what was passed when the call was made, race or no race, though the caller reuses its list and its specs', async () => {
    const committed = async (race: boolean) => {
      const root = await tempDir();
      const store = { path: path.join(root, 'store') };
      const a = await openCatalog({ dir: path.join(root, 'a'), store, logLayout: 'objects' });
      await a.sql('CREATE TABLE t (id BIGINT)');
      const b = await openCatalog({ dir: path.join(root, 'b'), store });
      let raced = false;
      let ids: number[] = [];
      const { snapshot } = await a.transaction(async (tx) => {
        const batch = [0, 1, 2].map((i) => ({ path: `a/f${i}.parquet`, recordCount: 5, fileSizeBytes: 50 }));
        const one = { path: 'a/one.parquet', recordCount: 1, fileSizeBytes: 1 };
        // Neither call has run when the caller reuses what it passed: operations run in turn, later.
        const added = tx.addDataFiles('main', 't', batch);
        const single = tx.addDataFile('main', 't', one);
        batch.length = 0;
        one.path = 'a/changed.parquet';
        ids = [...(await added), await single];
        if (race && !raced) {
          raced = true;
          await b.transaction((tx2) => tx2.addDataFile('main', 't', { path: 'b/g.parquet', recordCount: 4, fileSizeBytes: 40 }));
        }
      });
      const r = await a.reader({ snapshot: snapshot! });
      const files = (await r.dataFiles('main', 't')).filter((f) => f.path.startsWith('a/'));
      await r.close();
      return { ids, files: files.map((f) => [f.id, f.path]) };
    };
    const calm = await committed(false);
    expect(calm.files.map(([, p]) => p)).toEqual(['a/f0.parquet', 'a/f1.parquet', 'a/f2.parquet', 'a/one.parquet']);
    expect(calm.files.map(([id]) => id)).toEqual(calm.ids);
    const raced = await committed(true);
    expect(raced.files.map(([, p]) => p)).toEqual(calm.files.map(([, p]) => p));
    expect(raced.files.map(([id]) => id)).toEqual(raced.ids);
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
    // A spec is checked before the table is looked up, as addDataFile always did.
    for (const call of [(tx: Transaction) => tx.addDataFile('main', 'nope', null as never), (tx: Transaction) => tx.addDataFiles('main', 'nope', [null as never])]) {
      const e = await c.transaction(call).catch((x: unknown) => x);
      expect(isStrataError(e, 'INVALID_ARGUMENT'), String(e)).toBe(true);
      expect((e as Error).message).toMatch(/^addDataFiles?\(\)( files\[0\])? needs a data file \{ path, recordCount, fileSizeBytes \}; got null/);
    }
    expect((await c.snapshots()).length).toBe(2);
  });

  it('is replayed on the newer state when its commit loses the race to another writer, keeping the ids and the mapping it handed out', async () => {
    const root = await tempDir();
    const store = { path: path.join(root, 'store') };
    const a = await openCatalog({ dir: path.join(root, 'a'), store, logLayout: 'objects' });
    await a.sql('CREATE TABLE t (id BIGINT)');
    const b = await openCatalog({ dir: path.join(root, 'b'), store });
    // Two files without field ids, laid out alike (one mapping), and one the store does not hold.
    const put = async (name: string, select: string) => {
      const bytes = await parquet(select);
      await new DirectoryStore(store.path).putIfAbsent(`${a.dataPath}${name}`, bytes);
      return { path: name, recordCount: 5, fileSizeBytes: bytes.length };
    };
    const specs = [await put('a/f0.parquet', 'SELECT i AS id FROM range(0, 5) r(i)'), { path: 'a/f1.parquet', recordCount: 5, fileSizeBytes: 50 }, await put('a/f2.parquet', 'SELECT i AS id FROM range(20, 25) r(i)')];
    let ids: number[] = [];
    let raced = false;
    const { snapshot } = await a.transaction(async (tx) => {
      ids = await tx.addDataFiles('main', 't', specs);
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
    const [, f0, f1, f2] = files;
    expect(f0!.mappingId).toEqual(expect.any(Number));
    expect([f1!.mappingId, f2!.mappingId]).toEqual([null, f0!.mappingId]);
    expect((await a.verify()).violations).toEqual([]);
  });
});
