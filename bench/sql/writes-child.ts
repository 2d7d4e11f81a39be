// One SQL write in its own process, on a copy of a catalog an earlier process built, so that its peak RSS is
// this operation's (and the open's) alone. Usage: writes-child.ts <update|compact|update-floor|compact-floor> <dir>
// Prints one JSON line: ms, RSS after open, peak RSS (bytes). The floors are DuckDB alone doing the same
// physical work on the same files: reading them and writing the new rows and the positions (UPDATE), or
// reading them and writing one file (compaction).
import { DuckDBInstance } from '@duckdb/node-api';
import { Catalog } from '../../src/index.js';
import { OPEN } from './build.js';

const [op, dir] = process.argv.slice(2) as ['update' | 'compact' | 'update-floor' | 'compact-floor', string];
const catalog = await Catalog.open({ dir, ...OPEN });
const table = op.startsWith('update') ? 'big' : 'small';
const r = await catalog.reader();
const files = (await r.dataFiles('main', table)).map((f) => `'${catalog.dataFileLocation(f.path)}'`).join(', ');
await r.close();
const db = op.endsWith('floor') ? await DuckDBInstance.create(':memory:') : undefined;
const rssAfterOpen = process.memoryUsage().rss;
const t = performance.now();
if (op === 'update') {
  const { rows } = await catalog.sql('UPDATE big SET v = v + 1 WHERE id % 100 = 0');
  if (Number(rows[0]!.Count) !== 10_000) throw new Error(`updated ${String(rows[0]!.Count)} rows`);
} else if (op === 'compact') {
  const { removed } = await catalog.compact('main', 'small');
  if (removed.dataFiles !== 1000) throw new Error(`compacted ${removed.dataFiles} files`);
} else {
  const c = await db!.connect();
  if (op === 'update-floor') {
    await c.run(`COPY (SELECT id, k, v + 1 AS v, s FROM read_parquet([${files}]) WHERE id % 100 = 0) TO '${dir}/floor-rows.parquet' (FORMAT parquet)`);
    await c.run(`COPY (SELECT filename AS file_path, file_row_number AS pos FROM read_parquet([${files}], filename = true, file_row_number = true) WHERE id % 100 = 0) TO '${dir}/floor-deletes.parquet' (FORMAT parquet)`);
  } else {
    await c.run(`COPY (SELECT * FROM read_parquet([${files}])) TO '${dir}/floor-compacted.parquet' (FORMAT parquet)`);
  }
  c.closeSync();
}
const ms = performance.now() - t;
db?.closeSync();
await catalog.close();
process.stdout.write(`${JSON.stringify({ ms, rssAfterOpen, peakRss: process.resourceUsage().maxRSS * 1024 })}\n`);
