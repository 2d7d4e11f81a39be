// Excision cost against catalog size (docs/DESIGN.md §7): the same excisable versions removed from a small and a
// large catalog; the time should follow what is removed, not what is kept. Strata against the raw limit
// (the same number of LevelDB deletes); the peer's expire is not modelled (its SQL deletes ride on indexes
// the benchmark would have to invent).
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { runScript } from '../child.js';
import { fmt } from '../harness.js';
import { Catalog } from '../../src/index.js';

export interface ExciseSizes {
  /** Excisable versions: data files added, then removed, below retain-from. */
  versions: number;
  /** Catalog sizes (keys), small and large. */
  catalogs: number[];
}

const EXCISE_RUNS = 3;

async function newest(c: Catalog): Promise<number> {
  const r = await c.reader();
  await r.close();
  return r.snapshot.id;
}

async function build(dir: string, versions: number, keys: number): Promise<number> {
  const c = await Catalog.open({ dir, durability: 'relaxed', checkpointEvery: 0 });
  await c.transaction(async (tx) => {
    await tx.createTable('main', 'churn', [{ name: 'x', type: 'int64' }]);
    await tx.createTable('main', 'kept', [{ name: 'x', type: 'int64' }]);
  });
  const add = (table: string, from: number, n: number) =>
    c.transaction(async (tx) => {
      for (let i = from; i < from + n; i++) await tx.addDataFile('main', table, { path: `${table}/${i}.parquet`, recordCount: 1000, fileSizeBytes: 1 << 20 });
    });
  // Live files fill the catalog to its size first (about three keys each: row, file→table, path index),
  // and their commits' snapshot records are excised untimed, so both catalogs hold the same excisable set.
  const live = Math.max(0, Math.ceil((keys - versions * 4) / 3));
  for (let i = 0; i < live; i += 1000) await add('kept', i, Math.min(1000, live - i));
  await c.advanceRetainFrom({ snapshot: await newest(c) });
  await c.excise();
  for (let i = 0; i < versions; i += 1000) await add('churn', i, Math.min(1000, versions - i));
  for (let start = 0; start < versions; start += 1000) {
    const r = await c.reader();
    const ids = (await r.dataFiles('main', 'churn')).slice(0, 1000).map((f) => f.id);
    await r.close();
    await c.transaction(async (tx) => {
      for (const id of ids) await tx.removeDataFile('main', 'churn', id);
    });
  }
  await c.advanceRetainFrom({ snapshot: await newest(c) });
  const checkpoint = await c.checkpoint(); // counts the keys
  await c.close();
  // Settle the index as a catalog that has run for a while is settled: LevelDB compacts what the build
  // wrote in the background, and that debt (larger in the larger catalog) is not excision's cost.
  const db = new ClassicLevel<Uint8Array, Uint8Array>(path.join(dir, 'index'), { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  await db.compactRange(Uint8Array.of(0), Uint8Array.of(0xff));
  await db.close();
  return checkpoint.keys;
}

type ExciseResult = { report: { versions: number; snapshots: number }; ms: number; peakRss: number; rawMs: number };

const excise = async (dir: string): Promise<ExciseResult> =>
  JSON.parse(await runScript(new URL('./excise-child.js', import.meta.url), [dir])) as ExciseResult;

export async function exciseBench(z: ExciseSizes, out: (s?: string) => void): Promise<void> {
  out('\n### excision against catalog size\n');
  out(
    `${z.versions.toLocaleString('en-US')} data files added then removed (each one excisable version: its row, end-index, file→table and path-index entries), ` +
      'retain-from at the newest snapshot, in catalogs of different sizes; excise() in batches of 1,000 (one durable log entry each), in its own process, ' +
      `median of ${EXCISE_RUNS} runs on copies of one built catalog whose index LevelDB has compacted what the build wrote. ` +
      'Raw = the same number of keys deleted through classic-level in synced batches.\n',
  );
  out('| catalog keys | versions removed | snapshots removed | excise s | versions/s | raw deletes s | strata / raw | peak RSS MiB |');
  out('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const times: number[] = [];
  for (const keys of z.catalogs) {
    const dir = await mkdtemp(path.join(tmpdir(), 'strata-bench-excise-'));
    try {
      const actual = await build(dir, z.versions, keys);
      // One excision is ~1 s and this VM's background work moves it by half: the median of three, each on
      // a copy of the same built catalog.
      const runs: ExciseResult[] = [];
      for (let i = 0; i < EXCISE_RUNS; i++) {
        const copy = `${dir}-${i}`;
        await cp(dir, copy, { recursive: true });
        try {
          runs.push(await excise(copy));
        } finally {
          await rm(copy, { recursive: true, force: true });
        }
      }
      const r = runs.sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)]!;
      times.push(r.ms);
      out(
        `| ${actual.toLocaleString('en-US')} | ${r.report.versions.toLocaleString('en-US')} | ${r.report.snapshots} | ${(r.ms / 1000).toFixed(2)} | ` +
          `${fmt(r.report.versions / (r.ms / 1000))} | ${(r.rawMs / 1000).toFixed(2)} | ${(r.rawMs / r.ms).toFixed(2)}x | ${fmt(r.peakRss / 2 ** 20)} |`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  out(`\nLarge / small catalog excision time: ${(times.at(-1)! / times[0]!).toFixed(2)}x (target: within 1.5x).`);
}
