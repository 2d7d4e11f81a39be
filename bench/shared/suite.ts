// The shared-store benchmarks (issue 5): commit latency and throughput on the directory store and on the S3
// server, one writer and several writer processes; the object-store requests per commit; bootstrap time
// and memory of a new machine from a checkpoint. Strata-only: the peer has no shared-store mode, and the
// raw limit here is a bare create-if-absent of a log-sized object on the same store.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { runScript } from '../child.js';
import { Catalog } from '../../src/index.js';
import { logObjectKey } from '../../src/log/object-log.js';
import { kvSeq } from '../../keys/ids.js';
import { fmt, measure, measureConcurrent, type Sample, stats } from '../harness.js';
import { CountingStore } from '../../test/store/doubles/counting-store.js';
import { openStore } from './open-store.js';
import { freshS3, s3Available, type StoreSpec } from './stores.js';

export interface SharedSizes {
  /** Commits timed for one writer. */
  commits: number;
  /** Writer processes, and commits each makes. */
  writers: number;
  writerCommits: number;
  /** Keys in the catalog a new machine bootstraps from. */
  bootstrapKeys: number;
}

/** The V8 old-space cap of the bootstrapping process. */
const BOOTSTRAP_HEAP_MIB = 96;

interface Place {
  name: string;
  spec: () => Promise<{ spec: StoreSpec; dir: string }>;
}

async function tempDir(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'strata-bench-shared-'));
}

function places(): Place[] {
  const out: Place[] = [
    {
      name: 'directory',
      spec: async () => {
        const dir = await tempDir();
        return { dir, spec: { path: path.join(dir, 'store') } };
      },
    },
  ];
  if (s3Available()) out.push({ name: 'S3 (Ceph RGW, loopback)', spec: async () => ({ dir: await tempDir(), spec: await freshS3() }) });
  return out;
}

/** What a writer process (writer.ts) reports. */
export interface WriterResult {
  spans: [number, number][];
  requests: number;
  refused: number;
}

export const child = (script: string, args: string[], nodeFlags: string[] = []) => runScript(new URL(script, import.meta.url), args, nodeFlags);

async function setupEvents(dir: string, spec: StoreSpec): Promise<void> {
  // The writers share the store as machines would, so the log is kept as objects (as a directory shared
  // between machines keeps it): a segmented log's appends are file writes, no store requests to count.
  const c = await Catalog.open({ dir, store: spec, logLayout: 'objects' });
  await c.transaction((tx) => tx.createTable('main', 'events', [{ name: 'x', type: 'int64' }]));
  await c.close();
}

/** Concurrent callers in the group-commit case. */
const CALLERS = 8;

