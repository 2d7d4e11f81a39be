// Retain-from, excision and reclamation on DuckLake's expire scenarios, on real LevelDB and the real
// directory store: what stays readable, what is physically gone, which objects are deleted.
import { readdir, utimes, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { kvSeq } from '../../keys/ids.js';
import { tagKey } from '../../keys/retention.js';
import { describe, expect, it } from 'vitest';
import { type Catalog, isStrataError } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { dumpCatalog, openCatalog, readAll, steppingClock, tempDir } from '../helpers.js';
import { keysBySpace, rawDump } from './gc-helpers.js';
import { putDeleteFile } from '../support/delete-file.js';
import { withStoreLog } from '../support/store-log.js';

const bytes = new TextEncoder().encode('parquet bytes');

async function expectOutOfRetention(c: Catalog, snapshot: number, first: number) {
  const err = await c.reader({ snapshot }).catch((e: unknown) => e);
  expect(isStrataError(err, 'OUT_OF_RETENTION'), String(err)).toBe(true);
  expect((err as { first?: number }).first).toBe(first);
  expect((err as Error).message).toMatch(new RegExp(`oldest readable snapshot is ${first}`));
}

/** DuckLake's expire test: create (s1), a 1000-row file (s2), delete every row (s3), drop (s4). */
async function expireScenario() {
  const dir = await tempDir();
  const c = await openCatalog({ dir, clock: steppingClock() });
  const store = new DirectoryStore(path.join(dir, 'store'));
  await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'i', type: 'int32' }]));
  await store.putIfAbsent('data/t/f2.parquet', bytes);
  // A delete file is read when it is registered: this one holds every position of the file's 1,000 rows.
  const del = await putDeleteFile(store, 'data/t/f2-del.parquet', 't/f2.parquet', Array.from({ length: 1000 }, (_, i) => i));
  await c.transaction((tx) => tx.addDataFile('main', 't', { path: 't/f2.parquet', recordCount: 1000, fileSizeBytes: bytes.length }));
  const r2 = await c.reader();
  const [file] = await r2.dataFiles('main', 't');
  await r2.close();
  await c.transaction((tx) =>
    tx.addDeleteFile('main', 't', { dataFileId: file!.id, path: 't/f2-del.parquet', deleteCount: 1000, fileSizeBytes: del.fileSizeBytes }),
  );
  await c.transaction((tx) => tx.dropTable('main', 't'));
  return { dir, c, store };
}

