// Group commit: transactions of one process that are ready while a log write is in flight share the next
// log entry, each with its own snapshot, checked against the ones before it by DuckLake's rules.
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Catalog, isStrataError, type TransactionFn } from '../../src/index.js';
import { GroupCommit } from '../../src/commit/group-commit.js';
import { ObjectLog } from '../../src/log/object-log.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { FaultyStore } from '../store/doubles/faulty-store.js';
import { kvSeq } from '../../keys/ids.js';
import { dumpCatalog, openCatalog, tempDir } from '../helpers.js';
import { Occurrences } from '../support/occurrences.js';
import { logHead } from '../support/store-log.js';

const file = (p: string) => ({ path: p, recordCount: 10, fileSizeBytes: 100 });
const logEntries = logHead;

/**
 * A catalog whose next log write waits until `release()`: everything that becomes ready meanwhile queues
 * behind it, so the group that follows is exactly "everything else".
 */
async function heldCatalog(setup: TransactionFn) {
  const dir = await tempDir();
  const storePath = path.join(dir, 'store');
  let gate: Promise<void> | undefined;
  let open = () => {};
  let reached = () => {};
  const blocked = new Promise<void>((resolve) => (reached = resolve));
  const store = new FaultyStore(new DirectoryStore(storePath), {
    beforeCreate: async (key) => {
      if (!key.startsWith('log/') || !gate) return;
      reached();
      await gate;
    },
  });
  // The gate holds a create of the log's next object: the object layout (grouping is the committer's, the
  // same on both layouts; segments are measured grouping in the bench).
  const c = await openCatalog({ dir, store, logLayout: 'objects' });
  await c.transaction(setup);
  return {
    c,
    dir,
    storePath,
    /** Settles once a log write waits at the gate. */
    blocked,
    hold() {
      gate = new Promise((resolve) => (open = resolve));
    },
    release() {
      gate = undefined;
      open();
    },
  };
}

type Outcome = { snapshot: number | null } | { error: unknown };

/**
 * Transactions handed to the group committer (their functions ran and they were planned): the event a test
 * waits for before it lets the held log write go, instead of a sleep.
 */
