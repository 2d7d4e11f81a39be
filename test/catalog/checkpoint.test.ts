import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LogLayout } from '../../src/log/open-log.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { FaultyStore } from '../store/doubles/faulty-store.js';
import { dumpCatalog, openCatalog, tempDir } from '../helpers.js';

async function build(dir: string, commits: number, checkpointEvery = 0, logLayout?: LogLayout) {
  const c = await openCatalog({ dir, checkpointEvery, ...(logLayout === undefined ? {} : { logLayout }) });
  await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
  for (let i = 0; i < commits; i++) {
    await c.transaction(async (tx) => {
      await tx.addDataFile('main', 't', { path: `f${i}.parquet`, recordCount: i + 1, fileSizeBytes: 10 });
      if (i % 4 === 0) await tx.addColumn('main', 't', { name: `c${i}`, type: 'varchar' });
    });
  }
  return c;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('checkpoints', () => {
  it('a new machine bootstraps from the newest checkpoint and replays only the log after it', async () => {
    const dir = await tempDir();
    // Counted as reads of log objects (the object layout; segments are read by offset, not entry by entry).
    const c = await build(dir, 12, undefined, 'objects');
    await c.createTag('pinned', 3);
    const cp = await c.checkpoint();
    expect(cp.seq).toBe(16); // init + the first id claim + create + 12 commits + tag
    expect(cp.keys).toBeGreaterThan(30);
    for (let i = 0; i < 3; i++) await c.transaction((tx) => tx.addDataFile('main', 't', { path: `late${i}`, recordCount: 1, fileSizeBytes: 1 }));
    const expected = await dumpCatalog(c);

    const logReads: string[] = [];
    const store = new FaultyStore(new DirectoryStore(path.join(dir, 'store')), {
      beforeGet: (key) => void (key.startsWith('log/') && logReads.push(key)),
    });
    const fresh = await openCatalog({ dir: await tempDir(), store, readOnly: true });
    // Opening read entry 1 (the catalog's identity), the checkpoint's own entry (the log must reach it), and
    // the tail after the checkpoint (17–19), reading ahead of it one more entry after each it found: so past
    // the end 20 (the next entry), 21 (the one after it, which would make a gap of the missing one), and the
    // two reads the read-ahead had asked for beyond them.
    expect(logReads.map((k) => Number(k.slice(4)))).toEqual([1, 16, 17, 18, 19, 20, 21, 22, 23]);
    expect(await dumpCatalog(fresh)).toEqual(expected);
    expect((await fresh.tags()).map((t) => t.name)).toEqual(['pinned']);
    // Each reader since only probed for a newer entry (and the one after it).
    expect(new Set(logReads.slice(9))).toEqual(new Set(['log/00000000000000000020', 'log/00000000000000000021']));
  });

  it('are written automatically every N entries in the background; one due meanwhile is owed; an incomplete one (no manifest) is ignored', async () => {
    const dir = await tempDir();
    const manifest = (seq: number) => path.join(dir, 'store', 'checkpoints', String(seq).padStart(20, '0'), 'manifest');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const store = new FaultyStore(new DirectoryStore(path.join(dir, 'store')), {
      beforeCreate: async (key) => void (key.startsWith('checkpoints/00000000000000000003') && (await held)),
    });
    const c = await openCatalog({ dir, store, checkpointEvery: 3 });
    const commit = (i: number) => c.transaction((tx) => tx.addDataFile('main', 't', { path: `f${i}`, recordCount: 1, fileSizeBytes: 1 }));
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }])); // entry 3 (1 created the catalog, 2 claimed ids)
    // Entry 3 starts checkpoint 3, which the store holds: the commits after it do not wait for it, and
    // entry 6, reached while it is being written, is owed: once 3 is done, the newest state (7) is written.
    for (let i = 4; i <= 7; i++) await commit(i);
    expect(existsSync(manifest(3))).toBe(false);
    release();
    await vi.waitFor(() => expect(existsSync(manifest(7))).toBe(true), { timeout: 20_000 });
    expect(existsSync(manifest(3))).toBe(true);
    await commit(8);
    await commit(9); // entry 9
    await c.close(); // waits for checkpoint 9
    expect((await readdir(path.join(dir, 'store', 'checkpoints'))).map(Number)).toEqual([3, 7, 9]);
    expect(existsSync(manifest(9))).toBe(true);
    // A checkpoint whose writer died before its manifest: the previous one is used.
    await rm(manifest(9));
    const fresh = await openCatalog({ dir: await tempDir(), store: { path: path.join(dir, 'store') }, readOnly: true });
    const again = await openCatalog({ dir });
    expect(await dumpCatalog(fresh)).toEqual(await dumpCatalog(again));
  });

  it('are written after a million keys written, however few the entries, counted from the last checkpoint taken, explicit ones too', async () => {
    const dir = await tempDir();
    let c = await openCatalog({ dir, durability: 'relaxed' });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    // Two keys a file (its row and its path's) and a few a commit: three commits of 150,000 files write
    // fewer than CHECKPOINT_EVERY_WRITES, four more, all some 1,000 entries short of checkpointEvery's default.
    const commit = (n: number) => c.transaction((tx) => tx.addDataFiles('main', 't', Array.from({ length: 150_000 }, (_, i) => ({ path: `f${n}/${i}`, recordCount: 1, fileSizeBytes: 1 }))));
    const checkpoints = async () => (await readdir(path.join(dir, 'store', 'checkpoints'))).map(Number);
    for (let n = 0; n < 3; n++) await commit(n);
    const explicit = await c.checkpoint();
    // The count starts again at the explicit checkpoint: a fourth commit is not due (close waits for any under way).
    await commit(3);
    await c.close();
    expect(await checkpoints()).toEqual([explicit.seq]);
    // A process counts its own entries: four commits of a new one are.
    c = await openCatalog({ dir, durability: 'relaxed' });
    for (let n = 4; n < 8; n++) await commit(n);
    await c.close();
    const written = await checkpoints();
    expect(written).toHaveLength(2);
    expect(written[0]).toBe(explicit.seq);
  }, 120_000);

  it('an automatic checkpoint prunes the ones it supersedes (the newest two stay); an explicit one does not', async () => {
    const dir = await tempDir();
    const onDisk = async () => (await readdir(path.join(dir, 'store', 'checkpoints'))).map(Number);
    // The catalog's clock runs two hours ahead of the store's: every superseded checkpoint is old enough.
    const c = await openCatalog({ dir, checkpointEvery: 7, clock: () => Date.now() + 2 * 3600 * 1000 });
    const commit = (i: number) => c.transaction((tx) => tx.addDataFile('main', 't', { path: `f${i}`, recordCount: 1, fileSizeBytes: 1 }));
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }])); // entry 2 claims ids, entry 3 creates
    for (let i = 4; i <= 6; i++) {
      await commit(i);
      await c.checkpoint();
    }
    expect(await onDisk()).toEqual([4, 5, 6]);
    await commit(7); // entry 7: the automatic checkpoint, then the prune
    await c.close(); // waits for both
    expect(await onDisk()).toEqual([6, 7]);
    const fresh = await openCatalog({ dir: await tempDir(), store: { path: path.join(dir, 'store') }, readOnly: true });
    expect(await dumpCatalog(fresh)).toEqual(await dumpCatalog(await openCatalog({ dir })));
  });

  it('an automatic checkpoint that fails leaves the commit it followed committed, and says so in followStatus', async () => {
    const dir = await tempDir();
    const store = new FaultyStore(new DirectoryStore(path.join(dir, 'store')), {
      beforeCreate: (key) => {
        if (key.startsWith('checkpoints/')) throw new Error('disk full');
      },
    });
    const c = await openCatalog({ dir, store, checkpointEvery: 3 });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    const { snapshot } = await c.transaction((tx) => tx.addDataFile('main', 't', { path: 'f', recordCount: 1, fileSizeBytes: 1 }));
    expect(snapshot).toBe(2);
    await c.close();
    expect(c.followStatus().lastError).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(c.followStatus().lastError!.message).toContain('disk full');
    const again = await openCatalog({ dir });
    const r = await again.reader();
    expect((await r.dataFiles('main', 't')).map((f) => f.path)).toEqual(['f']);
    await r.close();
  });

  it('a read-only process cannot write one', async () => {
    const dir = await tempDir();
    await (await build(dir, 1)).close();
    const ro = await openCatalog({ dir: await tempDir(), store: { path: path.join(dir, 'store') }, readOnly: true });
    await expect(ro.checkpoint()).rejects.toMatchObject({ code: 'READ_ONLY' });
  });
});
