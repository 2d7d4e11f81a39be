// MERGE INTO through catalog.sql, in DuckDB's syntax: each statement compared with DuckDB running it over the
// same rows in plain tables (rows equal, the statement's own answer equal); one commit, based on the snapshot
// read; an updated row keeps its row id and a new row gets a new one; what fails commits nothing. The two
// patterns users write it for: the upsert, and a slowly changing dimension of type 2.
import { execFileSync } from 'node:child_process';
import { open } from 'node:fs/promises';
import * as path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/index.js';
import { expectCode, tempDir } from '../helpers.js';
import { asJson, sideBySide } from '../support/side-by-side.js';
import { rowIds } from '../support/row-ids.js';

const TABLES = [
  `CREATE TABLE customers (id BIGINT NOT NULL, name VARCHAR, city VARCHAR, visits INTEGER DEFAULT 0, tags VARCHAR[])`,
  `INSERT INTO customers VALUES (1, 'Ada', 'London', 3, ['a']), (2, 'Grace', 'Arlington', 1, NULL), (3, 'Edsger', 'Nuenen', 0, []), (4, 'Barbara', 'Boston', 7, ['b', 'c'])`,
  `INSERT INTO customers VALUES (5, 'Frances', 'Dayton', NULL, NULL), (6, 'Alan', NULL, 2, ['x'])`,
  `CREATE TABLE updates (id BIGINT, name VARCHAR, city VARCHAR, op VARCHAR)`,
  `INSERT INTO updates VALUES (2, 'Grace', 'New York', 'upsert'), (3, NULL, NULL, 'delete'), (7, 'Donald', 'Stanford', 'upsert'), (4, 'Barbara', 'Boston', 'upsert'), (8, 'Niklaus', NULL, 'delete')`,
];

const plain = asJson;

