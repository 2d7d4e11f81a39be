// Every CLI call is a process, and a library's first calls after open pay for what later ones find ready
// (docs/DESIGN.md §7, issue 45). On a catalog of many small tables with a history (tables of ten columns,
// commits of four files each): the wall time of `strata` calls as a user runs them — the package's bundled
// command, built here from this suite's compiled sources as `npm run build` builds it — beside Node starting
// and doing nothing; then, in a fresh process, the first commit and the first sql() after open against warm
// ones.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Catalog } from '../../src/index.js';
import { fmt } from '../harness.js';
import { runScript } from '../child.js';

export interface ProcessSizes {
  tables: number;
  commits: number;
  /** Calls of each command, and fresh processes for the first-call figures. */
  calls: number;
}

const COLUMNS = [
  { name: 'id', type: 'int64' },
  { name: 'payload', type: 'varchar' },
  ...['int32', 'int64', 'float64', 'varchar', 'timestamp', 'date', 'boolean', 'decimal(18,3)'].map((type, i) => ({ name: `c${i}`, type })),
];

const root = new URL('../../../', import.meta.url);
/** Where the bundle goes: beside the compiled CLI, as `npm run build` puts it, so it finds package.json above it. */
const bundleDir = fileURLToPath(new URL('dist-bench/src/cli/', root));

async function bundle(): Promise<string> {
  await promisify(execFile)(process.execPath, [fileURLToPath(new URL('src/cli/bundle.mjs', root)), 'dist-bench'], { cwd: fileURLToPath(root) });
  return path.join(bundleDir, 'strata.cjs');
}

async function build(dir: string, z: ProcessSizes): Promise<void> {
  // Durable, the default: a relaxed writer never says how far the log is on disk, so every new process reads
  // its tail segment from the start (decision 0051).
  const c = await Catalog.open({ dir, durability: 'durable', checkpointEvery: 0 });
  try {
    // main.q has no files but those `strata sql` writes: the first-call figures query it.
    await c.transaction((tx) => tx.createTable('main', 'q', COLUMNS));
    for (let b = 0; b < z.tables; b += 100) {
      await c.transaction(async (tx) => {
        for (let t = b; t < Math.min(b + 100, z.tables); t++) await tx.createTable('main', `t${t}`, COLUMNS);
      });
    }
    let k = 0;
    for (let i = 0; i < z.commits; i++) {
      const t = (i * 7919) % z.tables;
      await c.transaction(async (tx) => {
        for (let f = 0; f < 4; f++) await tx.addDataFile('main', `t${t}`, { path: `t${t}/${k++}.parquet`, recordCount: 1000, fileSizeBytes: 1 << 20 });
      });
    }
  } finally {
    await c.close();
  }
}

/** Wall milliseconds of each of `n` runs of `args` (a command that fails stops the bench), with `env` added. */
function wall(args: string[], n: number, env: NodeJS.ProcessEnv = {}): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr.toString()}`);
  }
  return out;
}

const middle = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const range = (xs: number[]) => `${fmt(middle(xs))} ms (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`;

export async function processBench(z: ProcessSizes, out: (s?: string) => void): Promise<void> {
  out(`\n### process start: CLI calls and first calls on ${z.tables} tables, ${z.commits} commits\n`);
  const dir = await mkdtemp(path.join(tmpdir(), 'strata-bench-process-'));
  try {
    const strata = await bundle();
    await build(dir, z);
    out(
      `Catalog: ${z.tables} tables of ten columns, ${z.commits} durable commits of four files (${z.commits * 4} files); the bundled command, ` +
        `its code cache (decision 0053) in a directory of its own, empty before the first call; ${z.calls} calls each, wall time, median (min–max), ` +
        'and the first call of each command alone (the one that takes the code cache).\n',
    );
    out('| call | wall | first call | target |');
    out('| --- | ---: | ---: | ---: |');
    out(`| \`node -e 0\` (Node's own start) | ${range(wall(['-e', '0'], z.calls))} | | |`);
    const at = ['--dir', dir];
    const cache = { XDG_CACHE_HOME: path.join(dir, 'cache') };
    const row = (label: string, times: number[], target: number) => out(`| \`${label}\` | ${range(times)} | ${fmt(times[0]!)} ms | ${target} ms |`);
    for (const [label, args] of [
      ['strata --version', ['--version']],
      ['strata tag list', [...at, 'tag', 'list']],
      ['strata show main.t5', [...at, 'show', 'main.t5']],
      ['strata snapshots', [...at, 'snapshots']],
      ['strata info', [...at, 'info']],
    ] as const) {
      row(label, wall([strata, ...args], z.calls, cache), 150);
    }
    // Each INSERT commits: the catalog grows by one file per call, as a user's would.
    row('strata sql "INSERT … one row"', wall([strata, ...at, 'sql', "INSERT INTO main.q (id, payload) VALUES (1, 'one')"], z.calls, cache), 300);
    // Each fresh process's first calls, then DuckDB's own start over the same files, in turn: the difference of
    // each pair is taken on the same moment of a machine whose speed drifts.
    const firsts: FirstCalls[] = [];
    const starts: number[] = [];
    for (let i = 0; i < z.calls; i++) {
      const f = JSON.parse(await runScript(new URL('./first-calls.js', import.meta.url), [dir, String(i)])) as FirstCalls;
      const duck = JSON.parse(await runScript(new URL('./duckdb-start.js', import.meta.url), [JSON.stringify(f.files)])) as { ms: number; rows: number };
      if (duck.rows !== f.counted) throw new Error(`DuckDB counted ${duck.rows} rows in main.q's files, Strata ${f.counted}`);
      firsts.push(f);
      starts.push(duck.ms);
    }
    const m = (f: (x: FirstCalls) => number) => fmt(middle(firsts.map(f)));
    out(
      `\nIn a fresh process (${z.calls}, medians, ms): open ${m((x) => x.open)}; the first commit (one file) ${m((x) => x.firstCommit)}, ` +
        `the first into a second table ${m((x) => x.secondTable)}, a warm one ${m((x) => x.warmCommit)} (target: the first within 10 ms of a warm one); ` +
        `the first sql() (a COUNT over a table of the few files strata sql wrote) ${m((x) => x.firstSql)}, a warm one ${m((x) => x.warmSql)}; ` +
        `DuckDB's own start in a fresh process (its Node API loaded, an instance, a connection, the same count over the same files: duckdb-start.ts) ` +
        `${fmt(middle(starts))}, so the first sql() costs ${fmt(middle(firsts.map((x, i) => x.firstSql - starts[i]!)))} beyond it (the median of each pair's difference; target: under 50 ms, docs/DESIGN.md §7).`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface FirstCalls {
  open: number;
  firstCommit: number;
  secondTable: number;
  warmCommit: number;
  firstSql: number;
  warmSql: number;
  /** The rows the first sql() counted, and the table's files, for DuckDB's own start over the same ones. */
  counted: number;
  files: string[];
}
