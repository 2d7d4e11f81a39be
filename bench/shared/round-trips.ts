// Strata on S3 as far from it as a same-region service (issue 46): the S3 server behind a proxy that adds a
// round trip of 0, 11 or 32 ms (delay-proxy.ts). For each: a lone writer's default commits (latency, and
// store requests per commit), a new machine's bootstrap of a log with no checkpoint, and the reclamation of
// a dropped table's files. Each catalog is built straight on the server, untimed; only the measured part goes
// through the proxy.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Catalog, type S3StoreOptions } from '../../src/index.js';
import { inParallel } from '../../src/in-parallel.js';
import { fmt, measure, stats } from '../harness.js';
import { CountingStore } from '../../test/store/doubles/counting-store.js';
import { delayProxy } from './delay-proxy.js';
import { openStore } from './open-store.js';
import { freshS3, s3Available } from './stores.js';

export interface RoundTripSizes {
  roundTrips: number[];
  commits: number;
  /** Log entries a new machine bootstraps (one commit each, no checkpoint). */
  entries: number;
  /** Files of the dropped table a reclamation deletes. */
  files: number;
}

async function scratch(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'strata-bench-rtt-'));
}

const through = (s3: S3StoreOptions, endpoint: string): S3StoreOptions => ({ ...s3, endpoint });

async function loneCommits(s3: S3StoreOptions, endpoint: string, n: number) {
  const dir = await scratch();
  try {
    const store = new CountingStore(openStore({ s3: through(s3, endpoint) }));
    const c = await Catalog.open({ dir, store, checkpointEvery: 0, logLayout: 'objects' });
    await c.transaction((tx) => tx.createTable('main', 'events', [{ name: 'x', type: 'int64' }]));
    const before = store.total();
    const sample = await measure(n, 1, (i) => c.transaction((tx) => tx.addDataFile('main', 'events', { path: `events/${i}.parquet`, recordCount: 1, fileSizeBytes: 1 })));
    const requests = (store.total() - before) / n;
    await c.close();
    return { p50us: stats(sample).p50us, requests };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function buildLog(s3: S3StoreOptions, entries: number): Promise<void> {
  const dir = await scratch();
  try {
    const c = await Catalog.open({ dir, store: { s3 }, checkpointEvery: 0, exclusiveWriter: true });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    for (let i = 0; i < entries; i++) await c.transaction((tx) => tx.addDataFile('main', 't', { path: `t/${i}.parquet`, recordCount: 1, fileSizeBytes: 1 }));
    await c.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function bootstrapMs(s3: S3StoreOptions, endpoint: string): Promise<number> {
  const dir = await scratch();
  try {
    const t = performance.now();
    const c = await Catalog.open({ dir, store: { s3: through(s3, endpoint) }, checkpointEvery: 0, readOnly: true });
    const ms = performance.now() - t;
    await c.close();
    return ms;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function reclaimMs(endpoint: string, files: number): Promise<number> {
  const { s3 } = (await freshS3()) as { s3: S3StoreOptions };
  const dir = await scratch();
  try {
    const direct = openStore({ s3 });
    const paths = Array.from({ length: files }, (_, i) => `t/f${i}.parquet`);
    await inParallel(paths, 32, async (p) => void (await direct.putIfAbsent(`data/${p}`, new Uint8Array([1]))));
    const built = await Catalog.open({ dir: path.join(dir, 'builder'), store: { s3 }, checkpointEvery: 0 });
    await built.transaction(async (tx) => {
      await tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]);
      await tx.addDataFiles('main', 't', paths.map((p) => ({ path: p, recordCount: 1, fileSizeBytes: 1 })));
    });
    await built.transaction((tx) => tx.dropTable('main', 't'));
    await built.advanceRetainFrom({ snapshot: (await built.snapshots({ newestFirst: true, limit: 1 }))[0]!.id });
    await built.excise();
    await built.close();
    const c = await Catalog.open({ dir: path.join(dir, 'gc'), store: { s3: through(s3, endpoint) }, checkpointEvery: 0 });
    const t = performance.now();
    const report = await c.reclaimFiles({ graceMs: 0 });
    const ms = performance.now() - t;
    await c.close();
    if (report.deleted.length !== files) throw new Error(`reclaimed ${report.deleted.length} of ${files} files`);
    return ms;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function roundTripsBench(z: RoundTripSizes, out: (line: string) => void): Promise<void> {
  out('\n### round trips: S3 behind an added round trip\n');
  if (!s3Available()) {
    out('No S3 server (start ../shared/s3/start-s3.sh and export its variables): not measured.');
    return;
  }
  out(
    `The S3 server (Ceph RGW on loopback) behind a TCP proxy that holds each chunk for half the added round trip, each way. ` +
      `Lone commits: ${z.commits} default commits (no exclusiveWriter) of one data file, p50, and store requests per commit. ` +
      `Bootstrap: a new machine opens a catalog of ${z.entries.toLocaleString('en-US')} log entries and no checkpoint. ` +
      `Reclaim: reclaimFiles({ graceMs: 0 }) of a dropped, excised table of ${z.files.toLocaleString('en-US')} files. One run each.\n`,
  );
  out('| added round trip ms | lone commit p50 ms | requests per commit | bootstrap ms | reclaim ms |');
  out('| ---: | ---: | ---: | ---: | ---: |');
  const { s3: logged } = (await freshS3()) as { s3: S3StoreOptions };
  await buildLog(logged, z.entries);
  for (const rtt of z.roundTrips) {
    const proxy = await delayProxy(process.env.S3_ENDPOINT!, rtt);
    try {
      const { s3 } = (await freshS3()) as { s3: S3StoreOptions };
      const commits = await loneCommits(s3, proxy.endpoint, z.commits);
      const boot = await bootstrapMs(logged, proxy.endpoint);
      const reclaim = await reclaimMs(proxy.endpoint, z.files);
      out(`| ${rtt} | ${fmt(commits.p50us / 1000)} | ${commits.requests.toFixed(2)} | ${fmt(boot)} | ${fmt(reclaim)} |`);
    } finally {
      proxy.close();
    }
  }
}
