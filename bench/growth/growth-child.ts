// One operation of the growth table in its own process, on a catalog growth-bench.ts built, so its peak RSS
// is this operation's (with the open it needs) and nothing else's.
// Usage: growth-child.ts <dir> <open|rebuild|resolve|list|snapshots|checkpoint|excise|verify> <tables> <calls>
// Prints one JSON line: ms (the median per call where the operation is many calls, and `first` the first
// call's), peak RSS in bytes, and what the operation reported (`detail`). The catalog is opened durable, the
// default (checkpoint and excise sync what they write).
import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import { Catalog } from '../../src/index.js';
import { rng } from '../harness.js';
import { peakRss } from '../child.js';

type Op = 'open' | 'rebuild' | 'resolve' | 'list' | 'snapshots' | 'checkpoint' | 'excise' | 'verify';
const [dir, op, tablesArg, callsArg] = process.argv.slice(2) as [string, Op, string, string];
const tables = Number(tablesArg);
/** Calls of the operations timed per call (resolve, list, snapshots): a median of them. */
const CALLS = Number(callsArg);

const elapsed = (t: bigint) => Number(process.hrtime.bigint() - t) / 1e6;
const medianOf = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * CALLS calls, each on another table drawn at random (a reader per call: a query's shape) while there are
 * tables not yet drawn: the median, and the first call's time.
 */
async function perCall(c: Catalog, call: (c: Catalog, table: string) => Promise<unknown>): Promise<{ median: number; first: number }> {
  const pick = rng(7);
  const drawn = new Set<number>();
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    let t = pick(tables);
    while (drawn.size < tables && drawn.has(t)) t = pick(tables);
    drawn.add(t);
    const start = process.hrtime.bigint();
    await call(c, `t${t}`);
    times.push(elapsed(start));
  }
  return { median: medianOf(times), first: times[0]! };
}

let ms: number;
let first: number | undefined;
let detail: unknown;
if (op === 'open' || op === 'rebuild') {
  // rebuild: a machine that has the store and no index (bootstrap from the newest checkpoint, then the log).
  if (op === 'rebuild') await rm(path.join(dir, 'index'), { recursive: true, force: true });
  const t = process.hrtime.bigint();
  const c = await Catalog.open({ dir, checkpointEvery: 0 });
  ms = elapsed(t);
  await c.close();
} else {
  const c = await Catalog.open({ dir, checkpointEvery: 0 });
  const t = process.hrtime.bigint();
  switch (op) {
    case 'resolve':
      ({ median: ms, first } = await perCall(c, async (c, table) => {
        const r = await c.reader();
        await r.table('main', table);
        await r.close();
      }));
      break;
    case 'list':
      // Each table's first listing, by a reader of its own (the first also reads ahead for the tables after it).
      ({ median: ms, first } = await perCall(c, async (c, table) => {
        const r = await c.reader();
        detail = (await r.dataFiles('main', table)).length;
        await r.close();
      }));
      break;
    case 'snapshots': {
      const times: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        const s = process.hrtime.bigint();
        await c.snapshots({ limit: 100 });
        times.push(elapsed(s));
      }
      ms = medianOf(times);
      break;
    }
    case 'checkpoint': {
      const { keys, after } = await c.checkpoint();
      detail = { keys, after };
      ms = elapsed(t);
      break;
    }
    case 'excise':
      detail = (await c.excise()).versions;
      ms = elapsed(t);
      break;
    case 'verify': {
      const report = await c.verify();
      if (!report.ok) throw new Error(`verify found ${report.violations.length} violations: ${JSON.stringify(report.violations.slice(0, 3))}`);
      detail = report.checked.censusScans;
      ms = elapsed(t);
      break;
    }
  }
  await c.close();
}
process.stdout.write(`${JSON.stringify({ ms: ms!, first, peakRss: peakRss(), detail })}\n`);
