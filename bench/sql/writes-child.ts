// One SQL write in its own process, on a copy of a catalog an earlier process built, so that its peak RSS is
// this operation's (and the open's) alone. Usage: writes-child.ts <update|update-range|merge|compact|…-floor|…-plain> <dir> <rows of main.big>
// Prints one JSON line: ms, RSS after open, peak RSS (bytes). The floors are DuckDB alone doing the same
// physical work on the same files: reading them and writing the new rows and the positions (UPDATE; MERGE
// also its new rows), or reading them and writing one file (compaction). The plain sides are DuckDB running the same statement on a
// plain table of the same rows, loaded before the clock starts (issue 47's measure).
import { DuckDBInstance } from '@duckdb/node-api';
import { Catalog } from '../../src/index.js';
import { mergedRows, OPEN } from './build.js';
import { peakRss } from '../child.js';

const [op, dir, rows] = process.argv.slice(2) as ['update' | 'update-range' | 'merge' | 'compact' | 'update-floor' | 'update-range-floor' | 'merge-floor' | 'compact-floor' | 'update-plain' | 'merge-plain', string, string];
/** A thousandth of the rows, in the middle of one file of the ten: what file skipping is for. */
const middle = Number(rows) / 2;
const RANGE = `id BETWEEN ${middle} AND ${middle + Number(rows) / 1000 - 1}`;
/** The rows a MERGE brings: every hundredth id of the table with a new v, and a hundredth as many again (at least one) that are new. */
const MERGED = mergedRows(Number(rows));
const SOURCE = `SELECT i * 100 AS id, (i % 7)::DOUBLE AS v FROM range(${MERGED}) t(i)`;
const MERGE = `MERGE INTO big USING (${SOURCE}) s USING (id) WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)`;
const catalog = await Catalog.open({ dir, ...OPEN });
const table = op === 'compact' || op === 'compact-floor' ? 'small' : 'big';
const r = await catalog.reader();
const listed = await r.dataFiles('main', table);
const files = listed.map((f) => `'${catalog.dataFileLocation(f.path)}'`).join(', ');
await r.close();
const db = op.endsWith('floor') || op.endsWith('plain') ? await DuckDBInstance.create(':memory:') : undefined;
const plain = op.endsWith('plain') ? await db!.connect() : undefined;
await plain?.run(`CREATE TABLE big AS SELECT * FROM read_parquet([${files}])`);
// Both sides start warm: the floor's DuckDB instance exists before the clock starts, so the catalog's does too,
// with its mirror of the head built (a DELETE whose WHERE every file's statistics rule out: nothing read).
if (db === undefined) await catalog.sql(`DELETE FROM ${table} WHERE id < -1`);
const rssAfterOpen = process.memoryUsage().rss;
const t = performance.now();
if (op === 'update' || op === 'update-range') {
  const { rows: result } = await catalog.sql(`UPDATE big SET v = v + 1 WHERE ${op === 'update' ? 'id % 100 = 0' : RANGE}`);
  if (Number(result[0]!.Count) !== Number(rows) / (op === 'update' ? 100 : 1000)) throw new Error(`updated ${String(result[0]!.Count)} rows`);
} else if (op === 'merge') {
  const { rows: result } = await catalog.sql(MERGE);
  if (Number(result[0]!.Count) !== MERGED) throw new Error(`merged ${String(result[0]!.Count)} rows`);
} else if (plain !== undefined) {
  const result = (await plain.runAndReadAll(op === 'merge-plain' ? MERGE : 'UPDATE big SET v = v + 1 WHERE id % 100 = 0')).getRows();
  if (Number(result[0]![0]) !== (op === 'merge-plain' ? MERGED : Number(rows) / 100)) throw new Error(`${op}: ${String(result[0]![0])} rows`);
  plain.closeSync();
} else if (op === 'compact') {
  const { removed } = await catalog.compact('main', 'small');
  if (removed.dataFiles !== listed.length) throw new Error(`compacted ${removed.dataFiles} files of ${listed.length}`);
} else {
  const c = await db!.connect();
  if (op === 'update-floor' || op === 'update-range-floor') {
    const where = op === 'update-floor' ? 'id % 100 = 0' : RANGE;
    await c.run(`COPY (SELECT id, k, v + 1 AS v, s FROM read_parquet([${files}]) WHERE ${where}) TO '${dir}/floor-rows.parquet' (FORMAT parquet)`);
    await c.run(`COPY (SELECT filename AS file_path, file_row_number AS pos FROM read_parquet([${files}], filename = true, file_row_number = true) WHERE ${where}) TO '${dir}/floor-deletes.parquet' (FORMAT parquet)`);
  } else if (op === 'merge-floor') {
    // The matched rows read once with their file and position, then the updated rows, the positions and the new rows written.
    await c.run(`CREATE TEMP TABLE hit AS SELECT b.*, filename AS f, file_row_number AS pos FROM read_parquet([${files}], filename = true, file_row_number = true) b SEMI JOIN (${SOURCE}) s USING (id)`);
    await c.run(`COPY (SELECT h.id, h.k, s.v, h.s FROM hit h JOIN (${SOURCE}) s USING (id)) TO '${dir}/floor-rows.parquet' (FORMAT parquet)`);
    await c.run(`COPY (SELECT f AS file_path, pos FROM hit) TO '${dir}/floor-deletes.parquet' (FORMAT parquet)`);
    await c.run(`COPY (SELECT s.id, NULL::INTEGER AS k, s.v, NULL::VARCHAR AS s FROM (${SOURCE}) s ANTI JOIN hit USING (id)) TO '${dir}/floor-new.parquet' (FORMAT parquet)`);
  } else {
    await c.run(`COPY (SELECT * FROM read_parquet([${files}])) TO '${dir}/floor-compacted.parquet' (FORMAT parquet)`);
  }
  c.closeSync();
}
const ms = performance.now() - t;
db?.closeSync();
await catalog.close();
process.stdout.write(`${JSON.stringify({ ms, rssAfterOpen, peakRss: peakRss() })}\n`);
