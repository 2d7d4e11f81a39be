// A table that keeps ending files (compactions, overwrites, restores) gets bases: every file visible at one
// snapshot, written by the commit after which a listing would read more than twice its live files. A
// listing at S reads the newest base at or before S, the manifests after it and the files that ended since
// (decision 0058): what it reads follows what it returns, not the table's history. Read at every snapshot,
// against a model of which files each holds and in which order, by the writer, by a fresh index rebuilt from
// the log, after an excision and after commits past it; verify finds the bases and their ends as the rows say.
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Space } from '../../keys/spaces.js';
import { IndexView, type Range } from '../../src/kv/read-view.js';
import type { Catalog } from '../../src/index.js';
import { openCatalog, steppingClock, tempDir } from '../helpers.js';
import { seeded } from '../support/random.js';

afterEach(() => {
  vi.restoreAllMocks();
});

type Live = { id: number; path: string; begin: number }[];

/** Paths in commit order (the snapshot that added each, then its id), as a listing gives them. */
const inCommitOrder = (files: Live) => [...files].sort((a, b) => a.begin - b.begin || a.id - b.id).map((f) => f.path);

/** Listings read from a base so far. */
let fromBase = 0;

/** The files at a snapshot, as id, path and begin; with `hideBases`, read as if the table had none. */
async function listed(c: Catalog, snapshot: number, opts: { hideBases?: boolean } = {}): Promise<{ id: number; path: string; begin: number }[]> {
  const scan = IndexView.prototype.scanBatches;
  const spy = vi.spyOn(IndexView.prototype, 'scanBatches').mockImplementation(function (this: IndexView, range: Range) {
    if (opts.hideBases && range.gte?.[0] === Space.DataFileBase) return (async function* () {})();
    // The ends since a base are read only by a listing from one.
    if (range.gte?.[0] === Space.DataFileEndedAt) fromBase++;
    return scan.call(this, range);
  });
  const r = await c.reader({ snapshot });
  try {
    return (await r.dataFiles('main', 't')).map((f) => ({ id: f.id, path: f.path, begin: f.beginSnapshot }));
  } finally {
    await r.close();
    spy.mockRestore();
  }
}

async function listing(c: Catalog, snapshot: number, table = 't'): Promise<string[]> {
  const r = await c.reader({ snapshot });
  try {
    return (await r.dataFiles('main', table)).map((f) => f.path);
  } finally {
    await r.close();
  }
}