describe('MERGE INTO through catalog.sql', () => {
  const sides = sideBySide(TABLES);
  let c: Catalog;
  let dir: string;
  let k: DuckDBConnection;
  beforeEach(() => ({ c, dir, k } = sides));

  const head = async () => (await c.snapshots()).at(-1)!.id;
  /** Runs `sql` on both; their answers equal; then the target's rows equal, and what the lake committed. */
  const both = async (sql: string, table = 'customers', order = 'id') => {
    const before = await head();
    const expected = plain((await k.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[]);
    const r = await c.sql(sql);
    const json = plain((await k.runAndReadAll(`SELECT to_json(list(x ORDER BY ${order.split(',').map((o) => `x.${o.trim()}`).join(', ')})) FROM ${table} x`)).getRowObjectsJson() as Record<string, unknown>[]);
    const lake = plain((await c.sql(`SELECT to_json(list(x ORDER BY ${order.split(',').map((o) => `x.${o.trim()}`).join(', ')})) FROM ${table} x`)).rows);
    expect(lake).toEqual(json);
    const answer = plain(r.rows);
    return { answer, expected, before, after: await head(), snapshot: r.snapshot };
  };

  it('the upsert: matched rows updated, the others inserted by a VALUES without a column list; one commit; updated rows keep their ids, new rows get new ones', async () => {
    const ids = await rowIds(c, dir, 'customers');
    const run = await both(
      `MERGE INTO customers c USING updates u ON c.id = u.id
       WHEN MATCHED AND u.op = 'delete' THEN DELETE
       WHEN MATCHED THEN UPDATE SET city = u.city, visits = c.visits + 1
       WHEN NOT MATCHED AND u.op = 'upsert' THEN INSERT VALUES (u.id, u.name, u.city, 1, NULL)`,
    );
    expect(run.answer).toEqual(run.expected);
    expect(run.answer).toEqual([{ Count: '4' }]);
    expect(run.after).toBe(run.before + 1);
    expect(run.snapshot).toBe(run.after);
    const after = await rowIds(c, dir, 'customers');
    for (const id of [1n, 2n, 4n, 5n, 6n]) expect(after.get(id), `row ${id}`).toBe(ids.get(id));
    expect(after.has(3n)).toBe(false);
    expect([...ids.values()]).not.toContain(after.get(7n));
    // Row by row, by row id: Grace's update, Edsger's delete, Barbara's update (her visits changed), Donald's insert.
    const changes = await c.tableChanges('main', 'customers', { from: run.after, to: run.after });
    expect(changes.rows.map((r) => [r.change_type, r.id, r.rowid])).toEqual([
      ['update_preimage', 2n, ids.get(2n)],
      ['update_postimage', 2n, ids.get(2n)],
      ['delete', 3n, ids.get(3n)],
      ['update_preimage', 4n, ids.get(4n)],
      ['update_postimage', 4n, ids.get(4n)],
      ['insert', 7n, after.get(7n)],
    ]);
    // The snapshot before still reads the rows as they were.
    expect((await c.sql(`SELECT city FROM customers AT (VERSION => ${run.before}) WHERE id = 2`)).rows).toEqual([{ city: 'Arlington' }]);
  });

  it('INSERT BY NAME, INSERT * and a column list fill columns by name, defaults the rest; an UPDATE DuckDB would run as a delete and an insert is refused', async () => {
    await c.sql(`CREATE TABLE incoming (id BIGINT, name VARCHAR, city VARCHAR, visits INTEGER, tags VARCHAR[])`);
    await k.run(`CREATE TABLE incoming (id BIGINT, name VARCHAR, city VARCHAR, visits INTEGER, tags VARCHAR[])`);
    const rows = `INSERT INTO incoming VALUES (1, 'Ada', 'Cambridge', 4, ['a', 'z']), (9, 'Kathleen', 'Birmingham', 1, NULL)`;
    await c.sql(rows);
    await k.run(rows);
    // UPDATE SET * sets tags, a LIST: DuckDB would move the row (a delete and an insert), losing its row id.
    const before = await head();
    await expectCode(c.sql(`MERGE INTO customers USING incoming USING (id) WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *`), 'INVALID_ARGUMENT', /updates a LIST, ARRAY or MAP column .* nothing was written/);
    await expectCode(c.sql(`MERGE INTO customers USING incoming USING (id) WHEN MATCHED THEN UPDATE SET tags = incoming.tags`), 'INVALID_ARGUMENT', /lose its row id/);
    expect(await head()).toBe(before);
    const star = await both(`MERGE INTO customers USING incoming USING (id) WHEN MATCHED THEN UPDATE SET name = incoming.name, city = incoming.city, visits = incoming.visits WHEN NOT MATCHED THEN INSERT *`);
    expect(star.answer).toEqual(star.expected);
    const byName = await both(`MERGE INTO customers USING (SELECT 10 AS id, 'John' AS name) s USING (id) WHEN NOT MATCHED THEN INSERT BY NAME`);
    expect(byName.answer).toEqual(byName.expected);
    const listed = await both(`MERGE INTO customers USING (SELECT 11 AS id) s USING (id) WHEN NOT MATCHED THEN INSERT (id, city) VALUES (s.id, 'Turin')`);
    expect(listed.answer).toEqual(listed.expected);
    expect((await c.sql('SELECT visits FROM customers WHERE id IN (10, 11)')).rows).toEqual([{ visits: 0 }, { visits: 0 }]);
  });

  it('a slowly changing dimension of type 2: the current row of a changed key is closed and its new version inserted, in one MERGE', async () => {
    const setup = [
      `CREATE TABLE dim (id BIGINT, city VARCHAR, valid_from DATE, valid_to DATE, current BOOLEAN)`,
      `INSERT INTO dim VALUES (1, 'London', DATE '2020-01-01', NULL, true), (2, 'Arlington', DATE '2020-01-01', NULL, true), (3, 'Nuenen', DATE '2019-01-01', DATE '2020-01-01', false), (3, 'Austin', DATE '2020-01-01', NULL, true)`,
      `CREATE TABLE feed (id BIGINT, city VARCHAR)`,
      `INSERT INTO feed VALUES (1, 'London'), (2, 'New York'), (3, 'Eindhoven'), (4, 'Boston')`,
    ];
    for (const sql of setup) {
      await c.sql(sql);
      await k.run(sql);
    }
    // Each changed key twice in the source: once under its key (closing the current row), once under NULL
    // (matching nothing, so inserted as the new current row).
    const scd2 = `MERGE INTO dim d USING (
        SELECT f.id AS key, f.* FROM feed f
        UNION ALL
        SELECT NULL, f.* FROM feed f JOIN dim x ON x.id = f.id AND x.current AND x.city <> f.city
      ) s ON d.id = s.key AND d.current
      WHEN MATCHED AND d.city <> s.city THEN UPDATE SET valid_to = DATE '2026-12-01', current = false
      WHEN NOT MATCHED AND (s.key IS NULL OR NOT EXISTS (SELECT 1 FROM dim y WHERE y.id = s.id)) THEN INSERT VALUES (s.id, s.city, DATE '2026-12-01', NULL, true)`;
    const run = await both(scd2, 'dim', 'id, valid_from');
    expect(run.answer).toEqual(run.expected);
    expect(run.after).toBe(run.before + 1);
    expect((await c.sql(`SELECT id, city FROM dim WHERE current ORDER BY id`)).rows).toEqual([
      { id: 1n, city: 'London' },
      { id: 2n, city: 'New York' },
      { id: 3n, city: 'Eindhoven' },
      { id: 4n, city: 'Boston' },
    ]);
    expect((await c.sql(`SELECT count(*) AS n FROM dim`)).rows).toEqual([{ n: 7n }]);
  });

  it('WHEN NOT MATCHED BY SOURCE deletes or updates rows the source lacks, across files; RETURNING says what each row did', async () => {
    const deleted = await both(`MERGE INTO customers c USING updates u ON c.id = u.id WHEN NOT MATCHED BY SOURCE AND c.id > 4 THEN DELETE RETURNING merge_action, c.id`);
    expect((deleted.answer as { id: string }[]).sort((a, b) => Number(a.id) - Number(b.id))).toEqual(
      (deleted.expected as { id: string }[]).sort((a, b) => Number(a.id) - Number(b.id)),
    );
    expect(deleted.answer).toHaveLength(2);
    const updated = await both(`MERGE INTO customers c USING updates u ON c.id = u.id WHEN NOT MATCHED BY SOURCE THEN UPDATE SET city = 'nowhere' WHEN NOT MATCHED BY TARGET THEN INSERT (id) VALUES (u.id)`);
    expect(updated.answer).toEqual(updated.expected);
  });

  it('a source that is a catalog view, or that reads the target again: the same rows as DuckDB', async () => {
    for (const sql of [`CREATE VIEW upserts AS SELECT * FROM updates WHERE op = 'upsert'`]) {
      await c.sql(sql);
      await k.run(sql);
    }
    const viewed = await both(`MERGE INTO customers c USING upserts u ON c.id = u.id WHEN MATCHED THEN UPDATE SET city = u.city WHEN NOT MATCHED THEN INSERT (id, name) VALUES (u.id, u.name)`);
    expect(viewed.answer).toEqual(viewed.expected);
    const again = await both(`MERGE INTO customers c USING (SELECT id, visits FROM customers WHERE visits > 1) u ON c.id = u.id + 1 WHEN MATCHED THEN UPDATE SET visits = u.visits`);
    expect(again.answer).toEqual(again.expected);
  });

  it('takes bound parameters', async () => {
    const sql = `MERGE INTO customers USING (SELECT $1::BIGINT AS id, $2::VARCHAR AS city) s USING (id) WHEN MATCHED THEN UPDATE SET city = s.city WHEN NOT MATCHED THEN INSERT (id, city) VALUES (s.id, s.city)`;
    await c.sql(sql, { params: [2, 'Paris'] });
    await c.sql(sql, { params: [12, 'Oslo'] });
    expect((await c.sql(`SELECT id, city FROM customers WHERE id IN (2, 12) ORDER BY id`)).rows).toEqual([
      { id: 2n, city: 'Paris' },
      { id: 12n, city: 'Oslo' },
    ]);
  });

  it('a MERGE that changes nothing commits nothing; one that fails commits nothing and says why', async () => {
    const at = await head();
    const same = await c.sql(`MERGE INTO customers c USING updates u ON c.id = u.id WHEN MATCHED THEN UPDATE SET city = c.city`);
    expect(same.snapshot).toBe(at);
    expect(await head()).toBe(at);
    // NOT NULL holds for a row the MERGE inserts.
    await expectCode(c.sql(`MERGE INTO customers c USING updates u ON c.id = u.id WHEN NOT MATCHED THEN INSERT (name) VALUES (u.name)`), 'INVALID_ARGUMENT', /NOT NULL/);
    await expectCode(c.sql(`MERGE INTO customers c USING nowhere u ON c.id = u.id WHEN MATCHED THEN DELETE`), 'NOT_FOUND', /nowhere/);
    expect(await head()).toBe(at);
  });

  it('based on the snapshot it read: a MERGE whose rows another statement changed meanwhile is a CONFLICT, and commits nothing', async () => {
    // The MERGE reads its source from a pipe: it has pinned the head when it opens the pipe, and waits there
    // until the test has deleted a row of the file the MERGE updates and written the source.
    const fifo = path.join(await tempDir(), 'source.csv');
    execFileSync('mkfifo', [fifo]);
    const merging = c.sql(`MERGE INTO customers c USING read_csv('${fifo}', columns = {'id': 'BIGINT', 'city': 'VARCHAR'}, header = false) u ON c.id = u.id WHEN MATCHED THEN UPDATE SET city = u.city`, { hostFiles: true });
    const source = await open(fifo, 'w');
    await c.sql('DELETE FROM customers WHERE id = 2');
    const at = await head();
    await source.writeFile('1,Paris\n4,Rome\n');
    await source.close();
    await expectCode(merging, 'CONFLICT');
    expect(await head()).toBe(at);
    expect((await c.sql('SELECT id, city FROM customers WHERE id IN (1, 2, 4) ORDER BY id')).rows).toEqual([
      { id: 1n, city: 'London' },
      { id: 4n, city: 'Boston' },
    ]);
    // Run again on the new head, it takes effect.
    await c.sql(`MERGE INTO customers c USING (VALUES (1, 'Paris'), (4, 'Rome')) u(id, city) ON c.id = u.id WHEN MATCHED THEN UPDATE SET city = u.city`);
    expect((await c.sql('SELECT city FROM customers WHERE id IN (1, 4) ORDER BY id')).rows).toEqual([{ city: 'Paris' }, { city: 'Rome' }]);
  });
});
