import { describe, expect, it, vi } from 'vitest';
import { Space } from '../../keys/spaces.js';
import { IndexView, type Range } from '../../src/kv/read-view.js';
import { type Catalog, isStrataError } from '../../src/index.js';
import { openCatalog, tempDir } from '../helpers.js';
import { runCli } from '../support/run-cli.js';

const paths = (files: { path: string; snapshot: number }[]) => files.map((f) => `${f.path}@${f.snapshot}`).sort();

/** DuckLake's table_changes scenario on files: create (s1), insert (s2), rewrite (s3, s4), delete (s5). */
async function scenario(c: Catalog) {
  await c.transaction((tx) => tx.createTable('main', 'tbl', [{ name: 'id', type: 'int32' }, { name: 'val', type: 'varchar' }]));
  let f1 = 0;
  await c.transaction(async (tx) => {
    f1 = await tx.addDataFile('main', 'tbl', { path: 'f1.parquet', recordCount: 2, fileSizeBytes: 10 });
  });
  let f2 = 0;
  await c.transaction(async (tx) => {
    await tx.removeDataFile('main', 'tbl', f1);
    f2 = await tx.addDataFile('main', 'tbl', { path: 'f2.parquet', recordCount: 2, fileSizeBytes: 10 });
  });
  let f3 = 0;
  await c.transaction(async (tx) => {
    await tx.removeDataFile('main', 'tbl', f2);
    f3 = await tx.addDataFile('main', 'tbl', { path: 'f3.parquet', recordCount: 2, fileSizeBytes: 10 });
  });
  await c.transaction((tx) => tx.addDeleteFile('main', 'tbl', { dataFileId: f3, path: 'f3-del.parquet', deleteCount: 1, fileSizeBytes: 5 }));
}

