// How the catalog's operations grow with it (issue 46, item 7): catalogs of 1k, 10k and 100k one-file commits
// (100 tables of ten columns), of many tables, and of one table of many files, each built once in this process
// (relaxed, automatic checkpoints as by default: every 1,000 entries or million keys written), then each
// operation run in a process of its own (growth-child.ts) for its time and its peak RSS, and the bytes in the
// store. The rebuild runs on a copy, so the operations after it read the index the build left.
import { cp, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { runScript } from '../child.js';
import { fmt, rng } from '../harness.js';
import { Catalog } from '../../src/index.js';

export interface GrowthSizes {
  /** One-file commits into 100 tables, one catalog each. */
  commits: number[];
  /** Tables of ten columns, one file each. */
  tables: number;
  /** Files of one table, added 10,000 a commit. */
  files: number;
}

const OPS = ['open', 'rebuild', 'resolve', 'list', 'snapshots', 'verify', 'checkpoint', 'excise'] as const;
type Op = (typeof OPS)[number];
type Result = { ms: number; first?: number; peakRss: number; detail: unknown };

const COLUMNS = Array.from({ length: 10 }, (_, i) => ({ name: `c${i}`, type: 'int64' as const }));

/** A shape: how to build it, and the tables its lookups draw from (t0 … t{live - 1}; the rest were dropped). */
interface Shape {
  name: string;
  live: number;
  build: (c: Catalog) => Promise<void>;
}

type Tx = Parameters<Parameters<Catalog['transaction']>[0]>[0];

/** `each` for tables t{from} … t{to - 1}, 500 a commit. */
async function perTable(c: Catalog, from: number, to: number, each: (tx: Tx, table: string) => Promise<unknown>): Promise<void> {
  for (let start = from; start < to; start += 500) {
    await c.transaction(async (tx) => {
      for (let t = start; t < Math.min(to, start + 500); t++) await each(tx, `t${t}`);
    });
  }
}

const createTables = (c: Catalog, n: number) => perTable(c, 0, n, (tx, t) => tx.createTable('main', t, COLUMNS));

async function retainFromNewest(c: Catalog): Promise<void> {
  const [newest] = await c.snapshots({ limit: 1, newestFirst: true });
  await c.advanceRetainFrom({ snapshot: newest!.id });
}

/** A tenth of the tables dropped, retain-from at the newest snapshot: what excision has to do. */
async function dropTenth(c: Catalog, n: number): Promise<void> {
  await perTable(c, n - Math.ceil(n / 10), n, (tx, t) => tx.dropTable('main', t));
  await retainFromNewest(c);
}

const file = (p: string) => ({ path: p, recordCount: 10, fileSizeBytes: 100 });

function shapes(z: GrowthSizes): Shape[] {
  return [
    ...z.commits.map((n) => ({
      name: `${n.toLocaleString('en-US')} commits`,
      live: 90,
      build: async (c: Catalog) => {
        await createTables(c, 100);
        const pick = rng(n);
        for (let i = 0; i < n; i++) {
          const t = pick(100);
          await c.transaction((tx) => tx.addDataFile('main', `t${t}`, file(`t${t}/f${i}.parquet`)));
        }
        await dropTenth(c, 100);
      },
    })),
    {
      name: `${z.tables.toLocaleString('en-US')} tables`,
      live: z.tables - Math.ceil(z.tables / 10),
      build: async (c: Catalog) => {
        await createTables(c, z.tables);
        await perTable(c, 0, z.tables, (tx, t) => tx.addDataFile('main', t, file(`${t}/f.parquet`)));
        await dropTenth(c, z.tables);
      },
    },
    {
      name: `${z.files.toLocaleString('en-US')} files`,
      live: 1,
      build: async (c: Catalog) => {
        await createTables(c, 2);
        for (let from = 0; from < z.files; from += 10_000) {
          const n = Math.min(10_000, z.files - from);
          await c.transaction((tx) => tx.addDataFiles('main', 't0', Array.from({ length: n }, (_, i) => file(`t0/f${from + i}.parquet`))));
        }
        // The other table and a tenth of the big one's files go, for excision's sake.
        await c.transaction((tx) => tx.dropTable('main', 't1'));
        const r = await c.reader();
        const gone = (await r.dataFiles('main', 't0')).slice(0, Math.ceil(z.files / 10)).map((f) => f.id);
        await r.close();
        for (let from = 0; from < gone.length; from += 10_000) {
          await c.transaction(async (tx) => {
            for (const id of gone.slice(from, from + 10_000)) await tx.removeDataFile('main', 't0', id);
          });
        }
        await retainFromNewest(c);
      },
    },
  ];
}

async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) if (e.isFile()) total += (await stat(path.join(e.parentPath ?? e.path, e.name))).size;
  return total;
}