function handedToGroupCommit(): Occurrences {
  const handed = new Occurrences();
  const commit = GroupCommit.prototype.commit;
  vi.spyOn(GroupCommit.prototype, 'commit').mockImplementation(function (this: GroupCommit, ...args) {
    handed.happened();
    return commit.apply(this, args);
  });
  return handed;
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** Settles each transaction and says how it ended. */
const settle = (runs: Promise<{ snapshot: number | null }>[]): Promise<Outcome[]> =>
  Promise.all(runs.map((r) => r.then((v) => ({ snapshot: v.snapshot }), (e: unknown) => ({ error: e }))));

describe('group commit', () => {
  it('transactions ready at once share one log entry, each with its own snapshot, metadata and files', async () => {
    const h = await heldCatalog((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    const before = await logEntries(h.storePath);
    h.hold();
    const first = h.c.transaction((tx) => tx.addDataFile('main', 't', file('f0.parquet')), { author: 'w0' });
    await h.blocked; // the first is waiting on its log write
    const handed = handedToGroupCommit();
    const rest = Array.from({ length: 39 }, (_, i) =>
      h.c.transaction((tx) => tx.addDataFile('main', 't', file(`f${i + 1}.parquet`)), { author: `w${i + 1}`, message: `commit ${i + 1}` }),
    );
    await handed.reached(39);
    h.release();
    const results = await Promise.all([first, ...rest]);

    // The first alone, then all the others in one entry.
    const log = new ObjectLog(new DirectoryStore(h.storePath));
    const entries = (await logEntries(h.storePath)) - before;
    const sizes = await Promise.all(Array.from({ length: entries }, async (_, i) => (await log.read(kvSeq(before + 1 + i)))!.snapshots.length));
    expect(sizes).toEqual([1, 39]);
    const ids = results.map((r) => r.snapshot!).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: 40 }, (_, i) => i + 2));

    // Each snapshot holds its own file and metadata, and exactly the files of the snapshots up to it.
    const byId = new Map(results.map((r, i) => [r.snapshot!, i]));
    const snapshots = await h.c.snapshots();
    for (const id of ids) {
      const i = byId.get(id)!;
      const info = snapshots.find((s) => s.id === id)!;
      expect(info.author).toBe(`w${i}`);
      expect(info.changes).toEqual(['inserted_into_table:1']);
      const r = await h.c.reader({ snapshot: id });
      const files = await r.dataFiles('main', 't');
      await r.close();
      expect(files.map((f) => f.path).sort()).toEqual(ids.filter((s) => s <= id).map((s) => `f${byId.get(s)}.parquet`).sort());
      // Row ids follow commit order: each file starts where the one before it ended.
      const own = files.find((f) => f.path === `f${i}.parquet`)!;
      expect(own.rowIdStart).toBe((id - 2) * 10);
    }

    // Another machine replaying the log (a group entry is one batch) reads the same at every snapshot.
    const other = await openCatalog({ dir: await tempDir(), store: { path: h.storePath } });
    expect(await dumpCatalog(other)).toEqual(await dumpCatalog(h.c));
  });

  it('a member that conflicts with one before it fails alone; the rest of the group lands', async () => {
    const h = await heldCatalog(async (tx) => {
      await tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]);
      await tx.createTable('main', 'keep', [{ name: 'x', type: 'int64' }]);
    });
    h.hold();
    const warmup = h.c.transaction((tx) => tx.addDataFile('main', 'keep', file('k0.parquet')));
    await h.blocked;
    // All five run on the same snapshot (nothing lands until release), so none saw another: drop vs insert
    // into t, and two creations of u.
    const handed = handedToGroupCommit();
    const outcomes = settle([
      h.c.transaction((tx) => tx.dropTable('main', 't')),
      h.c.transaction((tx) => tx.addDataFile('main', 't', file('t1.parquet'))),
      h.c.transaction((tx) => tx.createTable('main', 'u', [{ name: 'a', type: 'int64' }])),
      h.c.transaction((tx) => tx.createTable('main', 'u', [{ name: 'b', type: 'varchar' }])),
      h.c.transaction((tx) => tx.addDataFile('main', 'keep', file('k1.parquet'))),
    ]);
    await handed.reached(5);
    h.release();
    await warmup;
    const [drop, insert, u1, u2, keep] = (await outcomes) as [Outcome, Outcome, Outcome, Outcome, Outcome];
    const failed = (o: Outcome) => 'error' in o && isStrataError(o.error, 'CONFLICT');
    // An insert conflicts with a drop before it; a drop after an insert is no conflict (DuckLake: it drops
    // the inserted rows with the table).
    expect(failed(drop)).toBe(false);
    if (!failed(insert)) expect((insert as { snapshot: number }).snapshot).toBeLessThan((drop as { snapshot: number }).snapshot);
    expect([u1, u2].filter(failed)).toHaveLength(1);
    expect(failed(keep)).toBe(false);

    const r = await h.c.reader();
    const u = await r.table('main', 'u');
    const winner = failed(u1) ? 'b' : 'a';
    expect(u.columns.map((col) => col.name)).toEqual([winner]);
    expect((await r.tables('main')).map((t) => t.name).sort()).toEqual(['keep', 'u']);
    expect((await r.dataFiles('main', 'keep')).map((f) => f.path)).toEqual(['k0.parquet', 'k1.parquet']);
    await r.close();
    // Snapshots stay gap-free: a failed member took no id.
    const ids = (await h.c.snapshots()).map((s) => s.id);
    expect(ids).toEqual(ids.map((_, i) => i));
    expect(ids).toHaveLength(2 + 1 + (failed(insert) ? 3 : 4));
  });

  it('file-only transactions prepared while a group is written are planned where they land, and checked there', async () => {
    const h = await heldCatalog(async (tx) => {
      await tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]);
      await tx.addDataFile('main', 't', file('old.parquet'));
    });
    const r0 = await h.c.reader();
    const [old] = await r0.dataFiles('main', 't');
    await r0.close();
    h.hold();
    const first = h.c.transaction((tx) => tx.addDataFile('main', 't', file('a.parquet')));
    await h.blocked;
    // All of these are prepared while the first's entry is held, and only add and remove files.
    const handed = handedToGroupCommit();
    const outcomes = settle([
      h.c.transaction((tx) => tx.removeDataFile('main', 't', old!.id)),
      h.c.transaction((tx) => tx.removeDataFile('main', 't', old!.id)),
      h.c.transaction((tx) => tx.addDataFile('main', 't', file('b.parquet'))),
      h.c.transaction(async (tx) => {
        const id = await tx.addDataFile('main', 't', file('gone.parquet'));
        await tx.removeDataFile('main', 't', id);
      }),
    ]);
    await handed.reached(4);
    const snapshotsBefore = (await h.c.snapshots()).length;
    h.release();
    await first;
    const [remove1, remove2, add, nothing] = (await outcomes) as [Outcome, Outcome, Outcome, Outcome];
    const failed = (o: Outcome) => 'error' in o && isStrataError(o.error, 'CONFLICT');
    // One removal of the file lands and the other is a CONFLICT naming it; the insert lands; a transaction
    // that added a file and removed it again has no effect and makes no snapshot.
    expect([remove1, remove2].filter(failed)).toHaveLength(1);
    const won = [remove1, remove2].find((o) => !failed(o)) as { snapshot: number };
    const lost = [remove1, remove2].find(failed) as { error: { snapshot: number; message: string } };
    expect(lost.error.snapshot).toBe(won.snapshot);
    expect(lost.error.message).toMatch(new RegExp(`deletes from data file ${old!.id} of table`));
    expect(failed(add)).toBe(false);
    expect(nothing).toEqual({ snapshot: null });
    expect((await h.c.snapshots()).length).toBe(snapshotsBefore + 3);
    const r = await h.c.reader();
    const files = await r.dataFiles('main', 't');
    await r.close();
    expect(files.map((f) => f.path).sort()).toEqual(['a.parquet', 'b.parquet']);
    // Row ids stay disjoint: b's rows follow a's and old's.
    expect(new Set(files.map((f) => f.rowIdStart)).size).toBe(2);
    expect(files.find((f) => f.path === 'b.parquet')!.rowIdStart).toBeGreaterThanOrEqual(20);
  });

  it('a transaction that only reads returns while a group is written, without waiting for it', async () => {
    const h = await heldCatalog((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    h.hold();
    const first = h.c.transaction((tx) => tx.addDataFile('main', 't', file('a.parquet')));
    await h.blocked;
    let columns = 0;
    const readOnly = h.c.transaction(async (tx) => {
      columns = (await tx.reads().table('main', 't')).columns.length;
      // An operation that fails and is caught records nothing either.
      await tx.addDataFile('main', 'missing', file('b.parquet')).catch(() => undefined);
    });
    // The group stays held until after this: a read-only transaction that waited for it would never settle.
    expect(await readOnly).toEqual({ snapshot: null });
    expect(columns).toBe(1);
    h.release();
    expect((await first).snapshot).toBe(2);
  });

  it('two processes, each committing in groups into one table: every commit lands once', { timeout: 60_000 }, async () => {
    const root = await tempDir();
    const storePath = path.join(root, 'store');
    const a = await openCatalog({ dir: path.join(root, 'a'), store: { path: storePath } });
    await a.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    const b = await openCatalog({ dir: path.join(root, 'b'), store: { path: storePath } });
    const burst = (c: Catalog, name: string) =>
      Array.from({ length: 20 }, (_, i) => c.transaction((tx) => tx.addDataFile('main', 't', file(`${name}-${i}.parquet`))).then((r) => [r.snapshot!, `${name}-${i}.parquet`] as const));
    const acks = await Promise.all([...burst(a, 'a'), ...burst(b, 'b'), ...burst(a, 'a2'), ...burst(b, 'b2')]);

    await b.refresh();
    const snapshots = (await b.snapshots()).map((s) => s.id);
    expect(snapshots).toEqual(Array.from({ length: 82 }, (_, i) => i));
    expect(await logEntries(storePath)).toBeLessThan(82);
    const r = await b.reader();
    const files = (await r.dataFiles('main', 't')).map((f) => f.path);
    await r.close();
    expect(files.sort()).toEqual(acks.map(([, p]) => p).sort());
    // Each acknowledged snapshot is the one where its file appears.
    for (const [id, p] of acks) {
      const at = await b.reader({ snapshot: id });
      const before = await b.reader({ snapshot: id - 1 });
      expect((await at.dataFiles('main', 't')).some((f) => f.path === p)).toBe(true);
      expect((await before.dataFiles('main', 't')).some((f) => f.path === p)).toBe(false);
      await Promise.all([at.close(), before.close()]);
    }
  });

  it('a fenced process: every member of its group is FENCED and the log shows none of them', async () => {
    const root = await tempDir();
    const storePath = path.join(root, 'store');
    const old = await openCatalog({ dir: path.join(root, 'old'), store: { path: storePath }, exclusiveWriter: true });
    await old.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    const next = await openCatalog({ dir: path.join(root, 'next'), store: { path: storePath }, exclusiveWriter: true });
    const entries = await logEntries(storePath);
    const outcomes = await settle(Array.from({ length: 6 }, (_, i) => old.transaction((tx) => tx.addDataFile('main', 't', file(`z${i}.parquet`)))));
    for (const o of outcomes) expect('error' in o && isStrataError(o.error, 'FENCED')).toBe(true);
    expect(await logEntries(storePath)).toBe(entries);
    const r = await next.reader();
    expect(await r.dataFiles('main', 't')).toEqual([]);
    await r.close();
  });

  it('callers committing in a loop on the object layout share one look at the store per group (on S3, requests)', async () => {
    const dir = await tempDir();
    const counts = { looks: 0, creates: 0 };
    const store = new FaultyStore(new DirectoryStore(path.join(dir, 'store')), {
      beforeGet: (key) => void (key.startsWith('log/') && counts.looks++),
      beforeCreate: (key) => void (key.startsWith('log/') && counts.creates++),
    });
    const c = await openCatalog({ dir, store, logLayout: 'objects', checkpointEvery: 0 });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    counts.looks = counts.creates = 0;
    const commits = 80;
    let next = 0;
    const caller = async () => {
      for (let i = next++; i < commits; i = next++) await c.transaction((tx) => tx.addDataFile('main', 't', file(`f${i}.parquet`)));
    };
    await Promise.all(Array.from({ length: 8 }, caller));
    const r = await c.reader();
    expect(await r.dataFiles('main', 't')).toHaveLength(commits);
    await r.close();
    // A look is two reads (the next entry and the one after, which tells the end from a gap); the callers a
    // group wakes begin together and share one. Before, the first of them started a look alone and the
    // other seven shared a second one: 4 reads per entry, and groups split by the wait.
    expect(counts.creates).toBeLessThanOrEqual(commits / 6);
    expect(counts.looks).toBeLessThanOrEqual(2 * counts.creates + 2);
    expect((counts.looks + counts.creates) / commits).toBeLessThan(0.5);
  });

  it('close() waits for transactions under way', async () => {
    const c = await openCatalog({ dir: await tempDir() });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    const runs = Array.from({ length: 5 }, (_, i) => c.transaction((tx) => tx.addDataFile('main', 't', file(`c${i}.parquet`))));
    await c.close();
    expect((await Promise.all(runs)).map((r) => r.snapshot).sort()).toEqual([2, 3, 4, 5, 6]);
  });
});
