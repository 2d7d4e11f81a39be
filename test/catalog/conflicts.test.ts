// DuckLake's transaction_conflicts cases, as two writers with their own indexes on one store: the second
// writer builds its transaction on the same snapshot as the first, and the first commits while the second
// is creating its log entry — the exact interleaving of two machines racing.
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Catalog, type CommitMeta, isStrataError, type TransactionFn } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { FaultyStore } from '../store/doubles/faulty-store.js';
import { dumpCatalog, openCatalog, tempDir } from '../helpers.js';

const int = [{ name: 'i', type: 'int32' }];
const file = (p: string, recordCount = 10) => ({ path: p, recordCount, fileSizeBytes: 100 });

interface Race {
  first: Catalog;
  second: Catalog;
  /**
   * `theirs` runs on `first` and commits while `ours` (on `second`, built on the same snapshot) is being
   * written; `meta` is each side's commit meta (a compaction's `maintenance`).
   */
  race(theirs: TransactionFn, ours: TransactionFn, meta?: { theirs?: CommitMeta; ours?: CommitMeta }): Promise<{ snapshot: number | null } | Error>;
}

async function twoWriters(setup: TransactionFn = () => undefined): Promise<Race> {
  const root = await tempDir();
  const storePath = path.join(root, 'store');
  // The race is staged at the create of the second writer's log object: the object layout (rebase and the
  // conflict rules are the committer's, the same on both layouts; test/log/conformance/ races the logs).
  const first = await openCatalog({ dir: path.join(root, 'first'), store: { path: storePath }, logLayout: 'objects' });
  await first.transaction(setup);
  let pending: { fn: TransactionFn; meta: CommitMeta | undefined } | undefined;
  const racing = new FaultyStore(new DirectoryStore(storePath), {
    beforeCreate: async (key) => {
      const theirs = pending;
      if (!key.startsWith('log/') || theirs === undefined) return;
      pending = undefined;
      await first.transaction(theirs.fn, theirs.meta);
    },
  });
  const second = await openCatalog({ dir: path.join(root, 'second'), store: racing });
  return {
    first,
    second,
    async race(theirs, ours, meta = {}) {
      pending = { fn: theirs, meta: meta.theirs };
      return second.transaction(ours, meta.ours).catch((e: Error) => e);
    },
  };
}

function expectConflict(result: unknown, pattern: RegExp): void {
  expect(isStrataError(result, 'CONFLICT'), String(result)).toBe(true);
  expect((result as Error).message).toMatch(pattern);
}

describe('concurrent writers: what commutes', () => {
  it('two creations of tables with different names both land', async () => {
    const { first, second, race } = await twoWriters();
    const out = await race((tx) => tx.createTable('main', 'test2', int), (tx) => tx.createTable('main', 'test3', int));
    expect(out).toEqual({ snapshot: 2 });
    await first.refresh();
    const r = await first.reader();
    expect((await r.tables('main')).map((t) => t.name)).toEqual(['test2', 'test3']);
    // Ids were re-assigned: the two tables do not share one.
    const ids = (await r.tables('main')).map((t) => t.id);
    expect(new Set(ids).size).toBe(2);
    await r.close();
    expect(await dumpCatalog(second)).toEqual(await dumpCatalog(first));
  });

  it('inserts into one table commute: both files visible, file ids and row ids re-assigned', async () => {
    const { first, second, race } = await twoWriters((tx) => tx.createTable('main', 'test', int));
    const out = await race(
      (tx) => tx.addDataFile('main', 'test', file('a.parquet', 5)),
      async (tx) => {
        const id = await tx.addDataFile('main', 'test', file('b.parquet', 7));
        // A later operation naming the file id the first run returned still finds its file after the rebase.
        await tx.addDeleteFile('main', 'test', { dataFileId: id, path: 'b-del.parquet', deleteCount: 1, fileSizeBytes: 10 });
      },
    );
    expect(out).toEqual({ snapshot: 3 });
    const r = await second.reader();
    const files = await r.dataFiles('main', 'test');
    expect(files.map((f) => [f.path, f.rowIdStart])).toEqual([
      ['a.parquet', 0],
      ['b.parquet', 5],
    ]);
    expect(new Set(files.map((f) => f.id)).size).toBe(2);
    const deletes = await r.deleteFiles('main', 'test');
    expect(deletes.map((d) => [d.path, d.dataFileId])).toEqual([['b-del.parquet', files[1]!.id]]);
    await r.close();
    await first.refresh();
    expect(await dumpCatalog(first)).toEqual(await dumpCatalog(second));
  });

  it('tables of one name in two schemas both land', async () => {
    const { race } = await twoWriters(async (tx) => {
      await tx.createSchema('s1');
      await tx.createSchema('s2');
    });
    expect(await race((tx) => tx.createTable('s1', 'same', int), (tx) => tx.createTable('s2', 'same', int))).toEqual({ snapshot: 3 });
  });

  it('deletes from different files of one table land', async () => {
    const { second, race } = await twoWriters(async (tx) => {
      await tx.createTable('main', 't', int);
      await tx.addDataFile('main', 't', file('a.parquet'));
      await tx.addDataFile('main', 't', file('b.parquet'));
    });
    const [a, b] = (await (await second.reader()).dataFiles('main', 't')).map((f) => f.id);
    const out = await race(
      (tx) => tx.addDeleteFile('main', 't', { dataFileId: a!, path: 'a-del', deleteCount: 1, fileSizeBytes: 1 }),
      (tx) => tx.addDeleteFile('main', 't', { dataFileId: b!, path: 'b-del', deleteCount: 2, fileSizeBytes: 1 }),
    );
    expect(out).toEqual({ snapshot: 3 });
    const r = await second.reader();
    expect((await r.deleteFiles('main', 't')).map((d) => d.path).sort()).toEqual(['a-del', 'b-del']);
    await r.close();
  });
});

