// DDL through catalog.sql (decision 0011): DuckDB plans each statement over the mirror of the head, and each
// becomes the transaction operations the API has, one commit. What the catalog cannot keep is refused with
// nothing committed.
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/index.js';
import { access } from 'node:fs/promises';
import * as path from 'node:path';
import { expectCode, openCatalog, tempDir } from '../helpers.js';

const head = async (c: Catalog) => (await c.snapshots()).at(-1)!.id;
const columns = async (c: Catalog, schema: string, table: string) =>
  (await (await c.reader()).table(schema, table)).columns.map((x) => ({ name: x.name, type: x.type, nullable: x.nullsAllowed, default: x.defaultValue }));

describe('DDL through catalog.sql', () => {
  it('CREATE SCHEMA and TABLE (types, NOT NULL, defaults, nested), ALTER, views, DROP: one commit each, read back as the API made them', async () => {
    const c = await openCatalog();
    const start = await head(c);
    await c.sql('CREATE SCHEMA sales');
    await c.sql(`CREATE TABLE sales.customers (
      id BIGINT NOT NULL, name VARCHAR, city VARCHAR DEFAULT 'nowhere', credit DECIMAL(10,2) DEFAULT 12.5,
      since DATE DEFAULT DATE '2026-01-01', vip BOOLEAN DEFAULT false, big BIGINT DEFAULT 9007199254740993, neg INTEGER DEFAULT -3,
      tags VARCHAR[], address STRUCT(street VARCHAR, zip INTEGER), scores MAP(VARCHAR, DOUBLE), doc JSON, seen TIMESTAMPTZ)`);
    expect(await head(c)).toBe(start + 2);
    expect(await columns(c, 'sales', 'customers')).toEqual([
      { name: 'id', type: 'int64', nullable: false, default: null },
      { name: 'name', type: 'varchar', nullable: true, default: null },
      { name: 'city', type: 'varchar', nullable: true, default: 'nowhere' },
      { name: 'credit', type: 'decimal(10,2)', nullable: true, default: '12.5' },
      { name: 'since', type: 'date', nullable: true, default: '2026-01-01' },
      { name: 'vip', type: 'boolean', nullable: true, default: 'f' },
      { name: 'big', type: 'int64', nullable: true, default: '9007199254740993' },
      { name: 'neg', type: 'int32', nullable: true, default: '-3' },
      { name: 'tags', type: 'list', nullable: true, default: null },
      { name: 'address', type: 'struct', nullable: true, default: null },
      { name: 'scores', type: 'map', nullable: true, default: null },
      { name: 'doc', type: 'json', nullable: true, default: null },
      { name: 'seen', type: 'timestamptz', nullable: true, default: null },
    ]);
    // Defaults apply to rows inserted without them, and read back in the column's type.
    await c.sql(`INSERT INTO sales.customers (id, name, address) VALUES (1, 'Ada', {'street': 'Main', 'zip': 7})`);
    expect((await c.sql('SELECT city, credit, since, vip, big, neg, address.zip AS zip FROM sales.customers')).rows).toEqual([
      { city: 'nowhere', credit: '12.50', since: '2026-01-01', vip: false, big: 9007199254740993n, neg: -3, zip: 7 },
    ]);
    const beforeAlter = await head(c);

    await c.sql('ALTER TABLE sales.customers ADD COLUMN tier INTEGER DEFAULT 1');
    await c.sql('ALTER TABLE sales.customers RENAME COLUMN city TO town');
    await c.sql('ALTER TABLE sales.customers DROP COLUMN doc');
    await c.sql('ALTER TABLE sales.customers ALTER COLUMN tier TYPE BIGINT');
    await c.sql('ALTER TABLE sales.customers RENAME TO clients');
    expect(await head(c)).toBe(beforeAlter + 5);
    expect((await c.sql('SELECT town, tier FROM sales.clients')).rows).toEqual([{ town: 'nowhere', tier: 1n }]);
    expect((await c.sql(`SELECT city FROM sales.customers AT (VERSION => ${beforeAlter})`)).rows).toEqual([{ city: 'nowhere' }]);

    await c.sql('CREATE VIEW sales.named AS SELECT id, name FROM sales.clients WHERE name IS NOT NULL');
    expect((await c.sql('SELECT * FROM sales.named')).rows).toEqual([{ id: 1n, name: 'Ada' }]);
    await c.sql('CREATE OR REPLACE VIEW sales.named (who) AS SELECT name FROM sales.clients');
    expect((await c.sql('SELECT who FROM sales.named')).rows).toEqual([{ who: 'Ada' }]);
    await c.sql('DROP VIEW sales.named');

    // IF [NOT] EXISTS: no error, and nothing to commit.
    const quiet = await head(c);
    await c.sql('CREATE SCHEMA IF NOT EXISTS sales');
    await c.sql('CREATE TABLE IF NOT EXISTS sales.clients (x INTEGER)');
    await c.sql('DROP TABLE IF EXISTS sales.nothing');
    await c.sql('DROP VIEW IF EXISTS sales.nothing');
    expect(await head(c)).toBe(quiet);

    await c.sql('DROP TABLE sales.clients');
    await expectCode(c.sql('SELECT * FROM sales.clients'), 'NOT_FOUND');
    expect((await c.sql(`SELECT count(*) AS n FROM sales.clients AT (VERSION => ${quiet})`)).rows).toEqual([{ n: 1n }]);
    await c.sql('CREATE TABLE sales.t (x INTEGER)');
    await c.sql('DROP SCHEMA sales CASCADE');
    expect((await (await c.reader()).schemas()).map((s) => s.name)).toEqual(['main']);
    expect((await c.verify()).violations).toEqual([]);
  });

  it('refused with nothing committed: constraints, types and defaults the catalog cannot keep, narrowing, CTAS over a table that exists, unknown objects', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (a INTEGER, b BIGINT)');
    const at = await head(c);
    await expectCode(c.sql('CREATE TABLE p (a INTEGER PRIMARY KEY)'), 'INVALID_ARGUMENT', /UNIQUE constraint/);
    await expectCode(c.sql(`CREATE TABLE e (a ENUM('x', 'y'))`), 'INVALID_ARGUMENT', /ENUM/);
    await expectCode(c.sql('CREATE TABLE f (a INTEGER[3])'), 'INVALID_ARGUMENT', /ARRAY/);
    await expectCode(c.sql('CREATE TABLE d (stamp TIMESTAMP DEFAULT now())'), 'INVALID_ARGUMENT', /constant/);
    await expectCode(c.sql('CREATE TABLE t AS SELECT 1 AS a'), 'ALREADY_EXISTS', /OR REPLACE/);
    await expectCode(c.sql('ALTER TABLE t ALTER COLUMN b TYPE INTEGER'), 'INVALID_ARGUMENT', /widening/);
    await expectCode(c.sql('ALTER TABLE t ALTER COLUMN a SET DEFAULT 3'), 'INVALID_ARGUMENT', /SET DEFAULT/);
    await expectCode(c.sql('ALTER TABLE nothing ADD COLUMN x INTEGER'), 'NOT_FOUND', /main\.t/);
    await expectCode(c.sql('CREATE TABLE t (x INTEGER)'), 'ALREADY_EXISTS', /already exists/);
    await expectCode(c.sql('DROP TABLE t; DROP TABLE t'), 'INVALID_ARGUMENT', /one statement/);
    await expectCode(c.sql('CREATE SEQUENCE seq'), 'INVALID_ARGUMENT', /this statement is CREATE SEQUENCE/);
    expect(await head(c)).toBe(at);
  });

  it('ADD COLUMN with a default DuckDB splits into several statements (DATE \'…\', true): the column added, old rows read as the default', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (id INTEGER)');
    await c.sql('INSERT INTO t VALUES (1)');
    await c.sql("ALTER TABLE t ADD COLUMN since DATE DEFAULT DATE '2026-01-05'");
    await c.sql('ALTER TABLE t ADD COLUMN vip BOOLEAN DEFAULT true');
    await c.sql("ALTER TABLE t ADD COLUMN IF NOT EXISTS stamp TIMESTAMP DEFAULT TIMESTAMP '2026-01-05 10:00:00'");
    expect(await columns(c, 'main', 't')).toEqual([
      { name: 'id', type: 'int32', nullable: true, default: null },
      { name: 'since', type: 'date', nullable: true, default: '2026-01-05' },
      { name: 'vip', type: 'boolean', nullable: true, default: 't' },
      { name: 'stamp', type: 'timestamp', nullable: true, default: '2026-01-05 10:00:00' },
    ]);
    expect((await c.sql('SELECT id, CAST(since AS VARCHAR) AS since, vip, CAST(stamp AS VARCHAR) AS stamp FROM t')).rows).toEqual([{ id: 1, since: '2026-01-05', vip: true, stamp: '2026-01-05 10:00:00' }]);
    const at = await head(c);
    // Not a constant, or more than the one ALTER: refused, nothing committed.
    await expectCode(c.sql('ALTER TABLE t ADD COLUMN seen TIMESTAMP DEFAULT now()'), 'INVALID_ARGUMENT', /constant/);
    await expectCode(c.sql("ALTER TABLE t ADD COLUMN d2 DATE DEFAULT DATE '2026-01-01'; DROP TABLE t"), 'INVALID_ARGUMENT', /one statement/);
    expect(await head(c)).toBe(at);
    expect((await c.verify()).violations).toEqual([]);
  });

  it('a view is one SELECT, checked by DuckDB\'s parser when created; stored text is never run, even by the mirror a write plans on', async () => {
    const dir = await tempDir();
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (x INTEGER)');
    const at = await head(c);
    const outside = path.join(dir, 'written-by-a-view.csv');
    const hostile = [
      `SELECT 1; COPY (SELECT 42) TO '${outside}'`,
      `COPY (SELECT 42) TO '${outside}'`,
      "SELECT 1; SET threads = 1; SET memory_limit = '50MB'",
      'INSERT INTO t VALUES (1)',
      'SELEC 1',
    ];
    for (const sql of hostile) await expectCode(c.transaction((tx) => tx.createView('main', 'v', sql)), 'INVALID_ARGUMENT', /one SELECT/);
    expect(await head(c)).toBe(at);
    // Another dialect's text is kept for the engines that speak it, and DuckDB never runs it: not when a write
    // builds the mirror of the head, not when a statement reads the view.
    const threads = (await c.sql("SELECT current_setting('threads') AS n")).rows[0]!.n;
    await c.transaction(async (tx) => {
      await tx.createView('main', 'other', `SELECT 1; COPY (SELECT 42) TO '${outside}'; SET threads = 1`, { dialect: 'spark' });
      await tx.createView('main', 'fine', 'SELECT x * 2 AS y FROM t');
    });
    await c.sql('INSERT INTO t VALUES (1), (2)');
    await c.sql('DELETE FROM t WHERE x = 1');
    await c.sql('UPDATE t SET x = 3 WHERE x = 2');
    await expect(access(outside)).rejects.toThrow(/ENOENT/);
    expect((await c.sql("SELECT current_setting('threads') AS n")).rows[0]!.n).toBe(threads);
    await expectCode(c.sql('SELECT * FROM other'), 'INVALID_ARGUMENT', /spark/);
    // A view is read by the parse it was stored as: its text as DuckDB prints it again.
    const fine = (await (await c.reader()).viewNamed('main', 'fine'))!;
    expect(fine.sql).toBe('SELECT x * 2 AS y FROM t');
    expect(JSON.parse(fine.definition!).statements).toHaveLength(1);
    expect((await c.sql('SELECT y FROM fine')).rows).toEqual([{ y: 6 }]);
    expect((await c.verify()).violations).toEqual([]);
  });
});
