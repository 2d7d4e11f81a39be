// Serving Iceberg metadata for a table of many files: catalog.iceberg() at a snapshot spread over the history (run k of n at (k + ½)/n), first
// (nothing written for the table yet) and repeated; the REST load of the head through `serve()` over HTTP,
// first and repeated; the bytes written to serve the head after one more commit, against those of the first
// load; and a commit's time before and after serving (metadata is never made on the commit path).
import { cp, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Catalog, serve } from '../../src/index.js';
import { fmt } from '../harness.js';

export interface IcebergSizes {
  /** Commits that each add `perCommit` files to main.big. */
  commits: number;
  perCommit: number;
  repeats: number;
  runs: number;
}

const OPEN = { durability: 'durable', checkpointEvery: 0 } as const;

async function addFiles(c: Catalog, k: number, n: number): Promise<void> {
  await c.transaction(async (tx) => {
    for (let i = 0; i < n; i++) {
      const lo = (k * n + i) * 1000;
      await tx.addDataFile('main', 'big', {
        path: `big/${k}-${i}.parquet`,
        recordCount: 1000,
        fileSizeBytes: 1 << 20,
        columnStats: [{ columnId: 1, min: String(lo), max: String(lo + 999), nullCount: 0, valueCount: 1000 }],
      });
    }
  });
}

async function build(dir: string, z: IcebergSizes): Promise<void> {
  const c = await Catalog.open({ dir, ...OPEN });
  try {
    await c.sql('CREATE TABLE big (id BIGINT, v VARCHAR)');
    for (let k = 0; k < z.commits; k++) await addFiles(c, k, z.perCommit);
  } finally {
    await c.close();
  }
}

/** Bytes and objects under the store's iceberg/ prefix. */
async function icebergBytes(dir: string): Promise<{ bytes: number; objects: number }> {
  const root = path.join(dir, 'store', 'iceberg');
  let bytes = 0;
  let objects = 0;
  for (const e of await readdir(root, { withFileTypes: true, recursive: true }).catch(() => [])) {
    if (!e.isFile()) continue;
    bytes += (await stat(path.join(e.parentPath, e.name))).size;
    objects++;
  }
  return { bytes, objects };
}

const timed = async (fn: () => Promise<unknown>) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};
const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function icebergBench(z: IcebergSizes, out: (s?: string) => void): Promise<void> {
  const base = await mkdtemp(path.join(tmpdir(), 'strata-bench-iceberg-'));
  const r = { atFirst: [] as number[], atRepeat: [] as number[], restFirst: [] as number[], restRepeat: [] as number[], commitBefore: [] as number[], commitAfter: [] as number[] };
  let firstWrite = { bytes: 0, objects: 0 };
  let nextWrite = { bytes: 0, objects: 0 };
  const picked: string[] = [];
  try {
    await build(path.join(base, 'built'), z);
    for (let run = 0; run < z.runs; run++) {
      // catalog.iceberg() at a random retained snapshot, on a copy nothing was served from.
      const a = path.join(base, `run-${run}-at`);
      await cp(path.join(base, 'built'), a, { recursive: true });
      const c = await Catalog.open({ dir: a, ...OPEN });
      const ids = (await c.snapshots()).map((s) => s.id);
      // Spread over the history, run k of n at (k + ½)/n of it: the median run is a snapshot midway.
      const at = ids[Math.floor(((run + 0.5) / z.runs) * ids.length)]!;
      picked.push(`${at} of ${ids.at(-1)}`);
      r.atFirst.push(await timed(() => c.iceberg('main', 'big', { snapshot: at })));
      const again: number[] = [];
      for (let i = 0; i < z.repeats; i++) again.push(await timed(() => c.iceberg('main', 'big', { snapshot: at })));
      r.atRepeat.push(mid(again));
      await c.close();
      await rm(a, { recursive: true, force: true });

      // The REST load of the head over HTTP, then one more commit and the load that serves it.
      const b = path.join(base, `run-${run}-rest`);
      await cp(path.join(base, 'built'), b, { recursive: true });
      const d = await Catalog.open({ dir: b, ...OPEN });
      r.commitBefore.push(await timed(() => addFiles(d, z.commits, z.perCommit)));
      const server = await serve(d, { port: 0 });
      const load = async () => {
        const res = await fetch(`${server.url}/v1/namespaces/main/tables/big`);
        if (res.status !== 200) throw new Error(`load answered ${res.status}`);
        await res.json();
      };
      r.restFirst.push(await timed(load));
      const rest: number[] = [];
      for (let i = 0; i < z.repeats; i++) rest.push(await timed(load));
      r.restRepeat.push(mid(rest));
      const before = await icebergBytes(b);
      firstWrite = before;
      r.commitAfter.push(await timed(() => addFiles(d, z.commits + 1, z.perCommit)));
      await load();
      const after = await icebergBytes(b);
      nextWrite = { bytes: after.bytes - before.bytes, objects: after.objects - before.objects };
      await server.close();
      await d.close();
      await rm(b, { recursive: true, force: true });
    }
  } finally {
    await rm(base, { recursive: true, force: true });
  }
  const files = (z.commits + 1) * z.perCommit;
  const n = (x: number) => x.toLocaleString('en-US');
  out('\n### iceberg: serving a table of many files as Iceberg metadata\n');
  out(
    `main.big: ${n(files)} files (${n(z.commits + 1)} commits of ${n(z.perCommit)}, bounds of one column), durable, directory store, a ` +
      `fresh copy each run: catalog.iceberg() first and again (median of ${z.repeats}), the REST load of the head over HTTP, then one ` +
      `more commit and its load. Median of ${z.runs} run(s).\n`,
  );
  out('| case | ms |');
  out('| --- | ---: |');
  out(`| catalog.iceberg() at snapshot ${picked.join(', ')}, first | ${fmt(mid(r.atFirst))} |`);
  out(`| catalog.iceberg() at that snapshot, repeated | ${fmt(mid(r.atRepeat))} |`);
  out(`| GET …/tables/big (head) over HTTP, first | ${fmt(mid(r.restFirst))} |`);
  out(`| GET …/tables/big (head) over HTTP, repeated | ${fmt(mid(r.restRepeat))} |`);
  out(`| commit of ${n(z.perCommit)} files, before serving | ${fmt(mid(r.commitBefore))} |`);
  out(`| commit of ${n(z.perCommit)} files, after serving | ${fmt(mid(r.commitAfter))} |`);
  out(
    `\nWritten to serve the head: first load ${n(firstWrite.objects)} objects, ${fmt(firstWrite.bytes / 2 ** 20)} MiB; after one more commit of ` +
      `${n(z.perCommit)} files, ${n(nextWrite.objects)} objects, ${fmt(nextWrite.bytes / 2 ** 10)} KiB (the new group's manifest, the new ` +
      'snapshot\'s manifest list and the metadata JSON).',
  );
}
