// A small table's first listing also reads the files of the tables after it, so that their first listings
// come from memory (src/read/file-listing.ts, smallTablesFrom). What it reads must be what each table's own
// listing would read — files of interleaved id blocks, ends, tables with no files, commits in manifest parts —
// and it must actually spare the later listings their LevelDB iterators.
import * as path from 'node:path';
import fc from 'fast-check';
import { Level } from 'level';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Space } from '../../keys/spaces.js';
import { MAX_CACHED_GROUP } from '../../src/kv/version-cache.js';
import type { Catalog, ColumnSpec } from '../../src/index.js';
import { openCatalog, steppingClock, tempDir } from '../helpers.js';
import { propertyRuns } from '../support/property-runs.js';

const COLUMNS = [{ name: 'x', type: 'int64' }];

async function listAt(c: Catalog, snapshot: number, table: string): Promise<string[]> {
  const r = await c.reader({ snapshot });
  try {
    return (await r.dataFiles('main', table)).map((f) => `${f.id} ${f.path} ${f.rowIdStart}`);
  } finally {
    await r.close();
  }
}

/** Counts the LevelDB iterators the catalogs of this process open from now on. */
function countIterators(): () => number {
  const spy = vi.spyOn(Level.prototype as unknown as { _iterator: (...a: unknown[]) => unknown }, '_iterator');
  return () => spy.mock.calls.length;
}

type Entries = [Uint8Array, Uint8Array][];

/** Counts the manifest entries LevelDB hands the catalogs of this process from now on. */
function countManifestReads(): () => number {
  const count = countReads();
  return () => count(Space.DataFileManifest);
}

/** Counts the entries of each space LevelDB hands the catalogs of this process from now on (and its iterators, as `iterators`). */
function countReads(): ((space: Space) => number) & { iterators: () => number } {
  const read = new Map<number, number>();
  let opened = 0;
  const proto = Level.prototype as unknown as { _iterator: (...a: unknown[]) => { _nextv: (...a: unknown[]) => Promise<Entries> } };
  const original = proto._iterator;
  vi.spyOn(proto, '_iterator').mockImplementation(function (this: unknown, ...args: unknown[]) {
    const it = original.apply(this, args);
    opened++;
    const nextv = it._nextv.bind(it);
    it._nextv = async (...a: unknown[]) => {
      const entries = await nextv(...a);
      for (const [key] of entries) read.set(key[0]!, (read.get(key[0]!) ?? 0) + 1);
      return entries;
    };
    return it;
  });
  return Object.assign((space: Space) => read.get(space) ?? 0, { iterators: () => opened });
}

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * Resolves eight tables of `c`, as a process that touches many tables does: from the eighth, every table's
 * name, row and columns are read ahead (keys/groups.ts), so what is counted after is the listings' own.
 */
async function resolveEight(c: Catalog): Promise<void> {
  const r = await c.reader();
  try {
    for (let t = 12; t < 20; t++) await r.table('main', `t${t}`);
  } finally {
    await r.close();
  }
}

const step = fc.record({ writer: fc.nat(1), table: fc.nat(5), add: fc.nat(3), remove: fc.nat(2), pick: fc.nat() });

type Listing = (c: Catalog, snapshot: number, table: string) => Promise<string[]>;

/**
 * Opens a fresh index on the store (built from the log) and the writer's own again (its writer closed), and
 * checks that each lists what `model` (snapshot → each table's lines) says: first every table at the newest
 * snapshot in the order `order` draws (each first touch may start a read-ahead), then every table at every
 * snapshot.
 */
async function reopenedAsModelSays(
  at: { dir: string; store: { path: string }; clock: () => number },
  model: ReadonlyMap<number, string[][]>,
  order: readonly number[],
  list: Listing,
): Promise<{ fresh: Catalog; reopened: Catalog }> {
  const open = (name: string) => openCatalog({ dir: path.join(at.dir, name), store: at.store, clock: at.clock, checkpointEvery: 0 });
  const [fresh, reopened] = [await open('fresh'), await open('a')];
  const newest = Math.max(...model.keys());
  const tables = model.get(newest)!.length;
  for (const c of [fresh, reopened]) {
    for (const t of order.map((k, i) => (k + i) % tables)) expect(await list(c, newest, `t${t}`), `t${t} first touched`).toEqual(model.get(newest)![t]);
    for (const [snapshot, want] of model) {
      for (let t = 0; t < tables; t++) expect(await list(c, snapshot, `t${t}`), `t${t} at ${snapshot}`).toEqual(want[t]);
    }
  }
  return { fresh, reopened };
}