async function oneWriter(place: Place, z: SharedSizes, callers: number, exclusiveWriter = false) {
  const { dir, spec } = await place.spec();
  try {
    const store = new CountingStore(openStore(spec));
    // A directory shared between machines keeps its log as objects (docs/DESIGN.md §3), and the raw create below is of one.
    const c = await Catalog.open({ dir: path.join(dir, 'index'), store, checkpointEvery: 0, exclusiveWriter, logLayout: 'objects' });
    await c.transaction((tx) => tx.createTable('main', 'events', [{ name: 'x', type: 'int64' }]));
    const before = store.total();
    const createsBefore = store.counts.create;
    const commit = (i: number) =>
      c.transaction((tx) => tx.addDataFile('main', 'events', { path: `events/one-${i}.parquet`, recordCount: 1000, fileSizeBytes: 1 << 20 }));
    const sample = callers === 1 ? await measure(z.commits, 1, commit) : await measureConcurrent(z.commits, callers, 1, commit);
    const requests = (store.total() - before) / z.commits;
    // One writer never loses a race, so each create is one log entry.
    const entries = store.counts.create - createsBefore;
    const entry = (await store.get(logObjectKey(kvSeq(3))))!;
    await c.close();
    const raw = openStore(spec);
    const rawSample = callers === 1 ? await measure(z.commits, 1, (i) => raw.putIfAbsent(`raw/${i}`, entry)) : undefined;
    return { sample, requests, entries, rawSample, entryBytes: entry.length };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function manyWriters(place: Place, z: SharedSizes) {
  const { dir, spec } = await place.spec();
  try {
    await setupEvents(path.join(dir, 'setup'), spec);
    const outs = await Promise.all(
      Array.from({ length: z.writers }, (_, i) =>
        child('./writer.js', [path.join(dir, `w${i}`), JSON.stringify(spec), String(z.writerCommits), `w${i}`]),
      ),
    );
    const results = outs.map((o) => JSON.parse(o) as WriterResult);
    const ns = results.flatMap((r) => r.spans.map(([start, end]) => (end - start) * 1e6));
    // The writers run side by side: the commit phase lasts as long as the busiest writer's commits.
    const wallNs = Math.max(...results.map((r) => r.spans.reduce((a, [start, end]) => a + (end - start) * 1e6, 0)));
    const sample: Sample = { ns, units: 1, peakRss: 0 };
    return {
      perSec: ns.length / (wallNs / 1e9),
      latency: stats(sample),
      requests: results.reduce((a, r) => a + r.requests, 0) / ns.length,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function bootstrap(place: Place, z: SharedSizes) {
  const { dir, spec } = await place.spec();
  try {
    const durability = 'path' in spec ? ({ durability: 'relaxed' } as const) : {};
    const c = await Catalog.open({ dir: path.join(dir, 'builder'), store: spec, checkpointEvery: 0, ...durability });
    await c.transaction((tx) => tx.createTable('main', 'events', [{ name: 'x', type: 'int64' }]));
    // About two keys per data file (its row and its file→table index entry).
    const perCommit = 1000;
    const commits = Math.ceil(z.bootstrapKeys / 2 / perCommit);
    let n = 0;
    const addBatch = () =>
      c.transaction(async (tx) => {
        for (let i = 0; i < perCommit; i++) {
          await tx.addDataFile('main', 'events', { path: `events/b-${n++}.parquet`, recordCount: 1000, fileSizeBytes: 1 << 20 });
        }
      });
    for (let i = 0; i < commits; i++) await addBatch();
    const t = process.hrtime.bigint();
    const checkpoint = await c.checkpoint();
    const checkpointMs = Number(process.hrtime.bigint() - t) / 1e6;
    // A log tail after the checkpoint, as a new machine usually finds it.
    for (let i = 0; i < 10; i++) await addBatch();
    await c.close();
    // The bootstrap process gets a small JavaScript heap: if it completes, memory is bounded by the chunk
    // size, not by the catalog (a streaming restore holds one chunk at a time).
    const result = JSON.parse(await child('./bootstrap.js', [path.join(dir, 'fresh'), JSON.stringify(spec)], [`--max-old-space-size=${BOOTSTRAP_HEAP_MIB}`])) as {
      ms: number;
      snapshot: number;
      peakRss: number;
    };
    return { keys: checkpoint.keys, chunks: checkpoint.chunks, checkpointMs, tail: 10, ...result };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function sharedStoreBench(z: SharedSizes, out: (s?: string) => void): Promise<void> {
  if (!s3Available()) out('\nS3: no server variables in the environment, so only the directory store is measured (start ../shared/s3/start-s3.sh and export what it prints to include S3).');

  out('\n### commit on a shared store, one writer\n');
  out(
    `${z.commits} commits of one data file each, into one table, from one process: awaited one by one, then from ${CALLERS} callers at once ` +
      '(group commit: what becomes ready while a log entry is written goes into the next one; throughput over the wall time). ' +
      'No transaction asks the store what is new before its function runs (decision 0057): its create of the log entry is ' +
      'the question, and beside it (the same round trip) a read of the entry after tells a gap from the end; with ' +
      'exclusiveWriter the writer holds the epoch and knows the end, so the create goes alone. The log is kept as objects on both stores (a directory ' +
      'shared between machines has that layout). Raw = a bare create-if-absent of an object the size of one ' +
      'single-commit log entry, on the same store.\n',
  );
  out('| store | side | commits/s | p50 µs | p99 µs | store requests / commit | commits / log entry | strata / raw |');
  out('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const place of places()) {
    const one = await oneWriter(place, z, 1);
    const exclusive = await oneWriter(place, z, 1, true);
    const many = await oneWriter(place, z, CALLERS);
    const raw = stats(one.rawSample!);
    const rows = [
      ['strata, one by one', one],
      ['strata, one by one, exclusiveWriter', exclusive],
      [`strata, ${CALLERS} callers`, many],
    ] as const;
    for (const [label, r] of rows) {
      const s = stats(r.sample);
      out(
        `| ${place.name} | ${label} | ${fmt(s.perSec)} | ${fmt(s.p50us)} | ${fmt(s.p99us)} | ${r.requests.toFixed(2)} | ${(z.commits / r.entries).toFixed(2)} | ${(s.perSec / raw.perSec).toFixed(2)}x |`,
      );
    }
    out(`| ${place.name} | raw (${one.entryBytes} B create) | ${fmt(raw.perSec)} | ${fmt(raw.p50us)} | ${fmt(raw.p99us)} | 1.00 | | |`);
  }

  out(`\n### commit on a shared store, ${z.writers} writer processes\n`);
  out(
    `${z.writers} processes, each with its own index, ${z.writerCommits} commits each into the same table at once; losers of the log race rebase and retry. ` +
      'Throughput = all commits over the busiest writer\'s commit time; latency per acknowledged commit, retries included.\n',
  );
  out('| store | commits/s (all writers) | p50 µs | p99 µs | store requests / commit |');
  out('| --- | ---: | ---: | ---: | ---: |');
  for (const place of places()) {
    const r = await manyWriters(place, z);
    out(`| ${place.name} | ${fmt(r.perSec)} | ${fmt(r.latency.p50us)} | ${fmt(r.latency.p99us)} | ${r.requests.toFixed(2)} |`);
  }

  out('\n### bootstrap of a new machine from a checkpoint\n');
  out(
    `A catalog of about ${z.bootstrapKeys.toLocaleString('en-US')} keys, checkpointed, then 10 more commits; a new process opens it on an empty directory (checkpoint restore + log tail), read-only, ` +
      `with its JavaScript heap capped at ${BOOTSTRAP_HEAP_MIB} MiB (--max-old-space-size): it completes, so what it holds does not grow with the catalog.\n`,
  );
  out('| store | keys in checkpoint | chunks | checkpoint write s | bootstrap s | bootstrap peak RSS MiB |');
  out('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const place of places()) {
    const r = await bootstrap(place, z);
    out(
      `| ${place.name} | ${r.keys.toLocaleString('en-US')} | ${r.chunks} | ${(r.checkpointMs / 1000).toFixed(2)} | ${(r.ms / 1000).toFixed(2)} | ${fmt(r.peakRss / 2 ** 20)} |`,
    );
  }
}
