// A writer whose clock runs far ahead would stamp the future on every later snapshot (snapshot times never go
// backwards): it is refused, by the store's own clock; a clock that returns no time is refused too.
import { describe, expect, it } from 'vitest';
import { Catalog, isStrataError } from '../../src/index.js';
import { dumpCatalog, tempDir } from '../helpers.js';
import { freshS3Store, s3Options } from '../store/s3-env.js';
import type { ObjectStore } from '../../src/store/object-store.js';

const YEAR = 365 * 24 * 3600 * 1000;
const col = [{ name: 'x', type: 'int32' }];

async function refusedAhead(store: () => Promise<ObjectStore | undefined>) {
  const dir = await tempDir();
  const s = await store();
  const where = s === undefined ? {} : { store: s };
  const good = await Catalog.open({ dir, ...where });
  await good.transaction((tx) => tx.createTable('main', 't', col));
  const before = await dumpCatalog(good);
  const ahead = await Catalog.open({ dir: await tempDir(), ...(s === undefined ? { store: { path: `${dir}/store` } } : where), clock: () => Date.now() + YEAR });
  const err = await ahead.transaction((tx) => tx.createTable('main', 'u', col)).catch((e: unknown) => e);
  expect(isStrataError(err, 'INVALID_ARGUMENT'), String(err)).toBe(true);
  expect((err as Error).message).toMatch(/ahead of the clock of .*maxClockSkewMs/s);
  await good.refresh();
  expect(await dumpCatalog(good)).toEqual(before);
  // The next commit by a right clock is stamped now, and a read at now finds it.
  const { snapshot } = await good.transaction((tx) => tx.createTable('main', 'v', col));
  const r = await good.reader({ timestamp: Date.now() });
  expect(r.snapshot.id).toBe(snapshot);
  expect(Math.abs(r.snapshot.time.getTime() - Date.now())).toBeLessThan(60_000);
  await Promise.all([r.close(), ahead.close(), good.close()]);
}

describe('clock sanity', () => {
  it('a writer a year ahead of the directory store\'s clock is refused, and later snapshots stay at the present', () => refusedAhead(async () => undefined));

  it('maxClockSkewMs: null turns the check off; a clock behind the store is fine', async () => {
    const dir = await tempDir();
    const off = await Catalog.open({ dir, clock: () => Date.now() + YEAR, maxClockSkewMs: null });
    expect((await off.transaction((tx) => tx.createTable('main', 't', col))).snapshot).toBe(1);
    await off.close();
    const behind = await Catalog.open({ dir, clock: () => Date.now() - YEAR });
    expect((await behind.transaction((tx) => tx.createTable('main', 'u', col))).snapshot).toBe(2);
    await behind.close();
    const tight = await Catalog.open({ dir, clock: () => Date.now() + 5_000, maxClockSkewMs: 1_000 });
    expect(isStrataError(await tight.transaction((tx) => tx.dropTable('main', 'u')).catch((e: unknown) => e), 'INVALID_ARGUMENT')).toBe(true);
    await tight.close();
  });

  it('a clock that returns no time (NaN, Infinity, negative, past year 9999, a string) is INVALID_ARGUMENT, nothing committed', async () => {
    const dir = await tempDir();
    const c = await Catalog.open({ dir });
    await c.transaction((tx) => tx.createTable('main', 't', col));
    await c.close();
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, -5, 1e20, '1700000000000' as unknown as number]) {
      let reading = Date.now();
      const clocked = await Catalog.open({ dir, clock: () => reading, maxClockSkewMs: null });
      reading = bad;
      const err = await clocked.transaction((tx) => tx.createTable('main', 'u', col)).catch((e: unknown) => e);
      expect(isStrataError(err, 'INVALID_ARGUMENT'), `${String(bad)}: ${String(err)}`).toBe(true);
      expect((err as Error).message).toContain("clock returned");
      expect((await clocked.snapshots()).length).toBe(2);
      await clocked.close();
    }
    await expect(Catalog.open({ dir, clock: 42 as unknown as () => number })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('a clock with fractions of a millisecond (performance.timeOrigin + now()) creates and commits, its times whole milliseconds', async () => {
    let t = Date.UTC(2026, 0, 1) + 0.5;
    const c = await Catalog.open({ dir: await tempDir(), clock: () => (t += 1000.25), maxClockSkewMs: null });
    const { snapshot } = await c.transaction((tx) => tx.createTable('main', 't', col));
    const times = (await c.snapshots()).map((s) => s.time.getTime());
    expect(times.every(Number.isInteger), String(times)).toBe(true);
    const r = await c.reader({ timestamp: times.at(-1)! });
    expect(r.snapshot.id).toBe(snapshot);
    await Promise.all([r.close(), c.close()]);
  });

  const s3 = s3Options();
  it.skipIf(s3 === undefined)('on S3, by the Date of the service\'s answers', () => refusedAhead(() => freshS3Store(s3!)));
});