describe('listing from bases', () => {
  it('a table that ends files reads as the model says at every snapshot, from a fresh index, past an excision, and verify agrees', { timeout: 180_000 }, async () => {
    const dir = await tempDir();
    const random = seeded(46);
    const pick = (n: number) => Math.floor(random() * n);
    const c = await openCatalog({ dir, clock: steppingClock(), durability: 'relaxed' });
    await c.transaction(async (tx) => {
      await tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]);
      await tx.createTable('main', 'u', [{ name: 'x', type: 'int64' }]);
    });
    const model = new Map<number, { t: string[]; u: string[] }>();
    let t: Live = [];
    let u: Live = [];
    let n = 0;
    const file = () => ({ path: `f${n++}.parquet`, recordCount: 1, fileSizeBytes: 10 });
    // One commit into `table`: `adds` new files and the removal of about `share` of its live ones.
    const change = async (table: 't' | 'u', adds: number, share: number) => {
      const live = table === 't' ? t : u;
      const gone = live.filter(() => random() < share);
      const added = Array.from({ length: adds }, file);
      let ids: number[] = [];
      const { snapshot } = await c.transaction(async (tx) => {
        for (const f of gone) await tx.removeDataFile('main', table, f.id);
        if (added.length > 0) ids = await tx.addDataFiles('main', table, added);
      });
      const next = live.filter((f) => !gone.includes(f)).concat(added.map((f, i) => ({ id: ids[i]!, path: f.path, begin: snapshot! })));
      if (table === 't') t = next;
      else u = next;
      return snapshot!;
    };
    const record = (s: number) => model.set(s, { t: inCommitOrder(t), u: inCommitOrder(u) });
    for (let i = 0; i < 40; i++) {
      // Mostly replacing much of the table, at times only adding or only removing; now and then both tables
      // at once (a group commit of two).
      const adds = i % 7 === 3 ? 0 : 100 + pick(300);
      const share = i % 5 === 1 && adds > 0 ? 0 : 0.1 + random() * 0.7;
      if (i % 6 === 5) {
        const [before, old] = [inCommitOrder(t), inCommitOrder(u)];
        const [a, b] = await Promise.all([change('t', adds, share), change('u', 20 + pick(50), 0.3)]);
        model.set(Math.min(a, b), a < b ? { t: inCommitOrder(t), u: old } : { t: before, u: inCommitOrder(u) });
        record(Math.max(a, b));
      } else record(await change('t', adds, share));
    }
    const snapshots = [...model.keys()];
    const head = snapshots.at(-1)!;

    // The newest listing reads from a base (and then the ends since it): the table ended far more files than it holds.
    const scanned: number[] = [];
    const scan = IndexView.prototype.scanBatches;
    vi.spyOn(IndexView.prototype, 'scanBatches').mockImplementation(function (this: IndexView, range: Range) {
      scanned.push(range.gte?.[0] ?? -1);
      return scan.call(this, range);
    });
    expect(await listing(c, head)).toEqual(model.get(head)!.t);
    expect(scanned).toContain(Space.DataFileEndedAt);
    vi.restoreAllMocks();

    const check = async (cat: Catalog, from: number) => {
      for (const s of snapshots) {
        if (s < from) continue;
        expect(await listing(cat, s), `t at snapshot ${s}`).toEqual(model.get(s)!.t);
        expect(await listing(cat, s, 'u'), `u at snapshot ${s}`).toEqual(model.get(s)!.u);
      }
      const report = await cat.verify();
      expect(report.violations).toEqual([]);
    };
    await check(c, 0);
    // A fresh index replays the log: the same bases, the same answers.
    const fresh = await openCatalog({ dir: await tempDir(), store: { path: path.join(dir, 'store') }, readOnly: true });
    await check(fresh, 0);

    // Excision takes the files that ended before retain-from, and the bases before it that listed them (the
    // first base comes once the table has held more files than a cached group, some 20 commits in).
    const mid = snapshots[Math.floor((snapshots.length * 3) / 4)]!;
    await c.advanceRetainFrom({ snapshot: mid });
    const excised = await c.excise();
    expect(excised.versions).toBeGreaterThan(0);
    await check(c, mid);
    for (let i = 0; i < 8; i++) record(await change('t', 50 + pick(200), random() * 0.8));
    snapshots.splice(0, snapshots.length, ...model.keys());
    await check(c, mid);
  });

  it('answers as the manifests do when bases are hidden: members of one group commit on one table, restores, a drop brought back, a tag below retain-from', { timeout: 180_000 }, async () => {
    const dir = await tempDir();
    const random = seeded(7);
    const c = await openCatalog({ dir, clock: steppingClock(), durability: 'relaxed' });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    let n = 0;
    const file = () => ({ path: `f${n++}.parquet`, recordCount: 1, fileSizeBytes: 10 });
    const live = async () => (await listed(c, (await c.snapshots()).at(-1)!.id)).map((f) => f.id);
    const change = (remove: number[], adds: number) =>
      c.transaction(async (tx) => {
        for (const id of remove) await tx.removeDataFile('main', 't', id);
        if (adds > 0) await tx.addDataFiles('main', 't', Array.from({ length: adds }, file));
      });
    // Every listing, against the same listing with the table's bases hidden (the manifests alone), and verify.
    const agree = async (label: string, snapshots?: number[], basesRead = true) => {
      const before = fromBase;
      for (const s of snapshots ?? (await c.snapshots()).map((x) => x.id)) {
        // Where the table does not exist (before it, between its drop and the restore), both say so.
        const at = (hideBases: boolean) => listed(c, s, { hideBases }).catch((e: { code: string }) => e.code);
        expect(await at(false), `${label}: at ${s}`).toEqual(await at(true));
      }
      if (basesRead) expect(fromBase, `${label}: listings from a base`).toBeGreaterThan(before);
      expect((await c.verify()).violations, label).toEqual([]);
    };
    for (let i = 0; i < 16; i++) await change(await live(), 300);
    // Four members a group commit plans on one table, each on the state after the ones before it.
    for (let i = 0; i < 12; i++) {
      const parts: number[][] = [[], [], [], []];
      for (const id of await live()) if (random() < 0.8) parts[Math.floor(random() * 4)]!.push(id);
      await Promise.all(parts.map((p) => change(p, 60 + Math.floor(random() * 100))));
    }
    await agree('group commits');
    const early = (await c.snapshots()).map((x) => x.id);
    await c.restoreTable('main', 't', early[10]!);
    await change((await live()).slice(0, 100), 50);
    await c.restoreTable('main', 't', early.at(-3)!);
    await agree('restored');
    const beforeDrop = (await c.snapshots()).at(-1)!.id;
    await c.transaction((tx) => tx.dropTable('main', 't'));
    await c.restoreCatalog(beforeDrop);
    for (let i = 0; i < 4; i++) await change((await live()).filter(() => random() < 0.7), 200);
    await agree('dropped and brought back');
    const all = (await c.snapshots()).map((x) => x.id);
    await c.createTag('keep', all[20]!);
    const from = all.at(-6)!;
    await c.advanceRetainFrom({ snapshot: from });
    expect((await c.excise()).versions).toBeGreaterThan(0);
    // The bases before retain-from went with the files; what excision left of the manifests is now few
    // enough files to be cached whole, and listings come from memory.
    await agree('excised', [all[20]!, ...all.filter((s) => s >= from)], false);
    for (let i = 0; i < 6; i++) await change((await live()).filter(() => random() < 0.7), 200);
    await agree('committed after', [all[20]!, ...(await c.snapshots()).map((x) => x.id).filter((s) => s >= from)], false);
  });
});
