// npm run bench [-- --quick | --smoke] [--runs N] [--only substring] [--write] [--tables N --versions N --commits N
//                --lookups N --depth N --files N --cascade-tables N]
// `--only "shared store"` runs just the shared-store section (directory store, and S3 when its variables are set);
// `--only "large transactions"` the one-transaction commit of --files files, its drop, and a cascade drop of
// --cascade-tables tables.
// `--only iceberg` Iceberg metadata for a table of 10,000 files: catalog.iceberg() at a random snapshot and the REST
// load through serve(), first and repeated, and the bytes written to serve one more commit (bench/iceberg/).
// `--only growth` catalogs of 1k/10k/100k commits, 10k tables and a table of 1M files: open, rebuild, resolve, list,
// snapshots(), verify, checkpoint and excise, each in a process of its own (time, peak RSS), and store bytes.
// `--only "commit profile"` where a warm commit's time goes, by layer, for the commit shapes (bench/commit-profile.ts).
// `--only sql` catalog.sql against DuckDB over the same Parquet files: a full scan with deletes, a selective
// predicate on a sorted column, four questions of one large file (after one DELETE, after 100, with none) and of
// the same rows in 1,000 files each with a delete file, and binding on a
// catalog of many tables (bench/sql/); `--only "sql writes"` an
// UPDATE of 1% of a 1M-row table and a compaction of 1,000 small files, time and peak RSS (bench/sql/writes-bench.ts).
// Runs every workload against Strata, the peer (DuckLake's catalog on SQLite) and the raw LevelDB limit, in
// this one process, each run on fresh directories; reports the median run of each side.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { Driver, DriverOptions, Side } from './drivers/driver.js';
import { openPeer } from './drivers/peer-sqlite.js';
import { openRaw } from './drivers/raw-level.js';
import { openStrata } from './drivers/strata.js';
import { fmt, median, type Stats, stats } from './harness.js';
import { type Sizes, WORKLOADS } from './workloads.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    smoke: { type: 'boolean', default: false },
    runs: { type: 'string' },
    only: { type: 'string' },
    write: { type: 'boolean', default: false },
    tables: { type: 'string' },
    versions: { type: 'string' },
    commits: { type: 'string' },
    lookups: { type: 'string' },
    depth: { type: 'string' },
    files: { type: 'string' },
    snapshots: { type: 'string' },
    'cascade-tables': { type: 'string' },
  },
});

// --smoke: every section at sizes too small to measure anything, only to show that each still runs (the
// test suite runs it: test/bench/smoke.test.ts).
const scale = values.smoke ? 'smoke' : values.quick ? 'quick' : 'full';
const bySize = <T>(choices: Record<typeof scale, T>): T => choices[scale];
const defaults: Sizes = bySize({
  smoke: { snapshots: 100, tables: 20, versions: 2, commits: 10, lookups: 100, depth: 10, files: 200 },
  quick: { snapshots: 2000, tables: 200, versions: 5, commits: 100, lookups: 2000, depth: 200, files: 20_000 },
  full: { snapshots: 20_000, tables: 1000, versions: 10, commits: 300, lookups: 10_000, depth: 1000, files: 100_000 },
});
const sizes: Sizes = Object.fromEntries(
  Object.entries(defaults).map(([k, v]) => [k, values[k as keyof Sizes] === undefined ? v : Number(values[k as keyof Sizes])]),
) as unknown as Sizes;
const runs = Number(values.runs ?? (scale === 'full' ? 3 : 1));

const ALL_SIDES: [Side, (o: DriverOptions) => Promise<Driver>][] = [
  ['strata', openStrata],
  ['strata-objects', (o) => openStrata({ ...o, logLayout: 'objects' })],
  ['peer', openPeer],
  ['raw', openRaw],
];

const command = `npm run bench --${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(' ')}` : ''}`.replace(/ --$/, '');
const lines: string[] = [];
const out = (s = '') => {
  lines.push(s);
  console.log(s);
};

out(`Command: \`${command}\` — ${runs} run(s) per side, median run shown.`);
out(`Machine: ${cpus().length} cores (${cpus()[0]?.model.trim()}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`);
out(`Sizes: ${Object.entries(sizes).map(([k, v]) => `${k}=${v}`).join(', ')}.`);

