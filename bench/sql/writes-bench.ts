// SQL writes at size: an UPDATE and a MERGE of 1% of a 1M-row table, and a compaction of 1,000 small files —
// time and peak RSS, each in a fresh process on a copy of a catalog built before, against DuckDB alone doing
// the same physical work on the same files (the floor), and DuckDB running the same statement on a plain table.
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Catalog } from '../../src/index.js';
import { runScript } from '../child.js';
import { fmt } from '../harness.js';
import { mergedRows, OPEN } from './build.js';

export interface WriteSizes {
  rows: number;
  /** Files of the 1M-row table. */
  files: number;
  /** Small files compacted. */
  small: number;
  runs: number;
}

type Op = 'update' | 'update-range' | 'merge' | 'compact' | 'update-floor' | 'update-range-floor' | 'merge-floor' | 'compact-floor' | 'update-plain' | 'merge-plain';
interface Result {
  ms: number;
  rssAfterOpen: number;
  peakRss: number;
}

/** main.big (id, k, v, s) of `rows` rows in `files` INSERTs; main.small of `small` files of 100 rows, one commit. */
async function build(dir: string, z: WriteSizes): Promise<void> {
  const c = await Catalog.open({ dir, ...OPEN });
  try {
    await c.sql('CREATE TABLE big (id BIGINT, k INTEGER, v DOUBLE, s VARCHAR)');
    const per = Math.ceil(z.rows / z.files);
    for (let f = 0; f < z.files; f++) {
      await c.sql(`INSERT INTO big SELECT i, (i * 7919 % 1000)::INTEGER, (i % 1000) / 8.0, 'row ' || i FROM range(${f * per}, ${Math.min(z.rows, (f + 1) * per)}) t(i)`);
    }
    // One real file of 100 rows through INSERT, its bytes then stored under `small` paths and registered in one
    // commit: a table of many small files, as a stream of tiny appends leaves one.
    await c.sql('CREATE TABLE small (id BIGINT, v DOUBLE)');
    await c.sql('INSERT INTO small SELECT i, i / 4.0 FROM range(100) t(i)');
    const r = await c.reader();
    const [first] = await r.dataFiles('main', 'small');
    const [stats] = [...(await r.columnStats('main', 'small', [first!])).values()];
    await r.close();
    const bytes = await readFile(c.dataFileLocation(first!.path));
    const { DirectoryStore } = await import('../../src/store/directory-store.js');
    const store = new DirectoryStore(path.join(dir, 'store'));
    await c.transaction(async (tx) => {
      for (let i = 1; i < z.small; i++) {
        const p = `main/small/copy-${i}.parquet`;
        await store.putIfAbsent(`${c.dataPath}${p}`, bytes);
        await tx.addDataFile('main', 'small', { path: p, recordCount: first!.recordCount, fileSizeBytes: bytes.length, footerSize: first!.footerSize, columnStats: stats! });
      }
    });
  } finally {
    await c.close();
  }
}

export async function writesBench(z: WriteSizes, out: (s?: string) => void): Promise<void> {
  const base = await mkdtemp(path.join(tmpdir(), 'strata-bench-writes-'));
  const results = new Map<Op, Result[]>();
  try {
    await build(path.join(base, 'built'), z);
    for (let run = 0; run < z.runs; run++) {
      for (const op of ['update', 'update-floor', 'update-plain', 'update-range', 'update-range-floor', 'merge', 'merge-floor', 'merge-plain', 'compact', 'compact-floor'] as Op[]) {
        const dir = path.join(base, `run-${run}-${op}`);
        await cp(path.join(base, 'built'), dir, { recursive: true });
        const r = JSON.parse(await runScript(new URL('./writes-child.js', import.meta.url), [op, dir, String(z.rows)])) as Result;
        results.set(op, [...(results.get(op) ?? []), r]);
        await rm(dir, { recursive: true, force: true });
      }
    }
  } finally {
    await rm(base, { recursive: true, force: true });
  }
  const n = (x: number) => x.toLocaleString('en-US');
  const MiB = (b: number) => fmt(b / 2 ** 20);
  // The median run by time, with that run's memory.
  const mid = (op: Op) => [...results.get(op)!].sort((a, b) => a.ms - b.ms)[Math.floor(results.get(op)!.length / 2)]!;
  out('\n### sql writes: UPDATE and MERGE of 1% of a table, compaction of many small files\n');
  out(
    `UPDATE main.big SET v = v + 1 WHERE id % 100 = 0 on ${n(z.rows)} rows in ${z.files} files (a delete file per data file, ` +
      `one file of the new rows with their ids, one commit), and WHERE id BETWEEN ${n(z.rows / 2)} AND ${n(z.rows / 2 + z.rows / 1000 - 1)} ` +
      `(one file, by file skipping); MERGE INTO big of ${n(mergedRows(z.rows))} rows by id, every hundredth id's v set and ` +
      `${n(mergedRows(z.rows) - z.rows / 100)} ids new (UPDATE SET v, INSERT); catalog.compact of ${n(z.small)} files of 100 rows into one. Each in a fresh process on a fresh ` +
      "copy (directory store, relaxed), DuckDB ready before the clock starts; peak RSS is that process's. Floor: DuckDB alone doing " +
      'the physical work on the same files. Plain: DuckDB running the same statement on a plain table of the same rows, loaded before ' +
      `the clock starts. Median of ${z.runs} run(s).\n`,
  );
  out('| case | side | time ms | peak RSS MiB | RSS after open MiB | catalog / side |');
  out('| --- | --- | ---: | ---: | ---: | ---: |');
  for (const [label, op, others] of [
    [`UPDATE 1% of ${n(z.rows)} rows`, 'update', [['DuckDB floor', 'update-floor'], ['DuckDB plain table', 'update-plain']]],
    [`UPDATE ${n(z.rows / 1000)} rows of one file (id range)`, 'update-range', [['DuckDB floor', 'update-range-floor']]],
    [`MERGE 1% of ${n(z.rows)} rows`, 'merge', [['DuckDB floor', 'merge-floor'], ['DuckDB plain table', 'merge-plain']]],
    [`compact ${n(z.small)} small files`, 'compact', [['DuckDB floor', 'compact-floor']]],
  ] as const) {
    const a = mid(op);
    out(`| ${label} | catalog | ${fmt(a.ms)} | ${MiB(a.peakRss)} | ${MiB(a.rssAfterOpen)} |  |`);
    for (const [side, other] of others) {
      const b = mid(other);
      out(`| ${label} | ${side} | ${fmt(b.ms)} | ${MiB(b.peakRss)} | ${MiB(b.rssAfterOpen)} | ${(a.ms / b.ms).toFixed(2)}x |`);
    }
  }
}
