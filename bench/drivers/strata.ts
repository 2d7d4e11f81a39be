import { Catalog, type Reader } from '../../src/index.js';
import { COLUMNS, type Driver, type DriverOptions, type FileSpec } from './driver.js';

export async function openStrata(opts: DriverOptions): Promise<Driver> {
  // No automatic checkpoints: they run in the background every 1,000 entries, so one started by a build
  // would compete with the timed reads after it. The bootstrap section measures checkpoints.
  const logLayout = opts.logLayout ?? 'segments';
  const catalog = await Catalog.open({ dir: opts.dir, durability: opts.durable ? 'durable' : 'relaxed', checkpointEvery: 0, logLayout });
  // Readers are pinned to a snapshot; a planner keeps one per query, so the benchmark keeps one per snapshot.
  const readers = new Map<number, Reader>();
  const readerAt = async (snapshot: number) => {
    let r = readers.get(snapshot);
    if (!r) readers.set(snapshot, (r = await catalog.reader({ snapshot })));
    return r;
  };
  const commit = async (fn: Parameters<Catalog['transaction']>[0]) => (await catalog.transaction(fn)).snapshot!;
  // Each table's live file ids, oldest first: what replaceFiles ends (the peer picks them by id in SQL).
  const liveFiles = new Map<string, number[]>();
  const live = (table: string) => liveFiles.get(table) ?? liveFiles.set(table, []).get(table)!;
  // An engine plans over files in the batches the reader hands out (the peer's rows come synchronously).
  const count = async (batches: AsyncIterable<unknown[]>) => {
    let n = 0;
    for await (const batch of batches) n += batch.length;
    return n;
  };
  return {
    side: logLayout === 'segments' ? 'strata' : 'strata-objects',
    durability: {
      segments: opts.durable ? 'segmented log: one pwrite + fdatasync per log entry' : 'relaxed segmented log: one pwrite, no sync',
      objects: opts.durable ? 'log object: fdatasync + link + directory fsync' : 'relaxed: log object fdatasync + link, no directory fsync',
    }[logLayout],
    createTables: (names, columns = COLUMNS) =>
      commit(async (tx) => {
        for (const n of names) await tx.createTable('main', n, columns);
      }),
    renameTables: (pairs) =>
      commit(async (tx) => {
        for (const [from, to] of pairs) await tx.renameTable('main', from, to);
      }),
    // A commit of several files registers them in one call, as DuckLake's ducklake_add_data_files takes a
    // list (and the peer inserts them in one SQLite transaction, a prepared statement per file); one file
    // through addDataFile, the call a caller with one file makes.
    addFiles: (table, files: FileSpec[]) =>
      commit(async (tx) => {
        const specs = files.map((f) => ({ path: f.path, recordCount: f.rows, fileSizeBytes: f.bytes }));
        if (specs.length === 1) live(table).push(await tx.addDataFile('main', table, specs[0]!));
        else live(table).push(...(await tx.addDataFiles('main', table, specs)));
      }),
    replaceFiles: (table, remove, files: FileSpec[]) =>
      commit(async (tx) => {
        for (const id of live(table).splice(0, remove)) await tx.removeDataFile('main', table, id);
        live(table).push(...(await tx.addDataFiles('main', table, files.map((f) => ({ path: f.path, recordCount: f.rows, fileSizeBytes: f.bytes })))));
      }),
    resolve: async (snapshot, table) => (await (await readerAt(snapshot)).table('main', table)).columns.length,
    resolveOnce: async (snapshot, table) => {
      const r = await catalog.reader({ snapshot });
      try {
        return (await r.table('main', table)).columns.length;
      } finally {
        await r.close();
      }
    },
    listFiles: async (snapshot, table) => count((await readerAt(snapshot)).dataFileBatches('main', table)),
    plan: async (snapshot, table) => {
      const r = await catalog.reader({ snapshot });
      try {
        await r.table('main', table);
        return await count(r.dataFileBatches('main', table));
      } finally {
        await r.close();
      }
    },
    createTag: (name, snapshot) => catalog.createTag(name, snapshot),
    snapshotBy: async (sel) => {
      const r = await catalog.reader('id' in sel ? { snapshot: sel.id } : 'time' in sel ? { timestamp: sel.time } : { tag: sel.tag });
      await r.close();
      return r.snapshot.id;
    },
    timeRange: async () => {
      const [first, newest] = [await catalog.reader({ snapshot: 0 }), await catalog.reader()];
      await Promise.all([first.close(), newest.close()]);
      return [first.snapshot.time.getTime(), newest.snapshot.time.getTime()];
    },
    close: async () => {
      await catalog.close();
    },
  };
}
