// Compaction as a maintenance commit: many small files, and files with deleted rows, rewritten into one
// holding only the live rows, each carrying its row id — so the table reads the same, every row keeps its
// id, tableChanges over the commit is empty, the past still reads as it was, and GC takes the old files.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openCatalog, tempDir } from '../helpers.js';
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
});
