import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Catalog, isStrataError } from '../../src/index.js';
import { openCatalog, tempDir } from '../helpers.js';
import { logHead } from '../support/store-log.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 2, 1, 9, 0, 0);

/** A clock the test moves by hand. */
function manualClock(start: number) {
  let now = start;
  return { clock: () => now, set: (t: number) => void (now = t) };
}

const at = async (c: Catalog, selector: Parameters<Catalog['reader']>[0]) => {
  const r = await c.reader(selector);
  await r.close();
  return r.snapshot.id;
};

describe('reading by timestamp', () => {
  it('resolves to the newest snapshot at or before the time; before the first is an error naming it', async () => {
    const time = manualClock(T0 - HOUR);
    const c = await openCatalog({ clock: time.clock }); // snapshot 0 at T0 - 1h
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      time.set(T0 + i * HOUR);
      ids.push((await c.transaction((tx) => tx.createSchema(`s${i}`))).snapshot!);
    }
    for (let i = 0; i < 3; i++) {
      expect(await at(c, { timestamp: T0 + i * HOUR })).toBe(ids[i]); // exactly the commit time
      if (i < 2) expect(await at(c, { timestamp: T0 + i * HOUR + HOUR / 2 })).toBe(ids[i]); // midpoints
    }
    expect(await at(c, { timestamp: new Date(T0 + HOUR + 1) })).toBe(ids[1]);
    expect(await at(c, { timestamp: new Date(T0 + 2 * HOUR).toISOString() })).toBe(ids[2]);
    expect(await at(c, { timestamp: '2099-01-01' })).toBe(ids[2]); // far future: the newest
    // A time without a zone is UTC on every machine, whatever the host's time zone (the SQL AT clause's too).
    const zone = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      const iso = new Date(T0 + HOUR).toISOString(); // …T…:00.000Z
      for (const spelt of [iso.slice(0, -1), iso.slice(0, -1).replace('T', ' '), iso.replace('Z', '+00:00'), iso.replace('Z', '+0000')]) {
        expect(await at(c, { timestamp: spelt }), spelt).toBe(ids[1]);
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
    expect(await at(c, { timestamp: T0 - 1 })).toBe(0);
    const err = await c.reader({ timestamp: T0 - HOUR - 1 }).catch((e: unknown) => e);
    expect(isStrataError(err, 'BEFORE_FIRST_SNAPSHOT')).toBe(true);
    expect((err as { first: number }).first).toBe(0);
    expect((err as Error).message).toMatch(/first is snapshot 0/);
  });

  it('breaks ties between snapshots with the same time by the higher id, and never lets time go backwards', async () => {
    const time = manualClock(T0);
    const c = await openCatalog({ clock: time.clock });
    const a = (await c.transaction((tx) => tx.createSchema('a'))).snapshot!;
    const b = (await c.transaction((tx) => tx.createSchema('b'))).snapshot!;
    expect(await at(c, { timestamp: T0 })).toBe(b);
    time.set(T0 - HOUR); // the clock steps back
    const d = (await c.transaction((tx) => tx.createSchema('d'))).snapshot!;
    const times = (await c.snapshots()).map((s) => s.time.getTime());
    expect(times).toEqual([T0, T0, T0, T0]);
    expect(await at(c, { timestamp: T0 })).toBe(d);
    expect(a).toBe(1);
  });
});