describe('changes between snapshots', () => {
  it("returns exactly the files each range added and removed, bounds inclusive like DuckLake's table_changes", async () => {
    const c = await openCatalog();
    await scenario(c);
    const range = async (from: number, to: number) => {
      const ch = await c.changes('main', 'tbl', { from, to });
      return { added: paths(ch.addedFiles), removed: paths(ch.removedFiles), deletes: paths(ch.addedDeleteFiles) };
    };
    expect(await range(2, 2)).toEqual({ added: ['f1.parquet@2'], removed: [], deletes: [] });
    expect(await range(3, 3)).toEqual({ added: ['f2.parquet@3'], removed: ['f1.parquet@3'], deletes: [] });
    expect(await range(3, 4)).toEqual({ added: ['f2.parquet@3', 'f3.parquet@4'], removed: ['f1.parquet@3', 'f2.parquet@4'], deletes: [] });
    expect(await range(5, 5)).toEqual({ added: [], removed: [], deletes: ['f3-del.parquet@5'] });
    expect(await range(1, 5)).toEqual({
      added: ['f1.parquet@2', 'f2.parquet@3', 'f3.parquet@4'],
      removed: ['f1.parquet@3', 'f2.parquet@4'],
      deletes: ['f3-del.parquet@5'],
    });
    expect(await range(1, 1)).toEqual({ added: [], removed: [], deletes: [] });
    // The records are the ones dataFiles() returns, plus their snapshot; an end after `to` is not shown
    // (an answer about a range must not change when later commits come).
    const { addedFiles } = await c.changes('main', 'tbl', { from: 2, to: 2 });
    expect(addedFiles[0]).toMatchObject({ path: 'f1.parquet', recordCount: 2, beginSnapshot: 2, endSnapshot: null, snapshot: 2 });
    const { removedFiles } = await c.changes('main', 'tbl', { from: 2, to: 3 });
    expect(removedFiles[0]).toMatchObject({ path: 'f1.parquet', beginSnapshot: 2, endSnapshot: 3, snapshot: 3 });
  });

  it('follows the table through a rename inside the range, and takes times as bounds', async () => {
    let now = Date.UTC(2026, 5, 1);
    const c = await openCatalog({ clock: () => (now += 60_000) });
    await c.transaction((tx) => tx.createTable('main', 'a', [{ name: 'x', type: 'int64' }]));
    await c.transaction((tx) => tx.addDataFile('main', 'a', { path: 'one.parquet', recordCount: 1, fileSizeBytes: 1 }));
    await c.transaction((tx) => tx.renameTable('main', 'a', 'b'));
    await c.transaction((tx) => tx.addDataFile('main', 'b', { path: 'two.parquet', recordCount: 1, fileSizeBytes: 1 }));
    expect(paths((await c.changes('main', 'b', { from: 1, to: 4 })).addedFiles)).toEqual(['one.parquet@2', 'two.parquet@4']);
    expect(paths((await c.changes('main', 'a', { from: 1, to: 2 })).addedFiles)).toEqual(['one.parquet@2']);
    const [s2, s4] = (await c.snapshots()).filter((s) => s.id === 2 || s.id === 4);
    const byTime = await c.changes('main', 'b', { from: s2!.time.toISOString(), to: s4!.time });
    expect(paths(byTime.addedFiles)).toEqual(['one.parquet@2', 'two.parquet@4']);
  });

  it('a delete file that stops applying is a change: replaced by a newer one, ended with its data file, ended by a restore; strata diff shows each', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    await c.sql('CREATE TABLE t (id BIGINT)');
    const inserted = (await c.sql('INSERT INTO t VALUES (1), (2), (3)')).snapshot!;
    const first = (await c.sql('DELETE FROM t WHERE id = 2')).snapshot!;
    const second = (await c.sql('DELETE FROM t WHERE id = 3')).snapshot!; // replaces the first delete file
    const restored = (await c.restoreTable('main', 't', inserted)).snapshot!; // ends the second, with no successor
    const ch = await c.changes('main', 't', { from: first, to: restored });
    const [d1, d2] = ch.addedDeleteFiles.sort((a, b) => a.snapshot - b.snapshot);
    expect(ch.addedDeleteFiles.map((d) => [d.snapshot, d.deleteCount])).toEqual([[first, 1], [second, 2]]);
    expect(ch.removedDeleteFiles.map((d) => [d.path, d.snapshot]).sort()).toEqual([[d1!.path, second], [d2!.path, restored]].sort());
    expect(ch.removedFiles).toEqual([]);
    expect((await c.changes('main', 't', { from: restored, to: restored })).removedDeleteFiles).toMatchObject([{ path: d2!.path, deleteCount: 2, endSnapshot: restored }]);
    // Dropping the table ends its data file and, with it, the delete file that applied to it.
    await c.sql('DELETE FROM t WHERE id = 1');
    const dropped = (await c.sql('DROP TABLE t')).snapshot!;
    const atDrop = await c.changes('main', 't', { from: dropped - 1, to: dropped });
    expect([atDrop.removedFiles, atDrop.removedDeleteFiles].map((files) => files.filter((f) => f.snapshot === dropped).length)).toEqual([1, 1]);
    await c.close();

    const diff = await runCli('diff', '--dir', dir, 'main.t', String(restored), String(restored));
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toMatch(new RegExp(`- deletes\\s+${d2!.path}\\s+2\\s+${restored}`));
  });

  it('refuses reversed ranges, unknown snapshots and unknown tables', async () => {
    const c = await openCatalog();
    await scenario(c);
    await expect(c.changes('main', 'tbl', { from: 4, to: 2 })).rejects.toSatisfy((e) => isStrataError(e, 'INVALID_ARGUMENT'));
    await expect(c.changes('main', 'tbl', { from: 1, to: 99 })).rejects.toSatisfy((e) => isStrataError(e, 'SNAPSHOT_NOT_FOUND'));
    await expect(c.changes('main', 'nope', { from: 1, to: 5 })).rejects.toSatisfy((e) => isStrataError(e, 'NOT_FOUND'));
    await expect(c.changes('main', 'tbl', { from: {} as never, to: 5 })).rejects.toSatisfy((e) => isStrataError(e, 'INVALID_ARGUMENT'));
  });
});

