import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/index.js';
import { dumpCatalog, openCatalog, steppingClock, tempDir } from '../helpers.js';
import { logHead } from '../support/store-log.js';

const logObjects = (dir: string) => logHead(path.join(dir, 'store'));

describe('transactions', () => {
  it('a transaction whose net effect is empty writes no snapshot and no log entry', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    await c.transaction((tx) => tx.createTable('main', 'keep', [{ name: 'x', type: 'int64' }]));
    const entries = await logObjects(dir);
    const dump = await dumpCatalog(c);

    expect((await c.transaction(async () => undefined)).snapshot).toBeNull();
    expect(
      (
        await c.transaction(async (tx) => {
          await tx.createSchema('tmp');
          await tx.createTable('tmp', 't', [{ name: 'x', type: 'int64' }]);
          await tx.addDataFile('tmp', 't', { path: 'tmp/t/1.parquet', recordCount: 5, fileSizeBytes: 50 });
          await tx.dropSchema('tmp', { cascade: true });
          await tx.renameTable('main', 'keep', 'other');
          await tx.renameTable('main', 'other', 'keep');
          const col = await tx.addColumn('main', 'keep', { name: 'y', type: 'int64' });
          expect(col).toBe(2);
          await tx.dropColumn('main', 'keep', 'y');
          await tx.alterColumnType('main', 'keep', 'x', 'int64');
        })
      ).snapshot,
    ).toBeNull();
    expect(await logObjects(dir)).toBe(entries);
    expect(await dumpCatalog(c)).toEqual(dump);
  });

  it("records DuckLake's changes_made, schema_version and commit metadata", async () => {
    const c = await openCatalog({ clock: steppingClock() });
    const commit = (fn: Parameters<typeof c.transaction>[0], meta = {}) => c.transaction(fn, meta);
    await commit(
      async (tx) => {
        await tx.createSchema('sales');
        await tx.createTable('sales', 'orders', [{ name: 'id', type: 'int64' }]);
        await tx.addDataFile('sales', 'orders', { path: 'o/1.parquet', recordCount: 3, fileSizeBytes: 10 });
      },
      { author: 'etl', message: 'first load', extraInfo: '{"run":1}' },
    );
    await commit(async (tx) => {
      await tx.addDataFile('sales', 'orders', { path: 'o/2.parquet', recordCount: 4, fileSizeBytes: 10 });
    });
    await commit(async (tx) => {
      await tx.addDeleteFile('sales', 'orders', { dataFileId: 0, path: 'o/1-del.parquet', deleteCount: 1, fileSizeBytes: 5 });
    });
    await commit(async (tx) => {
      await tx.renameTable('sales', 'orders', 'order_history');
      await tx.createView('sales', 'recent', 'SELECT * FROM sales.order_history');
    });
    await commit(
      async (tx) => {
        await tx.addDataFile('sales', 'order_history', { path: 'o/3.parquet', recordCount: 7, fileSizeBytes: 20 });
        await tx.removeDataFile('sales', 'order_history', 0);
        await tx.removeDataFile('sales', 'order_history', 1);
      },
      { maintenance: true, message: 'compaction' },
    );
    await commit(async (tx) => {
      await tx.dropView('sales', 'recent');
      await tx.dropTable('sales', 'order_history');
      await tx.dropSchema('sales');
    });

    const history = await c.snapshots();
    expect(history.map((s) => [s.id, s.schemaVersion, s.changes, s.maintenance])).toEqual([
      [0, 0, ['created_schema:"main"'], false],
      [1, 1, ['created_schema:"sales"', 'created_table:"sales"."orders"', 'inserted_into_table:2'], false],
      [2, 1, ['inserted_into_table:2'], false],
      [3, 1, ['deleted_from_table:2'], false],
      [4, 2, ['created_view:"sales"."recent"', 'altered_table:2'], false],
      [5, 2, ['compacted_table:2'], true],
      [6, 3, ['dropped_table:2', 'dropped_view:3', 'dropped_schema:1'], false],
    ]);
    expect(history[1]).toMatchObject({ author: 'etl', message: 'first load', extraInfo: '{"run":1}' });
    // Snapshot times come from the injected clock and never go backwards.
    const times = history.map((s) => s.time.getTime());
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(times[1]).toBeGreaterThan(Date.UTC(2026, 0, 1));
  });

  it("allocates ids from DuckLake's counters: shared catalog ids, shared file ids, per-table column ids", async () => {
    const c = await openCatalog();
    const ids: Record<string, number> = {};
    await c.transaction(async (tx) => {
      ids.schema = await tx.createSchema('s');
      ids.t1 = await tx.createTable('s', 't1', [{ name: 'a', type: 'int64' }, { name: 'b', type: 'int64' }]);
      ids.view = await tx.createView('s', 'v', 'SELECT 1');
      ids.t2 = await tx.createTable('s', 't2', [{ name: 'a', type: 'int64' }]);
      ids.f1 = await tx.addDataFile('s', 't1', { path: 'a.parquet', recordCount: 10, fileSizeBytes: 1 });
      ids.d1 = await tx.addDeleteFile('s', 't1', { dataFileId: ids.f1, path: 'a-d.parquet', deleteCount: 2, fileSizeBytes: 1 });
      ids.f2 = await tx.addDataFile('s', 't2', { path: 'b.parquet', recordCount: 1, fileSizeBytes: 1 });
    });
    expect(ids).toEqual({ schema: 1, t1: 2, view: 3, t2: 4, f1: 0, d1: 1, f2: 2 });
    // Column ids are never reused, even after a drop.
    await c.transaction((tx) => tx.dropColumn('s', 't1', 'b'));
    const next = await c.transaction(async (tx) => {
      ids.c = await tx.addColumn('s', 't1', { name: 'b', type: 'varchar' });
      ids.c2 = await tx.addColumn('s', 't2', { name: 'z', type: 'varchar' });
    });
    expect([ids.c, ids.c2]).toEqual([3, 2]);
    const r = await c.reader({ snapshot: next.snapshot! });
    expect((await r.table('s', 't1')).columns.map((col) => [col.id, col.name, col.type])).toEqual([
      [1, 'a', 'int64'],
      [3, 'b', 'varchar'],
    ]);
    // Row ids continue across files of one table.
    const more = await c.transaction(async (tx) => {
      await tx.addDataFile('s', 't1', { path: 'c.parquet', recordCount: 5, fileSizeBytes: 1 });
    });
    const r2 = await c.reader({ snapshot: more.snapshot! });
    expect((await r2.dataFiles('s', 't1')).map((f) => [f.id, f.rowIdStart])).toEqual([
      [0, 0],
      [3, 10],
    ]);
    await Promise.all([r.close(), r2.close()]);
  });

  it('a drop ends the table, its columns and its files at the drop snapshot', async () => {
    const c = await openCatalog();
    await c.transaction(async (tx) => {
      await tx.createTable('main', 't', [{ name: 'a', type: 'int64' }]);
      const f = await tx.addDataFile('main', 't', { path: 't/1.parquet', recordCount: 4, fileSizeBytes: 1 });
      await tx.addDeleteFile('main', 't', { dataFileId: f, path: 't/1-d.parquet', deleteCount: 1, fileSizeBytes: 1 });
    });
    const { snapshot: dropAt } = await c.transaction((tx) => tx.dropTable('main', 't'));
    const r = await c.reader({ snapshot: dropAt! - 1 });
    // A reader at an earlier snapshot does not see the future: its answer never changes.
    expect((await r.dataFiles('main', 't')).map((f) => f.endSnapshot)).toEqual([null]);
    await r.close();
    const { removedFiles } = await c.changes('main', 't', { from: dropAt! - 1, to: dropAt! });
    expect(removedFiles.map((f) => [f.path, f.endSnapshot])).toEqual([['t/1.parquet', dropAt]]);
    const atDrop = await c.reader({ snapshot: dropAt! });
    expect(await atDrop.tables('main')).toEqual([]);
    await atDrop.close();
    // The name is free again, for a new table with a new id.
    const { snapshot } = await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'b', type: 'varchar' }]));
    const r2 = await c.reader({ snapshot: snapshot! });
    const t = await r2.table('main', 't');
    expect(t.columns.map((col) => col.name)).toEqual(['b']);
    expect(await r2.dataFiles('main', 't')).toEqual([]);
    await r2.close();
  });

  it('delete files are cumulative per data file; deleting every row retires the data file', async () => {
    const c = await openCatalog();
    await c.transaction(async (tx) => {
      await tx.createTable('main', 't', [{ name: 'a', type: 'int64' }]);
      await tx.addDataFile('main', 't', { path: 'f0.parquet', recordCount: 3, fileSizeBytes: 1 });
      await tx.addDataFile('main', 't', { path: 'f1.parquet', recordCount: 3, fileSizeBytes: 1 });
    });
    const del = async (dataFileId: number, deleteCount: number) =>
      c.transaction(async (tx) => {
        await tx.addDeleteFile('main', 't', { dataFileId, path: `d-${dataFileId}-${deleteCount}.parquet`, deleteCount, fileSizeBytes: 1 });
      });
    await del(0, 1);
    const { snapshot: s3 } = await del(0, 2);
    const r = await c.reader({ snapshot: s3! });
    expect((await r.deleteFiles('main', 't')).map((d) => [d.dataFileId, d.deleteCount])).toEqual([[0, 2]]);
    await r.close();
    const { snapshot: s4 } = await del(1, 3);
    const r4 = await c.reader({ snapshot: s4! });
    expect((await r4.dataFiles('main', 't')).map((f) => f.id)).toEqual([0]);
    expect((await r4.deleteFiles('main', 't')).map((d) => d.dataFileId)).toEqual([0]);
    await r4.close();
    // Removing a data file also ends its delete files.
    const { snapshot: s5 } = await c.transaction((tx) => tx.removeDataFile('main', 't', 0));
    const r5 = await c.reader({ snapshot: s5! });
    expect(await r5.dataFiles('main', 't')).toEqual([]);
    expect(await r5.deleteFiles('main', 't')).toEqual([]);
    await r5.close();
    expect((await c.snapshots()).at(-1)!.changes).toEqual(['deleted_from_table:1']);
  });

  it('operations issued without awaiting each run in order; a failed operation can be caught and the rest commits', async () => {
    const c = await openCatalog();
    const { snapshot } = await c.transaction(async (tx) => {
      await Promise.all([
        tx.createSchema('s'),
        tx.createTable('s', 't', [{ name: 'a', type: 'int64' }]),
        tx.addDataFile('s', 't', { path: 'x.parquet', recordCount: 1, fileSizeBytes: 1 }),
      ]);
      await expect(tx.createTable('s', 't', [{ name: 'a', type: 'int64' }])).rejects.toSatisfy((e) => isStrataError(e, 'ALREADY_EXISTS'));
      await expect(tx.dropSchema('s')).rejects.toSatisfy((e) => isStrataError(e, 'DEPENDENT_OBJECTS'));
      await tx.addColumn('s', 't', { name: 'b', type: 'varchar' });
    });
    const r = await c.reader({ snapshot: snapshot! });
    expect((await r.table('s', 't')).columns.map((col) => col.name)).toEqual(['a', 'b']);
    expect(await r.dataFiles('s', 't')).toHaveLength(1);
    await r.close();
  });

  it('a function that throws commits nothing, and a tx used after its function returned is refused', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    // The first id a process hands out claims a block of them (a log entry of its own); claimed here, so
    // that what follows is the transaction alone.
    await c.transaction(async (tx) => {
      await tx.createSchema('claims');
      await tx.dropSchema('claims');
    });
    const entries = await logObjects(dir);
    await expect(
      c.transaction(async (tx) => {
        await tx.createSchema('s');
        throw new Error('engine failed');
      }),
    ).rejects.toThrow('engine failed');
    let leaked: Parameters<Parameters<typeof c.transaction>[0]>[0] | undefined;
    await c.transaction((tx) => {
      leaked = tx;
    });
    await expect(leaked!.createSchema('late')).rejects.toSatisfy((e) => isStrataError(e, 'INVALID_ARGUMENT'));
    expect(await logObjects(dir)).toBe(entries);
    const r = await c.reader();
    expect((await r.schemas()).map((s) => s.name)).toEqual(['main']);
    await r.close();
  });

  it('options are catalog-wide values: set in a transaction, no snapshot of their own', async () => {
    const c = await openCatalog();
    const before = (await c.snapshots()).length;
    expect((await c.transaction((tx) => tx.setOption('target_file_size', '512MB'))).snapshot).toBeNull();
    expect(await c.options()).toEqual({ data_path: 'data/', target_file_size: '512MB' });
    expect((await c.snapshots()).length).toBe(before);
  });
});