/** A catalog of `n` tables t0… of `columns`, with the options to open it again. */
async function withTables(n: number, columns: ColumnSpec[] = COLUMNS) {
  const opts = { dir: await tempDir(), clock: steppingClock(), checkpointEvery: 0 };
  const catalog = await openCatalog(opts);
  await catalog.transaction(async (tx) => {
    for (let t = 0; t < n; t++) await tx.createTable('main', `t${t}`, columns);
  });
  return { opts, catalog };
}

describe("a listing's read-ahead of the tables after it", () => {
  it('lists what a model says for every table at every snapshot, first touch in any order', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.array(step, { minLength: 1, maxLength: 30 }), fc.array(fc.nat(), { minLength: 6, maxLength: 6 }), async (tables, steps, order) => {
        const dir = await tempDir();
        const store = { path: path.join(dir, 'store') };
        const clock = steppingClock();
        const a = await openCatalog({ dir: path.join(dir, 'a'), store, clock, checkpointEvery: 0 });
        const b = await openCatalog({ dir: path.join(dir, 'b'), store, clock, checkpointEvery: 0 });
        const { snapshot: created } = await a.transaction(async (tx) => {
          for (let t = 0; t < tables; t++) await tx.createTable('main', `t${t}`, COLUMNS);
        });
        // Two writers, each handing out file ids from a block of its own: a table's ids interleave.
        const live = Array.from({ length: tables }, () => [] as { id: number; path: string }[]);
        const model = new Map<number, string[][]>();
        const rows = new Array<number>(tables).fill(0);
        const listed = Array.from({ length: tables }, () => [] as string[]);
        model.set(created!, listed.map(() => []));
        let n = 0;
        for (const s of steps) {
          const t = s.table % tables;
          const files = live[t]!;
          const gone = new Set<number>();
          const added: { id: number; path: string }[] = [];
          const { snapshot } = await (s.writer === 0 ? a : b).transaction(async (tx) => {
            for (let i = 0; i < s.remove && gone.size < files.length; i++) {
              const f = files[(s.pick + i) % files.length]!;
              if (gone.has(f.id)) continue;
              await tx.removeDataFile('main', `t${t}`, f.id);
              gone.add(f.id);
            }
            for (let i = 0; i < s.add; i++) {
              const p = `f${n++}.parquet`;
              added.push({ id: await tx.addDataFile('main', `t${t}`, { path: p, recordCount: 10, fileSizeBytes: 100 }), path: p });
            }
          });
          if (snapshot === null) continue;
          added.sort((x, y) => x.id - y.id);
          const stay = listed[t]!.filter((line) => !gone.has(Number(line.split(' ')[0])));
          listed[t] = [...stay, ...added.map((f) => `${f.id} ${f.path} ${(rows[t]! += 10) - 10}`)];
          live[t] = [...files.filter((f) => !gone.has(f.id)), ...added];
          model.set(snapshot, listed.map((l) => [...l]));
        }
        await a.close();
        const { fresh, reopened } = await reopenedAsModelSays({ dir, store, clock }, model, order.slice(0, tables), listAt);
        // Commits patch the groups read ahead in place, by key: each table loses its oldest file and gains one.
        for (let t = 0; t < tables; t++) {
          const gone = live[t]![0];
          const p = `f${n++}.parquet`;
          let id = 0;
          const { snapshot } = await reopened.transaction(async (tx) => {
            if (gone !== undefined) await tx.removeDataFile('main', `t${t}`, gone.id);
            id = await tx.addDataFile('main', `t${t}`, { path: p, recordCount: 10, fileSizeBytes: 100 });
          });
          const want = [...listed[t]!.filter((line) => gone === undefined || Number(line.split(' ')[0]) !== gone.id), `${id} ${p} ${rows[t]}`];
          expect(await listAt(reopened, snapshot!, `t${t}`), `t${t} after a commit`).toEqual(want);
        }
        await Promise.all([b.close(), fresh.close(), reopened.close()]);
      }),
      { numRuns: propertyRuns(25) },
    );
  });

  it("spares the later tables' first listings their iterators, and leaves out what its own listing must read", { timeout: 60_000 }, async () => {
    const { opts, catalog } = await withTables(20);
    let c = catalog;
    const add = (t: number, from: number, count: number) =>
      c.transaction(async (tx) => {
        for (let i = 0; i < count; i++) await tx.addDataFile('main', `t${t}`, { path: `t${t}/f${from + i}.parquet`, recordCount: 1, fileSizeBytes: 10 });
      });
    for (let round = 0; round < 3; round++) for (let t = 0; t < 20; t++) if (t !== 5 && t !== 9) await add(t, round * 2, 2);
    // t5: one commit of more files than a manifest part holds; t9: none.
    await add(5, 0, 600);
    const want = new Map<number, number>();
    for (let t = 0; t < 20; t++) want.set(t, t === 5 ? 600 : t === 9 ? 0 : 6);
    await c.close();
    c = await openCatalog(opts);
    await resolveEight(c);
    const iterators = countIterators();
    const count = async (t: number) => {
      const r = await c.reader();
      try {
        return (await r.dataFiles('main', `t${t}`)).length;
      } finally {
        await r.close();
      }
    };
    // A process's first listing reads its own table only (a command that shows one table reads no other);
    // the second reads ahead.
    expect(await count(1)).toBe(6);
    const own = iterators();
    expect(own).toBeGreaterThan(0);
    expect(await count(2)).toBe(6);
    const atFirst = iterators();
    expect(atFirst).toBeGreaterThan(own);
    for (const t of [3, 4, 6, 7, 8, 9, 10, 15, 19]) expect(await count(t), `t${t}`).toBe(want.get(t));
    expect(iterators(), 'tables after it, read ahead').toBe(atFirst);
    // The table in parts is read by its own listing; so are the tables before the first.
    expect(await count(5)).toBe(600);
    expect(iterators()).toBeGreaterThan(atFirst);
    expect(await count(0)).toBe(6);
  });

  it("a process's first look at a table reads that table's rows, columns and files alone; its second reads files ahead, its eighth rows and columns", async () => {
    const { opts, catalog } = await withTables(20, [...COLUMNS, { name: 'y', type: 'varchar' }]);
    let c = catalog;
    for (let t = 0; t < 20; t++) await c.transaction((tx) => tx.addDataFile('main', `t${t}`, { path: `t${t}/f.parquet`, recordCount: 1, fileSizeBytes: 10 }));
    await c.close();
    c = await openCatalog(opts);
    const read = countReads();
    const r = await c.reader();
    expect((await r.table('main', 't7')).columns).toHaveLength(2);
    expect(await r.dataFiles('main', 't7')).toHaveLength(1);
    expect([read(Space.Table), read(Space.Column), read(Space.DataFileManifest)]).toEqual([1, 2, 1]);
    expect((await r.table('main', 't3')).columns).toHaveLength(2);
    expect(await r.dataFiles('main', 't3')).toHaveLength(1);
    expect(read(Space.Table), "only t3's: a table's row is read ahead from the eighth table on").toBe(1 + 1);
    expect(read(Space.Column), "only t3's: a table's columns are read ahead from the eighth table on").toBe(2 + 2);
    expect(read(Space.DataFileManifest)).toBeGreaterThanOrEqual(1 + 17);
    for (const t of [1, 2, 4, 5, 6]) expect((await r.table('main', `t${t}`)).columns).toHaveLength(2);
    expect([read(Space.Table), read(Space.Column)], 'seven tables, each its own').toEqual([7, 7 * 2]);
    expect((await r.table('main', 't8')).columns).toHaveLength(2);
    // The eighth has every table's rows and columns read beside it (decision 0049), not in its way: once that
    // has landed, a table not looked at yet comes from memory. Each try takes another such table, so one the
    // try itself read and kept does not pass for it.
    await vi.waitFor(() => {
      expect(read(Space.Table), 'the eighth: every table').toBeGreaterThanOrEqual(7 + 20 - 7);
      expect(read(Space.Column), 'the eighth: every table').toBeGreaterThanOrEqual(7 * 2 + 20 * 2 - 7 * 2);
    });
    const untouched = [9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19];
    await vi.waitFor(
      async () => {
        const t = untouched.shift();
        if (t === undefined) throw new Error('every table not looked at yet was read on its own');
        const before = [read(Space.Table), read(Space.Column)];
        expect((await r.table('main', `t${t}`)).columns).toHaveLength(2);
        expect([read(Space.Table), read(Space.Column)], `t${t} from memory`).toEqual(before);
      },
      { interval: 50, timeout: 5000 },
    );
    const ahead = [read(Space.Table), read(Space.Column)] as const;
    for (let t = 0; t < 20; t++) expect((await r.table('main', `t${t}`)).columns).toHaveLength(2);
    expect([read(Space.Table), read(Space.Column)], 'the rest from memory').toEqual(ahead);
    await r.close();
  });

  it('reads each manifest about once, whatever table is touched first', async () => {
    const { opts, catalog } = await withTables(40);
    let c = catalog;
    for (let round = 0; round < 40; round++) {
      for (let t = 0; t < 40; t++) {
        await c.transaction((tx) => tx.addDataFile('main', `t${t}`, { path: `t${t}/f${round}.parquet`, recordCount: 1, fileSizeBytes: 10 }));
      }
    }
    await c.close();
    c = await openCatalog(opts);
    const read = countManifestReads();
    const r = await c.reader();
    // t39, the first miss, reads its own 40 manifests; t5 then reads ahead from the first table to the last,
    // t39's passed over undecoded (1,600); nothing is read after. A read-ahead from each table missed to the
    // end of the space would make it 40 + 1,400 + 1,600 (t0 after t5).
    for (const t of [39, 5, 0, ...Array.from({ length: 40 }, (_, i) => i)]) expect(await r.dataFiles('main', `t${t}`)).toHaveLength(40);
    await r.close();
    expect(read()).toBe(40 + 1600);
  });
});

