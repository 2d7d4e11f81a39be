// Systematic fault injection (issue 20), as SQLite tests I/O errors: the workload (two writers, a lease, a
// tag, a checkpoint, retain-from, excision, reclamation, log compaction, checkpoint pruning) runs once to
// learn its N store operations, then once per operation with a fault there — failing before it, failing
// after it (the answer lost), and killing the process right after it — on both log layouts. Every run must
// end with the catalog opening consistent from a fresh index and from each writer's own (verify --files
// clean), every acknowledged commit there once, snapshot ids gap-free and no file a retained snapshot reads
// deleted. FAULT_SWEEP=all sweeps every operation (npm run faults); by default an even sample of them runs.
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LogLayout } from '../../src/log/open-log.js';
import { runTsx } from '../helpers.js';
import { Injector, MODES, type Mode, type Plan } from './injector.js';
import { type Ack, checkEnd, runWorkload, storeDir, type WorkloadResult } from './workload.js';

/** Runs per mode without FAULT_SWEEP=all: the kills cost a process each. */
const SAMPLE = { 'fail-before': 20, 'fail-after': 20, 'kill-after': 12 };
const all = process.env.FAULT_SWEEP === 'all';
const child = new URL('./sweep-child.ts', import.meta.url);

async function inProcess(plan: Plan, layout: LogLayout) {
  const root = await mkdtemp(path.join(tmpdir(), 'strata-sweep-'));
  try {
    const injector = new Injector(plan);
    const result = await runWorkload(root, layout, injector.store(root), () => {});
    return { result, operations: injector.operations, struck: injector.struck, violations: await checkEnd(root, layout, result.acks) };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function killed(plan: Plan, layout: LogLayout) {
  const root = await mkdtemp(path.join(tmpdir(), 'strata-sweep-'));
  try {
    const { signal, stdout } = await runTsx(child, [root, layout, plan.mode, String(plan.at)]);
    const lines = stdout.split('\n');
    const acks: Ack[] = lines.filter((l) => l.startsWith('ack ')).map((l) => JSON.parse(l.slice(4)) as Ack);
    const result = lines.find((l) => l.startsWith('result '));
    return { signal, acks, result: result === undefined ? undefined : (JSON.parse(result.slice(7)) as WorkloadResult), violations: await checkEnd(root, layout, acks) };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * The operations with each run of one kind (log compaction's replaces, excision's deletes) sorted: a batch
 * runs concurrently and starts in any order, so a fault at index i strikes that position of the batch.
 */
function batchesSorted(operations: readonly string[]): string[] {
  const out: string[] = [];
  let run: string[] = [];
  const verb = (o: string) => o.split(' ')[0];
  // A writer's mark while it waits for its turn is named by the time and a random id (src/log/turns.ts).
  for (const o of [...operations.map((o) => o.replace(/ turns\/\d{20}-[0-9a-f]+$/, ' turns/<mark>')), '']) {
    if (run.length > 0 && verb(run[0]!) !== verb(o)) out.push(...run.sort()), (run = []);
    run.push(o);
  }
  return out;
}

/** Every index, or an even sample of them that always includes the first and the last. */
function indices(n: number, mode: Mode): number[] {
  const k = SAMPLE[mode];
  if (all || n <= k) return Array.from({ length: n }, (_, i) => i + 1);
  return Array.from({ length: k }, (_, j) => 1 + Math.round((j * (n - 1)) / (k - 1)));
}

describe('the end check', () => {
  it('finds a lost acknowledged commit, a commit applied twice and a deleted live file', { timeout: 60_000 }, async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'strata-sweep-'));
    try {
      const injector = new Injector({ mode: 'count', at: 0 });
      const { acks } = await runWorkload(root, 'objects', injector.store(root), () => {});
      const head = acks.at(-1)!;
      const lost = { snapshot: head.snapshot + 1, adds: ['never.bin'], removes: [] };
      const twice = { ...acks[1]! };
      // an acknowledgement of the wrong snapshot: its files are there, but began elsewhere
      const misplaced = { ...acks.at(-2)!, snapshot: head.snapshot };
      // a removal acknowledged and not done
      const undone = { snapshot: acks[5]!.snapshot, adds: [], removes: [acks[5]!.adds[0]!] };
      rmSync(path.join(storeDir(root), 'data', head.adds[0]!));
      const found = await checkEnd(root, 'objects', [...acks, lost, twice, misplaced, undone]);
      expect(found).toContainEqual(expect.stringMatching(/acknowledged snapshot \d+ is past the head/));
      expect(found).toContainEqual(expect.stringMatching(/acknowledged twice/));
      expect(found).toContainEqual(expect.stringMatching(/lost never.bin/));
      expect(found).toContainEqual(expect.stringMatching(new RegExp(`acknowledged adding ${misplaced.adds[0]}, and it began at ${acks.at(-2)!.snapshot}`)));
      expect(found).toContainEqual(expect.stringMatching(new RegExp(`lists ${undone.removes[0]}, removed by an acknowledged commit`)));
      expect(found).toContainEqual(expect.stringMatching(new RegExp(`verify: named-files-exist .*${head.adds[0]}`)));
      expect(found).toContainEqual(expect.stringMatching(new RegExp(`reads ${head.adds[0]}, which is gone`)));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe.each(['objects', 'segments'] as const)('fault sweep on the %s log', (layout) => {
  let n = 0;

  it('the workload is deterministic: two clean runs take the same operations, and end consistent', { timeout: 120_000 }, async () => {
    const first = await inProcess({ mode: 'count', at: 0 }, layout);
    const second = await inProcess({ mode: 'count', at: 0 }, layout);
    expect(batchesSorted(second.operations)).toEqual(batchesSorted(first.operations));
    expect(first.result.failures).toEqual([]);
    expect(first.result.strays).toEqual([]);
    expect(first.violations).toEqual([]);
    // the workload reached every job: commits of both writers, excision's and log compaction's writes
    expect(first.result.acks.length).toBe(13);
    expect(first.operations.some((o) => o.startsWith('delete '))).toBe(true);
    expect(first.operations.some((o) => o.startsWith(layout === 'objects' ? 'replace log/' : 'putIfAbsent compacted/'))).toBe(true);
    n = first.operations.length;
    console.log(`fault sweep, ${layout} log: ${n} operations`);
  });

  it.each(MODES)('a fault %s any one operation leaves the catalog consistent', { timeout: all ? 3_600_000 : 600_000 }, async (mode: Mode) => {
    expect(n).toBeGreaterThan(50);
    const ends: string[] = [];
    let faulted = 0;
    for (const at of indices(n, mode)) {
      const plan = { mode, at };
      const run = mode === 'kill-after' ? await killed(plan, layout) : { ...(await inProcess(plan, layout)), signal: null };
      if (mode === 'kill-after') expect(run.signal, `operation ${at}`).toBe('SIGKILL');
      else {
        expect(run.result && run.result.strays, `operation ${at}`).toEqual([]);
        expect('struck' in run && run.struck, `the fault at operation ${at} was injected`).toBe(true);
        // A store that failed once is unavailable, not damaged, and fences nobody.
        expect(run.result?.failures.filter((f) => f.error === 'CORRUPT' || f.error === 'FENCED'), `operation ${at}`).toEqual([]);
      }
      if (run.result && run.result.failures.length > 0) faulted++;
      for (const v of run.violations) ends.push(`operation ${at} (${mode}): ${v}`);
    }
    console.log(`fault sweep, ${layout} log, ${mode}: ${indices(n, mode).length} of ${n} operations, ${mode === 'kill-after' ? 'killed at each' : `${faulted} runs saw a step fail`}, ${ends.length} inconsistent ends`);
    expect(ends).toEqual([]);
  });
});
