// One fresh process's first calls on a catalog (process-bench.ts): open, the first commit, the first into a
// second table, warm commits; the first sql() and warm ones. Prints them as JSON (ms).
import * as path from 'node:path';
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
let counted = 0;
const firstSql = await time(async () => (counted = Number((await c.sql('SELECT count(*) AS n FROM main.q')).rows[0]!.n)));
const warmSql: number[] = [];
for (let i = 0; i < 11; i++) warmSql.push(await time(() => c.sql('SELECT count(*) FROM main.q')));
// The table's files as DuckDB is given them: its own start is timed over the same ones (duckdb-start.ts).
const r = await c.reader();
const files = (await r.dataFiles('main', 'q')).map((f) => path.join(c.storage().dataLocation, f.path));
await r.close();
await c.close();
const mid = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;
console.log(JSON.stringify({ open, firstCommit, secondTable, warmCommit: mid(warm), firstSql, warmSql: mid(warmSql), counted, files } satisfies FirstCalls));
