// Excision killed mid-way and run again ends exactly where an uninterrupted run ends: byte for byte.
import { cp } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import * as path from 'node:path';
import type { Catalog } from '../../src/index.js';
import { openCatalog, readAll, runTsx, steppingClock, tempDir } from '../helpers.js';
import { rawDump } from './gc-helpers.js';
import { APPLIED_TXN_KEY } from '../../keys/system.js';

/** The `txn` of the index's last entry: each run wrote its own entries, under ids of its own. */
const APPLIED_TXN = APPLIED_TXN_KEY;
const isAppliedTxn = (key: Uint8Array) => Buffer.compare(key, APPLIED_TXN) === 0;

const child = new URL('../fixtures/excise-child.ts', import.meta.url);
const CLOCK = Date.UTC(2027, 5, 1);

async function runChild(dir: string, killAfter: number): Promise<NodeJS.Signals | null> {
  return (await runTsx(child, [dir, String(CLOCK), String(killAfter)])).signal;
}

async function history(dir: string) {
  const c = await openCatalog({ dir, clock: steppingClock() });
  await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'i', type: 'int32' }]));
  let name = 't';
  for (let i = 0; i < 30; i++) {
    await c.transaction((tx) => tx.addDataFile('main', name, { path: `f${i}`, recordCount: 10, fileSizeBytes: 1 }));
    if (i % 3 === 2) {
      const to = name === 't' ? 'u' : 't';
      await c.transaction((tx) => tx.renameTable('main', name, to));
      name = to;
    }
  }
  const r = await c.reader();
  const files = await r.dataFiles('main', name);
  await r.close();
  await c.transaction(async (tx) => {
    for (const f of files.slice(0, 20)) await tx.removeDataFile('main', name, f.id);
  });
  await c.createTag('kept', 12);
  const head = (await c.snapshots()).at(-1)!.id;
  await c.advanceRetainFrom({ snapshot: head - 2 });
  const expected = [await readAll(c, 12), await readAll(c, head - 2), await readAll(c, head)];
  await c.close();
  return { head, expected };
}

describe('excision killed mid-way', () => {
  it('a rerun finishes the job: the index equals an uninterrupted run byte for byte, and the record counts once', { timeout: 60_000 }, async () => {
    const uninterrupted = await tempDir();
    const { head, expected } = await history(uninterrupted);
    const killed = await tempDir();
    await cp(uninterrupted, killed, { recursive: true });

    const whole = await openCatalog({ dir: uninterrupted, clock: () => CLOCK, writerName: 'excise-job' });
    const report = await whole.excise({ batchSize: 5 });
    expect(report.versions + report.snapshots).toBeGreaterThan(15); // several batches
    await whole.close();

    expect(await runChild(killed, 3)).toBe('SIGKILL');
    const rerun = await openCatalog({ dir: killed, clock: () => CLOCK, writerName: 'excise-job' });
    const jobs = await rerun.excisionJobs();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.finishedAt).toBeNull(); // the killed job, part-way
    const resumed = await rerun.excise({ batchSize: 5 });
    expect(resumed).toEqual(report);
    expect([await readAll(rerun, 12), await readAll(rerun, head - 2), await readAll(rerun, head)]).toEqual(expected);
    await rerun.close();

    expect(await rawDump(killed, isAppliedTxn)).toEqual(await rawDump(uninterrupted, isAppliedTxn));
  });

  it('two processes excising at once share one job: each batch counted once, the same end state', { timeout: 60_000 }, async () => {
    const alone = await tempDir();
    const { head } = await history(alone);
    const shared = await tempDir();
    await cp(alone, shared, { recursive: true });

    const single = await openCatalog({ dir: alone, clock: () => CLOCK });
    const report = await single.excise({ batchSize: 3 });
    const expected = await dumpRetained(single, head);
    await single.close();

    const a = await openCatalog({ dir: shared, clock: () => CLOCK, writerName: 'a' });
    const b = await openCatalog({ dir: await tempDir(), store: { path: path.join(shared, 'store') }, clock: () => CLOCK, writerName: 'b' });
    await Promise.all([a.excise({ batchSize: 3 }), b.excise({ batchSize: 3 })]);
    // A run that starts while another's job is open joins it; one that starts after it finished finds
    // nothing left. Either way every batch is counted exactly once across the job records.
    await a.refresh();
    const jobs = await a.excisionJobs();
    const sum = (k: 'versions' | 'snapshots' | 'files') => jobs.reduce((n, j) => n + j[k], 0);
    expect({ versions: sum('versions'), snapshots: sum('snapshots'), files: sum('files') }).toEqual({
      versions: report.versions,
      snapshots: report.snapshots,
      files: report.files,
    });
    expect(jobs.every((j) => j.finishedAt !== null)).toBe(true);
    expect(await dumpRetained(a, head)).toEqual(expected);
    expect(await dumpRetained(b, head)).toEqual(expected);
  });
});

async function dumpRetained(c: Catalog, head: number) {
  return [await readAll(c, 12), await readAll(c, head - 2), await readAll(c, head), (await c.snapshots()).map((s) => s.id)];
}
