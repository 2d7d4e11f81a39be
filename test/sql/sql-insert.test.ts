// INSERT through catalog.sql (docs/DESIGN.md §8): DuckDB plans the statement over a mirror of the head and runs it,
// the rows it inserted become real Parquet files of the target with field ids and statistics, one commit per
// statement; what DuckDB refuses (a NOT NULL, a value of the wrong type, an unknown table) commits nothing.
import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/index.js';
import { expectCode, openCatalog, tempDir } from '../helpers.js';
import { expectPointedAt } from '../support/pointed.js';

const rows = async (c: Catalog, sql: string) => (await c.sql(sql)).rows;
const head = async (c: Catalog) => (await c.snapshots()).at(-1)!.id;

async function people(dir?: string) {
  const c = await openCatalog(dir === undefined ? {} : { dir });
  await c.transaction(async (tx) => {
    await tx.createSchema('s');
    await tx.createTable('s', 'people', [
      { name: 'id', type: 'int64', nullable: false },
      { name: 'name', type: 'varchar' },
      { name: 'city', type: 'varchar', default: 'nowhere' },
    ]);
    await tx.createTable('s', 'moves', [
      { name: 'who', type: 'int64' },
      { name: 'to_city', type: 'varchar' },
    ]);
  });
  return c;
}

