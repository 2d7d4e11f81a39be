// CREATE [OR REPLACE] TABLE … AS SELECT through catalog.sql: one commit that creates the table with the columns
// the query types and registers its rows as real Parquet files; compared with DuckDB running the same statement
// over the same rows in plain tables (rows and column types), and against what the catalog had before.
import { execFileSync } from 'node:child_process';
import { open, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/index.js';
import { expectCode, tempDir } from '../helpers.js';
import { asJson, sideBySide } from '../support/side-by-side.js';

const SOURCE = `CREATE TABLE s.orders (id BIGINT NOT NULL, customer VARCHAR, amount DECIMAL(10,2), placed DATE, tags VARCHAR[], info STRUCT(channel VARCHAR, priority INTEGER), shipped BOOLEAN)`;
const ROWS = `INSERT INTO s.orders VALUES
  (1, 'ada', 12.50, DATE '2026-01-02', ['new'], {'channel': 'web', 'priority': 1}, true),
  (2, 'grace', 7.25, DATE '2026-01-03', [], {'channel': 'shop', 'priority': 2}, false),
  (3, 'ada', NULL, DATE '2026-02-01', ['gift', 'new'], NULL, NULL),
  (4, 'edsger', 100.00, NULL, NULL, {'channel': 'web', 'priority': NULL}, true)`;

const plain = asJson;

/** The same statement's rows in plain DuckDB tables, and in the lake, as JSON (exact values as text). */
async function duck(k: DuckDBConnection, sql: string) {
  return plain((await k.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[]);
}

describe('CREATE TABLE … AS SELECT through catalog.sql', () => {
  const sides = sideBySide(['CREATE SCHEMA s', SOURCE, ROWS]);
  let c: Catalog;
  let dir: string;
  let k: DuckDBConnection;
  beforeEach(() => ({ c, dir, k } = sides));

  const both = async (sql: string) => {
    await k.run(sql);
    return c.sql(sql);
  };
  /** The lake's rows equal DuckDB's, and so do the table's columns as DESCRIBE gives them. */
  const sameAsDuckDb = async (table: string, order: string) => {
    const query = `SELECT * FROM ${table} ORDER BY ${order}`;
    const lake = plain((await c.sql(query)).rows);
    expect(lake).toEqual(await duck(k, query));
    const described = `SELECT column_name, column_type FROM (DESCRIBE ${table})`;
    expect(plain((await c.sql(described)).rows)).toEqual(await duck(k, described));
  };
  const head = async () => (await c.snapshots()).at(-1)!.id;

  it('creates the table with the query\'s columns and rows in one commit, as real Parquet with the column ids as field ids', async () => {
    const before = await head();
    const r0 = await both(`CREATE TABLE s.big AS SELECT id, customer, amount * 2 AS doubled, placed + 1 AS next_day, tags, info, shipped FROM s.orders WHERE amount IS DISTINCT FROM 7.25`);
    expect(r0.snapshot).toBe(before + 1);
    expect(await head()).toBe(before + 1);
    await sameAsDuckDb('s.big', 'id');
    const [snap] = (await c.snapshots()).slice(-1);
    expect(snap!.changes).toHaveLength(2);
    expect(snap!.changes).toContain('created_table:"s"."big"');
    expect(snap!.changes.find((x) => x.startsWith('inserted_into_table:'))).toMatch(/^inserted_into_table:\d+$/);
    // The snapshot before has no such table.
    await expectCode(c.sql(`SELECT * FROM s.big AT (VERSION => ${before})`), 'NOT_FOUND');

    const r = await c.reader();
    const table = await r.table('s', 'big');
    const files = await r.dataFiles('s', 'big');
    await r.close();
    expect(files.reduce((n, f) => n + f.recordCount, 0)).toBe(3);
    const ids = (await k.runAndReadAll(`SELECT name, field_id::INTEGER AS id FROM parquet_schema('${path.join(dir, 'store', c.dataPath, files[0]!.path)}') WHERE field_id IS NOT NULL AND name IN (${table.columns.map((col) => `'${col.name}'`).join(', ')}) ORDER BY id`)).getRowObjectsJS();
    expect(ids).toEqual(table.columns.map((col) => ({ name: col.name, id: col.id })));
  });

  it('CREATE OR REPLACE reading the table it replaces: the new rows now, the old ones at the snapshot before', async () => {
    await both('CREATE TABLE s.work AS SELECT * FROM s.orders');
    const before = await head();
    await both(`CREATE OR REPLACE TABLE s.work AS SELECT id, customer, amount FROM s.work WHERE customer = 'ada'`);
    await sameAsDuckDb('s.work', 'id');
    expect(plain((await c.sql(`SELECT count(*) AS n FROM s.work AT (VERSION => ${before})`)).rows)).toEqual([{ n: '4' }]);
    // A replace of a table that is not there creates it.
    await both('CREATE OR REPLACE TABLE s.fresh AS SELECT customer, count(*) AS n FROM s.orders GROUP BY customer');
    await sameAsDuckDb('s.fresh', 'customer');
  });

  it('IF NOT EXISTS leaves a table that exists as it is; without it, ALREADY_EXISTS and nothing committed', async () => {
    await both('CREATE TABLE s.once AS SELECT id FROM s.orders WHERE id < 3');
    const before = await head();
    expect((await both('CREATE TABLE IF NOT EXISTS s.once AS SELECT 99 AS id')).snapshot).toBe(before);
    await sameAsDuckDb('s.once', 'id');
    await expectCode(c.sql('CREATE TABLE s.once AS SELECT 99 AS id'), 'ALREADY_EXISTS', /OR REPLACE/);
    expect(await head()).toBe(before);
    await sameAsDuckDb('s.once', 'id');
  });

  it('column aliases, WITH NO DATA and a query with no rows: the table and its columns, no file', async () => {
    await both('CREATE TABLE s.shape (a, b) AS SELECT id, info FROM s.orders WITH NO DATA');
    await sameAsDuckDb('s.shape', 'a');
    await both('CREATE TABLE s.none AS SELECT * FROM s.orders WHERE id < 0');
    await sameAsDuckDb('s.none', 'id');
    const r = await c.reader();
    expect(await r.dataFiles('s', 'shape')).toEqual([]);
    expect(await r.dataFiles('s', 'none')).toEqual([]);
    await r.close();
  });

  it('a query DuckDB fails to run commits nothing', async () => {
    const before = await head();
    await expectCode(c.sql(`CREATE TABLE s.bad AS SELECT CAST(customer AS INTEGER) AS n FROM s.orders`), 'INVALID_ARGUMENT');
    expect(await head()).toBe(before);
    await expectCode(c.sql('SELECT * FROM s.bad'), 'NOT_FOUND');
  });

  it('inside a transaction, with what the transaction did before it, committed with it', async () => {
    const before = await head();
    await c.transaction(async (tx) => {
      await tx.sql(`INSERT INTO s.orders VALUES (5, 'barbara', 3.00, DATE '2026-03-01', NULL, NULL, false)`);
      await tx.sql(`CREATE TABLE s.in_tx AS SELECT id, customer FROM s.orders WHERE id >= 4`);
      await tx.sql(`INSERT INTO s.in_tx VALUES (6, 'alan')`);
    });
    expect(await head()).toBe(before + 1);
    expect(plain((await c.sql('SELECT * FROM s.in_tx ORDER BY id')).rows)).toEqual([
      { id: '4', customer: 'edsger' },
      { id: '5', customer: 'barbara' },
      { id: '6', customer: 'alan' },
    ]);
    await c.sql('DELETE FROM s.orders WHERE id = 5');
  });

  it('CREATE OR REPLACE reading itself is CONFLICT when another commit changed the table after it read it, and nothing is lost', async () => {
    await both('CREATE TABLE s.race AS SELECT id FROM s.orders');
    // The statement reads its ids from a pipe: it has read the table's state when it opens the pipe, and waits
    // there until the test has committed another row and written the ids.
    const fifo = path.join(await tempDir(), 'ids.csv');
    execFileSync('mkfifo', [fifo]);
    const replacing = c.sql(`CREATE OR REPLACE TABLE s.race AS SELECT id FROM s.race WHERE id IN (SELECT x FROM read_csv('${fifo}', columns = {'x': 'BIGINT'}, header = false))`, { hostFiles: true });
    const ids = await open(fifo, 'w');
    await c.sql('INSERT INTO s.race VALUES (99)');
    await ids.writeFile('2\n3\n');
    await ids.close();
    await expectCode(replacing, 'CONFLICT', /changed after snapshot \d+, which this CREATE OR REPLACE TABLE … AS read it at/);
    expect(plain((await c.sql('SELECT id FROM s.race ORDER BY id')).rows)).toEqual([{ id: '1' }, { id: '2' }, { id: '3' }, { id: '4' }, { id: '99' }]);
  });

  it("a view's name: IF NOT EXISTS leaves it, otherwise ALREADY_EXISTS saying so, before the query runs", async () => {
    await c.sql('CREATE VIEW s.v AS SELECT id FROM s.orders');
    const before = await head();
    expect((await c.sql('CREATE TABLE IF NOT EXISTS s.v AS SELECT 1 AS a')).snapshot).toBe(before);
    await expectCode(c.sql('CREATE TABLE s.v AS SELECT 1 AS a'), 'ALREADY_EXISTS', /s\.v is a view .*DROP VIEW s\.v first/);
    await expectCode(c.sql('CREATE OR REPLACE TABLE s.v AS SELECT 1 AS a'), 'ALREADY_EXISTS', /s\.v is a view/);
    expect(await head()).toBe(before);
  });

  it("names only the lake: another database (the engine's own memory) or TEMP is refused, nothing committed, nothing left behind", async () => {
    const before = await head();
    for (const sql of [
      'CREATE OR REPLACE TABLE memory.main.orders AS SELECT id FROM s.orders WHERE id = 1',
      'CREATE TABLE memory.main.leak AS SELECT 42 AS a',
      'CREATE TABLE memory.main.leak AS SELECT 42 AS a',
      'CREATE TABLE memory.main.y (a INTEGER)',
      'CREATE VIEW memory.main.w AS SELECT 1 AS a',
      'CREATE SCHEMA memory.elsewhere',
      'CREATE TEMP TABLE tt AS SELECT 1 AS a',
      'CREATE TEMP TABLE tt (a INTEGER)',
      'CREATE TEMP VIEW tv AS SELECT 1 AS a',
    ]) {
      await expectCode(c.sql(sql), 'INVALID_ARGUMENT', /database "memory"|TEMP table or view is DuckDB's own/);
    }
    expect(await head()).toBe(before);
    const r = await c.reader();
    expect((await r.tables('main')).map((t) => t.name)).toEqual([]);
    await r.close();
    await sameAsDuckDb('s.orders', 'id');
  });

  it('from a host file only when the caller opts in', async () => {
    const csv = path.join(await tempDir(), 'people.csv');
    await writeFile(csv, 'id,name\n1,ada\n2,grace\n');
    await expectCode(c.sql(`CREATE TABLE s.people AS SELECT * FROM read_csv('${csv}')`), 'INVALID_ARGUMENT', /hostFiles/);
    await c.sql(`CREATE TABLE s.people AS SELECT * FROM read_csv('${csv}')`, { hostFiles: true });
    await k.run(`CREATE TABLE s.people AS SELECT * FROM read_csv('${csv}')`);
    await sameAsDuckDb('s.people', 'id');
  });
});
