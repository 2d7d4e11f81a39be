import * as path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { type Group, group, groupId } from '../../keys/groups.js';
import { encodeKey } from '../../keys/key-codec.js';
import { Space } from '../../keys/spaces.js';
import { encodeValue } from '../../keys/value-codec.js';
import { isStrataError } from '../../src/index.js';
import { IndexView } from '../../src/kv/read-view.js';
import { MAX_CACHED_GROUP, VersionCache } from '../../src/kv/version-cache.js';
import { openCatalog, tempDir } from '../helpers.js';

const tableGroup = (id: number) => groupId(group(Space.Table, [id]));
const version = (id: number, begin: number) => ({ key: encodeKey(Space.Table, [id], begin), fields: [id], begin, row: { end: null } });
const put = (id: number, begin: number) => ({ type: 'put' as const, key: encodeKey(Space.Table, [id], begin), value: encodeValue({ end: null }) });

describe('VersionCache', () => {
  it('stores only groups read from the newest state, never while an apply is in flight', () => {
    const cache = new VersionCache(kvSeq(5));
    cache.offer(tableGroup(1), [version(1, 1)], kvSeq(4));
    expect(cache.get(tableGroup(1), cache.generation)).toBeUndefined();
    cache.beginApply([put(2, 6)]);
    cache.offer(tableGroup(1), [version(1, 1)], kvSeq(5));
    expect(cache.get(tableGroup(1), cache.generation)).toBeUndefined();
    cache.endApply(kvSeq(6));
    cache.offer(tableGroup(1), [version(1, 1)], kvSeq(5));
    expect(cache.get(tableGroup(1), cache.generation)).toBeUndefined();
    cache.offer(tableGroup(1), [version(1, 1)], kvSeq(6));
    expect(cache.get(tableGroup(1), cache.generation)).toHaveLength(1);
  });

  it('brings the groups an entry touches to its state before its batch is written, and forgets them if it fails', () => {
    const cache = new VersionCache(kvSeq(1));
    cache.offer(tableGroup(1), [version(1, 1)], kvSeq(1));
    cache.offer(tableGroup(2), [version(2, 1)], kvSeq(1));
    const before = cache.get(tableGroup(1), cache.generation)!;
    // A new version of table 1 and its old version ended: the cached group shows both, in key order.
    const ended = { type: 'put' as const, key: encodeKey(Space.Table, [1], 1), value: encodeValue({ end: 2 }) };
    cache.beginApply([put(1, 2), ended]);
    expect(cache.get(tableGroup(1), cache.generation)!.map((v) => [v.begin, (v.row as { end: unknown }).end])).toEqual([
      [1, 2],
      [2, null],
    ]);
    expect(before.map((v) => v.begin)).toEqual([1]); // what a reader already holds is not changed under it
    expect(cache.get(tableGroup(2), cache.generation)).toHaveLength(1);
    cache.endApply(kvSeq(2));
    expect(cache.get(tableGroup(1), cache.generation)).toHaveLength(2);
    // A delete (excision) drops the group: a reader opened before retain-from moved may still need the
    // version, and reads it through its own view on the miss. Groups stored after it lack what was deleted,
    // so views opened before it get none from the cache at all, even the untouched ones.
    const generation = cache.generation;
    cache.offer(tableGroup(9), [version(9, 1)], kvSeq(2));
    cache.beginApply([{ type: 'del', key: encodeKey(Space.Table, [1], 1) }]);
    expect(cache.get(tableGroup(9), generation)).toHaveLength(1); // counted once the batch lands
    cache.endApply(kvSeq(3));
    expect(cache.get(tableGroup(1), cache.generation)).toBeUndefined();
    cache.offer(tableGroup(1), [version(1, 2)], kvSeq(3));
    expect(cache.get(tableGroup(1), generation)).toBeUndefined();
    expect(cache.get(tableGroup(9), generation)).toBeUndefined();
    expect(cache.get(tableGroup(9), cache.generation)).toHaveLength(1);
    // A batch that failed: nothing it touched is trusted.
    cache.beginApply([put(2, 4)]);
    cache.endApply(undefined);
    expect(cache.get(tableGroup(2), cache.generation)).toBeUndefined();
    expect(cache.get(tableGroup(1), cache.generation)).toHaveLength(1);
    // Nothing is stored from reads while an apply is in flight.
    cache.beginApply([put(3, 5)]);
    cache.offer(tableGroup(2), [version(2, 1)], kvSeq(3));
    expect(cache.get(tableGroup(2), cache.generation)).toBeUndefined();
    cache.endApply(kvSeq(4));
  });

  it('counts a parent as read whole only when the cache took its groups', () => {
    const cache = new VersionCache(kvSeq(5));
    const parent = groupId(group(Space.Table, []));
    // The first miss under a parent reads its own group: a command asking about one table reads no other.
    expect(cache.shouldReadAhead(parent, 2)).toBe(false);
    expect(cache.shouldReadAhead(parent, 2)).toBe(true);
    // Read from an older state (a reader opened before the last commit): nothing kept, so the next miss
    // under the parent must read it whole again rather than one group at a time.
    cache.offerParent(parent, [[tableGroup(1), [version(1, 1)]]], kvSeq(4), true);
    expect(cache.get(tableGroup(1), cache.generation)).toBeUndefined();
    expect(cache.shouldReadAhead(parent, 2)).toBe(true);
    cache.offerParent(parent, [[tableGroup(1), [version(1, 1)]], [tableGroup(2), [version(2, 1)]]], kvSeq(5), true);
    expect(cache.get(tableGroup(2), cache.generation)).toHaveLength(1);
    expect(cache.shouldReadAhead(parent, 2)).toBe(false);
    // Changes under the parent keep its cached groups current, so it stays read.
    cache.beginApply([put(2, 6)]);
    cache.endApply(kvSeq(6));
    expect(cache.shouldReadAhead(parent, 2)).toBe(false);
    expect(cache.get(tableGroup(2), cache.generation)).toHaveLength(2);
  });

  it('a parent is read whole from the miss its kind names: misses before it read their own group', () => {
    const cache = new VersionCache(kvSeq(5));
    const parent = groupId(group(Space.Column, []));
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map(() => cache.shouldReadAhead(parent, 8))).toEqual([false, false, false, false, false, false, false, true, true]);
    // Each parent counts its own misses.
    expect(cache.shouldReadAhead(groupId(group(Space.Table, [])), 8)).toBe(false);
  });

  it('a parent held whole answers a miss under it without a read, and takes the groups created under it as written', () => {
    const cache = new VersionCache(kvSeq(5), 100);
    const parent = groupId(group(Space.Table, []));
    cache.offerParent(parent, [[tableGroup(1), [version(1, 1)]]], kvSeq(5), false); // cut at the read-ahead limit
    expect(cache.holdsWhole(parent, cache.generation)).toBe(false);
    cache.offerParent(parent, [[tableGroup(1), [version(1, 1)]]], kvSeq(5), true);
    expect(cache.holdsWhole(parent, cache.generation)).toBe(true);
    // A table created under it: its group is exactly what the entry puts.
    cache.beginApply([put(7, 6)]);
    cache.endApply(kvSeq(6));
    expect(cache.get(tableGroup(7), cache.generation)!.map((v) => v.begin)).toEqual([6]);
    expect(cache.holdsWhole(parent, cache.generation)).toBe(true);
    // A failed batch, a delete under it, or a dropped generation: no longer known whole.
    cache.beginApply([put(8, 7)]);
    cache.endApply(undefined);
    expect(cache.get(tableGroup(8), cache.generation)).toBeUndefined();
    expect(cache.holdsWhole(parent, cache.generation)).toBe(false);
    cache.offerParent(parent, [[tableGroup(1), [version(1, 1)]], [tableGroup(7), [version(7, 6)]]], kvSeq(6), true);
    const before = cache.generation;
    cache.beginApply([{ type: 'del', key: encodeKey(Space.Table, [1], 1) }]);
    cache.endApply(kvSeq(7));
    expect(cache.holdsWhole(parent, cache.generation)).toBe(false);
    expect(cache.holdsWhole(parent, before)).toBe(false);
    cache.offerParent(parent, [[tableGroup(7), [version(7, 6)]]], kvSeq(7), true);
    for (let id = 100; id < 160; id++) cache.offer(tableGroup(id), [], kvSeq(7)); // past half the capacity: a flip
    expect(cache.holdsWhole(parent, cache.generation)).toBe(false);
  });

  it('a file group a commit takes past the cap is let go, and its parent is no longer held whole', () => {
    const cache = new VersionCache(kvSeq(1));
    const files = (table: number) => group(Space.DeleteFile, [table]);
    const key = (table: number, id: number, begin: number) => encodeKey(Space.DeleteFile, [table, id], begin);
    const parent = groupId(group(Space.DeleteFile, []));
    const full = Array.from({ length: MAX_CACHED_GROUP }, (_, i) => ({ key: key(1, i, 1), fields: [1, i], begin: 1, row: { end: null } }));
    cache.offerReadAhead(parent, [[groupId(files(1)), full]], kvSeq(1), 'first', true);
    expect(cache.holdsWhole(parent, cache.generation)).toBe(true);
    // Table 1 gains one more delete file (past the cap), table 2 its first (MAX_CACHED_GROUP + 1 of them).
    const puts = [key(1, MAX_CACHED_GROUP, 2), ...Array.from({ length: MAX_CACHED_GROUP + 1 }, (_, i) => key(2, i, 2))].map((k) => ({ type: 'put' as const, key: k, value: encodeValue({ end: null }) }));
    cache.beginApply(puts);
    cache.endApply(kvSeq(2));
    expect(cache.get(groupId(files(1)), cache.generation)).toBeUndefined();
    expect(cache.get(groupId(files(2)), cache.generation)).toBeUndefined();
    // Else a listing would take the missing group for one with no files.
    expect(cache.holdsWhole(parent, cache.generation)).toBe(false);
  });

  it('a file group created past the cap under a parent held whole is not kept, and the parent is no longer whole', () => {
    const cache = new VersionCache(kvSeq(1));
    const parent = groupId(group(Space.DeleteFile, []));
    cache.offerReadAhead(parent, [], kvSeq(1), 'first', true);
    expect(cache.holdsWhole(parent, cache.generation)).toBe(true);
    const puts = Array.from({ length: MAX_CACHED_GROUP + 1 }, (_, i) => ({ type: 'put' as const, key: encodeKey(Space.DeleteFile, [3, i], 2), value: encodeValue({ end: null }) }));
    cache.beginApply(puts);
    cache.endApply(kvSeq(2));
    expect(cache.get(groupId(group(Space.DeleteFile, [3])), cache.generation)).toBeUndefined();
    expect(cache.holdsWhole(parent, cache.generation)).toBe(false);
  });

  it('keeps a metadata group however many versions it has', () => {
    const cache = new VersionCache(kvSeq(1));
    const history = Array.from({ length: 10_000 }, (_, i) => version(1, i + 1));
    cache.offer(tableGroup(1), history, kvSeq(1));
    expect(cache.get(tableGroup(1), cache.generation)).toHaveLength(10_000);
  });

  it('keeps at most its capacity, dropping groups not used since the generation before', () => {
    const cache = new VersionCache(kvSeq(1), 6);
    for (const id of [1, 2, 3]) cache.offer(tableGroup(id), [], kvSeq(1)); // half full: 1-3 become the old generation
    cache.offer(tableGroup(4), [], kvSeq(1));
    expect(cache.get(tableGroup(1), cache.generation)).toBeDefined(); // used again: back in the young generation
    cache.offer(tableGroup(5), [], kvSeq(1)); // the young generation turns old; 2 and 3 were not used: gone
    expect(cache.get(tableGroup(2), cache.generation)).toBeUndefined();
    expect(cache.get(tableGroup(3), cache.generation)).toBeUndefined();
    for (const kept of [1, 4, 5]) expect(cache.get(tableGroup(kept), cache.generation), `group ${kept}`).toBeDefined();
  });
});