describe('INSERT through catalog.sql', () => {
  it('VALUES with and without a column list: one commit each, defaults applied, real Parquet with field ids and statistics', async () => {
    const dir = await tempDir();
    const c = await people(dir);
    const before = await head(c);
    const first = await c.sql(`INSERT INTO s.people VALUES (1, 'Ada', 'London'), (2, 'Grace', 'Arlington')`);
    expect(first.rows).toEqual([{ Count: 2n }]);
    expect(first.snapshot).toBe(before + 1);
    const second = await c.sql(`INSERT INTO s.people (name, id) VALUES ('Edsger', 3)`);
    expect(second.snapshot).toBe(before + 2);
    expect(await rows(c, 'SELECT id, name, city FROM s.people ORDER BY id')).toEqual([
      { id: 1n, name: 'Ada', city: 'London' },
      { id: 2n, name: 'Grace', city: 'Arlington' },
      { id: 3n, name: 'Edsger', city: 'nowhere' },
    ]);
    // The snapshot before the first INSERT has none of it.
    expect(await rows(c, `SELECT count(*) AS n FROM s.people AT (VERSION => ${before})`)).toEqual([{ n: 0n }]);

    // DuckDB reading the files directly agrees with the catalog: counts, field ids = column ids, statistics.
    const r = await c.reader();
    const table = await r.table('s', 'people');
    const files = await r.dataFiles('s', 'people');
    const stats = await r.columnStats('s', 'people', files);
    await r.close();
    expect(files.map((f) => f.recordCount)).toEqual([2, 1]);
    expect(files[1]!.rowIdStart).toBe(2);
    const db = await DuckDBInstance.create(':memory:');
    const k = await db.connect();
    try {
      for (const f of files) {
        const local = path.join(dir, 'store', c.dataPath, f.path);
        const [direct] = (await k.runAndReadAll(`SELECT count(*)::INTEGER AS n, min(id)::VARCHAR AS lo, max(id)::VARCHAR AS hi FROM read_parquet('${local}')`)).getRowObjectsJS();
        expect(direct!.n).toBe(f.recordCount);
        const idStats = stats.get(f.id)!.find((x) => x.columnId === table.columns.find((col) => col.name === 'id')!.id)!;
        expect([idStats.min, idStats.max]).toEqual([direct!.lo, direct!.hi]);
        const ids = (await k.runAndReadAll(`SELECT name, field_id::INTEGER AS id FROM parquet_schema('${local}') WHERE field_id IS NOT NULL ORDER BY id`)).getRowObjectsJS();
        expect(ids).toEqual(table.columns.map((col) => ({ name: col.name, id: col.id })));
      }
    } finally {
      k.closeSync();
      db.closeSync();
    }
  });

  it('SELECT from other tables, from a catalog view, from the target itself; RETURNING; no rows, no commit', async () => {
    const c = await people();
    await c.sql(`INSERT INTO s.people VALUES (1, 'Ada', 'London'), (2, 'Grace', 'Arlington'), (3, 'Edsger', 'Nuenen')`);
    await c.sql(`INSERT INTO s.moves SELECT id, 'Austin' FROM s.people WHERE id > 2`);
    expect(await rows(c, 'SELECT who, to_city FROM s.moves')).toEqual([{ who: 3n, to_city: 'Austin' }]);
    await c.transaction((tx) => tx.createView('s', 'movers', 'SELECT p.name, m.to_city FROM s.people p JOIN s.moves m ON p.id = m.who'));
    // The view's rows go in; a table created since the last INSERT is in the mirror DuckDB plans against.
    await c.transaction((tx) => tx.createTable('s', 'log', [{ name: 'line', type: 'varchar' }]));
    await c.sql(`INSERT INTO s.log SELECT name || ' -> ' || to_city FROM s.movers`);
    expect(await rows(c, 'SELECT line FROM s.log')).toEqual([{ line: 'Edsger -> Austin' }]);
    // Reading its own target: the rows already there are read, and only the new ones are written.
    const doubled = await c.sql('INSERT INTO s.people SELECT id + 10, name, city FROM s.people');
    expect(doubled.rows).toEqual([{ Count: 3n }]);
    expect(await rows(c, 'SELECT count(*) AS n, sum(id) AS total FROM s.people')).toEqual([{ n: 6n, total: 42n }]);
    expect(await rows(c, `INSERT INTO s.moves VALUES (1, 'Cambridge') RETURNING who, to_city`)).toEqual([{ who: 1n, to_city: 'Cambridge' }]);
    const at = await head(c);
    const none = await c.sql('INSERT INTO s.people SELECT * FROM s.people WHERE false');
    expect([none.rows, none.snapshot, await head(c)]).toEqual([[{ Count: 0n }], at, at]);
  });

  it('a renamed column: new rows written under its id, old and new files read alike', async () => {
    const c = await people();
    await c.sql(`INSERT INTO s.people VALUES (1, 'Ada', 'London')`);
    await c.transaction((tx) => tx.renameColumn('s', 'people', 'city', 'town'));
    await c.sql(`INSERT INTO s.people (id, town) VALUES (2, 'Paris')`);
    expect(await rows(c, 'SELECT id, town FROM s.people ORDER BY id')).toEqual([
      { id: 1n, town: 'London' },
      { id: 2n, town: 'Paris' },
    ]);
  });

  it('refused, with nothing committed: NOT NULL, a wrong type, an unknown table, at, a statement the catalog does not run, read-only', async () => {
    const dir = await tempDir();
    const c = await people(dir);
    await c.sql(`INSERT INTO s.people VALUES (1, 'Ada', 'London')`);
    const at = await head(c);
    await expectCode(c.sql(`INSERT INTO s.people (name) VALUES ('nobody')`), 'INVALID_ARGUMENT', /NOT NULL/);
    await expectCode(c.sql(`INSERT INTO s.people VALUES ('one', 'x', 'y')`), 'INVALID_ARGUMENT', /convert/);
    await expectCode(c.sql(`INSERT INTO s.nobody VALUES (1)`), 'NOT_FOUND', /s\.people, s\.moves|s\.moves, s\.people/);
    // The source read at a snapshot where the table had no rows yet inserts none, and commits nothing (INSERT … SELECT … AT: test/sql/past-reads.test.ts).
    expect((await c.sql(`INSERT INTO s.people SELECT * FROM s.people AT (VERSION => 1)`)).rows).toEqual([{ Count: 0n }]);
    await expectCode(c.sql(`INSERT INTO s.people VALUES (2, 'b', 'c')`, { at: { snapshot: 1 } }), 'INVALID_ARGUMENT', /writes at the head/);
    await expectCode(c.sql('CREATE SEQUENCE s.seq'), 'INVALID_ARGUMENT', /CREATE SEQUENCE/);
    await expectCode(c.sql(`INSERT INTO s.people VALUES (2, 'b', 'c'); INSERT INTO s.people VALUES (3, 'b', 'c')`), 'INVALID_ARGUMENT', /one statement/);
    // A catalog opened read-only refuses before DuckDB writes a byte into the store.
    const stored = async () => (await readdir(path.join(dir, 'store'), { recursive: true })).sort();
    const objects = await stored();
    const { DirectoryStore } = await import('../../src/store/directory-store.js');
    const ro = await openCatalog({ dir: await tempDir(), store: new DirectoryStore(path.join(dir, 'store')), readOnly: true });
    await expectCode(ro.sql(`INSERT INTO s.people VALUES (2, 'b', 'c')`), 'READ_ONLY');
    expect(await stored()).toEqual(objects);
    expect(await head(c)).toBe(at);
    expect(await rows(c, 'SELECT count(*) AS n FROM s.people')).toEqual([{ n: 1n }]);
  });

  it('concurrent INSERTs into one table all commit, each its own snapshot', async () => {
    const c = await people();
    const results = await Promise.all(Array.from({ length: 4 }, (_x, i) => c.sql(`INSERT INTO s.people VALUES (${i}, 'p${i}', 'c${i}')`)));
    expect(new Set(results.map((r) => r.snapshot)).size).toBe(4);
    expect(await rows(c, 'SELECT count(*) AS n, count(DISTINCT id) AS ids FROM s.people')).toEqual([{ n: 4n, ids: 4n }]);
  });

  it('DECIMAL values keep every digit, in and out, in lists too', async () => {
    const c = await openCatalog();
    await c.transaction((tx) =>
      tx.createTable('main', 'money', [
        { name: 'amount', type: 'decimal(38,10)' },
        { name: 'parts', type: 'list', children: [{ name: 'element', type: 'decimal(18,2)' }] },
      ]),
    );
    await c.sql(`INSERT INTO money VALUES (1234567890123456789012345678.0123456789, [0.10, 0.20])`);
    expect((await c.sql('SELECT amount, parts, amount + 1 AS more FROM money')).rows).toEqual([
      { amount: '1234567890123456789012345678.0123456789', parts: ['0.10', '0.20'], more: '1234567890123456789012345679.0123456789' },
    ]);
    const batches: unknown[] = [];
    for await (const b of c.sqlBatches('SELECT amount FROM money')) batches.push(...b.rows);
    expect(batches).toEqual([{ amount: '1234567890123456789012345678.0123456789' }]);
  });

  it('a bind error in INSERT … SELECT points into the statement as written', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    await c.sql('CREATE TABLE orders (order_id BIGINT, amount DOUBLE)');
    await c.sql('INSERT INTO orders VALUES (1, 2.5)');
    const statement = 'INSERT INTO orders SELECT order_id + 10, amout FROM orders';
    await expectPointedAt(c.sql(statement), statement, 'amout', dir);
    expect((await c.snapshots()).length).toBe(3);
  });

  it('a statement that writes commits with the author and message given (every kind of write); a SELECT and tx.sql refuse them', async () => {
    const c = await people();
    const meta = { author: 'etl', message: 'nightly load' };
    const made = [
      await c.sql(`INSERT INTO s.people (id, name) VALUES (1, 'Ada')`, meta),
      await c.sql(`UPDATE s.people SET name = 'Ada L.' WHERE id = 1`, { author: 'dba' }),
      await c.sql('ALTER TABLE s.people ADD COLUMN age INTEGER', { message: 'ages' }),
      await c.sql('DELETE FROM s.people WHERE id = 1', meta),
    ].map((r) => r.snapshot);
    const history = new Map((await c.snapshots()).map((x) => [x.id, x]));
    expect(made.map((id) => [history.get(id!)!.author, history.get(id!)!.message])).toEqual([
      ['etl', 'nightly load'],
      ['dba', 'UPDATE s.people'],
      [null, 'ages'],
      ['etl', 'nightly load'],
    ]);
    const before = await head(c);
    await expectCode(c.sql('SELECT * FROM s.people', meta), 'INVALID_ARGUMENT', /a SELECT, which commits nothing/);
    await expectCode(c.transaction((tx) => tx.sql(`INSERT INTO s.people (id, name) VALUES (2, 'Bo')`, meta).then(() => undefined)), 'INVALID_ARGUMENT', /catalog\.transaction\(fn, \{ author, message \}\)/);
    await expectCode(c.sql(`INSERT INTO s.people (id, name) VALUES (2, 'Bo')`, { author: 7 } as never), 'INVALID_ARGUMENT', /author/);
    expect(await head(c)).toBe(before);
  });

  it('128-bit integers come back exactly, through INSERT, UPDATE and compaction; past ±(10^38 − 1) refused with nothing committed', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE w (h HUGEINT, u UHUGEINT, s STRUCT(x HUGEINT))');
    // DuckDB writes HUGEINT to Parquet as DOUBLE: 123456789012345678901234567890 came back rounded.
    await c.sql(`INSERT INTO w VALUES (-99999999999999999999999999999999999999, 99999999999999999999999999999999999999, {'x': 123456789012345678901234567890})`);
    await c.sql(`INSERT INTO w VALUES (123456789012345678901234567891, 2, NULL)`);
    await c.sql('UPDATE w SET u = u - 1 WHERE u > 2');
    await c.compact('main', 'w');
    const text = async () => (await c.sql('SELECT h::VARCHAR AS h, u::VARCHAR AS u, s::VARCHAR AS s FROM w ORDER BY h')).rows;
    expect(await text()).toEqual([
      { h: '-99999999999999999999999999999999999999', u: '99999999999999999999999999999999999998', s: "{'x': 123456789012345678901234567890}" },
      { h: '123456789012345678901234567891', u: '2', s: null },
    ]);
    const before = (await c.snapshots()).length;
    await expectCode(c.sql('INSERT INTO w VALUES (170141183460469231731687303715884105727, 1, NULL)'), 'INVALID_ARGUMENT', /beyond ±\(10\^38 − 1\)/);
    expect((await c.snapshots()).length).toBe(before);
    expect(await text()).toHaveLength(2);
  });
});
