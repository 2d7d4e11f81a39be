import { readdir, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { Catalog, isStrataError, type OpenOptions } from '../../src/index.js';
import { initEntry } from '../../src/commit/init-entry.js';
import { ObjectLog } from '../../src/log/object-log.js';
import { LOG_LAYOUTS, type LogLayout } from '../../src/log/open-log.js';
import { logHead } from '../support/store-log.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { kvSeq } from '../../keys/ids.js';
import { freshS3Store, S3_BUCKET, s3Options } from '../store/s3-env.js';
import { dumpCatalog, openCatalog, runTsx, tempDir } from '../helpers.js';

const child = new URL('../fixtures/commit-child.ts', import.meta.url);

/**
 * Runs the child; with `killAfterFirstAckMs`, SIGKILLs it that long after its first acknowledged commit, so
 * the kill lands at a random point of a later commit however slowly the child starts.
 */
async function runChild(args: string[], killAfterFirstAckMs?: number): Promise<{ signal: NodeJS.Signals | null; stdout: string }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await runTsx(child, args, (stdout, kill) => {
      if (killAfterFirstAckMs !== undefined && timer === undefined && stdout.includes('ack ')) timer = setTimeout(kill, killAfterFirstAckMs);
    });
  } finally {
    clearTimeout(timer);
  }
}

async function seed(dir: string, store?: NonNullable<OpenOptions['store']>, logLayout?: LogLayout): Promise<void> {
  const c = await Catalog.open({ dir, ...(store ? { store } : {}), ...(logLayout ? { logLayout } : {}) });
  await c.transaction(async (tx) => {
    await tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]);
  });
  await c.close();
}

const logCount = (dir: string) => logHead(path.join(dir, 'store'));

async function state(dir: string, store?: NonNullable<OpenOptions['store']>) {
  const c = await Catalog.open({ dir, ...(store ? { store } : {}) });
  try {
    const r = await c.reader();
    const files = (await r.dataFiles('main', 't')).map((f) => f.path);
    await r.close();
    return { snapshots: (await c.snapshots()).map((s) => s.id), files };
  } finally {
    await c.close();
  }
}

