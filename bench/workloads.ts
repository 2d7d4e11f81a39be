// The workloads of the suite. Each builds its catalog (untimed) through a Driver, then times one kind of
// operation; every side gets the same operations in the same order (a seeded generator picks them).
import { type Driver, type FileSpec, type Side, TEN_COLUMNS } from './drivers/driver.js';
import { measure, measureConcurrent, rng, type Sample } from './harness.js';
import { commitFloor } from './commit-floor.js';
import { logFloor } from './log-floor.js';
import { syncFloor } from './sync-floor.js';

export interface Sizes {
  snapshots: number;
  tables: number;
  versions: number;
  commits: number;
  lookups: number;
  depth: number;
  files: number;
}

export interface Workload {
  name: string;
  /** What the rate counts. */
  unit: string;
  /** Whether commits must be durable (read workloads build their catalog in each side's relaxed mode). */
  durable: boolean;
  describe(z: Sizes): string;
  /** The sides that run it (default strata, peer, raw). */
  sides?: Side[];
  /**
   * Builds the catalog and times the operation; several named results where a workload compares two cases.
   * `reopen` closes the side and opens it again on the same directory: a new process's first touch.
   */
  run(d: Driver, z: Sizes, reopen: () => Promise<Driver>): Promise<Record<string, Sample>>;
  /** Its cases time different operations, so no case is a slowdown of another. */
  unrelatedCases?: true;
  /** A sentence measured in the same run, printed under the table: the floor the sides stand on. */
  aside?(z: Sizes, runs: number): Promise<string>;
}

/** Commit workloads also run on Strata with its log kept as objects (S3's and NFS's layout, on the local disk). */
const COMMIT_SIDES: Side[] = ['strata', 'strata-objects', 'peer', 'raw'];

const file = (i: number): FileSpec => ({ path: `data/f${i}.parquet`, rows: 1000, bytes: 1 << 20 });
export const files = (from: number, n: number) => Array.from({ length: n }, (_, i) => file(from + i));

/** Untimed commits between a catalog's first timed commits and its warm ones, as a multiple of the timed. */
const WARM_UP = 10;

/**
 * A catalog's first `n` commits after it is made, and `n` more after WARM_UP times as many untimed ones: a
 * process that has just opened a catalog (code not yet optimized by the JIT, caches empty) and one that has
 * been committing for a while. Both shapes are users'; the peer's work is native code and barely warms.
 */
async function firstAndWarm(n: number, measureOps: (from: number, n: number) => Promise<Sample>): Promise<Record<string, Sample>> {
  const first = await measureOps(0, n);
  await measureOps(n, n * WARM_UP);
  return { 'first commits': first, warm: await measureOps(n * (WARM_UP + 1), n) };
}

export async function createTables(d: Driver, n: number, prefix = 't', columns?: typeof TEN_COLUMNS): Promise<number> {
  let s = 0;
  for (let start = 0; start < n; start += 100) {
    s = await d.createTables(Array.from({ length: Math.min(100, n - start) }, (_, i) => `${prefix}${start + i}`), columns);
  }
  return s;
}

