// A transaction on a log kept as objects asks the store nothing before its function runs (decision 0057): its
// create of the next entry is the question. A process behind other writers runs the function on its own
// newest state; a lost race then holds what the function read against the commits it had not seen, and a
// function they changed the reads of, or that failed on the older state, runs once more on the newer state,
// as it would have run had the process asked first.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Catalog, isStrataError, type TransactionFn } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { logObjectKey } from '../../src/log/object-log.js';
import { kvSeq } from '../../keys/ids.js';
import { IndexSync } from '../../src/commit/index-sync.js';
import { FaultyStore } from '../store/doubles/faulty-store.js';
import { openCatalog, tempDir } from '../helpers.js';

const int = [{ name: 'x', type: 'int64' }];
const file = (p: string) => ({ path: p, recordCount: 1, fileSizeBytes: 1 });

/** Log requests of one catalog, by kind. */
type Requests = { gets: string[]; creates: string[] };

/**
 * Two processes on one store kept as objects: `ahead` commits, `behind` (whose requests are counted) last
 * heard from the store when both had the tables t, u and warm (into which it committed once).
 */
async function twoProcesses(logLayout: 'objects' | 'segments' = 'objects') {
  const root = await tempDir();
  const storePath = path.join(root, 'store');
  const ahead = await openCatalog({ dir: path.join(root, 'ahead'), store: { path: storePath }, logLayout });
  await ahead.transaction(async (tx) => {
    for (const t of ['t', 'u', 'warm']) await tx.createTable('main', t, int);
  });
  const requests: Requests = { gets: [], creates: [] };
  const counted = new FaultyStore(new DirectoryStore(storePath), {
    beforeGet: (key) => void (key.startsWith('log/') && requests.gets.push(key)),
    beforeCreate: (key) => void (key.startsWith('log/') && requests.creates.push(key)),
  });
  const behind = await openCatalog({ dir: path.join(root, 'behind'), store: counted });
  // Its first file id claims a block of them, in an entry of its own: claimed here, before anything counts.
  await behind.transaction((tx) => tx.addDataFile('main', 'warm', file('warm')));
  requests.gets.length = requests.creates.length = 0;
  return { ahead, behind, requests };
}

const filesOf = async (c: Catalog, table: string) => {
  const r = await c.reader();
  try {
    return (await r.dataFiles('main', table)).map((f) => f.path);
  } finally {
    await r.close();
  }
};

const outcome = (c: Catalog, fn: TransactionFn) => c.transaction(fn).catch((e: unknown) => e);

/** `fn`, counting its runs and keeping what each run returned of `read`. */
function counted<T>(read: Parameters<TransactionFn>[0] extends infer Tx ? (tx: Tx) => Promise<T> : never, write: TransactionFn = () => undefined) {
  const seen: T[] = [];
  const fn: TransactionFn = async (tx) => {
    seen.push(await read(tx));
    await write(tx);
  };
  return { fn, seen };
}

