// npm run soak -- [--minutes N] [--store dir|s3] [--out DIR] [--writers N] [--readers N] [--seed N]
// Every job at once, each its own process on one shared catalog: writers (SQL inserts, updates and
// deletes), readers pinned to snapshots with leases checking each answer against the writers' models, a
// read-only follower, a GC process (retain-from, excision, reclamation, checkpoints, log compaction,
// checkpoint pruning) and a compactor. At the end: verify --files, every acknowledged commit present and
// answering as its writer's model says, every process's violations (none), its RSS (flat), and the commit
// latency over time (latency.svg, rss.svg in the output directory). Exit 1 on any violation.
// On S3 it uses the server ../shared/s3/start-s3.sh starts (its variables exported); loopback only.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { ensureBucket, S3_BUCKET } from '../store/s3-env.js';
import { openShared, type SoakConfig, storeOption } from './config.js';
import { summarise } from './summary.js';

const program = new Command('soak')
  .option('--minutes <n>', 'how long every job runs', '10')
  .option('--store <kind>', 'dir (a directory store, the segmented log) or s3 (the local S3 server)', 'dir')
  .option('--out <dir>', 'where the run keeps its files (default soak-out/<store>-<time>)')
  .option('--writers <n>', 'writer processes', '2')
  .option('--readers <n>', 'pinned reader processes', '2')
  .option('--seed <n>', 'seeds every process’s choices', '20261202')
  .parse();
const opts = program.opts<{ minutes: string; store: string; out?: string; writers: string; readers: string; seed: string }>();
const minutes = Number(opts.minutes);
if (!(minutes > 0)) program.error(`--minutes must be a positive number, got ${opts.minutes}`);
if (opts.store !== 'dir' && opts.store !== 's3') program.error(`--store is dir or s3, got ${opts.store}`);

const out = path.resolve(opts.out ?? path.join('soak-out', `${opts.store}-${new Date().toISOString().replace(/[:.]/g, '-')}`));
// A used directory would mix two runs' journals and stores: refused rather than emptied (it is the user's).
if (fs.existsSync(out) && fs.readdirSync(out).length > 0) program.error(`--out ${out} is not empty: give a new directory, or remove that one`);
fs.mkdirSync(out, { recursive: true });
const durationMs = minutes * 60_000;
const started = Date.now();

async function storeConfig(): Promise<SoakConfig['store']> {
  if (opts.store === 'dir') return { dir: path.join(out, 'store') };
  // The run's own prefix: a server that outlives a run (start-s3.sh reuses one that answers) still holds the
  // catalog an earlier run under the same --out made, and a second soak on it failed at its setup.
  const store = { s3: { prefix: `soak-${path.basename(out)}-${started.toString(36)}` } };
  const opened = storeOption(store);
  if ('s3' in opened) await ensureBucket(opened.s3);
  return store;
}

const config: SoakConfig = {
  out,
  store: await storeConfig(),
  until: 0,
  writers: Number(opts.writers),
  readers: Number(opts.readers),
  // Short runs keep less history, so that GC has versions to excise and files to reclaim within them.
  retainMs: Math.min(20_000, durationMs / 6),
  graceMs: Math.min(5_000, durationMs / 20),
  seed: Number(opts.seed),
  tableSince: 0,
};

const setup = await openShared(config, 'setup');
config.tableSince = (await setup.sql('CREATE TABLE main.events (w INTEGER, n INTEGER, v INTEGER)')).snapshot!;
await setup.close();

config.until = Date.now() + durationMs;
const roles = [
  ...Array.from({ length: config.writers }, (_, w) => `writer-${w}`),
  ...Array.from({ length: config.readers }, (_, i) => `reader-${i}`),
  'follower',
  'gc',
  'compactor',
];
const script = fileURLToPath(new URL('./role.ts', import.meta.url));
console.log(`soak: ${roles.length} processes on ${'dir' in config.store ? config.store.dir : `s3://${S3_BUCKET}/${config.store.s3.prefix}`} for ${minutes} min; files in ${out}`);
const exits = await Promise.all(
  roles.map(
    (role) =>
      new Promise<{ role: string; code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
        const log = fs.openSync(path.join(out, `${role}.log`), 'w');
        const p = spawn(process.execPath, ['--import', 'tsx', script, role, JSON.stringify(config)], { stdio: ['ignore', log, log] });
        // A process that does not stop within two minutes of the deadline is hung: killed, and reported.
        const hung = setTimeout(() => p.kill('SIGKILL'), durationMs + 120_000);
        p.on('exit', (code, signal) => {
          clearTimeout(hung);
          fs.closeSync(log);
          resolve({ role, code, signal });
        });
      }),
  ),
);

const report = await summarise(config, roles, exits, started);
fs.writeFileSync(path.join(out, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
for (const line of report.lines) console.log(line);
for (const v of report.violations) console.log(`VIOLATION ${v}`);
console.log(report.violations.length === 0 ? 'soak: passed' : `soak: ${report.violations.length} violations`);
process.exit(report.violations.length === 0 ? 0 : 1);
