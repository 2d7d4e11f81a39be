// One operation of the growth table in its own process, on a catalog growth-bench.ts built, so its peak RSS
// is this operation's (with the open it needs) and nothing else's.
// Usage: growth-child.ts <dir> <open|rebuild|resolve|list|snapshots|checkpoint|excise|verify> <tables> <calls>
// Prints one JSON line: ms (the median per call where the operation is many calls), peak RSS in bytes, and
// what the operation reported (`detail`).
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
const medianOf = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The median of CALLS calls, each on a table drawn at random (a reader per call: a query's shape). */
async function perCall(c: Catalog, call: (c: Catalog, table: string) => Promise<unknown>): Promise<number> {
  const pick = rng(7);
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const table = `t${pick(tables)}`;
    const t = process.hrtime.bigint();
    await call(c, table);
    times.push(elapsed(t));
  }
  return medianOf(times);
}

let ms: number;
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
      ms = await perCall(c, async (c, table) => {
        const r = await c.reader();
        await r.table('main', table);
        await r.close();
      });
      break;
    case 'list':
      // First touch: each table listed once, by a reader of its own.
      ms = await perCall(c, async (c, table) => {
        const r = await c.reader();
        detail = (await r.dataFiles('main', table)).length;
        await r.close();
      });
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
    case 'checkpoint':
      detail = (await c.checkpoint()).keys;
      ms = elapsed(t);
      break;
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
process.stdout.write(`${JSON.stringify({ ms: ms!, peakRss: peakRss(), detail })}\n`);