describe('cached metadata through the catalog', () => {
  it('an old reader resolving after newer commits neither sees them nor hides them from new readers', async () => {
    const c = await openCatalog();
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'a', type: 'int64' }]));
    const old = await c.reader();
    await c.transaction(async (tx) => {
      await tx.renameTable('main', 't', 'u');
      await tx.addColumn('main', 'u', { name: 'b', type: 'varchar' });
    });
    // The old reader reads its groups from its old view…
    expect((await old.table('main', 't')).columns.map((x) => x.name)).toEqual(['a']);
    await expect(old.table('main', 'u')).rejects.toSatisfy((e) => isStrataError(e, 'NOT_FOUND'));
    // …and a new reader still gets the new state.
    const fresh = await c.reader();
    expect((await fresh.table('main', 'u')).columns.map((x) => x.name)).toEqual(['a', 'b']);
    await expect(fresh.table('main', 't')).rejects.toSatisfy((e) => isStrataError(e, 'NOT_FOUND'));
    // Both readers again, now that the groups are warm.
    expect((await old.table('main', 't')).columns.map((x) => x.name)).toEqual(['a']);
    expect((await fresh.table('main', 'u')).columns.map((x) => x.name)).toEqual(['a', 'b']);
    await Promise.all([old.close(), fresh.close()]);
  });

  it('entries applied from another process invalidate what this process cached', async () => {
    const store = { path: path.join(await tempDir(), 'store') };
    const a = await openCatalog({ dir: await tempDir(), store });
    const b = await openCatalog({ dir: await tempDir(), store });
    await a.transaction((tx) => tx.createTable('main', 't', [{ name: 'a', type: 'int64' }]));
    await b.refresh();
    const warm = await b.reader();
    expect((await warm.table('main', 't')).columns).toHaveLength(1);
    await warm.close();
    await a.transaction(async (tx) => {
      await tx.dropColumn('main', 't', 'a').catch(() => undefined); // the only column: refused, tx goes on
      await tx.addColumn('main', 't', { name: 'b', type: 'int64' });
      await tx.renameTable('main', 't', 'v');
    });
    await b.refresh();
    const r = await b.reader();
    expect((await r.table('main', 'v')).columns.map((x) => x.name)).toEqual(['a', 'b']);
    await expect(r.table('main', 't')).rejects.toSatisfy((e) => isStrataError(e, 'NOT_FOUND'));
    await r.close();
  });
});