describe('concurrent writers: DuckLake conflicts', () => {
  const cases: [string, TransactionFn, TransactionFn, TransactionFn, RegExp][] = [
    ['two creations of one table name', (tx) => tx.createSchema('base'), (tx) => tx.createTable('main', 'test', int), (tx) => tx.createTable('main', 'test', int), /creates "main"."test"/],
    ['two drops of one table', (tx) => tx.createTable('main', 'test', int), (tx) => tx.dropTable('main', 'test'), (tx) => tx.dropTable('main', 'test'), /drops table \d+, but another transaction dropped it/],
    ['two creations of one schema', (tx) => tx.createSchema('base'), (tx) => tx.createSchema('s1'), (tx) => tx.createSchema('s1'), /creates schema "s1"/],
    ['two drops of one schema', (tx) => tx.createSchema('s1'), (tx) => tx.dropSchema('s1'), (tx) => tx.dropSchema('s1'), /drops schema \d+/],
    ['a create inside a dropped schema', (tx) => tx.createSchema('s1'), (tx) => tx.dropSchema('s1'), (tx) => tx.createTable('s1', 'tbl', int), /creates an entry in schema \d+, but another transaction dropped/],
    ['an insert into a dropped table', (tx) => tx.createTable('main', 'test', int), (tx) => tx.dropTable('main', 'test'), (tx) => tx.addDataFile('main', 'test', file('x')), /inserts into table \d+, but another transaction dropped it/],
    ['a drop of a schema another transaction created a table in', (tx) => tx.createSchema('s1'), (tx) => tx.createTable('s1', 'test', int), (tx) => tx.dropSchema('s1'), /drops schema "s1".*created an entry in it/],
    ['two alterations of one table', (tx) => tx.createTable('main', 'test', int), (tx) => tx.addColumn('main', 'test', { name: 'a', type: 'int32' }), (tx) => tx.addColumn('main', 'test', { name: 'b', type: 'int32' }), /alters table \d+, but another transaction altered it/],
    ['an insert into an altered table', (tx) => tx.createTable('main', 'test', int), (tx) => tx.renameTable('main', 'test', 'renamed'), (tx) => tx.addDataFile('main', 'test', file('x')), /inserts into table \d+, but another transaction altered it/],
    ['an alteration of a dropped table', (tx) => tx.createTable('main', 'test', int), (tx) => tx.dropTable('main', 'test'), (tx) => tx.addColumn('main', 'test', { name: 'b', type: 'int32' }), /alters table \d+, but another transaction dropped it/],
    ['two drops of one view', (tx) => tx.createView('main', 'v', 'select 1'), (tx) => tx.dropView('main', 'v'), (tx) => tx.dropView('main', 'v'), /drops view \d+/],
  ];
  for (const [name, setup, theirs, ours, pattern] of cases) {
    it(`${name}: CONFLICT naming the other snapshot, nothing written`, async () => {
      const { first, second, race } = await twoWriters(setup);
      const out = await race(theirs, ours);
      expectConflict(out, pattern);
      expect((out as { snapshot?: number }).snapshot).toBe(2);
      await first.refresh();
      expect((await second.snapshots()).map((s) => s.id)).toEqual([0, 1, 2]);
      expect(await dumpCatalog(second)).toEqual(await dumpCatalog(first));
    });
  }

  it('overlapping deletes of one data file: CONFLICT; the first delete stays whole', async () => {
    const { second, race } = await twoWriters(async (tx) => {
      await tx.createTable('main', 't', int);
      await tx.addDataFile('main', 't', file('a.parquet'));
    });
    const [a] = (await (await second.reader()).dataFiles('main', 't')).map((f) => f.id);
    const out = await race(
      (tx) => tx.addDeleteFile('main', 't', { dataFileId: a!, path: 'first-del', deleteCount: 1, fileSizeBytes: 1 }),
      (tx) => tx.addDeleteFile('main', 't', { dataFileId: a!, path: 'second-del', deleteCount: 2, fileSizeBytes: 1 }),
    );
    expectConflict(out, new RegExp(`deletes from data file ${a}.*another transaction deleted from it`));
    const r = await second.reader();
    expect((await r.deleteFiles('main', 't')).map((d) => d.path)).toEqual(['first-del']);
    await r.close();
  });

  it('a delete from a file another transaction removed: CONFLICT', async () => {
    const { second, race } = await twoWriters(async (tx) => {
      await tx.createTable('main', 't', int);
      await tx.addDataFile('main', 't', file('a.parquet'));
    });
    const [a] = (await (await second.reader()).dataFiles('main', 't')).map((f) => f.id);
    const out = await race(
      (tx) => tx.removeDataFile('main', 't', a!),
      (tx) => tx.addDeleteFile('main', 't', { dataFileId: a!, path: 'late-del', deleteCount: 1, fileSizeBytes: 1 }),
    );
    expectConflict(out, /deletes from data file/);
  });

  it('a delete from a file whose deleted rows a restore brought back: CONFLICT, and the restore stands', async () => {
    const { first, second, race } = await twoWriters(async (tx) => {
      await tx.createTable('main', 't', int);
      await tx.addDataFile('main', 't', file('a.parquet'));
    });
    const clean = (await first.snapshots()).at(-1)!.id;
    const [a] = (await (await first.reader()).dataFiles('main', 't')).map((f) => f.id);
    await first.transaction((tx) => tx.addDeleteFile('main', 't', { dataFileId: a!, path: 'del-1', deleteCount: 1, fileSizeBytes: 1 }));
    await second.refresh();
    // Ours replaces del-1 with a cumulative delete file worked out on it; theirs brings del-1's row back.
    const out = await race(
      (tx) => tx.restoreTable('main', 't', clean),
      (tx) => tx.addDeleteFile('main', 't', { dataFileId: a!, path: 'del-2', deleteCount: 2, fileSizeBytes: 1 }),
    );
    expectConflict(out, /deletes from data file/);
    await first.refresh();
    const restored = (await first.snapshots()).at(-1)!;
    expect(restored.changes).toEqual(['inserted_into_table:1', 'restored_table:1']);
    const r = await first.reader();
    expect(await r.deleteFiles('main', 't')).toEqual([]);
    await r.close();
  });

  it('a compaction and a delete meet on files: deletes from other files land beside it, a delete from a file it rewrites is CONFLICT, in either order', async () => {
    const setup: TransactionFn = async (tx) => {
      await tx.createTable('main', 't', int);
      for (const p of ['a', 'b', 'c']) await tx.addDataFile('main', 't', file(p));
    };
    // A maintenance commit that rewrites a and b into ab, as catalog.compact commits one.
    const compaction = (ids: number[]): TransactionFn => async (tx) => {
      await tx.removeDataFile('main', 't', ids[0]!);
      await tx.removeDataFile('main', 't', ids[1]!);
      await tx.addDataFile('main', 't', file('ab', 20));
    };
    const del = (id: number, p: string): TransactionFn => (tx) => tx.addDeleteFile('main', 't', { dataFileId: id, path: p, deleteCount: 1, fileSizeBytes: 1 });
    const maintenance = { maintenance: true } as const;
    const ids = async (c: Catalog) => (await (await c.reader()).dataFiles('main', 't')).map((f) => f.id);

    const landed = async (w: Race) => {
      await w.first.refresh();
      const r = await w.first.reader();
      const out = { files: (await r.dataFiles('main', 't')).map((f) => f.path), deletes: (await r.deleteFiles('main', 't')).map((d) => d.path) };
      await r.close();
      return out;
    };
    // Theirs deletes from c, ours compacts a and b; then the other way round: both land, in either order.
    for (const oursCompacts of [true, false]) {
      const w = await twoWriters(setup);
      const [a, b, c] = await ids(w.second);
      const out = oursCompacts
        ? await w.race(del(c!, 'c-del'), compaction([a!, b!]), { ours: maintenance })
        : await w.race(compaction([a!, b!]), del(c!, 'c-del'), { theirs: maintenance });
      expect(out, String(out)).toMatchObject({ snapshot: 3 });
      expect(await landed(w)).toEqual({ files: ['c', 'ab'], deletes: ['c-del'] });
    }
    // A delete from a, then the compaction of a and b, which read a without it: its row would come back. CONFLICT.
    let w = await twoWriters(setup);
    let [a, b] = await ids(w.second);
    expectConflict(await w.race(del(a!, 'a-del'), compaction([a!, b!]), { ours: maintenance }), new RegExp(`rewrites data file ${a}.*deleted from it`));
    // The compaction of a and b, then a delete from a worked out before it: CONFLICT.
    w = await twoWriters(setup);
    [a, b] = await ids(w.second);
    expectConflict(await w.race(compaction([a!, b!]), del(a!, 'a-del'), { theirs: maintenance }), new RegExp(`deletes from data file ${a}.*removed it`));
  });

  it('a restore of a table another transaction inserted into, with something to undo: CONFLICT', async () => {
    const { first, race } = await twoWriters(async (tx) => {
      await tx.createTable('main', 't', int);
    });
    await first.transaction((tx) => tx.addDataFile('main', 't', file('old')));
    const out = await race((tx) => tx.addDataFile('main', 't', file('new')), (tx) => tx.restoreTable('main', 't', 1));
    expectConflict(out, /restores table \d+, but another transaction changed it/);
  });

  it('basedOn: a transaction worked out at an older snapshot is checked against every commit since, even in one process', async () => {
    const c = await openCatalog();
    await c.transaction(async (tx) => {
      await tx.createTable('main', 't', int);
      await tx.addDataFile('main', 't', file('a.parquet'));
      await tx.addDataFile('main', 't', file('b.parquet'));
    });
    const read = (await c.snapshots()).at(-1)!.id;
    const [a, b] = (await (await c.reader()).dataFiles('main', 't')).map((f) => f.id);
    await c.transaction((tx) => tx.addDeleteFile('main', 't', { dataFileId: a!, path: 'seen-not', deleteCount: 1, fileSizeBytes: 1 }));
    const late = (tx: Parameters<TransactionFn>[0]) => tx.addDeleteFile('main', 't', { dataFileId: a!, path: 'late', deleteCount: 2, fileSizeBytes: 1 });
    // Without basedOn the replacement would silently drop the delete it never saw; with it, CONFLICT.
    const out = await c.transaction(late, { basedOn: read }).catch((e: Error) => e);
    expectConflict(out, /deletes from data file/);
    // Another data file of the same table does not conflict; a snapshot past the head is refused.
    await c.transaction((tx) => tx.addDeleteFile('main', 't', { dataFileId: b!, path: 'other', deleteCount: 1, fileSizeBytes: 1 }), { basedOn: read });
    const future = await c.transaction(late, { basedOn: read + 100 }).catch((e: Error) => e);
    expect(isStrataError(future, 'INVALID_ARGUMENT')).toBe(true);
    expect((await (await c.reader()).deleteFiles('main', 't')).map((d) => d.path).sort()).toEqual(['other', 'seen-not']);
    // A data file removed since basedOn: the delete from it is CONFLICT, not NOT_FOUND (it existed when the
    // writes were worked out); without basedOn it is the caller's mistake.
    await c.transaction((tx) => tx.removeDataFile('main', 't', b!));
    const gone = (tx: Parameters<TransactionFn>[0]) => tx.addDeleteFile('main', 't', { dataFileId: b!, path: 'gone', deleteCount: 1, fileSizeBytes: 1 });
    expectConflict(await c.transaction(gone, { basedOn: read }).catch((e: Error) => e), /removed at snapshot \d+, by a commit after snapshot/);
    expect(isStrataError(await c.transaction(gone).catch((e: Error) => e), 'NOT_FOUND')).toBe(true);
  });
});
