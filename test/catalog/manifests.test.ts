// Listings come from per-commit manifests merged with the index of file ends (or, for a small table, from
// its cached group built from them). A table past the cached size, with removals, a restore and excision,
// read at every snapshot by the writer and by a fresh index, against a model of which paths each holds.
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/index.js';
import { openCatalog, steppingClock, tempDir } from '../helpers.js';

const file = (p: string) => ({ path: p, recordCount: 10, fileSizeBytes: 100 });

async function pathsAt(c: Catalog, snapshot: number): Promise<string[]> {
  const r = await c.reader({ snapshot });
  try {
    const files = await r.dataFiles('main', 'big');
    const ids = files.map((f) => f.id);
    expect(ids, 'ids ascending and unique').toEqual([...new Set(ids)].sort((a, b) => a - b));
    return files.map((f) => f.path).sort();
  } finally {
    await r.close();
  }
}

describe('file manifests', () => {
  it('a large table reads as the model says at every snapshot, through removals, a restore and excision', { timeout: 60_000 }, async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir, clock: steppingClock() });
    await c.transaction((tx) => tx.createTable('main', 'big', [{ name: 'x', type: 'int64' }]));
    const model = new Map<number, string[]>(); // snapshot → visible paths
    let live = new Map<string, number>(); // path → file id
    const commit = async (fn: Parameters<Catalog['transaction']>[0]) => {
      const { snapshot } = await c.transaction(fn);
      return snapshot!;
    };
    const add = async (tag: string, n: number) => {
      const ids: [string, number][] = [];
      const s = await commit(async (tx) => {
        for (let i = 0; i < n; i++) ids.push([`${tag}-${i}`, await tx.addDataFile('main', 'big', file(`${tag}-${i}`))]);
      });
      for (const [p, id] of ids) live.set(p, id);
      model.set(s, [...live.keys()].sort());
      return s;
    };
    const remove = async (paths: string[]) => {
      const s = await commit(async (tx) => {
        for (const p of paths) await tx.removeDataFile('main', 'big', live.get(p)!);
      });
      for (const p of paths) live.delete(p);
      model.set(s, [...live.keys()].sort());
      return s;
    };
    for (let k = 0; k < 5; k++) await add(`c${k}`, 1000);
    const before = [...model.keys()].at(-1)!;
    await remove(['c0-0', 'c0-999', 'c2-500', 'c4-0', 'c4-999']);
    await add('c5', 500);
    await remove(['c5-0', 'c5-499', 'c1-1']);
    // A restore brings the removed files back under new ids.
    const restored = await commit((tx) => tx.restoreTable('main', 'big', before));
    model.set(restored, model.get(before)!);
    const r = await c.reader({ snapshot: restored });
    live = new Map((await r.dataFiles('main', 'big')).map((f) => [f.path, f.id]));
    await r.close();
    await remove(['c3-3']);

    const other = await openCatalog({ dir: await tempDir(), store: { path: path.join(dir, 'store') }, readOnly: true });
    for (const [s, paths] of model) {
      expect(await pathsAt(c, s), `writer at ${s}`).toEqual(paths);
      expect(await pathsAt(other, s), `fresh index at ${s}`).toEqual(paths);
    }

    // Excision takes the removed files' versions out of their manifests; what stays readable reads the same.
    await c.advanceRetainFrom({ snapshot: restored });
    const report = await c.excise();
    expect(report.versions).toBeGreaterThanOrEqual(8);
    await other.refresh();
    for (const [s, paths] of model) {
      if (s < restored) continue;
      expect(await pathsAt(c, s), `writer at ${s} after excision`).toEqual(paths);
      expect(await pathsAt(other, s), `fresh index at ${s} after excision`).toEqual(paths);
    }
    const third = await openCatalog({ dir: await tempDir(), store: { path: path.join(dir, 'store') }, readOnly: true });
    for (const [s, paths] of model) if (s >= restored) expect(await pathsAt(third, s)).toEqual(paths);
    // Commits of 1,000 files are manifests in parts: excision trimmed parts, and they still agree with the rows.
    expect((await c.verify()).violations).toEqual([]);
  });

  it('two writers whose id blocks interleave: every listing, first or cached, in any process, lists in commit order', async () => {
    const store = { path: path.join(await tempDir(), 'store') };
    const a = await openCatalog({ dir: await tempDir(), store, writerName: 'a' });
    const b = await openCatalog({ dir: await tempDir(), store, writerName: 'b' });
    await a.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    for (let i = 0; i < 6; i++) {
      for (const [w, c] of [['a', a], ['b', b]] as const) await c.transaction((tx) => tx.addDataFile('main', 't', file(`${w}${i}`)));
    }
    await a.refresh();
    const fresh = await openCatalog({ dir: await tempDir(), store, readOnly: true });
    for (const c of [a, b, fresh]) {
      const r = await c.reader();
      const first = await r.dataFiles('main', 't');
      const again = await r.dataFiles('main', 't');
      await r.close();
      // Each writer's ids come from its own block: a's are all below b's, and commit order alternates.
      expect(first.map((f) => f.path)).toEqual(['a0', 'b0', 'a1', 'b1', 'a2', 'b2', 'a3', 'b3', 'a4', 'b4', 'a5', 'b5']);
      expect(again).toEqual(first);
      expect(first.map((f) => f.beginSnapshot)).toEqual([...first.map((f) => f.beginSnapshot)].sort((x, y) => x - y));
    }
  });

  it('a first listing hands a table of many small commits on in batches of hundreds, in commit order', async () => {
    const dir = await tempDir();
    let c = await openCatalog({ dir, checkpointEvery: 0 });
    await c.transaction((tx) => tx.createTable('main', 'big', [{ name: 'x', type: 'int64' }]));
    const want: string[] = [];
    for (let commit = 0; commit < 120; commit++) {
      await c.transaction(async (tx) => {
        for (let i = 0; i < 10; i++) {
          want.push(`c${commit}-${i}`);
          await tx.addDataFile('main', 'big', file(`c${commit}-${i}`));
        }
      });
    }
    await c.close();
    // Opened again, nothing of the table is cached: the listing reads its 120 manifests.
    c = await openCatalog({ dir, checkpointEvery: 0 });
    const r = await c.reader();
    try {
      const batches: string[][] = [];
      for await (const batch of r.dataFileBatches('main', 'big')) batches.push(batch.map((f) => f.path));
      expect(batches.flat()).toEqual(want);
      // Not one batch per commit's manifest (ten files each): every batch but the last holds hundreds.
      expect(batches.length).toBeLessThanOrEqual(3);
      for (const b of batches.slice(0, -1)) expect(b.length).toBeGreaterThanOrEqual(500);
      // The second listing comes from the group the first one cached, the same files in the same order.
      expect((await r.dataFiles('main', 'big')).map((f) => f.path)).toEqual(want);
    } finally {
      await r.close();
    }
  });
});