const mib = (b: number) => fmt(b / 2 ** 20);

export async function growthBench(z: GrowthSizes, out: (s?: string) => void): Promise<void> {
  out('\n### growth: 1k to 100k commits, many tables, one table of many files\n');
  out(
    'Each catalog built once (relaxed, automatic checkpoints as by default, none pruned: they go an hour after their successor), a tenth of ' +
      'its tables (or of the big table\'s files) dropped and retain-from at the newest snapshot; then each operation in a process of its own ' +
      '(opened durable, the default), in this order: open (the index there), rebuild (open with no index, on a copy: the newest checkpoint ' +
      'and the log after it), resolve (`table()` of ten columns by a reader of its own, 50 live tables drawn at random without repeats: the first ' +
      'call and the median), list (`dataFiles()` at the head, the same way: each table\'s first listing, the first of them also reading ahead ' +
      'for the others; the big table 3 times), `snapshots({ limit: 100 })` (median of 50), verify (its census scans), an explicit checkpoint ' +
      '(its keys: a delta over the build\'s newest where that is small), excise (versions removed). Store bytes after the build, of them the ' +
      'checkpoints\'; index bytes.\n',
  );
  const rows: { shape: string; results: Record<Op, Result>; store: number; checkpoints: number; index: number }[] = [];
  for (const shape of shapes(z)) {
    const dir = await mkdtemp(path.join(tmpdir(), 'strata-bench-growth-'));
    try {
      const c = await Catalog.open({ dir, durability: 'relaxed' });
      const t = Date.now();
      await shape.build(c);
      await c.close();
      const built = (Date.now() - t) / 1000;
      const store = await bytesUnder(path.join(dir, 'store'));
      const checkpoints = await bytesUnder(path.join(dir, 'store', 'checkpoints')).catch(() => 0);
      const index = await bytesUnder(path.join(dir, 'index'));
      const results = {} as Record<Op, Result>;
      for (const op of OPS) {
        const calls = op === 'list' && shape.live === 1 ? 3 : 50;
        // The rebuild deletes the index it rebuilds: a copy's, so the operations after it read the build's.
        const on = op === 'rebuild' ? `${dir}-rebuild` : dir;
        if (op === 'rebuild') await cp(dir, on, { recursive: true });
        try {
          results[op] = JSON.parse(await runScript(new URL('./growth-child.js', import.meta.url), [on, op, String(shape.live), String(calls)])) as Result;
        } finally {
          if (op === 'rebuild') await rm(on, { recursive: true, force: true });
        }
      }
      rows.push({ shape: `${shape.name} (built in ${built.toFixed(0)} s)`, results, store, checkpoints, index });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  out('| catalog | open ms | rebuild ms | resolve µs first / median | list ms first / median | snapshots ms | verify s (scans) | checkpoint s (keys) | excise s (versions) | store MiB (checkpoints) | index MiB |');
  out('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const { shape, results: r, store, checkpoints, index } of rows) {
    const keys = (r.checkpoint.detail as { keys: number; after: number | null }).keys;
    out(
      `| ${shape} | ${fmt(r.open.ms)} | ${fmt(r.rebuild.ms)} | ${fmt(r.resolve.first! * 1000)} / ${fmt(r.resolve.ms * 1000)} | ${fmt(r.list.first!)} / ${fmt(r.list.ms)} | ` +
        `${fmt(r.snapshots.ms)} | ${fmt(r.verify.ms / 1000)} (${String(r.verify.detail)}) | ${fmt(r.checkpoint.ms / 1000)} (${keys.toLocaleString('en-US')}) | ` +
        `${fmt(r.excise.ms / 1000)} (${Number(r.excise.detail).toLocaleString('en-US')}) | ${mib(store)} (${mib(checkpoints)}) | ${mib(index)} |`,
    );
  }
  out('\nPeak RSS MiB of each operation\'s process (the open included):\n');
  out(`| catalog | ${OPS.join(' | ')} |`);
  out(`| --- | ${OPS.map(() => '---:').join(' | ')} |`);
  for (const { shape, results: r } of rows) out(`| ${shape.replace(/ \(built.*$/, '')} | ${OPS.map((op) => mib(r[op].peakRss)).join(' | ')} |`);
}