describe('durability', () => {
  it('close and reopen: the whole history is intact', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    for (let i = 0; i < 4; i++) {
      await c.transaction(async (tx) => {
        if (i === 0) await tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]);
        await tx.addDataFile('main', 't', { path: `f${i}.parquet`, recordCount: i + 1, fileSizeBytes: 10 });
        if (i === 3) await tx.renameTable('main', 't', 'u');
      });
    }
    const before = await dumpCatalog(c);
    await c.close();
    const again = await openCatalog({ dir });
    expect(await dumpCatalog(again)).toEqual(before);
  });

  it('the local index is rebuildable: a fresh index replays the store to identical answers', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    await c.transaction(async (tx) => {
      await tx.createSchema('s');
      await tx.createTable('s', 't', [{ name: 'x', type: 'int64' }]);
      await tx.addDataFile('s', 't', { path: 'a.parquet', recordCount: 2, fileSizeBytes: 10 });
    });
    await c.transaction((tx) => tx.addColumn('s', 't', { name: 'y', type: 'varchar' }));
    await c.transaction((tx) => tx.dropTable('s', 't'));
    const before = await dumpCatalog(c);
    await c.close();
    // Another process with its own index over the same store…
    const other = await openCatalog({ dir: await tempDir(), store: { path: path.join(dir, 'store') } });
    expect(await dumpCatalog(other)).toEqual(before);
    // …and this one after losing its index.
    await rm(path.join(dir, 'index'), { recursive: true });
    const rebuilt = await openCatalog({ dir });
    expect(await dumpCatalog(rebuilt)).toEqual(before);
  });

  it('an index LevelDB finds damaged is rebuilt from the store; one held open by another process is refused, saying so', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    await c.transaction((tx) => tx.addDataFile('main', 't', { path: 'a.parquet', recordCount: 2, fileSizeBytes: 10 }));
    const before = await dumpCatalog(c);
    await expect(Catalog.open({ dir })).rejects.toSatisfy(
      (e) => isStrataError(e, 'STORE_UNAVAILABLE') && /It is open already: in another process, or in this one/.test(e.message),
    );
    await c.close();

    const index = path.join(dir, 'index');
    const manifest = (await readdir(index)).find((f) => f.startsWith('MANIFEST-'))!;
    await writeFile(path.join(index, manifest), 'not a LevelDB manifest');
    const reopened = await openCatalog({ dir });
    expect(await dumpCatalog(reopened)).toEqual(before);
    await reopened.transaction((tx) => tx.addDataFile('main', 't', { path: 'b.parquet', recordCount: 2, fileSizeBytes: 10 }));
    const r = await reopened.reader();
    expect((await r.dataFiles('main', 't')).map((f) => f.path)).toEqual(['a.parquet', 'b.parquet']);
    await r.close();
  });

  it('never serves an index built from another catalog: it is emptied and filled from the store it is opened on', async () => {
    const a = await tempDir();
    const b = await tempDir();
    const ca = await Catalog.open({ dir: a });
    await ca.transaction((tx) => tx.createSchema('only_in_a'));
    await ca.close();
    const cb = await Catalog.open({ dir: b });
    await cb.transaction((tx) => tx.createSchema('only_in_b'));
    const expected = await dumpCatalog(cb);
    await cb.close();
    const mixed = await openCatalog({ dir: a, store: { path: path.join(b, 'store') } });
    expect(await dumpCatalog(mixed)).toEqual(expected);
  });

  it('refuses a store created with the older keyspace layout (no file manifests), naming both layouts', async () => {
    const dir = await tempDir();
    const log = new ObjectLog(new DirectoryStore(path.join(dir, 'store')));
    expect(await log.append(initEntry(kvSeq(1), { uuid: randomUUID(), createdAt: Date.now() }, 'data/'))).toBe(true);
    await expect(Catalog.open({ dir })).rejects.toSatisfy(
      (e) => isStrataError(e, 'INVALID_ARGUMENT') && /layout 1/.test(e.message) && /layout 2/.test(e.message),
    );
  });

  for (const layout of LOG_LAYOUTS) {
    describe(`on a directory store, its log kept as ${layout}`, () => {
    it('a process killed after its log write and before its index write comes back with the commit applied exactly once', async () => {
      const dir = await tempDir();
      await seed(dir, undefined, layout);
      const entries = await logCount(dir);
      const run = await runChild([dir, 'kill-after-log']);
      expect(run.signal).toBe('SIGKILL');
      expect(run.stdout).toBe(''); // never acknowledged…
      expect(await logCount(dir)).toBe(entries + 2); // …but durable in the log (after the child's claim of ids)
      const first = await state(dir);
      expect(first.snapshots).toEqual([0, 1, 2]);
      expect(first.files).toHaveLength(1);
      // Reopening again replays nothing twice.
      expect(await state(dir)).toEqual(first);
      expect(await logCount(dir)).toBe(entries + 2);
    });

    it('a process killed while rebuilding its index after log compaction comes back consistent with the store', async () => {
      const dir = await tempDir(); // the stale process's index, and the shared store
      await seed(dir, undefined, layout); // its index stops at entry 2
      const other = await Catalog.open({ dir: await tempDir(), store: { path: path.join(dir, 'store') }, clock: () => Date.now() + 2 * 3600 * 1000, maxClockSkewMs: null });
      for (let i = 0; i < 4; i++) await other.transaction((tx) => tx.addDataFile('main', 't', { path: `f${i}`, recordCount: 1, fileSizeBytes: 1 }));
      await other.checkpoint();
      await other.transaction((tx) => tx.addDataFile('main', 't', { path: 'tail', recordCount: 1, fileSizeBytes: 1 }));
      expect((await other.compactLog()).entries).toBeGreaterThan(0);
      await other.close();
      const run = await runChild([dir, 'kill-in-rebuild']);
      expect(run.signal).toBe('SIGKILL');
      expect(await state(dir)).toEqual({ snapshots: [0, 1, 2, 3, 4, 5, 6], files: ['f0', 'f1', 'f2', 'f3', 'tail'] });
    });

    it('a process killed before its log write leaves no trace', async () => {
      const dir = await tempDir();
      await seed(dir, undefined, layout);
      const run = await runChild([dir, 'kill-before-log']);
      expect(run.signal).toBe('SIGKILL');
      expect(await state(dir)).toEqual({ snapshots: [0, 1], files: [] });
    });

    it('kills at random points (20 trials, half of them committing four at a time): every acknowledged commit survives, snapshot ids stay gap-free', { timeout: 120_000 }, async () => {
      const dir = await tempDir();
      await seed(dir, undefined, layout);
      await killRandomly(dir, [], () => state(dir));
    });

    it('relaxed durability, kills at random points (20 trials, half in groups): no acknowledged commit lost either', { timeout: 120_000 }, async () => {
      // Relaxed gives up only the directory fsync: a process crash (not a machine crash) loses nothing.
      const dir = await tempDir();
      await seed(dir, undefined, layout);
      await killRandomly(dir, ['relaxed'], () => state(dir));
    });
    });
  }

  const s3 = s3Options();
  (s3 === undefined ? it.skip : it)('S3: kills at random points (20 trials, half in groups)', { timeout: 180_000 }, async () => {
    await freshS3Store(s3!);
    const store = { ...s3!, bucket: S3_BUCKET, prefix: `kills/${randomUUID()}` };
    const dir = await tempDir();
    await seed(dir, { s3: store });
    await killRandomly(dir, [JSON.stringify(store)], () => state(dir, { s3: store }));
  });
});

async function killRandomly(dir: string, storeArgs: string[], read: () => ReturnType<typeof state>) {
  const acked: string[] = [];
  for (let trial = 0; trial < 20; trial++) {
    // Odd trials commit in groups, so kills also land inside entries that carry several snapshots.
    const mode = trial % 2 === 0 ? 'loop' : 'group';
    const run = await runChild([dir, mode, '100000', ...storeArgs], Math.floor(Math.random() * 300));
    expect(run.signal).toBe('SIGKILL');
    acked.push(...run.stdout.split('\n').filter((l) => l.startsWith('ack ')).map((l) => l.split(' ')[2]!));
  }
  const { snapshots, files } = await read();
  expect(acked.length).toBeGreaterThanOrEqual(20);
  for (const f of acked) expect(files).toContain(f);
  expect(new Set(files).size).toBe(files.length);
  expect(snapshots).toEqual(snapshots.map((_, i) => i));
  // Every snapshot after the seed added exactly one file: nothing torn, nothing doubled.
  expect(files.length).toBe(snapshots.length - 2);
}
