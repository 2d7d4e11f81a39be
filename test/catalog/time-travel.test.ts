import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/index.js';
import { expectCode, openCatalog, steppingClock } from '../helpers.js';

const cols5 = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name, type: 'int32' }));

describe('time travel', () => {
  it('MVCC lifecycle: create with 5 columns, rename, add a 6th; readers between commits see each state', async () => {
    const c = await openCatalog();
    const s1 = (await c.transaction((tx) => tx.createTable('main', 'events', cols5))).snapshot!;
    const s2 = (await c.transaction((tx) => tx.renameTable('main', 'events', 'clicks'))).snapshot!;
    const s3 = (await c.transaction((tx) => tx.addColumn('main', 'clicks', { name: 'f', type: 'varchar' }))).snapshot!;
    expect([s1, s2, s3]).toEqual([1, 2, 3]);

    const at = async (s: number) => {
      const r = await c.reader({ snapshot: s });
      try {
        const tables = await r.tables('main');
        const t = await r.table('main', tables[0]!.name);
        return { names: tables.map((x) => x.name), columns: t.columns.map((col) => col.name), id: t.id };
      } finally {
        await r.close();
      }
    };
    const v1 = await at(s1);
    const v2 = await at(s2);
    const v3 = await at(s3);
    expect(v1).toMatchObject({ names: ['events'], columns: ['a', 'b', 'c', 'd', 'e'] });
    expect(v2).toMatchObject({ names: ['clicks'], columns: ['a', 'b', 'c', 'd', 'e'] });
    expect(v3).toMatchObject({ names: ['clicks'], columns: ['a', 'b', 'c', 'd', 'e', 'f'] });
    // A rename keeps the table's identity.
    expect(new Set([v1.id, v2.id, v3.id]).size).toBe(1);
    // The old name is gone at s2 and s3, and the new one did not exist at s1.
    const r1 = await c.reader({ snapshot: s1 });
    await expect(r1.table('main', 'clicks')).rejects.toSatisfy((e) => isStrataError(e, 'NOT_FOUND'));
    await r1.close();
    const r3 = await c.reader({ snapshot: s3 });
    await expect(r3.table('main', 'events')).rejects.toSatisfy((e) => isStrataError(e, 'NOT_FOUND'));
    await r3.close();
  });

  it("DuckLake's basic time travel: files by snapshot, unknown snapshots, dropped tables stay readable", async () => {
    const c = await openCatalog();
    await c.transaction(async (tx) => {
      await tx.createTable('main', 'test', [{ name: 'i', type: 'int32' }]);
    });
    await c.transaction(async (tx) => {
      await tx.addDataFile('main', 'test', { path: 'main/test/f1.parquet', recordCount: 3, fileSizeBytes: 400 });
    });

    await expect(c.reader({ snapshot: 10 })).rejects.toSatisfy(
      (e) => isStrataError(e, 'SNAPSHOT_NOT_FOUND') && e.snapshot === 10 && (e.nearest ?? []).includes(2) && /nearest.*2/.test(e.message),
    );
    const r0 = await c.reader({ snapshot: 0 });
    await expect(r0.table('main', 'test')).rejects.toSatisfy((e) => isStrataError(e, 'NOT_FOUND'));
    await r0.close();
    const r1 = await c.reader({ snapshot: 1 });
    expect(await r1.dataFiles('main', 'test')).toEqual([]);
    await r1.close();
    const r2 = await c.reader({ snapshot: 2 });
    expect((await r2.dataFiles('main', 'test')).map((f) => [f.path, f.recordCount])).toEqual([['main/test/f1.parquet', 3]]);
    await r2.close();

    await c.transaction((tx) => tx.dropTable('main', 'test'));
    const latest = await c.reader();
    await expect(latest.table('main', 'test')).rejects.toSatisfy((e) => isStrataError(e, 'NOT_FOUND'));
    await latest.close();
    const again = await c.reader({ snapshot: 2 });
    expect(await again.dataFiles('main', 'test')).toHaveLength(1);
    await again.close();

    // A cascading schema drop: the older snapshot still shows its schema and table.
    await c.transaction(async (tx) => {
      await tx.createSchema('s');
      await tx.createTable('s', 't', [{ name: 'x', type: 'varchar' }]);
      await tx.addDataFile('s', 't', { path: 's/t/1.parquet', recordCount: 1, fileSizeBytes: 10 });
    });
    const before = (await c.snapshots()).at(-1)!.id;
    await c.transaction((tx) => tx.dropSchema('s', { cascade: true }));
    const old = await c.reader({ snapshot: before });
    expect((await old.table('s', 't')).columns.map((x) => x.name)).toEqual(['x']);
    expect(await old.dataFiles('s', 't')).toHaveLength(1);
    await old.close();
    const now = await c.reader();
    expect((await now.schemas()).map((s) => s.name)).toEqual(['main']);
    await expect(now.tables('s')).rejects.toSatisfy((e) => isStrataError(e, 'NOT_FOUND'));
    await now.close();
  });

  it('a time that is not a real instant is refused, never rolled over to another day', async () => {
    const c = await openCatalog({ clock: steppingClock(Date.UTC(2026, 1, 27)) });
    for (let i = 0; i < 3; i++) await c.transaction((tx) => tx.createSchema(`s${i}`));
    // 2026-02-30 was read as March 2nd, after every commit here.
    for (const t of ['2026-02-30', '2026-02-31T23:59', '2026-02-28T24:00Z', '2026-02-28T23:59:60Z']) {
      await expectCode(c.reader({ timestamp: t }), 'INVALID_ARGUMENT', /not rolled over/);
      await expectCode(c.snapshots({ to: t }), 'INVALID_ARGUMENT');
    }
    const r = await c.reader({ timestamp: '2026-02-27T00:00:02.999999Z' });
    expect(r.snapshot.id).toBe(1);
    await r.close();
  });

  it('a reader opened before later commits answers as of its own snapshot, and its snapshot id does not move', async () => {
    const c = await openCatalog();
    await c.transaction(async (tx) => {
      await tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]);
      await tx.addDataFile('main', 't', { path: 'f0.parquet', recordCount: 1, fileSizeBytes: 1 });
    });
    const pinned = await c.reader();
    const latestBefore = await c.reader();
    const id = pinned.snapshot.id;
    const before = { table: await pinned.table('main', 't'), files: await pinned.dataFiles('main', 't') };
    for (let i = 1; i <= 10; i++) {
      await c.transaction(async (tx) => {
        await tx.addDataFile('main', 't', { path: `f${i}.parquet`, recordCount: 1, fileSizeBytes: 1 });
        if (i === 5) await tx.addColumn('main', 't', { name: 'y', type: 'varchar' });
        if (i === 7) await tx.createTable('main', 'later', [{ name: 'z', type: 'int64' }]);
      });
    }
    expect(pinned.snapshot.id).toBe(id);
    expect({ table: await pinned.table('main', 't'), files: await pinned.dataFiles('main', 't') }).toEqual(before);
    expect((await pinned.tables('main')).map((t) => t.name)).toEqual(['t']);
    // "Latest" was fixed when the reader opened, inside its own view.
    expect(latestBefore.snapshot.id).toBe(id);
    expect(await latestBefore.dataFiles('main', 't')).toHaveLength(1);
    const fresh = await c.reader();
    expect(fresh.snapshot.id).toBe(id + 10);
    expect(await fresh.dataFiles('main', 't')).toHaveLength(11);
    await Promise.all([pinned.close(), latestBefore.close(), fresh.close()]);
  });

  it("a large table's files stream in bounded batches that add up to the full listing, at the newest and at an older snapshot", async () => {
    const c = await openCatalog();
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    const marks: number[] = [];
    for (let k = 0; k < 6; k++) {
      const { snapshot } = await c.transaction(async (tx) => {
        for (let i = 0; i < 700; i++) await tx.addDataFile('main', 't', { path: `f${k}-${i}.parquet`, recordCount: 1, fileSizeBytes: 1 });
      });
      marks.push(snapshot!);
    }
    await c.transaction((tx) => tx.removeDataFile('main', 't', 5));
    for (const at of [marks[1]!, undefined]) {
      const r = await c.reader(at === undefined ? {} : { snapshot: at });
      const batches: number[] = [];
      const streamed: number[] = [];
      for await (const batch of r.dataFileBatches('main', 't')) {
        batches.push(batch.length);
        streamed.push(...batch.map((f) => f.id));
      }
      const one: number[] = [];
      for await (const f of r.iterateDataFiles('main', 't')) one.push(f.id);
      const all = (await r.dataFiles('main', 't')).map((f) => f.id);
      expect(all).toHaveLength(at === undefined ? 4199 : 1400);
      expect(streamed).toEqual(all);
      expect(one).toEqual(all);
      // Past the size a table's files are cached at (4,096), they come in the index's batches.
      expect(batches.length).toBeGreaterThan(at === undefined ? 4 : 1);
      expect(Math.max(...batches)).toBeLessThanOrEqual(4096);
      await r.close();
    }
  });
});
