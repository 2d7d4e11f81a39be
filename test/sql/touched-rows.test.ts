// The rows a DELETE, UPDATE or MERGE can touch (src/sql/touched-rows.ts), checked against DuckDB itself: the
// query made of a statement's text, run on a plain table, selects exactly the rows the statement, run with
// RETURNING and rolled back, deletes, updates or matches — for statements written as users write them and
// for random ones whose strings, comments and CASEs hold the keywords the text is divided at, and for the inputs
// a review found wrong. A statement whose rows depend on rows outside those, or on a second draw (it reads its
// target again, draws random numbers or samples, deletes what its source does not match, names the target's
// whole row or a relation the scratch database holds as DuckDB's own) gets no query: every row is kept.
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodesOf, type PlanNode, tablesRead } from '../../src/sql/mirror.js';
import type { BoundParams } from '../../src/sql/params.js';
import { DECLARED_UNSTABLE, partsOf, touchedRowsQuery, UNSTABLE_FUNCTIONS } from '../../src/sql/touched-rows.js';

let db: DuckDBInstance;
let c: DuckDBConnection;
beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:');
  c = await db.connect();
  // rid: the row id column the scratch view has (each row's own, under a name no other table has).
  await c.run(`CREATE TABLE t (id BIGINT, v DOUBLE, s VARCHAR, rid BIGINT)`);
  await c.run(`INSERT INTO t SELECT i, i % 7, CASE WHEN i % 5 = 0 THEN NULL ELSE 'row ' || i END, i FROM range(60) r(i)`);
  await c.run(`CREATE TABLE src (id BIGINT, v DOUBLE, op VARCHAR)`);
  await c.run(`INSERT INTO src VALUES (3, 1, 'up'), (8, 2, 'del'), (70, 3, 'up'), (12, NULL, 'where'), (12, 4, 'x')`);
  await c.run(`CREATE TABLE src2 (k BIGINT, t STRUCT(id BIGINT))`);
  await c.run(`INSERT INTO src2 VALUES (4, {'id': 40}), (5, {'id': 50})`);
  await c.run(`CREATE TABLE t2 AS SELECT * FROM t WHERE id < 14`);
  // A view of the lake's named as DuckDB's own relation is: the scratch database makes the lake's views last.
  await c.run(`CREATE VIEW duckdb_views AS SELECT 'row ' || id AS view_name FROM src`);
});
afterAll(() => {
  c.closeSync();
  db.closeSync();
});

const scalar = async (sql: string, arg: string) => String((await c.runAndReadAll(sql, [arg])).getRows()[0]![0]);

async function planOf(sql: string): Promise<{ plan: PlanNode; node: PlanNode }> {
  const out = JSON.parse((await c.runAndReadAll('SELECT json_serialize_plan($1::VARCHAR)', [sql])).getRows()[0]![0] as string) as { error?: boolean; plans: PlanNode[] };
  expect(out.error, sql).toBeFalsy();
  const plan = out.plans[0]!;
  const [node] = ['LOGICAL_DELETE', 'LOGICAL_UPDATE', 'LOGICAL_MERGE_INTO'].flatMap((type) => nodesOf(plan, type));
  return { plan, node: node! };
}

const touchedQuery = async (sql: string, params?: BoundParams) => {
  const { plan, node } = await planOf(sql);
  const relations = tablesRead(plan).map((t) => t.table);
  return (await touchedRowsQuery({ text: sql, plan, node, target: { schema: 'main', table: 't' }, relations, params }, 'rid', scalar))?.query;
};

/** The ids of the target's rows the statement deletes, updates or (a MERGE) matches, its effect rolled back. */
async function changed(sql: string, params?: BoundParams): Promise<number[]> {
  await c.run('BEGIN');
  try {
    const merge = /^\s*MERGE/i.test(sql);
    // A MERGE's RETURNING gives the rows after it; the ids it inserted are the source's that t lacked.
    const rows = (await c.runAndReadAll(`${sql.replace(/;\s*$/, '')}\n RETURNING ${merge ? 'merge_action, ' : ''}id`, params)).getRows() as unknown[][];
    // A row two source rows match is updated twice: it is one row touched.
    return [...new Set(rows.filter((r) => !merge || r[0] !== 'INSERT').map((r) => Number(r.at(-1))))].sort((a, b) => a - b);
  } finally {
    await c.run('ROLLBACK');
  }
}

