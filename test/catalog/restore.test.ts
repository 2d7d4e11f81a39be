import { describe, expect, it } from 'vitest';
import { type Catalog, isStrataError } from '../../src/index.js';
import { openCatalog, readAll, tempDir } from '../helpers.js';
import { runCli } from '../support/run-cli.js';

/** What a reader sees, without the ids and snapshots a restore legitimately renumbers. */
async function contents(c: Catalog, snapshot: number) {
  const all = await readAll(c, snapshot);
  return all.schemas.map((s) => ({
    schema: s.schema,
    views: s.views.map((v) => [v.name, v.sql]),
    tables: s.tables.map((t) => ({
      id: t.table.id,
      name: t.table.name,
      columns: t.table.columns.map((col) => [col.id, col.name, col.type, col.order]),
      files: t.dataFiles.map((f) => [f.path, f.recordCount, f.rowIdStart]).sort(),
      deletes: t.deleteFiles.map((d) => [d.path, d.deleteCount]).sort(),
    })),
  }));
}

describe('restore', () => {
  it('restoreTable after a bad write: readers see the good state again; the bad snapshot stays readable', async () => {
    const c = await openCatalog();
    await c.transaction(async (tx) => {
      await tx.createTable('main', 'orders', [{ name: 'id', type: 'int64' }, { name: 'amount', type: 'decimal(12,2)' }]);
      const f = await tx.addDataFile('main', 'orders', { path: 'good-1.parquet', recordCount: 10, fileSizeBytes: 100 });
      await tx.addDeleteFile('main', 'orders', { dataFileId: f, path: 'good-1-del.parquet', deleteCount: 2, fileSizeBytes: 10 });
      await tx.addDataFile('main', 'orders', { path: 'good-2.parquet', recordCount: 5, fileSizeBytes: 50 });
    });
    const { snapshot: good } = await c.transaction((tx) => tx.addDataFile('main', 'orders', { path: 'good-3.parquet', recordCount: 1, fileSizeBytes: 9 }));
    const before = await contents(c, good!);
    const { snapshot: bad } = await c.transaction(async (tx) => {
      await tx.removeDataFile('main', 'orders', 0); // takes its delete file with it
      await tx.addDataFile('main', 'orders', { path: 'bad.parquet', recordCount: 1000, fileSizeBytes: 1 });
      await tx.dropColumn('main', 'orders', 'amount');
      await tx.addColumn('main', 'orders', { name: 'oops', type: 'varchar' });
    });
    const badContents = await contents(c, bad!);

    const { snapshot: restored } = await c.restoreTable('main', 'orders', good!);
    expect(restored).toBe(bad! + 1);
    expect(await contents(c, restored!)).toEqual(before);
    expect(await contents(c, bad!)).toEqual(badContents);
    const info = (await c.snapshots()).at(-1)!;
    expect(info.message).toBe('restore "main"."orders" to snapshot 2');
    expect(info.changes).toEqual(expect.arrayContaining(['inserted_into_table:1', 'deleted_from_table:1', 'altered_table:1']));
    // "previous" after a restore is the state before it.
    const prev = await c.reader({ previous: true });
    expect(prev.snapshot.id).toBe(bad);
    await prev.close();
    // Restoring again changes nothing, so it commits nothing.
    expect((await c.restoreTable('main', 'orders', good!)).snapshot).toBeNull();
  });

  it('restoreCatalog brings back dropped schemas and tables with their ids, and drops what came later', async () => {
    const c = await openCatalog();
    await c.transaction(async (tx) => {
      await tx.createSchema('sales');
      await tx.createTable('sales', 'orders', [{ name: 'id', type: 'int64' }]);
      await tx.addDataFile('sales', 'orders', { path: 'o.parquet', recordCount: 3, fileSizeBytes: 3 });
      await tx.createView('sales', 'v', 'SELECT 1');
      await tx.createTable('main', 'keep', [{ name: 'k', type: 'varchar' }]);
    });
    const { snapshot: s1 } = await c.transaction((tx) => tx.renameTable('main', 'keep', 'kept'));
    const target = await contents(c, s1!);
    await c.transaction((tx) => tx.dropSchema('sales', { cascade: true }));
    await c.transaction(async (tx) => {
      await tx.createTable('main', 'later', [{ name: 'x', type: 'int64' }]);
      await tx.renameTable('main', 'kept', 'renamed_again');
      await tx.addColumn('main', 'renamed_again', { name: 'extra', type: 'int64' });
    });
    const { snapshot } = await c.restoreCatalog(s1!);
    expect(await contents(c, snapshot!)).toEqual(target);
  });

  it('a dropped table a catalog restore brings back counts its files once, keeps its row ids taken, and takes new rows under fresh ids', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (id BIGINT, v VARCHAR)');
    await c.sql(`INSERT INTO t VALUES (1, 'a'), (2, 'b')`);
    const full = (await c.snapshots()).at(-1)!.id;
    await c.sql('CREATE TABLE empty_one (x INTEGER)');
    await c.sql('DROP TABLE t');
    await c.sql('DROP TABLE empty_one');
    // The drop kept t's stats (DuckLake's table_stats show its last state); they counted its file twice after the restore.
    await c.restoreCatalog(full + 1);
    expect((await c.verify()).violations).toEqual([]);
    await c.sql(`INSERT INTO t VALUES (3, 'c')`);
    await c.sql('INSERT INTO empty_one VALUES (7)');
    expect((await c.verify()).violations).toEqual([]);
    // Rows 1 and 2 are inserted twice (at the INSERT, and brought back by the restore) under their ids; 3 gets a fresh one.
    const inserts = (await c.tableChanges('main', 't', { from: 1, to: (await c.snapshots()).at(-1)!.id })).rows.filter((r) => r.change_type === 'insert');
    const rowIdOf = new Map<unknown, Set<unknown>>();
    for (const r of inserts) rowIdOf.set(r.id, (rowIdOf.get(r.id) ?? new Set()).add(r.rowid));
    expect([...rowIdOf.values()].map((x) => x.size)).toEqual([1, 1, 1]);
    expect(new Set([...rowIdOf.values()].map((x) => [...x][0])).size).toBe(3);
    expect((await c.sql('SELECT id FROM t ORDER BY id')).rows.map((r) => r.id)).toEqual([1n, 2n, 3n]);
  });

  it('changes_made says what a restore did: rows brought back are inserted, rows taken away deleted, and the table restored', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    await c.sql('CREATE TABLE t (id BIGINT)');
    const r = await c.reader();
    const tableId = (await r.table('main', 't')).id;
    await r.close();
    const inserted = (await c.sql('INSERT INTO t VALUES (1), (2), (3)')).snapshot!;
    await c.sql('DELETE FROM t WHERE id = 2');
    // Only the delete file ends: row 2 comes back, nothing is deleted.
    const back = await c.restoreTable('main', 't', inserted);
    expect((await c.snapshots()).at(-1)!.changes).toEqual([`inserted_into_table:${tableId}`, `restored_table:${tableId}`]);
    // Rows added since go: deleted, and nothing inserted.
    await c.sql('INSERT INTO t VALUES (4)');
    await c.restoreTable('main', 't', back.snapshot!);
    expect((await c.snapshots()).at(-1)!.changes).toEqual([`deleted_from_table:${tableId}`, `restored_table:${tableId}`]);
    await c.close();
    const listed = await runCli('snapshots', '--dir', dir, '--from', String(back.snapshot));
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('inserted into main.t; restored main.t');
    expect(listed.stdout).toContain('deleted from main.t; restored main.t');
  });

  it('a delete of every row and a restore in one transaction: the delete file, never visible, is recorded as such and not ended again', async () => {
    const c = await openCatalog();
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    let file = 0;
    const { snapshot: withFile } = await c.transaction(async (tx) => {
      file = await tx.addDataFile('main', 't', { path: 'a.parquet', recordCount: 10, fileSizeBytes: 100 });
    });
    await c.transaction((tx) => tx.addDeleteFile('main', 't', { path: 'd1.parquet', dataFileId: file, deleteCount: 3, fileSizeBytes: 7 }));
    await c.transaction(async (tx) => {
      await tx.addDeleteFile('main', 't', { path: 'd2.parquet', dataFileId: file, deleteCount: 10, fileSizeBytes: 9 });
      await tx.restoreTable('main', 't', withFile!);
    });
    expect((await c.verify()).violations).toEqual([]);
    const r = await c.reader();
    expect((await r.dataFiles('main', 't')).map((f) => f.path)).toEqual(['a.parquet']);
    expect(await r.deleteFiles('main', 't')).toEqual([]);
    expect(await r.tableTotals('main', 't')).toEqual({ dataFiles: 1, dataBytes: 100, deleteFiles: 0, deleteBytes: 0, rows: 10 });
    await r.close();
    await c.close();
  });

  it('refuses snapshots that do not exist and tables that did not exist then', async () => {
    const c = await openCatalog();
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    await expect(c.restoreTable('main', 't', 99)).rejects.toSatisfy((e) => isStrataError(e, 'SNAPSHOT_NOT_FOUND'));
    await expect(c.restoreTable('main', 't', 0)).rejects.toSatisfy((e) => isStrataError(e, 'NOT_FOUND'));
    await expect(c.restoreTable('main', 'nope', 1)).rejects.toSatisfy((e) => isStrataError(e, 'NOT_FOUND'));
    await expect(c.restoreCatalog(-1)).rejects.toSatisfy((e) => isStrataError(e, 'INVALID_ARGUMENT'));
  });
});
