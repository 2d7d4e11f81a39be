// Bound parameters (`sql(q, { params })`): DuckDB binds each value to the statement it runs, positional ($1, ?)
// and named ($name), in reads, writes, streams and transactions; the answers compared with DuckDB running the
// same prepared statement over the same rows in plain tables. A value is never text of the statement, and what
// cannot be bound is refused with nothing committed.
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import type { Catalog } from '../../src/index.js';
import { boundParams } from '../../src/sql/params.js';
import { expectCode, openCatalog } from '../helpers.js';

const SOURCE = 'CREATE TABLE s.items (id BIGINT, name VARCHAR, price DOUBLE, stamp TIMESTAMPTZ, data BLOB, ok BOOLEAN)';
const ROWS = [
  `INSERT INTO s.items VALUES (1, 'plain', 1.5, TIMESTAMPTZ '2026-01-01 00:00:00+00', '\\x01\\x02'::BLOB, true), (2, 'it''s', 2.5, TIMESTAMPTZ '2026-06-01 12:00:00+00', NULL, false)`,
  // A second statement: a second data file, so that file skipping has something to skip.
  `INSERT INTO s.items VALUES (3, 'x''; DROP TABLE s.items; --', 100, NULL, '\\xff'::BLOB, NULL)`,
];

const plain = (rows: Record<string, unknown>[]) => JSON.parse(JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))) as unknown;

