// The mirror a write is planned over (src/sql/mirror.ts) holds the tables and views the statement can name,
// not the whole head: a one-row INSERT into a catalog of a thousand tables spent ~450 ms mirroring every one.
// What does not bind over that scope is planned over the whole head, so a failure reads as it would there.
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/sql/engine.js';
import { Mirror } from '../../src/sql/mirror.js';
import { openCatalog, tempDir } from '../helpers.js';

describe('the mirror a write is planned over', () => {
  it("holds the tables a statement names and those its views read; one that does not bind there is planned over the whole head", async () => {
    const c = await openCatalog();
    await c.transaction(async (tx) => {
      for (let i = 0; i < 30; i++) await tx.createTable('main', `t${i}`, [{ name: 'id', type: 'int64' }, { name: 'v', type: 'varchar' }]);
    });
    await c.sql('CREATE VIEW w AS SELECT id FROM t3 JOIN "T4" USING (id)');
    const engine = new Engine({ lakeDirs: [], scratchDir: path.join(await tempDir(), 'sql-scratch'), memoryLimit: 2 ** 28 });
    const mirror = new Mirror(engine.planner, (q, arg) => engine.textFunction(q, arg));
    const r = await c.reader();
    /** What the mirrors built so far hold, by mirror: tables and views, sorted. */
    const mirrored = () =>
      engine.planner.withConnection(async (x) => {
        const rows = (
          await x.runAndReadAll(
            "SELECT database_name, table_name AS name FROM duckdb_tables() WHERE database_name LIKE 'strata_mirror_%' " +
              "UNION ALL SELECT database_name, view_name FROM duckdb_views() WHERE database_name LIKE 'strata_mirror_%' AND NOT internal ORDER BY ALL",
          )
        ).getRowObjectsJS() as { database_name: string; name: string }[];
        const by = new Map<string, string[]>();
        for (const { database_name, name } of rows) by.set(database_name, [...(by.get(database_name) ?? []), name]);
        return [...by.values()].map((names) => names.join(' ')).sort();
      });
    try {
      const planned = await mirror.plan(r, "INSERT INTO main.T7 SELECT id, 'x' FROM w");
      expect(planned.ok).toBe(true);
      expect(await mirrored()).toEqual(['t3 t4 t7 w']);
      // Another statement over the same tables, other values, other words: the same mirror.
      expect((await mirror.plan(r, "insert into T7 (id) select id + 1 from W where id > 0 -- 'more words' \"t3\"")).ok).toBe(true);
      expect(await mirrored()).toEqual(['t3 t4 t7 w']);
      // A table the head does not have: planned again over every table, whose names DuckDB's message draws on.
      const typo = await mirror.plan(r, "INSERT INTO t77 VALUES (1, 'a')");
      expect(typo.ok).toBe(false);
      expect(!typo.ok && typo.failure.message).toMatch(/t77/);
      const all = Array.from({ length: 30 }, (_, i) => `t${i}`).concat('w').sort().join(' ');
      // (The mirror of what it names holds nothing: the head has no t77.)
      expect((await mirrored()).sort()).toEqual(['t3 t4 t7 w', all].sort());
    } finally {
      await r.close();
      await engine.close();
      await c.close();
    }
  });
});