describe('retain-from', () => {
  it('refuses untagged snapshots below it, keeps the rest, never moves backwards or past the head', async () => {
    const { c } = await expireScenario();
    expect(await c.retainFrom()).toBe(0);
    expect(await c.advanceRetainFrom({ snapshot: 3 })).toEqual({ retainFrom: 3 });
    expect(await c.retainFrom()).toBe(3);
    await expectOutOfRetention(c, 1, 3);
    await expectOutOfRetention(c, 2, 3);
    expect((await c.reader({ snapshot: 3 })).snapshot.id).toBe(3);
    // Time travel by timestamp below it, and the history listing, follow it too.
    const s1 = (await readAll(c, 3)).snapshot.time;
    await expect(c.reader({ timestamp: s1.getTime() - 1500 })).rejects.toMatchObject({ code: 'OUT_OF_RETENTION' });
    expect((await c.snapshots()).map((s) => s.id)).toEqual([3, 4]);

    const back = await c.advanceRetainFrom({ snapshot: 2 }).catch((e: unknown) => e);
    expect(isStrataError(back, 'INVALID_ARGUMENT')).toBe(true);
    expect((back as Error).message).toMatch(/already 3 and never moves backwards/);
    await expect(c.advanceRetainFrom({ snapshot: 5 })).rejects.toThrow(/past the newest snapshot \(4\)/);
    await expect(c.advanceRetainFrom({ snapshot: -1 } as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await c.advanceRetainFrom({ snapshot: 3 })).toEqual({ retainFrom: 3 });
  });

  it('olderThan retires the snapshots committed before a time, never the newest', async () => {
    const { c } = await expireScenario();
    const snaps = await c.snapshots();
    expect(await c.advanceRetainFrom({ olderThan: snaps[2]!.time })).toEqual({ retainFrom: 2 });
    // A time after the newest snapshot keeps the newest.
    expect(await c.advanceRetainFrom({ olderThan: new Date(snaps[4]!.time.getTime() + 3_600_000) })).toEqual({ retainFrom: 4 });
    // A time before the current horizon changes nothing, and is not an error (a cron job may run it daily).
    expect(await c.advanceRetainFrom({ olderThan: snaps[0]!.time.toISOString() })).toEqual({ retainFrom: 4 });
  });

  it('another process sees a new retain-from on its next read, without a refresh', async () => {
    const { dir, c } = await expireScenario();
    const other = await openCatalog({ dir: await tempDir(), store: { path: path.join(dir, 'store') }, readOnly: true });
    expect((await other.reader({ snapshot: 1 })).snapshot.id).toBe(1);
    await c.advanceRetainFrom({ snapshot: 3 });
    await expectOutOfRetention(other, 1, 3);
    expect(await other.retainFrom()).toBe(3);
  });
});

describe('excision and reclamation', () => {
  it('a reader opened before retain-from moved keeps reading its snapshot through its own view after excision, whatever is cached since', async () => {
    const c = await openCatalog({ clock: steppingClock() });
    await c.transaction(async (tx) => {
      await tx.createTable('main', 'old', [{ name: 'x', type: 'int64' }]);
      await tx.addDataFile('main', 'old', { path: 'a.parquet', recordCount: 1, fileSizeBytes: 1 });
    });
    const r = await c.reader();
    const at = r.snapshot.id;
    const before = { table: await r.table('main', 'old'), files: await r.dataFiles('main', 'old') };
    // Warm what later commits touch, so a cache that followed excision's deletes would answer wrongly.
    const w = await c.reader();
    await w.table('main', 'old');
    await w.close();
    await c.transaction((tx) => tx.renameTable('main', 'old', 'new'));
    const fileId = before.files[0]!.id;
    await c.transaction((tx) => tx.removeDataFile('main', 'new', fileId));
    await c.advanceRetainFrom({ snapshot: at + 2 });
    expect((await c.excise()).versions).toBeGreaterThanOrEqual(2);
    // Newer readers fill the cache again, from the index as excision left it (found by the GC model test).
    const after = await c.reader();
    await after.table('main', 'new');
    await after.dataFiles('main', 'new');
    await after.close();
    expect(await r.table('main', 'old')).toEqual(before.table);
    expect(await r.dataFiles('main', 'old')).toEqual(before.files);
    await r.close();
    await expectOutOfRetention(c, at, at + 2);
  });

  it("DuckLake's expire scenario: excise, reclaim with zero grace, and nothing of the dropped table is left", async () => {
    const { dir, c, store } = await expireScenario();
    const before = await readAll(c, 3);
    await c.advanceRetainFrom({ snapshot: 3 });
    const report = await c.excise();
    // s1 and s2's snapshot records, and the versions that ended by s3: the data file (ended by the delete of
    // every row) and the delete file that never became visible.
    expect(report).toMatchObject({ dryRun: false, retainFrom: 3, snapshots: 3, files: 2 });
    expect(report.versions).toBeGreaterThanOrEqual(2);
    expect(await readAll(c, 3)).toEqual(before);
    await expectOutOfRetention(c, 2, 3);

    expect(await c.reclaimFiles({ graceMs: 60_000 })).toMatchObject({ deleted: [], scheduled: ['t/f2-del.parquet', 't/f2.parquet'] });
    expect(await store.get('data/t/f2.parquet')).toBeDefined();
    expect(await c.reclaimFiles({ graceMs: 0 })).toMatchObject({ deleted: ['t/f2-del.parquet', 't/f2.parquet'], scheduled: [] });
    expect(await store.get('data/t/f2.parquet')).toBeUndefined();
    expect(await store.get('data/t/f2-del.parquet')).toBeUndefined();
    // Unscheduled once deleted: a second run has nothing to do.
    expect(await c.reclaimFiles({ graceMs: 0 })).toMatchObject({ deleted: [], scheduled: [] });

    await c.close();
    const beforeDrop = await keysBySpace(dir);
    expect(beforeDrop.Table).toBe(1);
    const again = await openCatalog({ dir, clock: steppingClock(Date.UTC(2027, 0, 1)) });
    await again.advanceRetainFrom({ snapshot: 4 });
    await again.excise();
    await again.close();
    const after = await keysBySpace(dir);
    for (const tag of ['Table', 'Column', 'DataFile', 'DataFileManifest', 'DataFileEndIndex', 'DeleteFile', 'FileTableIndex', 'FilePathIndex', 'FilePathRef', 'FileIdRange', 'RelationNameIndex', 'TableStats', 'EndIndex', 'ReclaimSchedule']) {
      expect(after[tag] ?? 0, tag).toBe(0);
    }
    // What is left: schema main, its name, snapshot 4 and its records, the system values, the job records.
    expect(after.Snapshot).toBe(1);
    expect(after.Schema).toBe(1);
  });

  it('a tag below retain-from keeps its whole snapshot readable through excision and reclamation', async () => {
    const { c, store } = await expireScenario();
    await c.createTag('audit', 2);
    const tagged = await readAll(c, 2);
    await c.advanceRetainFrom({ snapshot: 4 });
    await expectOutOfRetention(c, 1, 4);
    await c.excise();
    expect(await readAll(c, 2)).toEqual(tagged);
    expect((await c.reader({ tag: 'audit' })).snapshot.id).toBe(2);
    const reclaimed = await c.reclaimFiles({ graceMs: 0 });
    expect(reclaimed.deleted).not.toContain('t/f2.parquet');
    expect(await store.get('data/t/f2.parquet')).toBeDefined();
    expect((await c.snapshots()).map((s) => s.id)).toEqual([2, 4]);
    // Dropping the tag lets the next excision take what it kept.
    await c.dropTag('audit');
    await c.excise();
    await expectOutOfRetention(c, 2, 4);
    expect((await c.reclaimFiles({ graceMs: 0 })).deleted).toContain('t/f2.parquet');
  });

  it('a lease taken through a tag below retain-from keeps its snapshot from excision after the tag goes, until released', async () => {
    const { c, store } = await expireScenario();
    await c.createTag('audit', 2);
    await c.advanceRetainFrom({ snapshot: 4 });
    const leased = await c.reader({ tag: 'audit', lease: { ttlMs: 3_600_000 } });
    await c.dropTag('audit');
    // Only the lease protects snapshot 2 now: its record and the data file it lists stay. The delete file,
    // which ended with its data file in the commit that made it, is visible at no snapshot and goes.
    expect(await c.excise()).toMatchObject({ versions: 1, snapshots: 3, files: 1 });
    expect((await c.reclaimFiles({ graceMs: 0 })).deleted).toEqual(['t/f2-del.parquet']);
    expect(await store.get('data/t/f2.parquet')).toBeDefined();
    await leased.close();
    expect(await c.excise()).toMatchObject({ snapshots: 1, files: 1 });
    expect((await c.reclaimFiles({ graceMs: 0 })).deleted).toEqual(['t/f2.parquet']);
  });

  it('rename churn: every remaining snapshot reads exactly as before each excision', async () => {
    const c = await openCatalog({ clock: steppingClock() });
    await c.transaction((tx) => tx.createTable('main', 'a', [{ name: 'i', type: 'int32' }]));
    const names = ['a', 'b', 'c', 'd'];
    for (let i = 1; i < names.length; i++) {
      await c.transaction((tx) => tx.addDataFile('main', names[i - 1]!, { path: `f${i}`, recordCount: i, fileSizeBytes: 1 }));
      await c.transaction((tx) => tx.renameTable('main', names[i - 1]!, names[i]!));
      await c.transaction((tx) => tx.addColumn('main', names[i]!, { name: `c${i}`, type: 'int64' }));
    }
    const head = (await c.reader()).snapshot.id;
    const all = new Map<number, unknown>();
    for (let s = 0; s <= head; s++) all.set(s, await readAll(c, s));
    for (let r = 2; r <= head; r += 2) {
      await c.advanceRetainFrom({ snapshot: r });
      await c.excise({ batchSize: 3 });
      for (let s = r; s <= head; s++) expect(await readAll(c, s), `snapshot ${s} after excising below ${r}`).toEqual(all.get(s));
    }
  });

  it('a column added after excision took a dropped column never takes its id: files written with that id still hold its values', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir, clock: steppingClock() });
    await c.sql('CREATE TABLE t (id BIGINT, v0 VARCHAR, v1 DOUBLE)');
    await c.sql("INSERT INTO t VALUES (1, 'a', 2.5)");
    await c.sql('ALTER TABLE t DROP COLUMN v1');
    const dropped = (await c.reader()).snapshot.id;
    await c.advanceRetainFrom({ snapshot: dropped });
    expect((await c.excise()).versions).toBeGreaterThan(0);
    const addColumn = async (name: string) => {
      let id: number | undefined;
      await c.transaction(async (tx) => {
        id = await tx.addColumn('main', 't', { name, type: 'int32' });
      });
      return id;
    };
    expect(await addColumn('a2')).toBe(4);
    await c.sql('ALTER TABLE t ADD COLUMN a3 DOUBLE');
    const r = await c.sql('SELECT id, v0, a2, a3 FROM t');
    expect(r.rows).toEqual([{ id: 1n, v0: 'a', a2: null, a3: null }]);
    // A second excision (nothing of the column left to take) keeps the floor it wrote.
    await c.sql('ALTER TABLE t DROP COLUMN a3');
    await c.advanceRetainFrom({ snapshot: (await c.reader()).snapshot.id });
    await c.excise();
    expect(await addColumn('a4')).toBe(6);
    expect((await c.verify()).violations).toEqual([]);
    // The table's excision takes its floor with it.
    await c.sql('DROP TABLE t');
    await c.advanceRetainFrom({ snapshot: (await c.reader()).snapshot.id });
    await c.excise();
    expect((await c.verify()).violations).toEqual([]);
    await c.close();
    expect(await keysBySpace(dir)).not.toHaveProperty('ColumnIdFloor');
  });

  it('a lease clamps retain-from until it expires; close() releases it; expired leases protect nothing', async () => {
    let now = Date.UTC(2026, 0, 1);
    const clock = () => (now += 1000);
    const c = await openCatalog({ clock });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'i', type: 'int32' }]));
    for (let i = 0; i < 9; i++) await c.transaction((tx) => tx.addDataFile('main', 't', { path: `f${i}`, recordCount: 1, fileSizeBytes: 1 }));
    const r = await c.reader({ snapshot: 5, lease: { ttlMs: 60_000, holder: 'report-job' } });
    expect(r.lease).toMatchObject({ holder: 'report-job' });
    expect((await c.leases()).map((l) => [l.holder, l.snapshot, l.expired])).toEqual([['report-job', 5, false]]);
    const clamped = await c.advanceRetainFrom({ snapshot: 9 });
    expect(clamped).toMatchObject({ retainFrom: 5, clampedBy: { holder: 'report-job', snapshot: 5 } });
    const held = await readAll(c, 5);
    await c.excise();
    expect(await r.dataFiles('main', 't')).toHaveLength(4);
    expect(await readAll(c, 5)).toEqual(held);

    await r.renew(120_000);
    now += 100_000; // past the first ttl, within the renewed one
    expect(await c.advanceRetainFrom({ snapshot: 9 })).toMatchObject({ retainFrom: 5 });
    now += 60_000; // past the renewed one
    expect((await c.leases())[0]!.expired).toBe(true);
    expect(await c.advanceRetainFrom({ snapshot: 9 })).toEqual({ retainFrom: 9 });
    await expect(r.renew(1000)).rejects.toMatchObject({ code: 'OUT_OF_RETENTION' });
    await r.close();
    expect(await c.leases()).toEqual([]);

    // A lease below retain-from cannot be taken; a read-only process cannot take one at all.
    await expect(c.reader({ snapshot: 8, lease: { ttlMs: 1000 } })).rejects.toMatchObject({ code: 'OUT_OF_RETENTION' });
    const closing = await c.reader({ lease: { ttlMs: 1000 } });
    expect((await c.leases()).map((l) => l.id)).toEqual([closing.lease!.id]);
    await c.close();
  });

  it('a dry run changes nothing: the index and the store listing are byte-identical after it', async () => {
    const { dir, c } = await expireScenario();
    await c.advanceRetainFrom({ snapshot: 3 });
    await c.close();
    const storeKeys = async () => {
      const out = [];
      for await (const o of new DirectoryStore(path.join(dir, 'store')).list('')) out.push(o);
      return out;
    };
    const index = await rawDump(dir);
    const listing = await storeKeys();
    const again = await openCatalog({ dir });
    const plan = await again.excise({ dryRun: true });
    expect(plan).toMatchObject({ dryRun: true, snapshots: 3, files: 2, job: null });
    expect(await again.reclaimFiles({ dryRun: true, graceMs: 0, orphans: true, minAgeMs: 0 })).toMatchObject({ deleted: [], orphans: [] });
    await again.close();
    expect(await rawDump(dir)).toEqual(index);
    expect(await storeKeys()).toEqual(listing);

    // The real run does what the plan said.
    const real = await openCatalog({ dir });
    expect(await real.excise()).toMatchObject({ versions: plan.versions, snapshots: plan.snapshots, files: plan.files });
  });

  it('reclamation aborts and deletes nothing when a tag cannot be read', async () => {
    const { dir, c, store } = await expireScenario();
    await c.createTag('audit', 4);
    await c.advanceRetainFrom({ snapshot: 3 });
    await c.excise();
    await c.close();
    // A tag value nobody can read, written into the log as a buggy writer would (damage to the index itself
    // is rebuilt from the store at open: index-damage.test.ts).
    const garbage = { type: 'put' as const, key: tagKey('audit'), value: Uint8Array.of(0xff, 0x00) };
    await withStoreLog(path.join(dir, 'store'), async (log) => {
      const seq = kvSeq((await log.head(kvSeq(0))) + 1);
      expect(await log.append({ seq, kind: 'system', epoch: 0, txn: 'buggy', prev: '', snapshots: [], mutations: [garbage] })).toBe(true);
    });
    const again = await openCatalog({ dir });
    await expect(again.reclaimFiles({ graceMs: 0 })).rejects.toMatchObject({ code: 'CORRUPT' });
    expect(await store.get('data/t/f2.parquet')).toBeDefined();
    expect(await store.get('data/t/f2-del.parquet')).toBeDefined();
  });

  it('the orphan sweep deletes old unnamed objects under the data path only', async () => {
    let now = Date.now();
    const dir = await tempDir();
    const c = await openCatalog({ dir, clock: () => now });
    const store = new DirectoryStore(path.join(dir, 'store'));
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'i', type: 'int32' }]));
    await store.putIfAbsent('data/named.parquet', bytes);
    await store.putIfAbsent('data/stray.parquet', bytes);
    await store.putIfAbsent('elsewhere/stray.parquet', bytes);
    await c.transaction((tx) => tx.addDataFile('main', 't', { path: 'named.parquet', recordCount: 1, fileSizeBytes: 1 }));
    // Too young: an engine may be about to register it.
    expect((await c.reclaimFiles({ orphans: true })).orphans).toEqual([]);
    now += 8 * 24 * 3600 * 1000;
    expect((await c.reclaimFiles({ orphans: true, dryRun: true })).orphans).toEqual(['stray.parquet']);
    expect(await store.get('data/stray.parquet')).toBeDefined();
    expect((await c.reclaimFiles({ orphans: true })).orphans).toEqual(['stray.parquet']);
    expect(await store.get('data/stray.parquet')).toBeUndefined();
    expect(await store.get('data/named.parquet')).toBeDefined();
    expect(await store.get('elsewhere/stray.parquet')).toBeDefined();
  });

  it('the orphan sweep also removes the temporary files of creates a crash cut short, once old enough, anywhere in the store', async () => {
    const dir = await tempDir();
    // Log objects are creates (a segmented log clears its own temporary files under its lock).
    const c = await openCatalog({ dir, logLayout: 'objects' });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'i', type: 'int32' }]));
    await c.checkpoint();
    const root = path.join(dir, 'store');
    const [checkpointDir] = await readdir(path.join(root, 'checkpoints'));
    const leftovers = ['log/.tmp-0a1b2c3d-7', `checkpoints/${checkpointDir}/.tmp-0a1b2c3d-9`];
    const weekAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    for (const f of leftovers) {
      await writeFile(path.join(root, f), 'half of a log entry');
      await utimes(path.join(root, f), weekAgo, weekAgo);
    }
    // A create in flight right now: young, so never swept.
    await writeFile(path.join(root, 'log/.tmp-5e6f7a8b-1'), 'being written');

    expect((await c.reclaimFiles({ orphans: true, dryRun: true })).abandoned).toEqual(leftovers.slice().sort());
    expect(await readdir(path.join(root, 'log'))).toContain('.tmp-0a1b2c3d-7');
    expect((await c.reclaimFiles({ orphans: true })).abandoned).toEqual(leftovers.slice().sort());
    expect((await readdir(path.join(root, 'log'))).filter((f) => f.startsWith('.tmp-'))).toEqual(['.tmp-5e6f7a8b-1']);
    expect(await readdir(path.join(root, 'checkpoints', checkpointDir!))).not.toContain('.tmp-0a1b2c3d-9');
    // Without orphans, nothing of the kind is looked for.
    expect((await c.reclaimFiles({})).abandoned).toEqual([]);
    // The catalog's own objects are untouched: a new machine reads the same catalog.
    const other = await openCatalog({ dir: await tempDir(), store: { path: root } });
    expect(await dumpCatalog(other)).toEqual(await dumpCatalog(c));
  });
});
