import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/index.js';
import { dumpCatalog, openCatalog, tempDir } from '../helpers.js';
import { freshS3Store, S3_BUCKET, s3Options } from '../store/s3-env.js';

const opts = s3Options();

if (opts === undefined) {
  describe.skip('a catalog on S3 (no S3 server)', () => {
    it('needs a server', () => undefined);
  });
} else {
  describe('a catalog on S3', () => {
    it('commits through the S3 log; another machine bootstraps from the bucket and reads the same answers', async () => {
      await freshS3Store(opts); // makes sure the bucket exists
      const store = { s3: { ...opts, bucket: S3_BUCKET, prefix: `catalogs/${randomUUID()}` } };
      const a = await openCatalog({ dir: await tempDir(), store });
      await a.transaction(async (tx) => {
        await tx.createSchema('sales');
        await tx.createTable('sales', 'orders', [{ name: 'id', type: 'int64' }]);
        await tx.addDataFile('sales', 'orders', { path: 'sales/orders/f1.parquet', recordCount: 3, fileSizeBytes: 812 });
      });
      await a.transaction((tx) => tx.renameTable('sales', 'orders', 'order_history'));
      await a.createTag('first', 1);
      expect(a.dataFileLocation('sales/orders/f1.parquet')).toMatch(/^s3:\/\/strata-test\/catalogs\/.+\/data\/sales\/orders\/f1\.parquet$/);

      const b = await openCatalog({ dir: await tempDir(), store, readOnly: true });
      expect(await dumpCatalog(b)).toEqual(await dumpCatalog(a));
      expect((await b.tags()).map((t) => t.name)).toEqual(['first']);
      await a.transaction((tx) => tx.dropTable('sales', 'order_history'));
      await b.refresh();
      expect(await dumpCatalog(b)).toEqual(await dumpCatalog(a));
      await expect(Catalog.open({ dir: await tempDir(), store: { s3: { ...opts, bucket: 'no-such-bucket-strata', maxAttempts: 1 } } })).rejects.toThrow(
        /STORE_UNAVAILABLE|failed/,
      );
    });

    it('a path longer than S3 can address (1,024 bytes with the prefix) is refused when registered, not when reclaimed', async () => {
      const c = await openCatalog({ dir: await tempDir(), store: await freshS3Store(opts) });
      await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'i', type: 'int32' }]));
      // 1,019 bytes: all a directory store takes under `data/`; S3's prefix leaves less.
      const long = `${Array.from({ length: 10 }, () => 'd'.repeat(100)).join('/')}/${'e'.repeat(9)}`;
      expect(Buffer.byteLength(long)).toBe(1019);
      let err: unknown;
      await c.transaction(async (tx) => {
        err = await tx.addDataFile('main', 't', { path: long, recordCount: 1, fileSizeBytes: 1 }).catch((e: unknown) => e);
      });
      expect((err as { code?: string }).code).toBe('INVALID_ARGUMENT');
      expect(String(err)).toMatch(/bytes/);
      // The same path fits a directory store's limit, and one byte more does not.
      const d = await openCatalog();
      await d.transaction(async (tx) => {
        await tx.createTable('main', 't', [{ name: 'i', type: 'int32' }]);
        await tx.addDataFile('main', 't', { path: long, recordCount: 1, fileSizeBytes: 1 });
        await expect(tx.addDataFile('main', 't', { path: `${long}e`, recordCount: 1, fileSizeBytes: 1 })).rejects.toMatchObject({
          code: 'INVALID_ARGUMENT',
        });
      });
    });

    it('GC on S3: excision schedules, reclamation deletes through the bucket, the orphan sweep goes by S3 modification times', async () => {
      const s3 = await freshS3Store(opts);
      let now = Date.now();
      const c = await openCatalog({ dir: await tempDir(), store: s3, clock: () => now });
      const body = new TextEncoder().encode('parquet');
      for (const p of ['t/a.parquet', 't/b.parquet', 'stray.parquet']) await s3.putIfAbsent(`data/${p}`, body);
      // The probe of a process that stopped between checking conditional writes and deleting its probe.
      await s3.putIfAbsent('_strata/probe/left-behind', body);
      await c.transaction(async (tx) => {
        await tx.createTable('main', 't', [{ name: 'i', type: 'int32' }]);
        await tx.addDataFile('main', 't', { path: 't/a.parquet', recordCount: 1, fileSizeBytes: body.length });
        await tx.addDataFile('main', 't', { path: 't/b.parquet', recordCount: 1, fileSizeBytes: body.length });
      });
      const r = await c.reader();
      const [a] = await r.dataFiles('main', 't');
      await r.close();
      const { snapshot } = await c.transaction((tx) => tx.removeDataFile('main', 't', a!.id));
      await c.advanceRetainFrom({ snapshot: snapshot! });
      expect(await c.excise()).toMatchObject({ files: 1 });
      expect(await c.reclaimFiles({ graceMs: 0 })).toMatchObject({ deleted: ['t/a.parquet'], orphans: [] });
      expect(await s3.get('data/t/a.parquet')).toBeUndefined();
      expect(await s3.get('data/t/b.parquet')).toBeDefined();
      // S3's LastModified is the age the sweep goes by: too young now, old enough a week later.
      expect(await c.reclaimFiles({ orphans: true })).toMatchObject({ orphans: [], abandoned: [] });
      now += 8 * 24 * 3600 * 1000;
      expect(await c.reclaimFiles({ orphans: true })).toMatchObject({ orphans: ['stray.parquet'], abandoned: ['_strata/probe/left-behind'] });
      expect(await s3.get('data/stray.parquet')).toBeUndefined();
      expect(await s3.get('_strata/probe/left-behind')).toBeUndefined();
      expect(await s3.get('data/t/b.parquet')).toBeDefined();
    });

    it('checkpoint pruning on S3 goes by S3 modification times, and a new machine bootstraps from what is left', async () => {
      const s3 = await freshS3Store(opts);
      let now = Date.now();
      const c = await openCatalog({ dir: await tempDir(), store: s3, clock: () => now, checkpointEvery: 0 });
      const seqs: number[] = [];
      for (let i = 0; i < 3; i++) {
        await c.transaction((tx) => tx.createTable('main', `t${i}`, [{ name: 'i', type: 'int32' }]));
        seqs.push((await c.checkpoint()).seq);
      }
      expect((await c.pruneCheckpoints({ keep: 1 })).deleted).toEqual([]);
      now += 2 * 3600 * 1000;
      expect(await c.pruneCheckpoints({ keep: 1 })).toMatchObject({ kept: [seqs[2]], deleted: [seqs[0], seqs[1]], objects: 4 });
      const left: string[] = [];
      for await (const o of s3.list('checkpoints/')) left.push(o.key);
      expect(left.every((k) => k.startsWith(`checkpoints/${String(seqs[2]).padStart(20, '0')}/`))).toBe(true);
      const fresh = await openCatalog({ dir: await tempDir(), store: s3, readOnly: true });
      expect(await dumpCatalog(fresh)).toEqual(await dumpCatalog(c));
    });

    it('log compaction on S3: entries replaced through the bucket, a stale writer rebuilds and commits at the head', async () => {
      const s3 = await freshS3Store(opts);
      let now = Date.now();
      const a = await openCatalog({ dir: await tempDir(), store: s3, clock: () => now, checkpointEvery: 0 });
      await a.transaction((tx) => tx.createTable('main', 't', [{ name: 'i', type: 'int32' }]));
      const stale = await openCatalog({ dir: await tempDir(), store: s3 });
      for (let i = 0; i < 3; i++) await a.transaction((tx) => tx.addDataFile('main', 't', { path: `f${i}`, recordCount: 1, fileSizeBytes: 1 }));
      const { seq } = await a.checkpoint();
      now += 2 * 3600 * 1000;
      expect(await a.compactLog()).toEqual({ dryRun: false, through: seq, entries: seq - 1 });
      const { snapshot } = await stale.transaction((tx) => tx.addDataFile('main', 't', { path: 'late', recordCount: 1, fileSizeBytes: 1 }));
      await a.refresh();
      expect(snapshot).toBe((await a.snapshots()).at(-1)!.id);
      expect(await dumpCatalog(stale)).toEqual(await dumpCatalog(a));
      const fresh = await openCatalog({ dir: await tempDir(), store: s3, readOnly: true });
      expect(await dumpCatalog(fresh)).toEqual(await dumpCatalog(a));
    });
  });
}