describe('a transaction on a log kept as objects asks the store nothing first', () => {
  // While a process sees other writers at work it asks first (below, the last tests): each test here stages
  // the other writer's commits, so that is left out but where a test says.
  let contended: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    contended = vi.spyOn(IndexSync.prototype, 'sawOtherWriterWithin').mockReturnValue(false);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('a lone writer: one create per commit, and beside it one read of the entry after (the same round trip); after eight entries it asks first', async () => {
    const { behind: c, requests } = await twoProcesses();
    // Since open last asked where the log ends, its warm-up wrote two entries (a claim of ids, the commit):
    // six more make eight, and the next transaction asks first.
    for (let i = 0; i < 6; i++) await c.transaction((tx) => tx.addDataFile('main', 't', file(`f${i}`)));
    expect(requests.creates).toHaveLength(6);
    // Each read is of the entry after the one its commit created: no look before the function.
    expect(requests.gets).toEqual(requests.creates.map((k) => logObjectKey(kvSeq(Number(k.slice(4)) + 1))));
    requests.gets.length = requests.creates.length = 0;
    await c.transaction((tx) => tx.addDataFile('main', 't', file('f6')));
    const next = Number(requests.creates[0]!.slice(4));
    // The look (the next entry and the one after, in one round trip), then the create and the read beside it.
    expect(requests.gets.sort()).toEqual([next, next + 1, next + 1].map((n) => logObjectKey(kvSeq(n))).sort());
    expect(await filesOf(c, 't')).toHaveLength(7);
  });

  it('writes that read nothing land past the commits they did not see, as a lost race lands: the function runs once', async () => {
    const { ahead, behind, requests } = await twoProcesses();
    const theirs = await ahead.transaction((tx) => tx.addDataFile('main', 't', file('theirs')));
    let runs = 0;
    const ours = await behind.transaction(async (tx) => {
      runs++;
      await tx.addDataFile('main', 't', file('ours'));
    });
    expect(runs).toBe(1);
    expect(ours.snapshot).toBe(theirs.snapshot! + 1);
    expect(requests.creates).toHaveLength(2);
    expect(await filesOf(behind, 't')).toEqual(['theirs', 'ours']);
  });

  it("a function that read a table's files another writer changed meanwhile runs again on the newer state; what the first run did is not committed", async () => {
    const { ahead, behind } = await twoProcesses();
    const theirs = (await ahead.transaction((tx) => tx.addDataFile('main', 't', file('theirs')))).snapshot!;
    const { fn, seen } = counted(
      async (tx) => (await tx.reads().dataFiles('main', 't')).map((f) => f.path),
      async (tx) => void (await tx.addDataFile('main', 'u', file(`copy-of-${seen.at(-1)!.length}`))),
    );
    expect((await behind.transaction(fn)).snapshot).toBe(theirs + 1);
    expect(seen).toEqual([[], ['theirs']]);
    expect(await filesOf(ahead, 'u')).toEqual(['copy-of-1']);
  });

  it("reads another writer's commit left alone run once: a table's columns read, then rows inserted into it; another table's files", async () => {
    const { ahead, behind } = await twoProcesses();
    await ahead.transaction((tx) => tx.addDataFile('main', 't', file('theirs')));
    const columns = counted(
      async (tx) => (await tx.reads().table('main', 't')).columns.map((c) => c.name),
      (tx) => tx.addDataFile('main', 't', file('ours')),
    );
    await behind.transaction(columns.fn);
    expect(columns.seen).toEqual([['x']]);
    await ahead.transaction((tx) => tx.addDataFile('main', 't', file('theirs-2')));
    const otherTable = counted(
      async (tx) => (await tx.reads().dataFiles('main', 'u')).length,
      (tx) => tx.addDataFile('main', 'u', file('ours-u')),
    );
    await behind.transaction(otherTable.fn);
    expect(otherTable.seen).toEqual([0]);
    expect(await filesOf(behind, 't')).toEqual(['theirs', 'ours', 'theirs-2']);
  });

  it('a schema listed, a name looked up and missed, a table altered: each run again where a commit it had not seen changed it', async () => {
    const listed = await twoProcesses();
    await listed.ahead.transaction((tx) => tx.createTable('main', 'new_one', int));
    const listing = counted(async (tx) => (await tx.reads().tables('main')).map((t) => t.name).sort(), (tx) => tx.createSchema('s2'));
    await listed.behind.transaction(listing.fn);
    expect(listing.seen).toEqual([['t', 'u', 'warm'], ['new_one', 't', 'u', 'warm']]);

    const missed = await twoProcesses();
    await missed.ahead.transaction((tx) => tx.createView('main', 'v', 'SELECT 1 AS one'));
    const lookup = counted(async (tx) => (await tx.reads().viewNamed('main', 'v'))?.name, (tx) => tx.createSchema('s2'));
    await missed.behind.transaction(lookup.fn);
    expect(lookup.seen).toEqual([undefined, 'v']);

    const altered = await twoProcesses();
    await altered.ahead.transaction((tx) => tx.addColumn('main', 't', { name: 'y', type: 'int64' }));
    const definition = counted(async (tx) => (await tx.reads().table('main', 't')).columns.length, (tx) => tx.addDataFile('main', 'u', file('f')));
    await altered.behind.transaction(definition.fn);
    expect(definition.seen).toEqual([1, 2]);
  });

  it('a function that writes nothing asks the store after it ran: run again where what it read changed, else not', async () => {
    const { ahead, behind, requests } = await twoProcesses();
    await ahead.transaction((tx) => tx.addDataFile('main', 't', file('theirs')));
    const other = counted(async (tx) => (await tx.reads().dataFiles('main', 'u')).length);
    expect(await behind.transaction(other.fn)).toEqual({ snapshot: null });
    expect(other.seen).toEqual([0]);
    // It asked the store once the function had run: its index now has the other writer's commit.
    expect(requests.gets.length).toBeGreaterThan(0);
    await ahead.transaction((tx) => tx.addDataFile('main', 't', file('theirs-2')));
    const changed = counted(async (tx) => (await tx.reads().dataFiles('main', 't')).length);
    expect(await behind.transaction(changed.fn)).toEqual({ snapshot: null });
    expect(changed.seen).toEqual([1, 2]);
    // A function that neither read nor wrote asks nothing.
    requests.gets.length = 0;
    await ahead.transaction((tx) => tx.addDataFile('main', 't', file('theirs-3')));
    expect(await behind.transaction(() => undefined)).toEqual({ snapshot: null });
    expect(requests.gets).toEqual([]);
  });

  it('a function refused on the older state runs again on the newer one; a refusal that stands there is the answer', async () => {
    const { ahead, behind } = await twoProcesses();
    await ahead.transaction((tx) => tx.createTable('main', 'made_elsewhere', int));
    let runs = 0;
    const { snapshot } = await behind.transaction(async (tx) => {
      runs++;
      await tx.addDataFile('main', 'made_elsewhere', file('ours'));
    });
    expect(runs).toBe(2);
    expect(snapshot).not.toBeNull();
    expect(await filesOf(behind, 'made_elsewhere')).toEqual(['ours']);

    await ahead.transaction((tx) => tx.addDataFile('main', 't', file('theirs')));
    runs = 0;
    const refused = await outcome(behind, async (tx) => {
      runs++;
      await tx.addDataFile('main', 'nowhere', file('ours'));
    });
    expect(isStrataError(refused, 'NOT_FOUND'), String(refused)).toBe(true);
    expect(runs).toBe(2);
    // With nothing new in the store, the refusal is the first run's.
    runs = 0;
    expect(isStrataError(await outcome(behind, async (tx) => {
      runs++;
      await tx.addDataFile('main', 'nowhere', file('ours'));
    }), 'NOT_FOUND')).toBe(true);
    expect(runs).toBe(1);
  });

  it("an operation with nothing to do on the state it ran on still meets the commits it had not seen, by DuckLake's rules: a restore is not a silent no-op", async () => {
    const { ahead, behind } = await twoProcesses();
    const before = (await ahead.snapshots()).at(-1)!.id;
    const theirs = (await ahead.transaction((tx) => tx.addDataFile('main', 't', file('theirs')))).snapshot!;
    // On this process's state t is as it was at `before`: nothing to undo there, a file on the newest. Held
    // against that commit as a restore that lost the race is (a conflict of what it writes, not of what it
    // read: not run again).
    let runs = 0;
    const restore: TransactionFn = async (tx) => {
      runs++;
      await tx.restoreTable('main', 't', before);
    };
    const first = await outcome(behind, restore);
    expect(isStrataError(first, 'CONFLICT'), String(first)).toBe(true);
    expect((first as Error).message).toMatch(/restores table \d+, but another transaction changed it/);
    expect((first as { snapshot?: number }).snapshot).toBe(theirs);
    expect(runs).toBe(1);
    expect(await filesOf(behind, 't')).toEqual(['theirs']);
    expect((await behind.transaction(restore)).snapshot).toBe(theirs + 1);
    expect(await filesOf(behind, 't')).toEqual([]);
  });

  it('on segments the store is still asked first (a local read): the function reads the commits made before it began, once', async () => {
    const { ahead, behind } = await twoProcesses('segments');
    await ahead.transaction((tx) => tx.addDataFile('main', 't', file('theirs')));
    const { fn, seen } = counted(async (tx) => (await tx.reads().dataFiles('main', 't')).map((f) => f.path), (tx) => tx.addDataFile('main', 'u', file('ours')));
    await behind.transaction(fn);
    expect(seen).toEqual([['theirs']]);
  });

  it('a commit of another writer applied by a refresh while the function ran: the run again asks the store first, and sees the one after it too', async () => {
    const { ahead, behind } = await twoProcesses();
    const { fn, seen } = counted(
      async (tx) => {
        const files = (await tx.reads().dataFiles('main', 't')).length;
        if (seen.length === 0) {
          // While the first run reads: one commit this process applies (a reader's refresh), one it does not.
          await ahead.transaction((t) => t.addDataFile('main', 't', file('e1')));
          await behind.refresh();
          await ahead.transaction((t) => t.addDataFile('main', 't', file('e2')));
        }
        return files;
      },
      async (tx) => void (await tx.addDataFile('main', 'u', file(`copy-of-${seen.at(-1)}`))),
    );
    await behind.transaction(fn);
    expect(seen).toEqual([0, 2]);
    expect(await filesOf(behind, 'u')).toEqual(['copy-of-2']);
  });

  it('what the function learnt without reading: a refusal it caught, a name a rename took, the base snapshot id', async () => {
    const dropped = await twoProcesses();
    await dropped.ahead.transaction((tx) => tx.createSchema('s'));
    await dropped.behind.refresh();
    await dropped.ahead.transaction((tx) => tx.dropSchema('s'));
    const created = counted(async (tx) => {
      try {
        await tx.createSchema('s');
        return 'created';
      } catch (e) {
        return isStrataError(e, 'ALREADY_EXISTS') ? 'there already' : String(e);
      }
    });
    expect((await dropped.behind.transaction(created.fn)).snapshot).not.toBeNull();
    expect(created.seen).toEqual(['there already', 'created']);

    const renamed = await twoProcesses();
    await renamed.ahead.transaction((tx) => tx.renameTable('main', 't', 'x'));
    const missing = counted(
      async (tx) => (await tx.reads().table('main', 'x').then(() => 'found', () => 'missing')),
      (tx) => tx.addDataFile('main', 'u', file('f')),
    );
    await renamed.behind.transaction(missing.fn);
    expect(missing.seen).toEqual(['missing', 'found']);

    const based = await twoProcesses();
    await based.ahead.transaction((tx) => tx.createSchema('s'));
    const base = counted(async (tx) => tx.base, (tx) => tx.addDataFile('main', 'u', file('f')));
    await based.behind.transaction(base.fn);
    expect(base.seen).toHaveLength(2);
    expect(base.seen[1]).toBe(base.seen[0]! + 1);
  });

  it('what tx.sql reads is read too: a count over a table another writer inserted into runs again', async () => {
    const { ahead, behind } = await twoProcesses();
    await ahead.sql('CREATE TABLE main.q (x BIGINT)');
    await behind.refresh();
    await ahead.sql('INSERT INTO main.q VALUES (1), (2)');
    const { fn, seen } = counted(
      async (tx) => Number((await tx.sql('SELECT count(*) AS n FROM main.q')).rows[0]!.n),
      (tx) => tx.addDataFile('main', 'u', file('f')),
    );
    await behind.transaction(fn);
    expect(seen).toEqual([0, 2]);
  });

  it("a create that fills a gap — the next entry there, following another — is deleted again and CORRUPT; nothing is acknowledged", async () => {
    const root = await tempDir();
    const storePath = path.join(root, 'store');
    const ahead = await openCatalog({ dir: path.join(root, 'ahead'), store: { path: storePath }, logLayout: 'objects' });
    await ahead.transaction((tx) => tx.createTable('main', 't', int));
    const behind = await openCatalog({ dir: path.join(root, 'behind'), store: { path: storePath } });
    await behind.transaction((tx) => tx.addDataFile('main', 't', file('warm')));
    await ahead.refresh();
    const entries = () => readdirSync(path.join(storePath, 'log')).filter((n) => /^\d{20}$/.test(n));
    const next = entries().length + 1;
    await ahead.transaction((tx) => tx.addDataFile('main', 't', file('a')));
    await ahead.transaction((tx) => tx.addDataFile('main', 't', file('b')));
    // The entry after behind's newest goes missing: behind's next create lands in the gap it leaves.
    rmSync(path.join(storePath, logObjectKey(kvSeq(next))));
    const failed = await outcome(behind, (tx) => tx.addDataFile('main', 't', file('into-the-gap')));
    expect(isStrataError(failed, 'CORRUPT'), String(failed)).toBe(true);
    expect((failed as Error).message).toMatch(new RegExp(`log entry ${next} .* is missing .* although entry ${next + 1} exists.*this commit was written into it and it was deleted again`));
    expect(existsSync(path.join(storePath, logObjectKey(kvSeq(next))))).toBe(false);
  });

  it('past commits a checkpoint brought (the log compacted under this process), which another writer made, it checks every commit since its state', async () => {
    const { ahead, behind } = await twoProcesses();
    await ahead.transaction((tx) => tx.addDataFile('main', 't', file('theirs')));
    await ahead.checkpoint();
    await ahead.compactLog({ minAgeMs: 0 });
    // Behind catches up through the checkpoint (the entries it lacks are stubs now): which of those commits
    // were another writer's is not known, so all of them are held against what the function read.
    const { fn, seen } = counted(async (tx) => (await tx.reads().dataFiles('main', 't')).length, (tx) => tx.addDataFile('main', 'u', file('f')));
    await behind.transaction(fn);
    expect(seen).toEqual([0, 1]);
    expect(await filesOf(behind, 'u')).toEqual(['f']);
  });

  it('while other writers are at work it asks first: the function runs once, on the newest state', async () => {
    contended.mockRestore();
    const { ahead, behind, requests } = await twoProcesses();
    await ahead.transaction((tx) => tx.addDataFile('main', 't', file('e1')));
    // A refresh applies another writer's entry: from here this process asks first, for a while.
    await behind.refresh();
    await ahead.transaction((tx) => tx.addDataFile('main', 't', file('e2')));
    requests.gets.length = 0;
    const { fn, seen } = counted(async (tx) => (await tx.reads().dataFiles('main', 't')).length, (tx) => tx.addDataFile('main', 'u', file('f')));
    await behind.transaction(fn);
    expect(seen).toEqual([2]);
    expect(requests.gets.length).toBeGreaterThanOrEqual(3);
  });

  it('an entry that follows this one, there before the read beside the create answers, is not a gap', async () => {
    const root = await tempDir();
    const storePath = path.join(root, 'store');
    const other = await openCatalog({ dir: path.join(root, 'other'), store: { path: storePath }, logLayout: 'objects' });
    await other.transaction((tx) => tx.createTable('main', 't', int));
    let armed = false;
    let watching = false;
    let created!: () => void;
    const ours = new Promise<void>((resolve) => (created = resolve));
    const store = new FaultyStore(new DirectoryStore(storePath), {
      // The read beside the create waits until the create is done and the other writer has followed it.
      beforeGet: async (key) => {
        if (!armed || !key.startsWith('log/')) return;
        armed = false;
        await ours;
        await other.transaction((tx) => tx.addDataFile('main', 't', file('follows')));
      },
      afterCreate: (key, won) => void (watching && won && key.startsWith('log/') && created()),
    });
    const c = await openCatalog({ dir: path.join(root, 'c'), store });
    await c.transaction((tx) => tx.addDataFile('main', 't', file('first')));
    armed = watching = true;
    const { snapshot } = await c.transaction((tx) => tx.addDataFile('main', 't', file('ours')));
    expect(armed).toBe(false);
    expect(snapshot).toBe(3);
    expect(await filesOf(other, 't')).toEqual(['first', 'ours', 'follows']);
  });
});