const shuffled = (n: number, pick: (n: number) => number) => {
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = pick(i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
};

const commitOne = (durable: boolean): Workload => ({
  name: `commit 1 data file (${durable ? 'durable' : 'relaxed'})`,
  unit: 'commits/s',
  durable,
  sides: COMMIT_SIDES,
  describe: (z) =>
    `${z.commits} sequential commits, each adding one data file to a random one of ${z.tables} tables: the first ${z.commits} ` +
    `after the tables are made, then (warm) ${z.commits} more after ${z.commits * WARM_UP} untimed ones`,
  run: async (d, z) => {
    await createTables(d, z.tables);
    const pick = rng(1);
    return firstAndWarm(z.commits, (from, n) => measure(n, 1, (i) => d.addFiles(`t${pick(z.tables)}`, [file(from + i)])));
  },
  aside: async (z: Sizes, runs: number) =>
    `${durable ? `${await syncFloor(z.commits, runs)} ` : ''}${await logFloor(z.commits * WARM_UP, runs, durable)} ${await commitFloor(z.commits * WARM_UP, runs, { files: 1, group: 1, durable }, 'commits/s')}`,
});

const CALLERS = 8;

const commitConcurrent: Workload = {
  name: `commit 1 data file, ${CALLERS} callers at once (durable)`,
  unit: 'commits/s',
  durable: true,
  sides: COMMIT_SIDES,
  describe: (z) =>
    `${z.commits * 2} commits from ${CALLERS} concurrent callers in one process, each adding one data file to a random one of ` +
    `${z.tables} tables (the first ${z.commits * 2}, then ${z.commits * 2} more after ${z.commits * 2 * WARM_UP} untimed); throughput over the wall time, latency per commit including the wait for the others. ` +
    'SQLite takes one writer at a time, so the peer\'s callers queue; LevelDB merges concurrent synced batches into ' +
    'one WAL write (its own group commit); Strata puts the transactions that become ready while a log write is in ' +
    'flight into the next log entry (group commit)',
  run: async (d, z) => {
    await createTables(d, z.tables);
    const pick = rng(4);
    return firstAndWarm(z.commits * 2, (from, n) => {
      const tables = Array.from({ length: n }, () => `t${pick(z.tables)}`);
      return measureConcurrent(n, CALLERS, 1, (i) => d.addFiles(tables[i]!, [file(from + i)]));
    });
  },
  aside: (z: Sizes, runs: number) => commitFloor((z.commits * 2 * WARM_UP) / CALLERS, runs, { files: 1, group: CALLERS, durable: true }, 'commits/s'),
};

const hundreds = (z: Sizes) => Math.max(10, z.commits / 5);

const commitHundred: Workload = {
  name: 'commit 100 data files in one snapshot (durable)',
  unit: 'files/s',
  durable: true,
  sides: COMMIT_SIDES,
  describe: (z) =>
    `${hundreds(z)} commits of 100 data files each into a random one of ${z.tables} tables (the first ${hundreds(z)}, then ` +
    `${hundreds(z)} more after ${hundreds(z) * WARM_UP} untimed)`,
  run: async (d, z) => {
    await createTables(d, z.tables);
    const pick = rng(2);
    return firstAndWarm(hundreds(z), (from, n) => measure(n, 100, (i) => d.addFiles(`t${pick(z.tables)}`, files((from + i) * 100, 100))));
  },
  aside: (z: Sizes, runs: number) => commitFloor(hundreds(z) * WARM_UP, runs, { files: 100, group: 1, durable: true }, 'files/s'),
};

const resolveOld: Workload = {
  name: 'resolve table(schema, name) with columns at a random old snapshot',
  unit: 'lookups/s',
  durable: false,
  describe: (z) =>
    `${z.tables} tables x ${z.versions} versions (renames, 100 tables per commit); ${z.lookups} lookups of a random (table, version) at that version's snapshot, ` +
    'then the same lookups again, then new ones each through a read opened for it and closed after (a reader per query, as a planner opens one)',
  run: async (d, z) => {
    const versions: { snapshot: number; name: string }[][] = Array.from({ length: z.tables }, () => []);
    for (let v = 0; v < z.versions; v++) {
      for (let start = 0; start < z.tables; start += 100) {
        const ids = Array.from({ length: Math.min(100, z.tables - start) }, (_, i) => start + i);
        const s =
          v === 0
            ? await d.createTables(ids.map((i) => `t${i}_v0`))
            : await d.renameTables(ids.map((i) => [`t${i}_v${v - 1}`, `t${i}_v${v}`]));
        for (const i of ids) versions[i]!.push({ snapshot: s, name: `t${i}_v${v}` });
      }
    }
    const pick = rng(3);
    const randomLookups = () =>
      Array.from({ length: z.lookups }, () => {
        const vs = versions[pick(z.tables)]!;
        return vs[pick(vs.length)]!;
      });
    const lookups = randomLookups();
    const lookup = async (i: number) => {
      if ((await d.resolve(lookups[i]!.snapshot, lookups[i]!.name)) !== 2) throw new Error(`${d.side}: wrong column count`);
    };
    // The first pass meets every (table, version) for the first time; a planner resolves the same tables
    // again and again, which the second pass of the same lookups measures.
    const first = await measure(z.lookups, 1, lookup);
    const again = await measure(z.lookups, 1, lookup);
    const fresh = randomLookups();
    const perQuery = await measure(z.lookups, 1, async (i) => {
      if ((await d.resolveOnce(fresh[i]!.snapshot, fresh[i]!.name)) !== 2) throw new Error(`${d.side}: wrong column count`);
    });
    return { 'first pass': first, 'same lookups again': again, 'a reader per query': perQuery };
  },
};

const historyDepth: Workload = {
  name: 'history depth: resolve a table with many versions vs one with a single version',
  unit: 'lookups/s',
  durable: false,
  describe: (z) => `table "deep" renamed ${z.depth} times (one commit each) beside table "shallow"; ${z.lookups} lookups of each at random snapshots`,
  run: async (d, z) => {
    await d.createTables(['shallow', 'deep_0']);
    const snapshots: { snapshot: number; name: string }[] = [];
    for (let v = 1; v <= z.depth; v++) snapshots.push({ snapshot: await d.renameTables([[`deep_${v - 1}`, `deep_${v}`]]), name: `deep_${v}` });
    const pick = rng(4);
    const order = Array.from({ length: z.lookups }, () => snapshots[pick(snapshots.length)]!);
    const shallow = await measure(z.lookups, 1, (i) => d.resolve(order[i]!.snapshot, 'shallow'));
    const deep = await measure(z.lookups, 1, (i) => d.resolve(order[i]!.snapshot, order[i]!.name));
    return { '1 version': shallow, [`${z.depth + 1} versions`]: deep };
  },
};

const listFiles: Workload = {
  name: 'list the data files of a table at a snapshot',
  unit: 'files/s',
  durable: false,
  describe: (z) => `one table with ${z.files} data files added 1,000 per commit; full listings at the newest snapshot and at the middle one`,
  run: async (d, z) => {
    await d.createTables(['big']);
    const marks: number[] = [];
    for (let i = 0; i < z.files; i += 1000) marks.push(await d.addFiles('big', files(i, Math.min(1000, z.files - i))));
    const newest = marks.at(-1)!;
    const middle = marks[Math.floor(marks.length / 2) - 1] ?? newest;
    const middleCount = Math.min(z.files, (Math.floor(marks.length / 2) || marks.length) * 1000);
    const check = (want: number) => (n: number) => {
      if (n !== want) throw new Error(`${d.side}: listed ${n}, expected ${want}`);
    };
    return {
      newest: await measure(5, z.files, async () => check(z.files)(await d.listFiles(newest, 'big'))),
      middle: await measure(5, middleCount, async () => check(middleCount)(await d.listFiles(middle, 'big'))),
    };
  },
};

const listReplaced: Workload = {
  name: 'list a table whose files are replaced',
  unit: 'files/s',
  durable: false,
  sides: ['strata', 'peer'],
  describe: (z) =>
    `one table of ${z.files / 100} live files, ${z.commits} commits each ending half of them and adding as many (a compaction or an ` +
    'overwrite); full listings at the newest snapshot and at the middle one, which hold what the newest does: what is read past them is history',
  run: async (d, z) => {
    const live = z.files / 100;
    await d.createTables(['churn']);
    let next = 0;
    const marks = [await d.addFiles('churn', files(next, live))];
    next += live;
    for (let i = 0; i < z.commits; i++) {
      marks.push(await d.replaceFiles!('churn', live / 2, files(next, live / 2)));
      next += live / 2;
    }
    const check = (n: number) => {
      if (n !== live) throw new Error(`${d.side}: listed ${n}, expected ${live}`);
    };
    return {
      newest: await measure(20, live, async () => check(await d.listFiles(marks.at(-1)!, 'churn'))),
      middle: await measure(20, live, async () => check(await d.listFiles(marks[Math.floor(marks.length / 2)]!, 'churn'))),
    };
  },
};

const planner: Workload = {
  name: "a planner's catalog call: open a read at a snapshot, resolve the table, list its files, close",
  unit: 'calls/s',
  durable: false,
  describe: (z) => `${Math.max(10, z.tables / 10)} tables with 100 files each (10 per commit); ${z.lookups / 4} calls at random snapshots`,
  run: async (d, z) => {
    const tables = Math.max(10, z.tables / 10);
    await createTables(d, tables);
    const at: { snapshot: number; table: string; files: number }[] = [];
    for (let round = 0; round < 10; round++) {
      for (let t = 0; t < tables; t++) at.push({ snapshot: await d.addFiles(`t${t}`, files((round * tables + t) * 10, 10)), table: `t${t}`, files: (round + 1) * 10 });
    }
    const pick = rng(5);
    const calls = Array.from({ length: z.lookups / 4 }, () => at[pick(at.length)]!);
    return {
      '': await measure(calls.length, 1, async (i) => {
        const c = calls[i]!;
        if ((await d.plan(c.snapshot, c.table)) !== c.files) throw new Error(`${d.side}: wrong file count`);
      }),
    };
  },
};

const firstTouch: Workload = {
  name: 'first-touch listings: many mid-size tables committed a few files at a time, listed once after a restart',
  unit: 'files/s',
  durable: false,
  sides: ['strata', 'peer'],
  describe: (z) =>
    `${z.tables} tables of 10 to 1,000 data files each (log-uniform), committed 10 files at a time in a random ` +
    'interleaving; then the side is closed and opened again (a new process: nothing of the catalog in its ' +
    'caches, the OS page cache warm) and every table is listed once at the newest snapshot in random order, ' +
    'then all again. The raw limit keeps its catalog state in memory and cannot reopen, so it has no row',
  run: async (d, z, reopen) => {
    await createTables(d, z.tables);
    const pick = rng(7);
    const want = Array.from({ length: z.tables }, () => Math.round(10 * 100 ** (pick(1_000_000) / 1_000_000)));
    const left = [...want];
    let next = 0;
    let newest = 0;
    for (let open = z.tables; open > 0; ) {
      const t = pick(z.tables);
      if (left[t] === 0) continue;
      const n = Math.min(10, left[t]!);
      newest = await d.addFiles(`t${t}`, files(next, n));
      next += n;
      left[t]! -= n;
      if (left[t] === 0) open--;
    }
    const total = want.reduce((a, b) => a + b, 0);
    const order = shuffled(z.tables, pick);
    const listAll = (side: Driver) => async () => {
      for (const t of order) if ((await side.listFiles(newest, `t${t}`)) !== want[t]) throw new Error(`${side.side}: wrong file count`);
    };
    const fresh = await reopen();
    return { 'first touch': await measure(1, total, listAll(fresh)), 'listed again': await measure(1, total, listAll(fresh)) };
  },
};

/**
 * Where users are: many small tables of ten columns, each commit a few files into one of them (durable), then
 * what a query engine asks per query of such a catalog: a reader opened for one lookup at a random retained
 * snapshot, and each table's files listed once by a process that has just opened the catalog.
 */
const smallTables = (shape: { tables: (z: Sizes) => number; commits: (z: Sizes) => number; files: number }): Workload => ({
  name: `many small tables: commits of ${shape.files} files, a reader per lookup, first-touch listings`,
  unit: 'ops/s',
  durable: true,
  sides: ['strata', 'peer'],
  unrelatedCases: true,
  describe: (z) =>
    `${shape.tables(z)} tables of ten columns; ${shape.commits(z)} commits (durable), each of ${shape.files} data files into a random ` +
    `table, timed; then, after the side is closed and opened again, ${z.lookups} lookups of a random table with its ` +
    'columns at a random snapshot of that history, each through a read opened for it and closed after; then, opened ' +
    "again, every table is listed once at the newest snapshot in random order (the first touch; ops are tables), then all again. The peer's " +
    "commit reads and writes the table's stats row; its read checks the snapshot first; its listing joins the delete files. " +
    'The raw limit cannot reopen, so it has no row',
  run: async (d, z, reopen) => {
    const tables = shape.tables(z);
    await createTables(d, tables, 't', TEN_COLUMNS);
    const pick = rng(8);
    const into = Array.from({ length: shape.commits(z) }, () => pick(tables));
    const snapshots: number[] = [];
    const want = new Array<number>(tables).fill(0);
    const commits = await measure(into.length, 1, async (i) => {
      snapshots.push(await d.addFiles(`t${into[i]}`, files(i * shape.files, shape.files)));
      want[into[i]!]! += shape.files;
    });
    const lookups = Array.from({ length: z.lookups }, () => ({ table: `t${pick(tables)}`, snapshot: snapshots[pick(snapshots.length)]! }));
    const reopened = await reopen();
    const resolve = await measure(lookups.length, 1, async (i) => {
      if ((await reopened.resolveOnce(lookups[i]!.snapshot, lookups[i]!.table)) !== TEN_COLUMNS.length) throw new Error(`${d.side}: wrong column count`);
    });
    const newest = snapshots.at(-1)!;
    const order = shuffled(tables, pick);
    const fresh = await reopen();
    const listing = () =>
      measure(order.length, 1, async (i) => {
        if ((await fresh.listFiles(newest, `t${order[i]}`)) !== want[order[i]!]) throw new Error(`${fresh.side}: wrong file count`);
      });
    const first = await listing();
    return { commit: commits, 'resolve, a reader per lookup': resolve, 'list, first touch': first, 'list again': await listing() };
  },
});

const snapshotResolution: Workload = {
  name: 'resolve a snapshot by id, by timestamp and by tag',
  unit: 'reads/s',
  durable: false,
  describe: (z) =>
    `a history of ${z.snapshots} snapshots (one data file each) and 100 tags; ${z.lookups} reads of each kind, ` +
    'each opening a consistent read at the snapshot it names (Strata: reader() + close())',
  run: async (d, z) => {
    await d.createTables(['t']);
    const ids: number[] = [];
    for (let i = 0; i < z.snapshots; i++) ids.push(await d.addFiles('t', [file(i)]));
    const pick = rng(6);
    for (let i = 0; i < 100; i++) await d.createTag(`tag${i}`, ids[pick(ids.length)]!);
    const [first, newest] = await d.timeRange();
    const byId = await measure(z.lookups, 1, () => d.snapshotBy({ id: ids[pick(ids.length)]! }));
    const byTime = await measure(z.lookups, 1, () => d.snapshotBy({ time: first + pick(Math.max(1, newest - first + 1)) }));
    const byTag = await measure(z.lookups, 1, () => d.snapshotBy({ tag: `tag${pick(100)}` }));
    return { 'by id': byId, 'by timestamp': byTime, 'by tag': byTag };
  },
};

export const WORKLOADS: Workload[] = [
  commitOne(true),
  commitOne(false),
  commitConcurrent,
  commitHundred,
  resolveOld,
  historyDepth,
  listFiles,
  listReplaced,
  planner,
  firstTouch,
  smallTables({ tables: (z) => Math.max(4, z.tables / 5), commits: (z) => z.commits * 10, files: 10 }),
  smallTables({ tables: (z) => Math.max(4, z.tables / 2), commits: (z) => Math.round((z.commits * 20) / 3), files: 4 }),
  snapshotResolution,
];
