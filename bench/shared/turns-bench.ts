// Writers that share a store (issue 46 item 2, decision 0060): 1, 2 and 4 writer processes, each committing
// into a table of its own (changes that commute), on a directory (the log as segments, and as objects) and
// on the S3 server behind an added round trip. What a user sees: commits per second of all the writers
// together, each commit's latency, how many of the others' commits landed while one was under way (a starved
// writer's commit sees hundreds), and commits refused.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Catalog, type S3StoreOptions } from '../../src/index.js';
import { fmt } from '../harness.js';
import { delayProxy } from './delay-proxy.js';
import { freshS3, s3Available, type StoreSpec } from './stores.js';
import { child, type WriterResult } from './suite.js';

export interface TurnsSizes {
  writers: number[];
  /** Commits each writer makes on a directory, and on S3 (a round trip or more each). */
  commits: number;
  s3Commits: number;
  roundTrips: number[];
}

interface Outcome {
  perSec: number;
  p50ms: number;
  p99ms: number;
  /** Per commit, the others' commits that landed while it was under way: median, p99, most. */
  others: [number, number, number];
  refused: number;
}

const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;

async function run(spec: StoreSpec, direct: StoreSpec, layout: 'segments' | 'objects', writers: number, commits: number): Promise<Outcome> {
  const dir = await mkdtemp(path.join(tmpdir(), 'strata-bench-turns-'));
  try {
    const setup = await Catalog.open({ dir: path.join(dir, 'setup'), store: direct, logLayout: layout, checkpointEvery: 0 });
    await setup.transaction(async (tx) => {
      for (let w = 0; w < writers; w++) await tx.createTable('main', `own${w}`, [{ name: 'x', type: 'int64' }]);
    });
    await setup.close();
    const results = await Promise.all(
      Array.from({ length: writers }, async (_, w) =>
        JSON.parse(await child('./writer.js', [path.join(dir, `w${w}`), JSON.stringify(spec), String(commits), `w${w}`, `own${w}`])) as WriterResult,
      ),
    );
    const spans = results.flatMap((r, w) => r.spans.map(([start, end]) => ({ w, start, end })));
    const others = spans.map((c) => spans.filter((o) => o.w !== c.w && o.end > c.start && o.end < c.end).length).sort((a, b) => a - b);
    const ms = spans.map((c) => c.end - c.start).sort((a, b) => a - b);
    const wall = Math.max(...spans.map((c) => c.end)) - Math.min(...spans.map((c) => c.start));
    return {
      perSec: (spans.length / wall) * 1000,
      p50ms: at(ms, 0.5),
      p99ms: at(ms, 0.99),
      others: [at(others, 0.5), at(others, 0.99), others.at(-1)!],
      refused: results.reduce((n, r) => n + r.refused, 0),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function turnsBench(z: TurnsSizes, out: (line: string) => void): Promise<void> {
  out('\n### writers that share a store: each into a table of its own\n');
  out(
    `${z.writers.join(', ')} writer processes at once, each with its own index, each committing one data file at a time into a table of its own ` +
      `(${z.commits} commits each on a directory, ${z.s3Commits} on S3); a writer that lost a race commits in its turn (decision 0060). ` +
      'Commits/s: all the writers\' commits over the wall time. Others during one: per commit, how many of the other writers\' commits landed ' +
      'while it was under way (median / p99 / most). S3: the Ceph RGW server on loopback behind the delay proxy of "round trips". One run each.\n',
  );
  out('| store | writers | commits/s | p50 ms | p99 ms | others during one | refused |');
  out('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  const row = (place: string, writers: number, r: Outcome) =>
    out(`| ${place} | ${writers} | ${fmt(r.perSec)} | ${fmt(r.p50ms)} | ${fmt(r.p99ms)} | ${r.others.join(' / ')} | ${r.refused} |`);
  for (const layout of ['segments', 'objects'] as const) {
    for (const writers of z.writers) {
      const dir = await mkdtemp(path.join(tmpdir(), 'strata-bench-turns-store-'));
      try {
        const spec = { path: dir };
        row(`directory, log as ${layout}`, writers, await run(spec, spec, layout, writers, z.commits));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  }
  if (!s3Available()) {
    out('\nNo S3 server (start ../shared/s3/start-s3.sh and export its variables): S3 not measured.');
    return;
  }
  for (const rtt of z.roundTrips) {
    const proxy = await delayProxy(process.env.S3_ENDPOINT!, rtt);
    try {
      for (const writers of z.writers) {
        const direct = (await freshS3()) as { s3: S3StoreOptions };
        const spec = { s3: { ...direct.s3, endpoint: proxy.endpoint } };
        row(`S3, +${rtt} ms a round trip`, writers, await run(spec, direct, 'objects', writers, z.s3Commits));
      }
    } finally {
      proxy.close();
    }
  }
}