describe('bound parameters', () => {
  let c: Catalog;
  let db: DuckDBInstance;
  let k: DuckDBConnection;
  beforeEach(async () => {
    c = await openCatalog();
    await c.sql('CREATE SCHEMA s');
    await c.sql(SOURCE);
    for (const q of ROWS) await c.sql(q);
    db = await DuckDBInstance.create(':memory:');
    k = await db.connect();
    await k.run('CREATE SCHEMA s');
    await k.run(SOURCE);
    for (const q of ROWS) await k.run(q);
  });
  // The catalog is closed by the helpers after each test.
  afterEach(() => {
    k.closeSync();
    db.closeSync();
  });

  /** The lake's answer to a read with `params` equals DuckDB's to the same prepared statement. */
  const sameAsDuckDb = async (sql: string, params: Parameters<typeof boundParams>[0]) => {
    const lake = await c.sql(sql, { params: params as never });
    const duck = await k.runAndReadAll(sql, boundParams(params));
    expect(plain(lake.rows)).toEqual(plain(duck.getRowObjectsJS() as Record<string, unknown>[]));
    return lake;
  };

  it('reads with values of every kind, positional and named, equal to DuckDB', async () => {
    await sameAsDuckDb('SELECT id, name FROM s.items WHERE name = $1 ORDER BY id', ["it's"]);
    await sameAsDuckDb('SELECT id FROM s.items WHERE name = ? OR id = ? ORDER BY id', ["x'; DROP TABLE s.items; --", 1]);
    await sameAsDuckDb('SELECT id FROM s.items WHERE price > $lo AND price < $hi ORDER BY id', { lo: 1.75, hi: 200 });
    await sameAsDuckDb('SELECT id FROM s.items WHERE id >= $1 ORDER BY id', [2n]);
    await sameAsDuckDb('SELECT id FROM s.items WHERE ok = $1 ORDER BY id', [false]);
    await sameAsDuckDb('SELECT id FROM s.items WHERE stamp < $1 ORDER BY id', [new Date('2026-03-01T00:00:00Z')]);
    await sameAsDuckDb('SELECT id FROM s.items WHERE data = $1 ORDER BY id', [new Uint8Array([0xff])]);
    await sameAsDuckDb('SELECT $1 IS NULL AS n, $2 AS same', [null, 'kept']);
    // The string that reads as SQL was a value: the table is all there.
    expect((await c.sql('SELECT count(*) AS n FROM s.items')).rows).toEqual([{ n: 3n }]);
  });

  it('rows typed as the caller says they are', async () => {
    const r = await c.sql<{ id: bigint; name: string | null }>('SELECT id, name FROM s.items WHERE id = $1', { params: [1] });
    expectTypeOf(r.rows).toEqualTypeOf<{ id: bigint; name: string | null }[]>();
    expect(r.rows).toEqual([{ id: 1n, name: 'plain' }]);
    for await (const b of c.sqlBatches<{ n: bigint }>('SELECT count(*) AS n FROM s.items')) expectTypeOf(b.rows).toEqualTypeOf<{ n: bigint }[]>();
    await c.transaction(async (tx) => {
      expectTypeOf((await tx.sql<{ name: string }>('SELECT name FROM s.items')).rows).toEqualTypeOf<{ name: string }[]>();
    });
  });

  it('a WHERE on a parameter skips no file it needs: the rows of each file found', async () => {
    for (const id of [1, 3]) {
      const r = await sameAsDuckDb('SELECT id, name FROM s.items WHERE id = $1', [id]);
      expect(r.rows).toHaveLength(1);
    }
  });

  it('streams and transactions bind the same', async () => {
    const batches = [];
    for await (const b of c.sqlBatches('SELECT id FROM s.items WHERE id <> $1 ORDER BY id', { params: [2] })) batches.push(...b.rows);
    expect(batches).toEqual([{ id: 1n }, { id: 3n }]);
    await c.transaction(async (tx) => {
      await tx.sql('INSERT INTO s.items (id, name) VALUES ($1, $2)', { params: [10, 'in a transaction'] });
      expect((await tx.sql('SELECT name FROM s.items WHERE id = $id', { params: { id: 10 } })).rows).toEqual([{ name: 'in a transaction' }]);
    });
    expect((await c.sql('SELECT name FROM s.items WHERE id = 10')).rows).toEqual([{ name: 'in a transaction' }]);
  });

  it('INSERT, UPDATE, DELETE and CREATE TABLE … AS bind theirs, one commit each, as DuckDB does', async () => {
    const writes: [string, Parameters<typeof boundParams>[0]][] = [
      ['INSERT INTO s.items VALUES ($1, $2, $3, $4, $5, $6)', [4, "O'Brien", 9.75, new Date('2026-02-02T02:02:02Z'), new Uint8Array([0, 1]), true]],
      ['UPDATE s.items SET price = $price WHERE name = $name', { price: 0.5, name: "it's" }],
      ['DELETE FROM s.items WHERE id = ?', [1]],
      ['CREATE TABLE s.cheap AS SELECT id, name FROM s.items WHERE price < $1', [5]],
    ];
    for (const [sql, params] of writes) {
      const before = (await c.snapshots()).at(-1)!.id;
      expect((await c.sql(sql, { params: params as never })).snapshot).toBe(before + 1);
      await k.run(sql, boundParams(params));
    }
    // Times and bytes as text: the lake gives exact values (DuckDB's own text of a TIMESTAMPTZ), the node API a Date.
    await sameAsDuckDb(`SELECT id, name, price, epoch_ms(stamp) AS stamp, hex(data) AS data, ok FROM s.items ORDER BY id`, []);
    await sameAsDuckDb('SELECT * FROM s.cheap ORDER BY id', []);
  });

  it('a parameter inside an expression binds once given its type; without one it is refused saying so, nothing committed', async () => {
    const before = (await c.snapshots()).at(-1)!.id;
    for (const sql of ['UPDATE s.items SET price = price + $1 WHERE id = 1', 'INSERT INTO s.items (id, name) VALUES ($1 + 1, upper($2))', 'DELETE FROM s.items WHERE id > $1 + 1', 'CREATE TABLE s.p AS SELECT $1 + 1 AS x']) {
      await expectCode(c.sql(sql, { params: [1, 'x'].slice(0, sql.includes('$2') ? 2 : 1) }), 'INVALID_ARGUMENT', /give each such parameter its type: \$1::BIGINT/);
    }
    expect((await c.snapshots()).at(-1)!.id).toBe(before);
    const writes: [string, Parameters<typeof boundParams>[0]][] = [
      ['UPDATE s.items SET price = price + $1::DOUBLE WHERE id = $2', [0.25, 1]],
      ['INSERT INTO s.items (id, name) VALUES ($1::BIGINT + 1, upper($2::VARCHAR))', [6, 'lower']],
      ['DELETE FROM s.items WHERE id > $1::BIGINT + 1', [5]],
      ['CREATE TABLE s.p AS SELECT $1::INTEGER + 1 AS x', [41]],
    ];
    for (const [sql, params] of writes) {
      await c.sql(sql, { params: params as never });
      await k.run(sql, boundParams(params));
    }
    await sameAsDuckDb('SELECT id, name, price FROM s.items ORDER BY id', []);
    await sameAsDuckDb('SELECT x FROM s.p', []);
  });

  it('refused with nothing committed: a value missing, a value of no bindable kind, params of the wrong shape, params on a definition', async () => {
    const before = (await c.snapshots()).at(-1)!.id;
    await expectCode(c.sql('INSERT INTO s.items (id, name) VALUES ($1, $2)', { params: [5] }), 'INVALID_ARGUMENT');
    await expectCode(c.sql('SELECT * FROM s.items WHERE id = $1', { params: [{ id: 1 }] as never }), 'INVALID_ARGUMENT', /\$1 is an object.*cast them/);
    await expectCode(c.sql('SELECT * FROM s.items WHERE id = $1', { params: [undefined] as never }), 'INVALID_ARGUMENT', /\$1 is undefined/);
    await expectCode(c.sql('SELECT * FROM s.items WHERE id = $1', { params: new Map([['1', 1]]) as never }), 'INVALID_ARGUMENT', /array.*plain object/);
    await expectCode(c.sql('SELECT * FROM s.items WHERE id = $1', { params: [new Date(Number.NaN)] }), 'INVALID_ARGUMENT', /invalid Date/);
    await expectCode(c.sql('CREATE TABLE s.other (a INTEGER)', { params: [] }), 'INVALID_ARGUMENT', /definition/);
    await expectCode(c.sql('ALTER TABLE s.items ADD COLUMN extra INTEGER DEFAULT 1 + 1', { params: [1] }), 'INVALID_ARGUMENT', /definition/);
    expect((await c.snapshots()).at(-1)!.id).toBe(before);
  });
});