const deleteStep = fc.record({ table: fc.nat(5), add: fc.nat(2), deletes: fc.nat(2), pick: fc.nat() });

async function deletesAt(c: Catalog, snapshot: number, table: string): Promise<string[]> {
  const r = await c.reader({ snapshot });
  try {
    return (await r.deleteFiles('main', table)).map((d) => `${d.id} ${d.dataFileId} ${d.path}`);
  } finally {
    await r.close();
  }
}

describe("delete files' read-ahead", () => {
  it('lists what a model says for every table at every snapshot, first touch in any order, and after later commits', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.array(deleteStep, { minLength: 1, maxLength: 30 }), fc.array(fc.nat(), { minLength: 6, maxLength: 6 }), async (tables, steps, order) => {
        const dir = await tempDir();
        const store = { path: path.join(dir, 'store') };
        const clock = steppingClock();
        const a = await openCatalog({ dir: path.join(dir, 'a'), store, clock, checkpointEvery: 0 });
        const { snapshot: created } = await a.transaction(async (tx) => {
          for (let t = 0; t < tables; t++) await tx.createTable('main', `t${t}`, COLUMNS);
        });
        // Per table: its data files, and the live delete file of each (a new one replaces it).
        const data = Array.from({ length: tables }, () => [] as number[]);
        const live = Array.from({ length: tables }, () => new Map<number, string>());
        const model = new Map<number, string[][]>([[created!, live.map(() => [])]]);
        const listed = () => live.map((m) => [...m].map(([dataFile, line]) => ({ dataFile, line })).sort((x, y) => Number(x.line.split(' ')[0]) - Number(y.line.split(' ')[0])).map((x) => x.line));
        let n = 0;
        const step = async (c: Catalog, t: number, add: number, deletes: number, pick: number) => {
          const added: number[] = [];
          const aimed: [number, string][] = [];
          const { snapshot } = await c.transaction(async (tx) => {
            for (let i = 0; i < add; i++) added.push(await tx.addDataFile('main', `t${t}`, { path: `d${n++}.parquet`, recordCount: 10, fileSizeBytes: 100 }));
            const files = [...data[t]!, ...added];
            for (let i = 0; i < deletes && files.length > 0; i++) {
              const dataFileId = files[(pick + i) % files.length]!;
              if (aimed.some(([f]) => f === dataFileId)) continue;
              const p = `x${n++}.parquet`;
              const id = await tx.addDeleteFile('main', `t${t}`, { dataFileId, path: p, deleteCount: 1 + i, fileSizeBytes: 50 });
              aimed.push([dataFileId, `${id} ${dataFileId} ${p}`]);
            }
          });
          if (snapshot === null) return;
          data[t]!.push(...added);
          for (const [dataFile, line] of aimed) live[t]!.set(dataFile, line);
          model.set(snapshot, listed());
        };
        for (const s of steps) await step(a, s.table % tables, s.add, s.deletes, s.pick);
        await a.close();
        const { fresh, reopened } = await reopenedAsModelSays({ dir, store, clock }, model, order.slice(0, tables), deletesAt);
        // Commits after: a table with no delete file yet gains one, in a group the cache may hold as absent.
        for (let t = 0; t < tables; t++) {
          await step(reopened, t, 1, 1, 0);
          expect(await deletesAt(reopened, Math.max(...model.keys()), `t${t}`), `t${t} after a commit`).toEqual(model.get(Math.max(...model.keys()))![t]);
        }
        await Promise.all([fresh.close(), reopened.close()]);
      }),
      { numRuns: propertyRuns(25) },
    );
  });

  it('reads a table left out as too large alone, and keeps a table found to have none, whether or not the catalog is held whole', async () => {
    const { opts, catalog } = await withTables(20);
    let c = catalog;
    // t0: more delete files than a cached group holds (one per data file), so no read is ever held whole.
    const many = MAX_CACHED_GROUP + 4;
    const ids: number[] = [];
    await c.transaction(async (tx) => {
      for (let i = 0; i < many; i++) ids.push(await tx.addDataFile('main', 't0', { path: `t0/f${i}.parquet`, recordCount: 10, fileSizeBytes: 100 }));
    });
    await c.transaction(async (tx) => {
      for (const [i, dataFileId] of ids.entries()) await tx.addDeleteFile('main', 't0', { dataFileId, path: `t0/x${i}.parquet`, deleteCount: 1, fileSizeBytes: 50 });
    });
    await c.close();
    c = await openCatalog(opts);
    await resolveEight(c);
    const read = countReads();
    const r = await c.reader();
    const deletes = async (t: number) => {
      const [before, iterators] = [read(Space.DeleteFile), read.iterators()];
      const n = (await r.deleteFiles('main', `t${t}`)).length;
      return { n, read: read(Space.DeleteFile) - before, iterators: read.iterators() - iterators };
    };
    await deletes(1);
    await deletes(2);
    // t10 had none: answered from memory after its first listing, every time.
    await deletes(10);
    expect(await deletes(10)).toEqual({ n: 0, read: 0, iterators: 0 });
    expect(await deletes(10)).toEqual({ n: 0, read: 0, iterators: 0 });
    // t0 is read by its own listing each time, never ahead first and then again.
    expect(await deletes(0)).toEqual({ n: many, read: many, iterators: 1 });
    expect(await deletes(0)).toEqual({ n: many, read: many, iterators: 1 });
    await r.close();
  });

  it('costs the first listings of a catalog without delete files one read, not an iterator each', async () => {
    const { opts, catalog } = await withTables(20);
    let c = catalog;
    await c.close();
    c = await openCatalog(opts);
    await resolveEight(c);
    const r = await c.reader();
    await r.deleteFiles('main', 't0');
    await r.deleteFiles('main', 't1');
    const iterators = countIterators();
    for (let t = 2; t < 20; t++) expect(await r.deleteFiles('main', `t${t}`)).toEqual([]);
    expect(iterators()).toBe(0);
    await r.close();
  });
});
