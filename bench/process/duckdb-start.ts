// DuckDB's own start, in a fresh process (process-bench.ts): its Node API loaded as the library loads it,
// an in-memory instance, a connection, and the count the first-call figures ask Strata for, over the same
// Parquet files read directly. What a first sql() costs beyond this is Strata's (docs/DESIGN.md §7: under
// 50 ms). Prints milliseconds and the count, as JSON.
import { createRequire } from 'node:module';

const files = JSON.parse(process.argv[2]!) as string[];
const started = performance.now();
const { DuckDBInstance } = createRequire(import.meta.url)('@duckdb/node-api') as typeof import('@duckdb/node-api');
const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();
const list = files.map((f) => `'${f.replaceAll("'", "''")}'`).join(', ');
const rows = (await connection.runAndReadAll(`SELECT count(*) AS n FROM read_parquet([${list}])`)).getRowObjects();
const ms = performance.now() - started;
connection.closeSync();
instance.closeSync();
console.log(JSON.stringify({ ms, rows: Number(rows[0]!.n) }));