const started = Date.now();
for (const w of WORKLOADS.filter((x) => values.only === undefined || x.name.includes(values.only))) {
  const results = new Map<string, Map<Side, Stats[]>>();
  let durability: Partial<Record<Side, string>> = {};
  // The object layout only where it differs: commits (reads go to the same index either way).
  const SIDES = ALL_SIDES.filter(([s]) => (w.sides ?? ['strata', 'peer', 'raw']).includes(s));
  for (let run = 0; run < runs; run++) {
    for (const [side, open] of SIDES) {
      const dir = await mkdtemp(path.join(tmpdir(), `strata-bench-${side}-`));
      let driver = await open({ dir, durable: w.durable });
      durability = { ...durability, [side]: driver.durability };
      const reopen = async () => {
        await driver.close();
        driver = await open({ dir, durable: w.durable });
        return driver;
      };
      try {
        for (const [label, sample] of Object.entries(await w.run(driver, sizes, reopen))) {
          if (!results.has(label)) results.set(label, new Map());
          const bySide = results.get(label)!;
          bySide.set(side, [...(bySide.get(side) ?? []), stats(sample)]);
        }
      } finally {
        await driver.close();
        await rm(dir, { recursive: true, force: true });
      }
    }
  }
  out(`\n### ${w.name}\n`);
  out(`${w.describe(sizes)}.${w.durable ? ` Durability: ${SIDES.map(([s]) => `${s}: ${durability[s]}`).join('; ')}.` : ''}\n`);
  out(`| case | side | ${w.unit} | p50 µs | p99 µs | peak RSS MiB | strata / side |`);
  out('| --- | --- | ---: | ---: | ---: | ---: | ---: |');
  for (const [label, bySide] of results) {
    const strata = median(bySide.get('strata')!);
    for (const [side] of SIDES) {
      const m = median(bySide.get(side)!);
      const ratio = side === 'strata' ? '' : `${(strata.perSec / m.perSec).toFixed(2)}x`;
      out(`| ${label || '—'} | ${side} | ${fmt(m.perSec)} | ${fmt(m.p50us)} | ${fmt(m.p99us)} | ${fmt(m.peakRssMiB)} | ${ratio} |`);
    }
  }
  const [baseLabel, ...others] = [...results.keys()];
  for (const label of w.unrelatedCases ? [] : others) {
    const ratios = SIDES.map(
      ([s]) => `${s} ${(median(results.get(baseLabel!)!.get(s)!).perSec / median(results.get(label)!.get(s)!).perSec).toFixed(2)}x`,
    );
    out(`\nSlowdown of "${label}" against "${baseLabel}": ${ratios.join(', ')}.`);
  }
  if (w.aside) out(`\n${await w.aside(sizes, runs)}`);
}
if (values.only === undefined || 'commit profile'.includes(values.only)) {
  const { commitProfileBench } = await import('./commit-profile.js');
  await commitProfileBench(
    bySize({ smoke: { tables: 20, warm: 16, timed: 16 }, quick: { tables: 200, warm: 1000, timed: 500 }, full: { tables: 1000, warm: 3000, timed: 2000 } }),
    out,
  );
}
if (values.only === undefined || 'shared store'.includes(values.only)) {
  const { sharedStoreBench } = await import('./shared/suite.js');
  await sharedStoreBench(
    bySize({
      smoke: { commits: 5, writers: 2, writerCommits: 5, bootstrapKeys: 1000 },
      quick: { commits: 100, writers: 4, writerCommits: 50, bootstrapKeys: 100_000 },
      full: { commits: 300, writers: 4, writerCommits: 250, bootstrapKeys: 1_000_000 },
    }),
    out,
  );
}
if (values.only === undefined || 'writers in turn'.includes(values.only)) {
  const { turnsBench } = await import('./shared/turns-bench.js');
  await turnsBench(
    bySize({
      smoke: { writers: [1, 2], commits: 5, s3Commits: 3, roundTrips: [0] },
      quick: { writers: [1, 2, 4], commits: 100, s3Commits: 20, roundTrips: [0, 32] },
      full: { writers: [1, 2, 4], commits: 300, s3Commits: 40, roundTrips: [0, 11, 32] },
    }),
    out,
  );
}
if (values.only === undefined || 'round trips'.includes(values.only)) {
  const { roundTripsBench } = await import('./shared/round-trips.js');
  await roundTripsBench(
    bySize({
      smoke: { roundTrips: [0, 11], commits: 3, entries: 20, files: 70 },
      quick: { roundTrips: [0, 11, 32], commits: 20, entries: 300, files: 1000 },
      full: { roundTrips: [0, 11, 32], commits: 50, entries: 1000, files: 10_000 },
    }),
    out,
  );
}
if (values.only === undefined || 'excision'.includes(values.only)) {
  const { exciseBench } = await import('./gc/excise-bench.js');
  await exciseBench(
    bySize({ smoke: { versions: 20, catalogs: [200, 1000] }, quick: { versions: 2000, catalogs: [20_000, 200_000] }, full: { versions: 10_000, catalogs: [100_000, 2_000_000] } }),
    out,
  );
}
if (values.only === undefined || 'growth'.includes(values.only)) {
  const { growthBench } = await import('./growth/growth-bench.js');
  await growthBench(bySize({ smoke: { commits: [100], tables: 50, files: 1000 }, quick: { commits: [1000, 10_000], tables: 1000, files: 100_000 }, full: { commits: [1000, 10_000, 100_000], tables: 10_000, files: 1_000_000 } }), out);
}
if (values.only === undefined || 'checksums'.includes(values.only)) {
  const { checksumBench } = await import('./integrity/checksum-bench.js');
  await checksumBench(scale !== 'full', out);
}
if (values.only === undefined || 'large transactions'.includes(values.only)) {
  const tables = Number(values['cascade-tables'] ?? bySize({ smoke: 20, quick: 4000, full: 20_000 }));
  const { largeTransactionsBench } = await import('./scale/large-transactions.js');
  await largeTransactionsBench({ files: sizes.files, tables, runs }, out);
}
if (values.only === undefined || 'sql'.includes(values.only)) {
  const { sqlBench } = await import('./sql/sql-bench.js');
  await sqlBench(
    bySize({
      smoke: { rows: 4000, files: 2, bigRows: 4000, deleteCommits: 3, deleteFiles: 3, tables: 4, calls: 5, warm: 2, runs },
      quick: { rows: 100_000, files: 10, bigRows: 400_000, deleteCommits: 100, deleteFiles: 100, tables: 100, calls: 200, warm: 5, runs },
      full: { rows: 1_000_000, files: 10, bigRows: 4_000_000, deleteCommits: 100, deleteFiles: 1000, tables: 1000, calls: 1000, warm: 10, runs },
    }),
    out,
  );
}
if (values.only === undefined || 'sql writes'.includes(values.only)) {
  const { writesBench } = await import('./sql/writes-bench.js');
  await writesBench(bySize({ smoke: { rows: 4000, files: 2, small: 5, runs }, quick: { rows: 100_000, files: 10, small: 200, runs }, full: { rows: 1_000_000, files: 10, small: 1000, runs } }), out);
}
if (values.only === undefined || 'iceberg'.includes(values.only)) {
  const { icebergBench } = await import('./iceberg/load-bench.js');
  await icebergBench(bySize({ smoke: { commits: 5, perCommit: 20, repeats: 3, runs }, quick: { commits: 50, perCommit: 100, repeats: 10, runs }, full: { commits: 99, perCommit: 100, repeats: 10, runs } }), out);
}
if (values.only === undefined || 'process start'.includes(values.only)) {
  const { processBench } = await import('./process/process-bench.js');
  await processBench(bySize({ smoke: { tables: 20, commits: 20, calls: 1 }, quick: { tables: 200, commits: 600, calls: 3 }, full: { tables: 1000, commits: 3000, calls: 5 } }), out);
}
out(`\nTotal time: ${((Date.now() - started) / 1000).toFixed(0)} s.`);

if (values.write) {
  // This module runs as dist-bench/bench/main.js.
  const file = new URL('../../BENCHMARKS.md', import.meta.url);
  const doc = await readFile(file, 'utf8');
  const begin = '<!-- bench:begin -->';
  const end = '<!-- bench:end -->';
  if (!doc.includes(begin) || !doc.includes(end)) throw new Error(`BENCHMARKS.md needs ${begin} and ${end} markers`);
  await writeFile(file, `${doc.slice(0, doc.indexOf(begin) + begin.length)}\n${lines.join('\n')}\n${doc.slice(doc.indexOf(end))}`);
}
