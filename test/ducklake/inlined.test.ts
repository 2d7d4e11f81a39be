// A lake's inlined rows (DuckLake keeps inserts of fewer rows than its inlining limit in its catalog database)
// are imported as Parquet data files with field ids, at the snapshots that inserted them, carrying their row
// ids, and deleted at the snapshots that deleted them: the import answers the lake's counts at every snapshot
// (issue 42: they were skipped, with exit 0).
import { existsSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../src/index.js';
import { type ExportedLake, exportedLake, inlinedLake, lakeCount, outcome, removeLake } from './lakes.js';

let lake: ExportedLake;
beforeAll(async () => {
  lake = await exportedLake();
}, 60_000);
afterAll(() => removeLake(lake));

describe('inlined rows', () => {
  it('are imported as data files at the snapshots that inserted them, with their row ids, and deleted where the lake deleted them', { timeout: 120_000 }, async () => {
    const file = await inlinedLake(lake);
    const db = new Database(file, { readonly: true });
    const snapshots = (db.prepare('SELECT snapshot_id AS id FROM ducklake_snapshot ORDER BY 1').all() as { id: number }[]).map((s) => s.id);
    const tables = db.prepare('SELECT table_id AS id, table_name AS name, begin_snapshot AS b, end_snapshot AS e FROM ducklake_table').all() as { id: number; name: string; b: number; e: number | null }[];
    const inlined = db.prepare('SELECT table_id AS id, table_name AS t FROM ducklake_inlined_data_tables').all() as { id: number; t: string }[];
    db.close();
    const dir = path.join(lake.root, 'inlined-import');
    const { report, error } = await outcome(file, { dir, copyFiles: true });
    expect(error).toBeUndefined();
    expect(report!.inlinedFiles).toBe(3);
    const c = await Catalog.open({ dir, create: false });
    try {
      // Every table at every snapshot where it exists: the count DuckLake's rows give.
      let compared = 0;
      for (const s of snapshots) {
        for (const t of tables.filter((x) => x.b <= s && (x.e === null || x.e > s))) {
          const { n } = (await c.sql(`SELECT count(*) AS n FROM sales."${t.name}" AT (VERSION => ${s})`).catch(() => c.sql(`SELECT count(*) AS n FROM main."${t.name}" AT (VERSION => ${s})`))).rows[0] as { n: bigint };
          expect(Number(n), `${t.name} at snapshot ${s}`).toBe(lakeCount(file, t.id, s));
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(20);
      const small = inlined.find((x) => x.t.includes(`_${tables.find((t) => t.name === 'small')!.id}_`))!;
      const insert = snapshots.at(-5)!;
      // The values, as DuckDB reads the text SQLite keeps (a list too), and the row ids the lake gave them.
      expect((await c.sql(`SELECT k, label, price, tags FROM sales.small AT (VERSION => ${insert + 2}) ORDER BY k`)).rows).toEqual([
        { k: 10n, label: 'ten', price: '1.50', tags: expect.anything() },
        { k: 12n, label: null, price: null, tags: null },
        { k: 13n, label: 'thirteen', price: '3.25', tags: expect.anything() },
        { k: 14n, label: 'fourteen', price: '0.01', tags: expect.anything() },
      ]);
      expect((await c.sql(`SELECT len(tags) AS n FROM sales.small AT (VERSION => ${insert + 2}) ORDER BY k`)).rows.map((r) => r.n)).toEqual([2n, null, 2n, 1n]);
      const changes = await c.tableChanges('sales', 'small', { from: insert, to: insert + 1 });
      expect(changes.rows.map((r) => [Number(r.snapshot_id), Number(r.rowid), r.change_type])).toEqual([
        [insert, 0, 'insert'], [insert, 1, 'insert'], [insert, 2, 'insert'], [insert + 1, 1, 'delete'],
      ]);
      const orders = await c.tableChanges('sales', 'orders2', { from: insert + 2, to: insert + 2 });
      expect(orders.rows.filter((r) => r.change_type === 'insert').map((r) => [Number(r.rowid), r.id])).toEqual([[24, 900n], [25, 901n]]);
      expect(small.t).toMatch(/^ducklake_inlined_data_\d+_\d+$/);
      expect((await c.verify({ files: true })).violations).toEqual([]);
      // Every object copied or written is named by a row: the delete files folded into the import's own are not left behind.
      expect((await c.reclaimFiles({ orphans: true, minAgeMs: 0, dryRun: true })).orphans).toEqual([]);
      // Later inserts take row ids after the inlined ones.
      await c.sql(`INSERT INTO sales.orders2 VALUES (902, 'open', 1.00)`);
      const last = await c.tableChanges('sales', 'orders2', { from: insert + 5, to: insert + 5 });
      expect(last.rows.map((r) => Number(r.rowid))).toEqual([26]);
    } finally {
      await c.close();
    }
  });

  it('refuses inlined rows the lake contradicts, naming them, and leaves nothing', async () => {
    const file = await inlinedLake(lake);
    const db = new Database(file);
    const [orders, small] = (db.prepare('SELECT table_name AS t FROM ducklake_inlined_data_tables ORDER BY table_id').all() as { t: string }[]).map((r) => r.t);
    db.close();
    const cases: [string, RegExp][] = [
      [`UPDATE ${orders} SET begin_snapshot = 999 WHERE row_id = 24`, /inlined rows name snapshot 999, past the lake's newest/],
      [`UPDATE ${small} SET row_id = 1 WHERE row_id = 0`, /row id 1 names two rows/],
      [`UPDATE ${small} SET k = 'not a number' WHERE row_id = 0`, /do not read as the table's columns/],
      [`UPDATE ducklake_column SET end_snapshot = begin_snapshot + 1 WHERE column_name = 'element'`, /is a list: give children/],
    ];
    for (const [i, [sql, message]] of cases.entries()) {
      const copy = path.join(lake.root, `inlined-bad-${i}.sqlite`);
      await copyFile(file, copy);
      const d = new Database(copy);
      d.exec(sql);
      d.close();
      const dir = path.join(lake.root, `inlined-bad-${i}`);
      const { error } = await outcome(copy, { dir, copyFiles: true });
      expect(error?.code, sql).toBe('INVALID_ARGUMENT');
      expect(error?.message, sql).toMatch(message);
      expect(existsSync(dir), sql).toBe(false);
    }
  });
});