describe('history filters and lineage', () => {
  it('lists the snapshots of a range, or of one table (creation, changes, drop), oldest first', async () => {
    const c = await openCatalog();
    await scenario(c); // s1..s5 on table tbl (id 1)
    await c.transaction((tx) => tx.createTable('main', 'other', [{ name: 'x', type: 'int64' }])); // s6
    await c.transaction((tx) => tx.renameTable('main', 'tbl', 'renamed')); // s7
    await c.transaction((tx) => tx.addDataFile('main', 'other', { path: 'o.parquet', recordCount: 1, fileSizeBytes: 1 })); // s8
    expect((await c.snapshots({ from: 2, to: 4 })).map((s) => s.id)).toEqual([2, 3, 4]);
    expect((await c.snapshots({ table: { schema: 'main', table: 'renamed' } })).map((s) => s.id)).toEqual([1, 2, 3, 4, 5, 7]);
    expect((await c.snapshots({ table: { schema: 'main', table: 'other' }, from: 7 })).map((s) => s.id)).toEqual([8]);
    const streamed = [];
    for await (const s of c.iterateSnapshots({ from: 5 })) streamed.push(s.id);
    expect(streamed).toEqual([5, 6, 7, 8]);
  });

  it('newest first: the same snapshots in reverse; a limit: the first of either order; counted: as many as it lists, without reading them, below retain-from only the tagged', async () => {
    const c = await openCatalog();
    for (let i = 0; i < 6; i++) await c.transaction((tx) => tx.createTable('main', `t${i}`, [{ name: 'x', type: 'int64' }])); // s1..s6
    await c.transaction((tx) => tx.addDataFile('main', 't2', { path: 'a.parquet', recordCount: 1, fileSizeBytes: 1 })); // s7
    await c.createTag('keep', 2);
    await c.advanceRetainFrom({ snapshot: 4 });
    expect((await c.snapshots()).map((s) => s.id)).toEqual([2, 4, 5, 6, 7]);
    for (const opts of [{}, { from: 2 }, { from: 4, to: 6 }, { to: 5 }, { table: { schema: 'main', table: 't2' } }, { table: { schema: 'main', table: 't2' }, to: 6 }]) {
      const ids = (await c.snapshots(opts)).map((s) => s.id);
      expect((await c.snapshots({ ...opts, newestFirst: true })).map((s) => s.id), JSON.stringify(opts)).toEqual([...ids].reverse());
      expect(await c.snapshotCount(opts), JSON.stringify(opts)).toBe(ids.length);
      // A limit: the first of that order, as many as it says or as there are; counted alike.
      for (const limit of [1, 2, 3, 10]) {
        expect((await c.snapshots({ ...opts, limit })).map((s) => s.id), JSON.stringify({ ...opts, limit })).toEqual(ids.slice(0, limit));
        expect((await c.snapshots({ ...opts, limit, newestFirst: true })).map((s) => s.id)).toEqual([...ids].reverse().slice(0, limit));
        expect(await c.snapshotCount({ ...opts, limit })).toBe(Math.min(limit, ids.length));
      }
    }
    await expect(c.snapshots({ newestFirst: 'yes' as never })).rejects.toThrow(/newestFirst must be a boolean/);
    for (const limit of [0, -1, 1.5, '3', null]) {
      await expect(c.snapshots({ limit: limit as never }), String(limit)).rejects.toThrow(/limit must be a positive integer/);
    }
    await c.close();
  });

  it('a page of a long history reads that page, either way round, not a batch of the index past it', async () => {
    const c = await openCatalog({ durability: 'relaxed' });
    for (let i = 0; i < 600; i++) await c.transaction((tx) => tx.createSchema(`s${i}`));
    // Entries of the snapshot records and their changes that the index hands over, counted.
    let read = 0;
    const scan = IndexView.prototype.scanBatches;
    const spy = vi.spyOn(IndexView.prototype, 'scanBatches').mockImplementation(function (this: IndexView, range: Range) {
      const inner = scan.call(this, range);
      if (range.gte?.[0] !== Space.Snapshot && range.gte?.[0] !== Space.SnapshotChanges) return inner;
      return (async function* () {
        for await (const batch of inner) {
          read += batch.length;
          yield batch;
        }
      })();
    });
    try {
      for (const newestFirst of [false, true]) {
        read = 0;
        const page = (await c.snapshots({ limit: 10, newestFirst })).map((s) => s.id);
        expect(page).toEqual(newestFirst ? [600, 599, 598, 597, 596, 595, 594, 593, 592, 591] : [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        expect(read, `newestFirst ${newestFirst}`).toBeLessThanOrEqual(20);
      }
      // Below retain-from, only a tagged snapshot is history: the rest (not excised yet) is not read past one by one.
      await c.createTag('kept', 100);
      await c.advanceRetainFrom({ snapshot: 590 });
      for (const newestFirst of [false, true]) {
        read = 0;
        const page = (await c.snapshots({ limit: 5, newestFirst })).map((s) => s.id);
        expect(page).toEqual(newestFirst ? [600, 599, 598, 597, 596] : [100, 590, 591, 592, 593]);
        expect(read, `below retain-from, newestFirst ${newestFirst}`).toBeLessThanOrEqual(20);
      }
      read = 0;
      expect(await c.snapshotCount()).toBe(12);
      expect(read, 'counted').toBeLessThanOrEqual(30);
    } finally {
      spy.mockRestore();
    }
    await c.close();
  });

  it('records the snapshots a commit read and returns them as its lineage; refuses sources that did not exist', async () => {
    const c = await openCatalog();
    await scenario(c);
    const { snapshot } = await c.transaction((tx) => tx.createTable('main', 'report', [{ name: 'total', type: 'int64' }]), {
      message: 'monthly report',
      readSources: [{ schema: 'main', table: 'tbl', snapshot: 4 }],
    });
    expect(await c.lineage(snapshot!)).toEqual([{ schema: 'main', table: 'tbl', snapshot: 4 }]);
    expect(await c.lineage(1)).toEqual([]);
    await expect(
      c.transaction((tx) => tx.createSchema('x'), { readSources: [{ schema: 'main', table: 'tbl', snapshot: 0 }] }),
    ).rejects.toSatisfy((e) => isStrataError(e, 'NOT_FOUND'));
    await expect(c.transaction((tx) => tx.createSchema('x'), { readSources: 'tbl' as never })).rejects.toSatisfy((e) =>
      isStrataError(e, 'INVALID_ARGUMENT'),
    );
  });

  it('a reader at one snapshot sees every table as of that snapshot', async () => {
    const c = await openCatalog();
    await c.transaction(async (tx) => {
      await tx.createTable('main', 'orders', [{ name: 'id', type: 'int64' }]);
      await tx.createTable('main', 'customers', [{ name: 'id', type: 'int64' }]);
    });
    const { snapshot: s2 } = await c.transaction((tx) => tx.addDataFile('main', 'orders', { path: 'o1', recordCount: 1, fileSizeBytes: 1 }));
    await c.transaction((tx) => tx.addDataFile('main', 'customers', { path: 'c1', recordCount: 1, fileSizeBytes: 1 }));
    await c.transaction((tx) => tx.addDataFile('main', 'orders', { path: 'o2', recordCount: 1, fileSizeBytes: 1 }));
    const r = await c.reader({ snapshot: s2! });
    expect((await r.dataFiles('main', 'orders')).map((f) => f.path)).toEqual(['o1']);
    expect(await r.dataFiles('main', 'customers')).toEqual([]);
    await r.close();
  });
});
