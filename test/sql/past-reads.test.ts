// A statement that writes reading a table's past: INSERT INTO t SELECT … FROM t AT (VERSION => n), the
// restore a user writes in SQL, and CREATE TABLE … AS SELECT … AT: the rows are those a SELECT at that snapshot
// reads, row for row, whatever the statement's text holds besides (an AT spelled inside a string is data).
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/index.js';
import { expectCode, openCatalog } from '../helpers.js';

const rows = async (c: Catalog, sql: string, at?: number) => (await c.sql(sql, at === undefined ? {} : { at: { snapshot: at } })).rows;

async function history(): Promise<{ c: Catalog; before: number }> {
  const c = await openCatalog();
  await c.sql('CREATE TABLE orders (id BIGINT NOT NULL, status VARCHAR, amount DECIMAL(10,2))');
  await c.sql(`INSERT INTO orders VALUES (1, 'new', 10.00), (2, 'paid', 20.50), (3, 'new', NULL)`);
  const before = (await c.snapshots()).at(-1)!.id;
  await c.sql('DELETE FROM orders WHERE id = 1');
  await c.sql(`UPDATE orders SET status = 'lost' WHERE id = 3`);
  await c.sql('ALTER TABLE orders ADD COLUMN note VARCHAR');
  return { c, before };
}

describe('a write that reads a table AT a snapshot', () => {
  it('INSERT … SELECT … AT brings back the rows a mistaken DELETE took, as a SELECT at that snapshot reads them', async () => {
    const { c, before } = await history();
    const r = await c.sql(`INSERT INTO orders (id, status, amount) SELECT id, status, amount FROM orders AT (VERSION => ${before}) WHERE id NOT IN (SELECT id FROM orders)`);
    expect(r.rows).toEqual([{ Count: 1n }]);
    expect(await rows(c, 'SELECT id, status, amount, note FROM orders ORDER BY id')).toEqual([
      { id: 1n, status: 'new', amount: '10.00', note: null },
      { id: 2n, status: 'paid', amount: '20.50', note: null },
      { id: 3n, status: 'lost', amount: null, note: null },
    ]);
    // An alias, a join of the past with the present, and a time expression for the past.
    await c.sql(`INSERT INTO orders (id, status) SELECT was.id + 100, was.status || '>' || now.status FROM orders AS was AT (TIMESTAMP => now()) JOIN orders now USING (id) WHERE was.id = 3`);
    expect(await rows(c, 'SELECT status FROM orders WHERE id = 103')).toEqual([{ status: 'lost>lost' }]);
  });

  it('CREATE TABLE … AS SELECT … AT makes a table of the rows at that snapshot, in its columns then', async () => {
    const { c, before } = await history();
    await c.sql(`CREATE TABLE orders_then AS SELECT * FROM orders AT (VERSION => ${before})`);
    expect(await rows(c, 'SELECT * FROM orders_then ORDER BY id')).toEqual(await rows(c, 'SELECT * FROM orders ORDER BY id', before));
    expect((await c.sql('DESCRIBE orders_then')).rows.map((x) => x.column_name)).toEqual(['id', 'status', 'amount']);
  });

  it('an AT inside a string is data; a view or sql() at cannot read the past in a write; a snapshot that does not exist is said', async () => {
    const { c, before } = await history();
    await c.sql(`INSERT INTO orders (id, status) SELECT id + 10, 'AT (VERSION => ${before}) kept' FROM orders AT (VERSION => ${before}) WHERE id = 2`);
    expect(await rows(c, 'SELECT status FROM orders WHERE id = 12')).toEqual([{ status: `AT (VERSION => ${before}) kept` }]);
    await expectCode(c.sql(`CREATE VIEW v AS SELECT * FROM orders AT (VERSION => ${before})`), 'INVALID_ARGUMENT', /view definition reads the head/);
    await expectCode(c.sql('INSERT INTO orders (id) VALUES (9)', { at: { snapshot: before } }), 'INVALID_ARGUMENT', /leave at out/);
    await expectCode(c.sql('INSERT INTO orders SELECT * FROM orders AT (VERSION => 999)'), 'SNAPSHOT_NOT_FOUND', /snapshot 999 does not exist/);
    // An UPDATE reads at the head; the message says how to read the past there.
    await expectCode(c.sql(`DELETE FROM orders WHERE id IN (SELECT id FROM orders AT (VERSION => ${before}))`), 'INVALID_ARGUMENT', /make a table of the old rows first/);
    await expectCode(c.sql(`UPDATE orders SET status = 'x' WHERE id IN (SELECT id FROM orders AT (VERSION => ${before}))`), 'INVALID_ARGUMENT', /an UPDATE, DELETE, MERGE or view definition reads the head/);
  });
});