describe('reading a parent whole', () => {
  it('transactions that miss under one parent at once read it once, and each finds its own group', async () => {
    const dir = await tempDir();
    const columns = [{ name: 'x', type: 'int64' }];
    let c = await openCatalog({ dir });
    await c.transaction(async (tx) => {
      for (let i = 0; i < 50; i++) await tx.createTable('main', `t${i}`, columns);
    });
    await c.close();
    // Reopened, nothing of the catalog is in memory: eight callers' first commits all miss their table.
    c = await openCatalog({ dir });
    const reads = vi.spyOn(IndexView.prototype as unknown as { readGroups(g: Group, prefix: Uint8Array, limit: number): Promise<unknown> }, 'readGroups');
    try {
      const done = await Promise.all(
        Array.from({ length: 8 }, (_, i) => c.transaction((tx) => tx.addDataFile('main', `t${i * 5}`, { path: `t${i * 5}/f.parquet`, recordCount: 1, fileSizeBytes: 1 }))),
      );
      expect(new Set(done.map((d) => d.snapshot)).size).toBe(8);
      // The Table parent is the space alone: one read of every table's rows, not one per caller.
      const wholeTables = reads.mock.calls.filter(([g, prefix]) => g.space === Space.Table && prefix.length === 1);
      expect(wholeTables).toHaveLength(1);
    } finally {
      reads.mockRestore();
    }
    const r = await c.reader();
    for (let i = 0; i < 8; i++) expect((await r.dataFiles('main', `t${i * 5}`)).map((f) => f.path)).toEqual([`t${i * 5}/f.parquet`]);
    await r.close();
    await c.close();
  });
});
