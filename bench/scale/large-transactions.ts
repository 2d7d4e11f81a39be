// Transactions far larger than the suite's commits: one commit of many data files into one table, the drop
// of that table, and a cascade drop of a schema of many tables. What matters here besides time is memory
// (a transaction holds its whole change set until it commits), so each timed operation runs in a fresh
// process on a catalog built before it, and reports that process's peak RSS.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { runScript } from '../child.js';
import { COLUMNS, type Side } from '../drivers/driver.js';
import { openPeer, type PeerDriver } from '../drivers/peer-sqlite.js';
import { fmt } from '../harness.js';
import { Catalog } from '../../src/index.js';

export interface LargeSizes {
  /** Data files in the one commit (and in the table dropped after it). */
  files: number;
  /** Tables in the schema dropped with cascade. */
  tables: number;
  runs: number;
}

type Op = 'commit' | 'drop' | 'cascade';
interface Result {
  ms: number;
  rssAfterOpen: number;
  peakRss: number;
  writes?: number;
}

const SIDES: Side[] = ['strata', 'peer', 'raw'];
const MiB = (bytes: number) => fmt(bytes / 2 ** 20);

const child = async (side: Side, op: Op, dir: string, arg?: string): Promise<Result> =>
  JSON.parse(await runScript(new URL('./large-child.js', import.meta.url), [side, op, dir, ...(arg === undefined ? [] : [arg])])) as Result;

async function build(strataDir: string, peerDir: string, make: (c: Catalog) => Promise<unknown>, makePeer: (p: PeerDriver) => Promise<unknown>) {
  const c = await Catalog.open({ dir: strataDir, durability: 'durable', checkpointEvery: 0 });
  await make(c);
  await c.close();
  const p = await openPeer({ dir: peerDir, durable: true });
  await makePeer(p);
  await p.close();
}

/** One operation on each side; raw replays Strata's entry into a copy of Strata's index as it was before. */
async function runOp(op: Op, strataDir: string, peerDir: string, arg?: string): Promise<Map<Side, Result>> {
  const rawDir = `${strataDir}-raw`;
  await cp(path.join(strataDir, 'index'), rawDir, { recursive: true });
  try {
    const strata = await child('strata', op, strataDir, arg);
    const raw = await child('raw', op, rawDir, path.join(strataDir, 'store'));
    return new Map([
      ['strata', strata],
      ['peer', await child('peer', op, peerDir, arg)],
      ['raw', raw],
    ]);
  } finally {
    await rm(rawDir, { recursive: true, force: true });
  }
}

export async function largeTransactionsBench(z: LargeSizes, out: (s?: string) => void): Promise<void> {
  const n = (x: number) => x.toLocaleString('en-US');
  const labels: Record<Op, string> = {
    commit: `commit ${n(z.files)} files`,
    drop: `drop the table of ${n(z.files)} files`,
    cascade: `drop schema cascade, ${n(z.tables)} tables`,
  };
  const results = new Map<Op, Map<Side, Result[]>>();
  const keep = (op: Op, r: Map<Side, Result>) => {
    if (!results.has(op)) results.set(op, new Map());
    for (const [side, x] of r) results.get(op)!.set(side, [...(results.get(op)!.get(side) ?? []), x]);
  };
  const tmp = (side: string) => mkdtemp(path.join(tmpdir(), `strata-bench-large-${side}-`));
  for (let run = 0; run < z.runs; run++) {
    const [s, p] = [await tmp('strata'), await tmp('peer')];
    try {
      await build(s, p, (c) => c.transaction((tx) => tx.createTable('main', 'big', COLUMNS)), (d) => d.createTables(['big']));
      keep('commit', await runOp('commit', s, p, String(z.files)));
      keep('drop', await runOp('drop', s, p));
    } finally {
      await Promise.all([s, p].map((d) => rm(d, { recursive: true, force: true })));
    }
    const [s2, p2] = [await tmp('strata'), await tmp('peer')];
    try {
      const names = Array.from({ length: z.tables }, (_, i) => `t${i}`);
      await build(
        s2,
        p2,
        (c) =>
          c.transaction(async (tx) => {
            await tx.createSchema('many');
            for (const t of names) await tx.createTable('many', t, [{ name: 'x', type: 'int32' }]);
          }),
        (d) => d.createSchema('many', names),
      );
      keep('cascade', await runOp('cascade', s2, p2));
    } finally {
      await Promise.all([s2, p2].map((d) => rm(d, { recursive: true, force: true })));
    }
  }

  out('\n### large transactions: one commit of many files, its table\'s drop, a cascade drop of many tables (durable)\n');
  out(
    `One transaction each: ${n(z.files)} data files added to one table; that table dropped; a schema of ${n(z.tables)} one-column ` +
      'tables (made in one earlier transaction) dropped with cascade. Each operation runs in a fresh process that opens the built ' +
      'catalog and does only that; peak RSS is that process\'s, RSS after open is taken just before the operation. Strata with ' +
      'checkpointEvery: 0; the peer does what DuckLake does in one SQLite transaction; raw = the mutations of Strata\'s log entry as one ' +
      `classic-level batch into a copy of its index: the writes alone. Median of ${z.runs} run(s) by time; strata / side above 1x: ` +
      'Strata faster. Durability: strata: segmented log, pwrite + fdatasync; peer: synchronous=FULL; raw: sync: true.\n',
  );
  out('| case | side | time s | peak RSS MiB | RSS after open MiB | strata / side |');
  out('| --- | --- | ---: | ---: | ---: | ---: |');
  const writes: string[] = [];
  for (const [op, bySide] of results) {
    const median = (side: Side) => [...bySide.get(side)!].sort((a, b) => a.ms - b.ms)[Math.floor(bySide.get(side)!.length / 2)]!;
    const strata = median('strata');
    for (const side of SIDES) {
      const m = median(side);
      const ratio = side === 'strata' ? '' : `${(m.ms / strata.ms).toFixed(2)}x`;
      out(`| ${labels[op]} | ${side} | ${(m.ms / 1000).toFixed(2)} | ${MiB(m.peakRss)} | ${MiB(m.rssAfterOpen)} | ${ratio} |`);
    }
    writes.push(`${labels[op]} ${n(median('raw').writes!)}`);
  }
  out(`\nKey writes in Strata's log entry (the raw batch): ${writes.join('; ')}.`);
}
