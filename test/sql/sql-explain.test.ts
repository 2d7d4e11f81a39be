// EXPLAIN and EXPLAIN ANALYZE of a SELECT through catalog.sql: DuckDB's plan of the statement as rewritten (each
// table a scan of the files it reads at its snapshot), with how many files were listed and skipped; ANALYZE runs
// it and profiles it. A statement that writes has no plan of its own to show: refused, nothing committed.
import { describe, expect, it } from 'vitest';
import { expectCode, openCatalog } from '../helpers.js';

async function twoFiles() {
  const c = await openCatalog();
  await c.sql('CREATE TABLE t (id INTEGER)');
  await c.sql('INSERT INTO t VALUES (1), (2)');
  await c.sql('INSERT INTO t VALUES (10), (11)');
  return c;
}

describe('EXPLAIN through catalog.sql', () => {
  it("shows DuckDB's plan over the files each table reads, and how many its statistics let it skip, per table and snapshot", async () => {
    const c = await twoFiles();
    const plan = await c.sql('EXPLAIN SELECT id FROM t WHERE id > 5');
    expect(plan.rows.map((r) => r.explain_key)).toEqual(['physical_plan']);
    expect(String(plan.rows[0]!.explain_value)).toMatch(/READ_PARQUET/);
    expect(plan.files).toMatchObject({ listed: 2, skipped: 1 });
    // Per table and snapshot; a table read twice at one snapshot (a self-join, no WHERE of its own) is listed once.
    const both = await c.sql('EXPLAIN SELECT id FROM t WHERE id > 5 UNION ALL SELECT a.id FROM t AS a AT (VERSION => 2) JOIN t AS b AT (VERSION => 2) USING (id)');
    expect(both.files.tables).toEqual([
      { schema: 'main', table: 't', snapshot: 3, listed: 2, skipped: 1 },
      { schema: 'main', table: 't', snapshot: 2, listed: 1, skipped: 0 },
    ]);
    expect(both.files).toMatchObject({ listed: 3, skipped: 1 });
    // At the snapshot before the second insert there was one file.
    const earlier = await c.sql('explain SELECT id FROM t AT (VERSION => 2)');
    expect(earlier.files).toMatchObject({ listed: 1, skipped: 0 });
    expect(earlier.snapshot).toBe(2);
  });

  it('EXPLAIN ANALYZE runs the SELECT and gives its profile; in a transaction and streamed too', async () => {
    const c = await twoFiles();
    const analyzed = await c.sql('EXPLAIN ANALYZE SELECT count(*) FROM t');
    expect(analyzed.rows.map((r) => r.explain_key)).toEqual(['analyzed_plan']);
    expect(String(analyzed.rows[0]!.explain_value)).toMatch(/Total Time/);
    const batches = [];
    for await (const b of c.sqlBatches('EXPLAIN SELECT * FROM t')) batches.push(...b.rows);
    expect(batches.map((r) => r.explain_key)).toEqual(['physical_plan']);
    await c.transaction(async (tx) => {
      await tx.sql('INSERT INTO t VALUES (3)');
      const inTx = await tx.sql('EXPLAIN SELECT * FROM t');
      expect(inTx.rows.map((r) => r.explain_key)).toEqual(['physical_plan']);
    });
  });

  it('a statement that writes is refused, with nothing committed', async () => {
    const c = await twoFiles();
    const before = (await c.snapshots()).at(-1)!.id;
    for (const q of ['EXPLAIN INSERT INTO t VALUES (3)', 'EXPLAIN ANALYZE DELETE FROM t', 'EXPLAIN CREATE TABLE u (a INTEGER)']) {
      await expectCode(c.sql(q), 'INVALID_ARGUMENT', /EXPLAIN shows the plan of a SELECT/);
    }
    expect((await c.snapshots()).at(-1)!.id).toBe(before);
    expect((await c.sql('SELECT count(*) AS n FROM t')).rows).toEqual([{ n: 4n }]);
  });
});
