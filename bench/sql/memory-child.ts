// The peak memory of compaction and of a large UPDATE on a table of millions of rows (docs/DESIGN.md §7: memory bounded
// by the batch; issue 42: under 512 MiB for 4M rows). One operation per process, so that its peak RSS is that
// operation's (and the open's) alone:
//   memory-child.ts build <dir> <rows> <files>      main.orders of <rows> rows in <files> INSERTs, 1% deleted
//   memory-child.ts compact|update <dir> [memoryLimit bytes]
// `update` changes a quarter of the rows. Prints one JSON line: the operation, ms, its result, peak RSS (bytes).
import { Catalog } from '../../src/index.js';
import { OPEN } from './build.js';
import { peakRss } from '../child.js';

const [op, dir, a, b] = process.argv.slice(2) as ['build' | 'compact' | 'update', string, string?, string?];
const sql = op === 'build' || a === undefined ? {} : { sql: { memoryLimit: Number(a) } };
const catalog = await Catalog.open({ dir, ...OPEN, ...sql });
const t = performance.now();
let result: unknown;
if (op === 'build') {
  const [rows, files] = [Number(a), Number(b)];
  await catalog.sql('CREATE TABLE orders (id BIGINT, customer VARCHAR, amount DECIMAL(12, 2), status VARCHAR, created TIMESTAMP)');
  const per = Math.ceil(rows / files);
  for (let f = 0; f < files; f++) {
    await catalog.sql(
      `INSERT INTO orders SELECT i, 'customer ' || (i * 7919 % 100000), ((i * 31) % 100000) / 100, ['new', 'paid', 'shipped', 'returned'][i % 4 + 1], ` +
        `TIMESTAMP '2026-01-01' + INTERVAL (i) SECOND FROM range(${f * per}, ${Math.min(rows, (f + 1) * per)}) t(i)`,
    );
  }
  result = await catalog.sql('DELETE FROM orders WHERE id % 100 = 7');
} else if (op === 'compact') {
  const r = await catalog.compact('main', 'orders');
  result = { removed: r.removed, added: r.added.length, rows: r.rows };
} else {
  result = (await catalog.sql(`UPDATE orders SET status = 'audited', amount = amount + 1 WHERE id % 4 = 0`)).rows;
}
const ms = performance.now() - t;
await catalog.close();
process.stdout.write(`${JSON.stringify({ op, ms: Math.round(ms), result, peakRss: peakRss() }, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))}\n`);