describe('tags', () => {
  it('pin a snapshot, read by tag, drop; tags are system entries that create no snapshot', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    const { snapshot: s1 } = await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    await c.transaction((tx) => tx.renameTable('main', 't', 'u'));
    const logBefore = await logHead(path.join(dir, 'store'));
    await c.createTag('report_2026_03', s1!);
    expect(await logHead(path.join(dir, 'store'))).toBe(logBefore + 1); // one log entry…
    expect((await c.snapshots()).length).toBe(3); // …and no snapshot
    const r = await c.reader({ tag: 'report_2026_03' });
    expect(r.snapshot.id).toBe(s1);
    expect((await r.tables('main')).map((t) => t.name)).toEqual(['t']);
    await r.close();
    expect((await c.tags()).map((t) => [t.name, t.snapshot])).toEqual([['report_2026_03', s1]]);
    await c.dropTag('report_2026_03');
    expect(await c.tags()).toEqual([]);
    await expect(c.reader({ tag: 'report_2026_03' })).rejects.toSatisfy((e) => isStrataError(e, 'TAG_NOT_FOUND'));
  });

  it('are immutable (moving is drop + create), refuse missing snapshots, reserve current and previous', async () => {
    const c = await openCatalog();
    const { snapshot: s1 } = await c.transaction((tx) => tx.createSchema('a'));
    const { snapshot: s2 } = await c.transaction((tx) => tx.createSchema('b'));
    await c.createTag('gold', s1!);
    await expect(c.createTag('gold', s2!)).rejects.toSatisfy((e) => isStrataError(e, 'ALREADY_EXISTS'));
    await c.dropTag('gold');
    await c.createTag('gold', s2!);
    expect(await at(c, { tag: 'gold' })).toBe(s2);
    await expect(c.createTag('nowhere', 99)).rejects.toSatisfy((e) => isStrataError(e, 'SNAPSHOT_NOT_FOUND'));
    for (const reserved of ['current', 'previous']) {
      await expect(c.createTag(reserved, s1!)).rejects.toSatisfy((e) => isStrataError(e, 'INVALID_ARGUMENT'));
    }
    await expect(c.dropTag('never')).rejects.toSatisfy((e) => isStrataError(e, 'TAG_NOT_FOUND'));
    expect(await at(c, { tag: 'current' })).toBe(s2);
    expect(await at(c, { tag: 'previous' })).toBe(s1);
  });

  it('an unknown tag is TAG_NOT_FOUND and the message does not list the tags that exist', async () => {
    const c = await openCatalog();
    await c.createTag('secret_acquisition_q3', 0);
    const err = (await c.reader({ tag: 'q3' }).catch((e: unknown) => e)) as Error;
    expect(isStrataError(err, 'TAG_NOT_FOUND')).toBe(true);
    expect(err.message).not.toContain('secret');
  });

  it('are capped per catalog', async () => {
    const c = await openCatalog({ maxTags: 3 });
    for (const n of ['a', 'b', 'c']) await c.createTag(n, 0);
    const err = await c.createTag('d', 0).catch((e: unknown) => e);
    expect(isStrataError(err, 'INVALID_ARGUMENT')).toBe(true);
    expect((err as Error).message).toMatch(/3 tags.*maxTags/);
    await c.dropTag('a');
    await c.createTag('d', 0);
  });

  it('are seen by other processes on the shared store', async () => {
    const store = { path: path.join(await tempDir(), 'store') };
    const a = await openCatalog({ dir: await tempDir(), store });
    const b = await openCatalog({ dir: await tempDir(), store });
    await a.createTag('shared', 0);
    await b.refresh();
    expect((await b.tags()).map((t) => t.name)).toEqual(['shared']);
  });
});

describe('previous', () => {
  it('skips maintenance commits, both to find the head user version and the one before it', async () => {
    const c = await openCatalog();
    const user = (name: string) => c.transaction((tx) => tx.createSchema(name));
    const maintenance = (name: string) => c.transaction((tx) => tx.createSchema(name), { maintenance: true });
    const u1 = (await user('u1')).snapshot;
    await maintenance('m1');
    await maintenance('m2');
    await user('u2');
    await maintenance('m3');
    expect(await at(c, { previous: true })).toBe(u1);
  });

  it('a catalog with one user commit has no previous version', async () => {
    const c = await openCatalog();
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    await expect(c.reader({ previous: true })).rejects.toSatisfy((e) => isStrataError(e, 'NO_PREVIOUS_VERSION'));
  });

  it('gives up after its walk limit with a distinct error', async () => {
    const c = await openCatalog({ previousWalkLimit: 3 });
    await c.transaction((tx) => tx.createSchema('u'));
    for (let i = 0; i < 5; i++) await c.transaction((tx) => tx.createSchema(`m${i}`), { maintenance: true });
    await expect(c.reader({ previous: true })).rejects.toSatisfy((e) => isStrataError(e, 'WALK_LIMIT_EXCEEDED'));
  });
});
