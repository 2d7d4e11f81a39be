// One fresh process's first calls on a catalog (process-bench.ts): open, the first commit, the first into a
// second table, warm commits; the first sql() and warm ones. Prints them as JSON (ms).
import { Catalog } from '../../src/index.js';
import type { FirstCalls } from './process-bench.js';

const [dir, run] = process.argv.slice(2);
const time = async (f: () => Promise<unknown>) => {
  const t = performance.now();
  await f();
  return performance.now() - t;
};
let k = 0;
const commit = (table: number) => () =>
  c.transaction((tx) => tx.addDataFile('main', `t${table}`, { path: `first/${run}-${k++}.parquet`, recordCount: 10, fileSizeBytes: 100 }));
const opened = performance.now();
const c = await Catalog.open({ dir: dir!, durability: 'durable', checkpointEvery: 0 });
const open = performance.now() - opened;
const firstCommit = await time(commit(5));
const secondTable = await time(commit(6));
const warm: number[] = [];
for (let i = 0; i < 21; i++) warm.push(await time(commit(5 + (i % 2))));
const firstSql = await time(() => c.sql('SELECT count(*) FROM main.q'));
const warmSql: number[] = [];
for (let i = 0; i < 11; i++) warmSql.push(await time(() => c.sql('SELECT count(*) FROM main.q')));
await c.close();
const mid = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;
console.log(JSON.stringify({ open, firstCommit, secondTable, warmCommit: mid(warm), firstSql, warmSql: mid(warmSql) } satisfies FirstCalls));
