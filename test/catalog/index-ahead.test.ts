// An index is a cache of a prefix of its store's log. When the store holds less than the index applied (put
// back from an older copy; a relaxed-mode machine crash that lost an entry's name but not the index's
// write), or other entries under the same numbers, opening rebuilds the index from the store.
import { cp, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { FaultyStore } from '../store/doubles/faulty-store.js';
import { dumpCatalog, tempDir } from '../helpers.js';
import { SEGMENTS_DIR } from '../../src/log/segment-file.js';
import { layoutOf } from '../support/store-log.js';

async function commitFile(dir: string, storePath: string, file: string, opts: { checkpoint?: boolean } = {}) {
  const c = await Catalog.open({ dir, store: { path: storePath }, checkpointEvery: 0 });
  try {
    await c.transaction((tx) => tx.addDataFile('main', 't', { path: file, recordCount: 1, fileSizeBytes: 10 }));
    if (opts.checkpoint) await c.checkpoint();
  } finally {
    await c.close();
  }
}

async function files(dir: string, storePath: string): Promise<{ files: string[]; dump: unknown }> {
  const c = await Catalog.open({ dir, store: { path: storePath }, checkpointEvery: 0 });
  try {
    const r = await c.reader();
    const out = (await r.dataFiles('main', 't')).map((f) => f.path);
    await r.close();
    return { files: out, dump: await dumpCatalog(c) };
  } finally {
    await c.close();
  }
}

/** A store with table t and file a (log entries 1-3, a checkpoint at 3 unless not asked), its index, and a copy of the store then. */
async function storeWithBackup(opts: { checkpoint: boolean } = { checkpoint: true }) {
  const root = await tempDir();
  const storePath = path.join(root, 'store');
  const backup = path.join(root, 'backup');
  const dir = path.join(root, 'index-a');
  const c = await Catalog.open({ dir, store: { path: storePath }, checkpointEvery: 0 });
  await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
  await c.close();
  await commitFile(dir, storePath, 'a.parquet', opts);
  await cp(storePath, backup, { recursive: true });
  return { root, storePath, backup, dir };
}

async function putBack(storePath: string, backup: string) {
  await rm(storePath, { recursive: true });
  await cp(backup, storePath, { recursive: true });
}

describe('an index ahead of its store', () => {
  it('the store put back from an older copy: the index forgets what the store lost, and its next commit follows the store', async () => {
    const { root, storePath, backup, dir } = await storeWithBackup();
    await commitFile(dir, storePath, 'b.parquet');
    await commitFile(dir, storePath, 'c.parquet');
    await putBack(storePath, backup);

    expect((await files(dir, storePath)).files).toEqual(['a.parquet']);
    await commitFile(dir, storePath, 'd.parquet');
    const here = await files(dir, storePath);
    expect(here.files).toEqual(['a.parquet', 'd.parquet']);
    // A new machine reads the same log to the same answers: the commit landed where every reader finds it.
    expect(await files(path.join(root, 'index-new'), storePath)).toEqual(here);
  });

  it('a checkpoint the log does not reach is passed over: the rebuild starts from one it does', async () => {
    const { storePath, backup, dir } = await storeWithBackup();
    await commitFile(dir, storePath, 'b.parquet');
    await commitFile(dir, storePath, 'c.parquet', { checkpoint: true });
    // Only the log goes back: the checkpoint of entry 5 stays, ahead of it.
    const logDir = (await layoutOf(storePath)) === 'objects' ? 'log' : SEGMENTS_DIR;
    await rm(path.join(storePath, logDir), { recursive: true });
    await cp(path.join(backup, logDir), path.join(storePath, logDir), { recursive: true });

    const here = await files(dir, storePath);
    expect(here.files).toEqual(['a.parquet']);
    await commitFile(dir, storePath, 'd.parquet');
    expect((await files(dir, storePath)).files).toEqual(['a.parquet', 'd.parquet']);
  });

  it('other entries under the numbers it applied: the index takes the store\'s (rebuilt from entry 1: no checkpoint)', async () => {
    const { root, storePath, backup, dir } = await storeWithBackup({ checkpoint: false });
    await commitFile(dir, storePath, 'b.parquet');
    await putBack(storePath, backup);
    // Another writer, from its own index, commits at the number the first index already applied.
    await commitFile(path.join(root, 'index-b'), storePath, 'e.parquet');

    const here = await files(dir, storePath);
    expect(here.files).toEqual(['a.parquet', 'e.parquet']);
    expect(await files(path.join(root, 'index-new'), storePath)).toEqual(here);
  });

  it('an index that matches its store is kept: opening reads no checkpoint', async () => {
    const { storePath, dir } = await storeWithBackup();
    await commitFile(dir, storePath, 'b.parquet');
    const read: string[] = [];
    const store = new FaultyStore(new DirectoryStore(storePath), { beforeGet: (key) => void read.push(key) });
    const c = await Catalog.open({ dir, store, checkpointEvery: 0 });
    const r = await c.reader();
    expect((await r.dataFiles('main', 't')).map((f) => f.path)).toEqual(['a.parquet', 'b.parquet']);
    await r.close();
    await c.close();
    expect(read.filter((k) => k.startsWith('checkpoints/'))).toEqual([]);
  });
});
