// Compaction as a maintenance commit: many small files, and files with deleted rows, rewritten into one
// holding only the live rows, each carrying its row id — so the table reads the same, every row keeps its
// id, tableChanges over the commit is empty, the past still reads as it was, and GC takes the old files.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Catalog, isStrataError } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { expectCode, openCatalog, runTsx, tempDir } from '../helpers.js';
import { FaultyStore } from '../store/doubles/faulty-store.js';
import { rowIds } from '../support/row-ids.js';
import { runCli } from '../support/run-cli.js';

describe('compaction', () => {
  it('20 small files with deletes and updates into one: same rows, same row ids, no changes reported, the past intact, old files to GC', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    await c.sql('CREATE TABLE t (id BIGINT, v VARCHAR)');
    for (let f = 0; f < 20; f++) await c.sql(`INSERT INTO t SELECT i, 'v' || i FROM range(${f * 50}, ${(f + 1) * 50}) r(i)`);
    await c.sql('DELETE FROM t WHERE id % 7 = 0');
    await c.sql(`UPDATE t SET v = 'changed' WHERE id % 10 = 3`);
    const before = (await c.snapshots()).at(-1)!.id;
    const rowsBefore = (await c.sql('SELECT id, v FROM t ORDER BY id')).rows;
    const idsBefore = await rowIds(c, dir, 't');
    const changesBefore = (await c.tableChanges('main', 't', { from: 0, to: before })).rows;
    const oldFiles = [...(await (await c.reader()).dataFiles('main', 't')), ...(await (await c.reader()).deleteFiles('main', 't'))].map((f) => f.path);

    const result = await c.compact('main', 't');
    expect(result.removed).toEqual({ dataFiles: 21, deleteFiles: 20 });
    expect([result.added.length, result.rows]).toEqual([1, rowsBefore.length]);
    const r = await c.reader();
    expect((await r.dataFiles('main', 't')).length).toBe(1);
    expect(await r.deleteFiles('main', 't')).toEqual([]);
    expect(r.snapshot.maintenance).toBe(true);
    await r.close();
    expect((await c.sql('SELECT id, v FROM t ORDER BY id')).rows).toEqual(rowsBefore);
    expect(await rowIds(c, dir, 't')).toEqual(idsBefore);
    // The compaction changed no row: nothing over it, and the whole history reads as before it.
    expect((await c.tableChanges('main', 't', { from: result.snapshot!, to: result.snapshot! })).rows).toEqual([]);
    expect((await c.tableChanges('main', 't', { from: 0, to: result.snapshot! })).rows).toEqual(changesBefore);
    expect((await c.sql(`SELECT count(*) AS n FROM t AT (VERSION => ${before - 1})`)).rows).toEqual([{ n: 1000n - 143n }]);
    // Nothing left to do; a second compaction commits nothing.
    expect((await c.compact('main', 't')).snapshot).toBeNull();

    // GC: once retain-from passes the compaction, the replaced files leave the store.
    await c.advanceRetainFrom({ snapshot: result.snapshot! });
    await c.excise();
    await c.reclaimFiles({ graceMs: 0 });
    const stored = (p: string) => existsSync(path.join(dir, 'store', c.dataPath, p));
    expect(oldFiles.filter(stored)).toEqual([]);
    expect((await c.sql('SELECT count(*) AS n FROM t')).rows).toEqual([{ n: BigInt(rowsBefore.length) }]);
    expect((await c.verify({ files: true })).violations).toEqual([]);
    await c.close();
    const cli = await runCli('compact', 'main.t', '--dir', dir);
    expect([cli.code, cli.stdout.trim()]).toEqual([0, 'main.t has nothing to compact']);
  });

  it('deletes from the files it rewrites that commit while it works are carried into the new files; what cannot be carried is CONFLICT', async () => {
    const dir = await tempDir();
    // The compaction's first new file goes into the store while `during` commits other statements.
    let during: (() => Promise<unknown>) | undefined;
    let c: Catalog | undefined;
    const store = new FaultyStore(new DirectoryStore(path.join(dir, 'store')), {
      beforeCreate: async (key) => {
        const work = during;
        if (work === undefined || !key.startsWith(c!.dataPath) || key.includes('-deletes')) return;
        during = undefined;
        await work();
      },
    });
    c = await openCatalog({ dir, store, logLayout: 'objects' });
    await c.sql('CREATE TABLE t (id BIGINT, v VARCHAR)');
    for (let f = 0; f < 4; f++) await c.sql(`INSERT INTO t SELECT i, 'v' || i FROM range(${f * 5}, ${(f + 1) * 5}) r(i)`);
    await c.sql('DELETE FROM t WHERE id = 0');
    const idsBefore = await rowIds(c, dir, 't');
    during = async () => {
      await c!.sql('DELETE FROM t WHERE id IN (1, 7, 12)'); // three of the files it rewrites, one with a delete file already
      await c!.sql(`INSERT INTO t VALUES (100, 'new')`); // inserts commute
      await c!.sql(`UPDATE t SET v = 'changed' WHERE id = 13`);
    };
    const out = await c.compact('main', 't');
    expect(out.snapshot).not.toBeNull();
    const expected = [...Array(20).keys()].filter((i) => ![0, 1, 7, 12].includes(i)).map((i) => ({ id: BigInt(i), v: i === 13 ? 'changed' : `v${i}` }));
    expect((await c.sql('SELECT id, v FROM t ORDER BY id')).rows).toEqual([...expected, { id: 100n, v: 'new' }]);
    // Every row kept its id, and the compaction shows no change of its own: the delete shows at its snapshot.
    const idsAfter = await rowIds(c, dir, 't');
    for (const [id, rowid] of idsAfter) if (id !== 100n) expect(rowid, `row ${id}`).toBe(idsBefore.get(id));
    const history = (await c.tableChanges('main', 't', { from: 7, to: out.snapshot! })).rows.map((r) => [r.snapshot_id, r.change_type, r.id]);
    expect(history).toEqual([
      [7n, 'delete', 1n],
      [7n, 'delete', 7n],
      [7n, 'delete', 12n],
      [8n, 'insert', 100n],
      [9n, 'update_preimage', 13n],
      [9n, 'update_postimage', 13n],
    ]);
    expect((await c.verify({ files: true })).violations).toEqual([]);

    // A rewritten file all of whose rows went meanwhile (it is ended, not given a delete file) is carried too.
    for (let f = 0; f < 2; f++) await c.sql(`INSERT INTO t SELECT i, 'w' || i FROM range(${200 + f * 3}, ${203 + f * 3}) r(i)`);
    during = () => c!.sql('DELETE FROM t WHERE id BETWEEN 200 AND 202');
    expect((await c.compact('main', 't')).snapshot).not.toBeNull();
    const rows = [...expected.map((r) => r.id), 100n, 203n, 204n, 205n];
    expect((await c.sql('SELECT id FROM t ORDER BY id')).rows.map((r) => r.id)).toEqual(rows);
    expect((await c.verify({ files: true })).violations).toEqual([]);

    // Rows a restore brings back to a file it rewrites are not in its new files: that cannot be carried. CONFLICT.
    await c.sql('DELETE FROM t WHERE id = 2');
    const undo = (await c.snapshots()).at(-1)!.id - 1;
    await c.sql(`INSERT INTO t VALUES (300, 'x')`);
    during = () => c!.restoreTable('main', 't', undo);
    const head = (await c.snapshots()).at(-1)!.id;
    await expectCode(c.compact('main', 't'), 'CONFLICT');
    expect((await c.snapshots()).at(-1)!.id).toBe(head + 1);
    expect((await c.sql('SELECT count(*) AS n FROM t WHERE id = 2')).rows).toEqual([{ n: 1n }]);
    expect((await c.compact('main', 't')).snapshot).toBe(head + 2);
    // The table as it was before the DELETE of 2 (and the INSERT of 300 after it).
    expect((await c.sql('SELECT id FROM t ORDER BY id')).rows.map((r) => r.id)).toEqual(rows);
    expect((await c.verify({ files: true })).violations).toEqual([]);

    // A rewritten file gone meanwhile gives up only the rows it still had when the compaction read it: a row an
    // UPDATE moved out of it before keeps its id, and its new version, among the files rewritten, stays.
    await c.sql(`INSERT INTO t SELECT i, 'u' || i FROM range(400, 403) r(i)`);
    await c.sql(`UPDATE t SET v = 'moved' WHERE id = 400`);
    during = () => c!.sql('DELETE FROM t WHERE id IN (401, 402)');
    expect((await c.compact('main', 't')).snapshot).not.toBeNull();
    expect((await c.sql('SELECT id, v FROM t WHERE id >= 400 ORDER BY id')).rows).toEqual([{ id: 400n, v: 'moved' }]);
    expect((await c.verify({ files: true })).violations).toEqual([]);
  });

  it('with two writer processes inserting, updating and deleting all the while, at least 9 of 10 compactions commit', { timeout: 180_000 }, async () => {
    const root = await tempDir();
    const store = { path: path.join(root, 'store') };
    const c = await openCatalog({ dir: path.join(root, 'compactor'), store });
    await c.sql('CREATE TABLE t (id BIGINT, n BIGINT)');
    const stop = path.join(root, 'stop');
    const child = new URL('../fixtures/sql-churn-child.ts', import.meta.url);
    const writers = [1, 2].map((w) => runTsx(child, [path.join(root, `w${w}`), JSON.stringify(store), String(w), stop]));
    let [committed, conflicts] = [0, 0];
    try {
      // Writers running: wait until they have committed something, then compact ten times.
      while ((await c.refresh(), (await c.snapshots()).length) < 12) await new Promise((ok) => setTimeout(ok, 50));
      for (let i = 0; i < 10; i++) {
        const out = await c.compact('main', 't', { targetFileSize: 1 << 20 }).catch((e: unknown) => e);
        if (isStrataError(out, 'CONFLICT')) conflicts++;
        else if ((out as { snapshot: number | null }).snapshot !== null) committed++;
        else throw new Error('nothing to compact while writers run', { cause: out });
        // Time for the writers to add files, and to update and delete rows of the ones it rewrites next.
        await new Promise((ok) => setTimeout(ok, 300));
      }
    } finally {
      await writeFile(stop, '');
      const done = await Promise.all(writers);
      console.info(`compactions under two writers: ${committed} of 10 committed; writers (committed, conflicts): ${done.map((d) => d.stdout.trim()).join(' | ')}`);
    }
    expect(conflicts, `${conflicts} compactions were CONFLICT`).toBeLessThanOrEqual(1);
    expect(committed).toBeGreaterThanOrEqual(9);
    expect((await c.verify({ files: true })).violations).toEqual([]);
  });
});
