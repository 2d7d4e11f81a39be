// A large result streams in DuckDB's batches, at one snapshot for the whole stream, and a caller that stops
// early lets the statement's connection and files go.
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/index.js';
import { openCatalog, tempDir } from '../helpers.js';

describe('sqlBatches', () => {
  it('streams 10,000 rows in batches at one snapshot, while commits go on; an early stop ends cleanly', async () => {
    const c = await openCatalog();
    await c.transaction((tx) => tx.createTable('main', 'n', [{ name: 'i', type: 'int64' }]));
    const file = path.join(await tempDir(), 'n.csv');
    await writeFile(file, `i\n${Array.from({ length: 10_000 }, (_, i) => i).join('\n')}\n`);
    const { snapshot } = await c.load('main', 'n', file);
    let rows = 0;
    let batches = 0;
    let sum = 0n;
    for await (const b of c.sqlBatches('SELECT i FROM n')) {
      if (batches === 0) await c.load('main', 'n', file); // a commit mid-stream does not change what it reads
      batches++;
      rows += b.rows.length;
      for (const r of b.rows) sum += r.i as bigint;
      expect(b.snapshot).toBe(snapshot);
      expect(b.columns).toEqual([{ name: 'i', type: 'BIGINT' }]);
    }
    expect([rows, sum]).toEqual([10_000, 49_995_000n]);
    expect(batches).toBeGreaterThan(1);
    for await (const b of c.sqlBatches('SELECT i FROM n')) {
      expect(b.rows.length).toBeGreaterThan(0);
      break;
    }
    const bad = c.sqlBatches('SELECT nope FROM n');
    const err = await bad.next().catch((e: unknown) => e);
    expect(isStrataError(err, 'INVALID_ARGUMENT')).toBe(true);
    expect((await c.sql('SELECT count(*) AS n FROM n')).rows).toEqual([{ n: 20_000n }]);
    // Progress is told while a statement or a load runs, ending at 100.
    const seen: number[] = [];
    await c.sql('SELECT sum(i) FROM n', { onProgress: (p) => seen.push(p) });
    const loading: number[] = [];
    await c.load('main', 'n', file, { onProgress: (p) => loading.push(p) });
    expect([seen.at(-1), loading.at(-1)]).toEqual([100, 100]);
    await expect(c.sql('SELECT 1', { onProgress: 'yes' } as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('a result without rows is one empty batch that still names its columns', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (i BIGINT, s VARCHAR)');
    const batches = [];
    for await (const b of c.sqlBatches('SELECT * FROM t WHERE i > 0')) batches.push(b);
    expect(batches.map((b) => [b.rows, b.columns])).toEqual([[[], [{ name: 'i', type: 'BIGINT' }, { name: 's', type: 'VARCHAR' }]]]);
  });
});