/** The statement's query selects exactly the rows it touches. */
async function exact(sql: string, params?: BoundParams): Promise<void> {
  const { plan, node } = await planOf(sql);
  const relations = tablesRead(plan).map((t) => t.table);
  const touched = await touchedRowsQuery({ text: sql, plan, node, target: { schema: 'main', table: 't' }, relations, params }, 'rid', scalar);
  expect(touched, sql).toBeDefined();
  const selected = (await c.runAndReadAll(`SELECT id FROM (${touched!.query}\n)`, touched!.params)).getRows() as [bigint][];
  expect(selected.map(([id]) => Number(id)).sort((a, b) => a - b), `${sql}\n${touched!.query}`).toEqual(await changed(sql, params));
}

describe('the rows a statement can touch', () => {
  it('DELETE, UPDATE and MERGE as users write them: the query selects the rows each deletes, updates or matches', async () => {
    for (const sql of [
      `DELETE FROM t WHERE id % 10 = 3`,
      `delete from t as x -- the target\n where x.v = 2 and s is not null`,
      `DELETE FROM t USING src WHERE t.id = src.id AND src.op = 'del'`,
      `UPDATE t SET v = v + 1 WHERE id BETWEEN 10 AND 14`,
      `UPDATE t SET s = 'x', v = t.v * 2 FROM src WHERE t.id = src.id AND src.v IS NOT NULL`,
      `UPDATE t AS u SET v = CASE WHEN v > 3 THEN 0 ELSE v END WHERE CASE WHEN id > 50 THEN true ELSE id = 1 END`,
      `UPDATE t SET s = (s IS DISTINCT FROM 'row 1')::VARCHAR WHERE id < 4;`,
      `MERGE INTO t USING src ON t.id = src.id WHEN MATCHED AND src.op = 'del' THEN DELETE WHEN MATCHED THEN UPDATE SET v = src.v WHEN NOT MATCHED THEN INSERT (id, v) VALUES (src.id, src.v)`,
      `MERGE INTO t AS tgt USING (SELECT id, v FROM src WHERE op <> 'x') s USING (id) WHEN MATCHED THEN UPDATE SET v = s.v`,
      `MERGE INTO t USING (VALUES (1, 'a'), (2, 'b')) s(k, w) ON t.id = s.k WHEN MATCHED THEN UPDATE SET s = s.w WHEN NOT MATCHED THEN INSERT (id, s) VALUES (s.k, s.w)`,
    ]) {
      await exact(sql);
    }
  });

  it('names bound as the statement binds them: a list joined in one FROM, a column of the target named as a relation', async () => {
    // src2 has a column t (a struct with a field id): in the statement t.id is the target's id.
    await exact(`UPDATE t SET v = -1 FROM src2 WHERE t.id = src2.k`);
    await exact(`DELETE FROM t USING src2 WHERE t.id = src2.k`);
    // s is the target's column, and the alias of the list's subquery.
    await exact(`UPDATE t SET v = -1 FROM (SELECT 1 AS k) AS s WHERE s IS NULL`);
  });

  it('parameters: named and $n ones bound to the query as to the statement; a ? (numbered by its place) keeps every row', async () => {
    await exact(`DELETE FROM t WHERE id < $1 AND v <> $2`, [9, 3]);
    await exact(`UPDATE t SET v = $3 WHERE id BETWEEN $1 AND $2`, [5, 9, 0]);
    await exact(`UPDATE t SET s = $label WHERE id > $from`, { label: 'x', from: 50 });
    await exact(`MERGE INTO t USING (SELECT $1::BIGINT AS id) m USING (id) WHEN MATCHED THEN DELETE`, [7]);
    expect(await touchedQuery(`UPDATE t SET v = ? WHERE id < ?`, [1, 5])).toBeUndefined();
    // $2 alone of two: DuckDB cannot bind a gap.
    expect(await touchedQuery(`UPDATE t SET v = $1 WHERE id < $2`, [1, 5])).toBeUndefined();
  });

  it("keywords in strings, quoted names, comments, CASEs, parentheses and parameters' names are not the statement's", () => {
    expect(partsOf(`DELETE FROM t WHERE s = ' WHERE id = 1 RETURNING ' -- WHERE x\n AND /* RETURNING /* nested */ WHERE */ id > 2 RETURNING id;`)).toEqual({
      target: 't',
      from: undefined,
      where: `s = ' WHERE id = 1 RETURNING ' -- WHERE x\n AND /* RETURNING /* nested */ WHERE */ id > 2`,
    });
    expect(partsOf(`UPDATE "t" SET "from" = $$ FROM x WHERE $$, v = (SELECT 1 FROM src WHERE false) WHERE id = $where RETURNING *`)).toEqual({
      target: '"t"',
      from: undefined,
      where: 'id = $where',
    });
    expect(partsOf(`UPDATE t SET v = 1 WHERE CASE WHEN id > 2 THEN s ELSE 'RETURNING' END = s`)).toMatchObject({ where: `CASE WHEN id > 2 THEN s ELSE 'RETURNING' END = s` });
    expect(partsOf(`UPDATE t SET s = E'it\\'s WHERE' WHERE id = 1`)).toMatchObject({ where: 'id = 1' });
    // Dollar-quote tags and names beyond ASCII, as DuckDB's lexer reads them.
    expect(partsOf(`UPDATE t SET s = $é$ WHERE id = 1 RETURNING $é$ WHERE id < 5`)).toMatchObject({ where: 'id < 5' });
    expect(partsOf(`UPDATE t SET s = é$$ WHERE id < 5`)).toMatchObject({ where: 'id < 5' });
    expect(partsOf(`MERGE INTO t USING src ON (CASE WHEN t.id = 1 THEN true END) WHEN MATCHED THEN DELETE`)).toEqual({
      target: 't',
      source: 'src',
      match: 'ON (CASE WHEN t.id = 1 THEN true END)',
    });
  });

  it('a statement of another shape, or without a WHERE, keeps every row', () => {
    for (const sql of [
      `DELETE FROM t`,
      `UPDATE t SET v = 1`,
      `WITH x AS (SELECT 1) DELETE FROM t WHERE id IN (SELECT * FROM x)`,
      `MERGE INTO t USING src JOIN src AS b ON src.id = b.id ON t.id = src.id WHEN MATCHED THEN DELETE`,
      `MERGE INTO t USING src, src AS b ON t.id = src.id WHEN MATCHED THEN DELETE`,
      `INSERT INTO t SELECT * FROM t WHERE id = 1`,
    ]) {
      expect(partsOf(sql), sql).toBeUndefined();
    }
  });

  it('a statement whose rows depend on rows outside those it touches keeps every row', async () => {
    for (const sql of [
      // It reads its target again: a subquery over it would see only the rows kept.
      `UPDATE t SET v = (SELECT max(v) FROM t) WHERE id < 3`,
      `DELETE FROM t WHERE id IN (SELECT id + 1 FROM t WHERE v = 0)`,
      // Volatile: each evaluation draws again.
      `DELETE FROM t WHERE random() < 0.5`,
      `UPDATE t SET s = gen_random_uuid()::VARCHAR WHERE id = 1`,
      // now() is the start of the transaction it runs in: the query of the rows runs in another.
      `DELETE FROM t WHERE TIMESTAMP '2026-01-01' + INTERVAL (id) SECOND < now()`,
      `UPDATE t SET v = 1 WHERE current_date > DATE '2020-01-01' AND id < 3`,
      // It touches the rows its source does not match.
      `MERGE INTO t USING src ON t.id = src.id WHEN MATCHED THEN DELETE WHEN NOT MATCHED BY SOURCE AND t.id > 50 THEN DELETE`,
      // Samples draw again; so do volatile arguments of a table function, evaluated before any plan.
      `UPDATE t SET v = -1 WHERE id IN (SELECT * FROM range(40) TABLESAMPLE 20 ROWS)`,
      `DELETE FROM t USING (SELECT * FROM src USING SAMPLE 50% (bernoulli)) q WHERE t.id = q.id`,
      `MERGE INTO t USING (SELECT * FROM src USING SAMPLE 2 ROWS) m ON t.id = m.id WHEN MATCHED THEN DELETE`,
      `DELETE FROM t WHERE id IN (SELECT * FROM range((random() * 100)::BIGINT))`,
      `DELETE FROM t WHERE id IN (SELECT unnest([(random() * 40)::BIGINT]))`,
      // The times of day ICU declares CONSISTENT.
      `DELETE FROM t WHERE TIMESTAMP '2026-01-01' + INTERVAL (id) SECOND < localtimestamp`,
      `DELETE FROM t WHERE TIMESTAMP '2026-01-01' + INTERVAL (id) SECOND < current_localtimestamp()`,
      // The target's whole row: the query's has the scratch view's columns too.
      `MERGE INTO t USING t2 x ON t = x WHEN MATCHED THEN DELETE`,
      `MERGE INTO t USING t2 x ON hash(t) = hash(x) WHEN MATCHED THEN DELETE`,
      `MERGE INTO t AS a USING t2 x ON a.id = x.id AND len(struct_keys(a)) = 4 WHEN MATCHED THEN DELETE`,
      // A relation the scratch database would hold as DuckDB's own until the lake's views are made.
      `DELETE FROM t WHERE s IN (SELECT view_name FROM duckdb_views)`,
      `DELETE FROM t WHERE id IN (SELECT estimated_size FROM duckdb_tables())`,
    ]) {
      expect(await touchedQuery(sql), sql).toBeUndefined();
    }
  });

  it("the functions whose value may change between two evaluations are DuckDB's own list", async () => {
    const listed = await c.runAndReadAll(`SELECT DISTINCT function_name FROM duckdb_functions() WHERE stability IN ('VOLATILE', 'CONSISTENT_WITHIN_QUERY') ORDER BY 1`);
    expect([...DECLARED_UNSTABLE].sort()).toEqual(listed.getRows().map(([name]) => name));
    // And the times of day ICU declares CONSISTENT, which each transaction has its own of.
    for (const f of ['current_localtimestamp', 'current_localtime']) expect(UNSTABLE_FUNCTIONS.has(f)).toBe(true);
  });

  it('random WHEREs and ONs with keywords in their strings, comments and CASEs: the query selects the rows touched', async () => {
    const atom = fc.oneof(
      fc.constantFrom(`id % 3 = 0`, `v > 2`, `s IS NULL`, `s LIKE '%1%'`, `id BETWEEN 5 AND 25`, `v IS DISTINCT FROM 4`),
      fc.constantFrom(`s <> ' WHERE id = 1 '`, `s <> 'RETURNING'`, `id <> 7 /* WHERE id = 8 */`, `id <> 9 -- RETURNING\n`, `"s" IS NOT NULL`),
      fc.constantFrom(`CASE WHEN v > 3 THEN id > 10 ELSE id < 20 END`, `(CASE s WHEN 'row 4' THEN false ELSE true END)`, `id IN (SELECT id FROM src WHERE op = 'where')`),
    );
    /** The condition with the target's columns qualified, where a statement joins another table. */
    const qualified = (w: string) => w.replaceAll(/(?<!["'.])\b(id|v|s)\b/g, 't.$1');
    const cond = fc.array(atom, { minLength: 1, maxLength: 3 }).chain((as) => fc.constantFrom('AND', 'OR').map((op) => as.join(` ${op} `)));
    const statement = fc.oneof(
      cond.map((w) => `DELETE FROM t WHERE ${w}`),
      cond.map((w) => `UPDATE t SET v = v + 1, s = 'WHERE' || s WHERE ${w} `),
      cond.map((w) => `UPDATE t SET v = src.v FROM (SELECT * FROM src WHERE op <> 'x') src WHERE t.id = src.id AND (${qualified(w)})`),
      cond.map((w) => `MERGE INTO t USING (SELECT * FROM src WHERE op <> 'x') AS m ON t.id = m.id AND (${qualified(w)}) WHEN MATCHED THEN UPDATE SET v = 0`),
    );
    await fc.assert(fc.asyncProperty(statement, (sql) => exact(sql)), { numRuns: 60 });
  });
});
