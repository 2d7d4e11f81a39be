// The lakehouse story in SQL (docs/DESIGN.md §8): load real Parquet through DuckDB, change a customer's city with a
// positional delete file and an INSERT, tag the decision, and ask for the table as it was and the delta to
// now; then a column added, a column renamed, the table dropped, history retired. On the directory store,
// and on S3 through the local cache.
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/index.js';
import type { ObjectStore } from '../../src/store/object-store.js';
import { expectCode, openCatalog, tempDir } from '../helpers.js';
import { freshS3Store, s3Options } from '../store/s3-env.js';
import { expectPointedAt } from '../support/pointed.js';

async function csv(rows: string[]): Promise<string> {
  const file = path.join(await tempDir(), 'rows.csv');
  await writeFile(file, `${rows.join('\n')}\n`);
  return file;
}

/** Runs one query straight through DuckDB, past the catalog. */
async function duck(sql: string): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    return (await c.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

/** A positional delete file (DuckLake's file_path, pos) for the given rows of a data file, put in the store. */
/** A delete file of `positions` in data file `dataPath`, put in the store: its path and size, as addDeleteFile takes them. */
async function deleteFile(store: ObjectStore, c: Catalog, dataPath: string, positions: number[], name: string): Promise<{ path: string; fileSizeBytes: number }> {
  const local = path.join(await tempDir(), 'd.parquet');
  const rows = positions.map((p) => `SELECT '${dataPath}' AS file_path, ${p}::BIGINT AS pos`).join(' UNION ALL ');
  await duck(`COPY (${rows}) TO '${local}' (FORMAT parquet)`);
  const { readFile } = await import('node:fs/promises');
  const relative = `deletes/${name}.parquet`;
  const bytes = await readFile(local);
  await store.putIfAbsent(`${c.dataPath}${relative}`, bytes);
  return { path: relative, fileSizeBytes: bytes.length };
}

async function story(c: Catalog, store: ObjectStore, storeRoot: string | undefined) {
  await c.transaction(async (tx) => {
    await tx.createSchema('sales');
    await tx.createTable('sales', 'customers', [
      { name: 'id', type: 'int64', nullable: false },
      { name: 'name', type: 'varchar' },
      { name: 'city', type: 'varchar' },
    ]);
  });
  const loaded = await c.load('sales', 'customers', await csv(['id,name,city', '1,Ada,London', '2,Grace,Arlington', '3,Edsger,Nuenen']));
  expect(loaded).toMatchObject({ rows: 3, files: [{ recordCount: 3 }] });
  const [file] = (await (await c.reader()).dataFiles('sales', 'customers'));
  expect(file!.footerSize).toBeGreaterThan(0);

  // The file is real Parquet: DuckDB reading it directly agrees with the catalog, field ids = column ids.
  if (storeRoot !== undefined) {
    const local = path.join(storeRoot, c.dataPath, file!.path);
    expect(await duck(`SELECT count(*)::INTEGER AS n FROM read_parquet('${local}')`)).toEqual([{ n: file!.recordCount }]);
    const ids = await duck(`SELECT name, field_id::INTEGER AS id FROM parquet_schema('${local}') WHERE field_id IS NOT NULL ORDER BY id`);
    const table = await (await c.reader()).table('sales', 'customers');
    expect(ids).toEqual(table.columns.map((col) => ({ name: col.name, id: col.id })));
    // The statistics the catalog recorded are what DuckDB finds in the file.
    const [direct] = await duck(`SELECT min(id)::VARCHAR AS lo, max(id)::VARCHAR AS hi, min(name) AS nlo, max(name) AS nhi, count(*) - count(city) AS nulls FROM read_parquet('${local}')`);
    const r = await c.reader();
    const stats = (await r.columnStats('sales', 'customers', [file!])).get(file!.id)!;
    await r.close();
    const byId = new Map(stats.map((x) => [x.columnId, x]));
    const col = (n: string) => byId.get(table.columns.find((x) => x.name === n)!.id)!;
    expect([col('id').min, col('id').max, col('name').min, col('name').max, col('city').nullCount, col('id').valueCount]).toEqual([
      direct!.lo, direct!.hi, direct!.nlo, direct!.nhi, Number(direct!.nulls), 3,
    ]);
  }

  // Grace moves: her row (position 1 of the first file) is deleted, a new row written.
  const del = await deleteFile(store, c, file!.path, [1], 'grace-moves');
  await c.transaction((tx) => tx.addDeleteFile('sales', 'customers', { dataFileId: file!.id, ...del, deleteCount: 1 }));
  const moved = await c.sql(`INSERT INTO sales.customers VALUES (2, 'Grace', 'New York')`);
  expect(moved.rows).toEqual([{ Count: 1n }]);
  await c.createTag('before_move', loaded.snapshot!);

  const now = await c.sql('SELECT id, name, city FROM sales.customers ORDER BY id');
  expect(now.rows).toEqual([
    { id: 1n, name: 'Ada', city: 'London' },
    { id: 2n, name: 'Grace', city: 'New York' },
    { id: 3n, name: 'Edsger', city: 'Nuenen' },
  ]);
  expect(now.snapshot).toBe(moved.snapshot);
  expect(now.columns.map((x) => x.name)).toEqual(['id', 'name', 'city']);

  // The delta as an anti join, and as a full join on what changed.
  const gained = await c.sql(`SELECT id, city FROM sales.customers EXCEPT SELECT id, city FROM sales.customers AT (VERSION => 'before_move')`);
  expect(gained.rows).toEqual([{ id: 2n, city: 'New York' }]);
  const lost = await c.sql(`SELECT o.id, o.city FROM sales.customers AS o AT (VERSION => ${loaded.snapshot}) ANTI JOIN sales.customers n ON n.id = o.id AND n.city = o.city`);
  expect(lost.rows).toEqual([{ id: 2n, city: 'Arlington' }]);
  const delta = await c.sql(
    `SELECT coalesce(n.id, o.id) AS id, o.city AS was, n.city AS now FROM sales.customers n FULL JOIN sales.customers AS o AT (VERSION => 'before_move') ON n.id = o.id WHERE n.city IS DISTINCT FROM o.city`,
  );
  expect(delta.rows).toEqual([{ id: 2n, was: 'Arlington', now: 'New York' }]);
  // By time: the snapshot committed at or before it.
  const loadedAt = (await c.snapshots()).find((x) => x.id === loaded.snapshot)!.time.toISOString();
  expect((await c.sql(`SELECT city FROM sales.customers AT (TIMESTAMP => '${loadedAt}') WHERE id = 2`)).rows).toEqual([{ city: 'Arlington' }]);
  expect((await c.sql(`SELECT city FROM sales.customers AT (TIMESTAMP => TIMESTAMP '${loadedAt.replace('T', ' ').replace('Z', '')}') WHERE id = 2`)).snapshot).toBe(loaded.snapshot);
  // Statement-wide: every reference without AT reads the tag.
  expect((await c.sql('SELECT count(*) AS n FROM sales.customers WHERE city = $$Arlington$$', { at: { tag: 'before_move' } })).rows).toEqual([{ n: 1n }]);

  // A column added after the tag: absent there, NULL in the files written before it.
  await c.transaction((tx) => tx.addColumn('sales', 'customers', { name: 'tier', type: 'int32' }));
  expect((await c.sql('SELECT id, tier FROM sales.customers ORDER BY id')).rows).toEqual([
    { id: 1n, tier: null },
    { id: 2n, tier: null },
    { id: 3n, tier: null },
  ]);
  await expectCode(c.sql(`SELECT tier FROM sales.customers AT (VERSION => 'before_move')`), 'INVALID_ARGUMENT', /tier/);

  // A rename reads the old files under the new name; the old name is right at the tag.
  await c.transaction((tx) => tx.renameColumn('sales', 'customers', 'name', 'full_name'));
  expect((await c.sql('SELECT full_name FROM sales.customers WHERE id = 1')).rows).toEqual([{ full_name: 'Ada' }]);
  expect((await c.sql(`SELECT name FROM sales.customers AT (VERSION => 'before_move') WHERE id = 1`)).rows).toEqual([{ name: 'Ada' }]);

  // Writes in SQL on this store too: an UPDATE (its row keeps its id), a DELETE, a compaction that changes no row.
  const beforeWrites = (await c.snapshots()).at(-1)!.id;
  await c.sql('UPDATE sales.customers SET tier = 1 WHERE id = 1');
  await c.sql('DELETE FROM sales.customers WHERE id = 3');
  const changed = await c.tableChanges('sales', 'customers', { from: beforeWrites + 1, to: beforeWrites + 2 });
  expect(changed.rows.map((r) => [r.change_type, r.id])).toEqual([['update_preimage', 1n], ['update_postimage', 1n], ['delete', 3n]]);
  expect(new Set(changed.rows.slice(0, 2).map((r) => r.rowid)).size).toBe(1);
  const compacted = await c.compact('sales', 'customers');
  expect((await c.tableChanges('sales', 'customers', { from: compacted.snapshot!, to: compacted.snapshot! })).rows).toEqual([]);
  expect((await c.sql('SELECT id, full_name, tier FROM sales.customers ORDER BY id')).rows).toEqual([
    { id: 1n, full_name: 'Ada', tier: 1 },
    { id: 2n, full_name: 'Grace', tier: null },
  ]);

  // A dropped table is readable in the past.
  await c.transaction((tx) => tx.dropTable('sales', 'customers'));
  await expectCode(c.sql('SELECT * FROM sales.customers'), 'NOT_FOUND');
  expect((await c.sql(`SELECT count(*) AS n FROM sales.customers AT (VERSION => 'before_move')`)).rows).toEqual([{ n: 3n }]);

  // Below retain-from, untagged: OUT_OF_RETENTION, not a missing file.
  const head = (await c.snapshots()).at(-1)!.id;
  await c.advanceRetainFrom({ snapshot: head });
  await expectCode(c.sql(`SELECT * FROM sales.customers AT (VERSION => ${moved.snapshot})`), 'OUT_OF_RETENTION');
  expect((await c.sql(`SELECT count(*) AS n FROM sales.customers AT (VERSION => 'before_move')`)).rows).toEqual([{ n: 3n }]);
  // Excision takes the second file's row and its statistics; what the tag reads stays; verify finds nothing.
  await c.excise();
  expect((await c.sql(`SELECT count(*) AS n FROM sales.customers AT (VERSION => 'before_move')`)).rows).toEqual([{ n: 3n }]);
  expect((await c.verify()).violations).toEqual([]);
}

describe('SQL over any snapshot', () => {
  it('the story on the directory store: load, a delta between a tag and now, added, renamed, dropped, retired', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    const { DirectoryStore } = await import('../../src/store/directory-store.js');
    await story(c, new DirectoryStore(path.join(dir, 'store')), path.join(dir, 'store'));
  });

  const s3 = s3Options();
  it.skipIf(s3 === undefined)('the same story on S3, read through the local cache', async () => {
    const store = await freshS3Store(s3!);
    const c = await openCatalog({ dir: await tempDir(), store });
    await story(c, store, undefined);
  });

  it('a parse error, a statement other than SELECT, an unknown table and an AT that is no constant: INVALID_ARGUMENT or NOT_FOUND', async () => {
    const c = await openCatalog();
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int32' }]));
    await expectCode(c.sql('SELEC 1'), 'INVALID_ARGUMENT', /syntax error/);
    await expectCode(c.sql('CREATE SEQUENCE seq'), 'INVALID_ARGUMENT', /this statement is CREATE SEQUENCE/);
    await expectCode(c.sql('SELECT * FROM nope'), 'NOT_FOUND');
    await expectCode(c.sql('SELECT * FROM t AT (VERSION => 1 + 1)'), 'INVALID_ARGUMENT', /integer literal/);
    await expectCode(c.sql('SELECT * FROM t', { at: { snapshto: 1 } } as never), 'INVALID_ARGUMENT', /snapshto/);
    await expectCode(c.sql('SELECT 1; SELECT 2'), 'INVALID_ARGUMENT', /one statement/);
    // An empty table reads as no rows, with its columns; a WITH query is the statement's own; big constants survive.
    expect((await c.sql('SELECT * FROM t')).rows).toEqual([]);
    expect((await c.sql('WITH t AS (SELECT 9007199254740993::BIGINT AS x) SELECT x FROM t')).rows).toEqual([{ x: 9007199254740993n }]);
    // A catalog view reads as its statement, its tables at the view's snapshot; a view of itself is refused.
    await c.transaction(async (tx) => {
      await tx.createView('main', 'v', 'SELECT count(*) AS n FROM t');
      await tx.createView('main', 'loop', 'SELECT * FROM loop');
    });
    expect((await c.sql('SELECT n FROM v')).rows).toEqual([{ n: 0n }]);
    await expectCode(c.sql('SELECT * FROM loop'), 'INVALID_ARGUMENT', /levels of views/);
    // A file the catalog names that the store lacks: CORRUPT naming it, never an empty answer.
    await c.transaction((tx) => tx.addDataFile('main', 't', { path: 'lost.parquet', recordCount: 1, fileSizeBytes: 1 }));
    await expectCode(c.sql('SELECT * FROM t'), 'CORRUPT', /lost\.parquet/);
    // Column statistics given by an engine are checked like every argument.
    const spec = (columnStats: unknown) => ({ path: 'f.parquet', recordCount: 2, fileSizeBytes: 1, columnStats }) as never;
    for (const [bad, code] of [
      [[{ columnId: 99 }], 'NOT_FOUND'],
      [[{ columnId: 1, nullCount: 3 }], 'INVALID_ARGUMENT'],
      [[{ columnId: 1 }, { columnId: 1 }], 'INVALID_ARGUMENT'],
      [[{ columnId: 1, minimum: '0' }], 'INVALID_ARGUMENT'],
      ['x', 'INVALID_ARGUMENT'],
    ] as const) {
      await expectCode(c.transaction((tx) => tx.addDataFile('main', 't', spec(bad))), code);
    }
  });

  it('AT names a snapshot exactly or is refused: no decimal, boolean, sign or rolled-over date reads another snapshot', async () => {
    const c = await openCatalog();
    for (let i = 1; i <= 40; i++) await c.transaction((tx) => (i === 1 ? tx.createTable('main', 't', [{ name: 'x', type: 'int32' }]) : tx.addColumn('main', 't', { name: `c${i}`, type: 'int32' })));
    const columns = async (at: string) => (await c.sql(`SELECT * FROM t AT (${at})`)).columns.length;
    expect(await columns('VERSION => 3')).toBe(3);
    await c.createTag('q1', 4);
    expect(await columns("VERSION => 'q1'")).toBe(4);
    // Each of these read snapshot 30, 25, 4, or a tag named "t", before.
    for (const at of ['VERSION => 3.0', 'VERSION => 2.5', 'VERSION => 0.4', 'VERSION => true', 'VERSION => -1', 'VERSION => 1e1', 'VERSION => 3::BIGINT', 'VERSION => NULL', "VERSION => '3'", "VERSION => '2026-01-01'", 'VERSION => 99999999999999999999']) {
      await expectCode(c.sql(`SELECT * FROM t AT (${at})`), 'INVALID_ARGUMENT', /VERSION/);
    }
    for (const at of ["TIMESTAMP => '2026-02-30'", "TIMESTAMP => TIMESTAMP '2026-02-31 23:59'", "TIMESTAMP => '2026-01-01T24:00:00Z'", 'TIMESTAMP => 1700000000000', 'TIMESTAMP => x']) {
      await expectCode(c.sql(`SELECT * FROM t AT (${at})`), 'INVALID_ARGUMENT', /TIMESTAMP/);
    }
  });

  it('numbers JSON does not carry as DuckDB wrote them (1e400 is Infinity, 1e7 a whole double) in a SELECT, a WHERE and an INSERT', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE t (x DOUBLE)');
    expect((await c.sql('SELECT 1e400 AS big, -1e400 AS small')).rows).toEqual([{ big: Infinity, small: -Infinity }]);
    // A double literal stays a double: 1e7 came back to DuckDB's parser as an integer and was refused, 1.5e0
    // as the DECIMAL 1.5.
    const doubles = await c.sql('SELECT 1e7 AS d, 1.0e7::FLOAT AS f, -3e0 AS n, 1.5e0 AS h, 0.1e0 + 0.2e0 AS s');
    expect(doubles.rows).toEqual([{ d: 1e7, f: 1e7, n: -3, h: 1.5, s: 0.1 + 0.2 }]);
    expect(doubles.columns.map((x) => x.type)).toEqual(['DOUBLE', 'FLOAT', 'DOUBLE', 'DOUBLE', 'DOUBLE']);
    await c.sql('INSERT INTO t VALUES (1e400), (1.5)');
    expect((await c.sql('SELECT x FROM t WHERE x < 1e400')).rows).toEqual([{ x: 1.5 }]);
    expect((await c.sql('SELECT count(*) AS n FROM t WHERE x = 1e400')).rows).toEqual([{ n: 1n }]);
  });

  it('columns named like the ones DuckDB adds to a scan (filename, file_row_number) read as the table has them', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    await c.transaction(async (tx) => {
      await tx.createTable('main', 'files', [{ name: 'filename', type: 'varchar' }, { name: 'n', type: 'int32' }]);
      await tx.createTable('main', 'rows', [{ name: 'file_row_number', type: 'int64' }]);
    });
    await c.sql(`INSERT INTO files VALUES ('a.csv', 1), ('b.csv', 2)`);
    await c.sql('INSERT INTO rows VALUES (10), (11)');
    expect((await c.sql('SELECT file_row_number FROM rows ORDER BY 1')).rows).toEqual([{ file_row_number: 10n }, { file_row_number: 11n }]);
    // With a delete file, the scan adds the row's file under a name of its own: the table's filename stays the table's.
    const { DirectoryStore } = await import('../../src/store/directory-store.js');
    const store = new DirectoryStore(path.join(dir, 'store'));
    const [file] = await (await c.reader()).dataFiles('main', 'files');
    const del = await deleteFile(store, c, file!.path, [0], 'first-row');
    await c.transaction((tx) => tx.addDeleteFile('main', 'files', { dataFileId: file!.id, ...del, deleteCount: 1 }));
    expect((await c.sql('SELECT filename, n FROM files')).rows).toEqual([{ filename: 'b.csv', n: 2 }]);
  });

  it('a bind error points into the SELECT as written: the misspelled column under its caret, never the rewrite or a local path', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    await c.sql('CREATE SCHEMA sales');
    await c.sql('CREATE TABLE sales.orders (order_id BIGINT, amount DOUBLE)');
    await c.sql('INSERT INTO sales.orders VALUES (1, 2.5)');
    await expectPointedAt(c.sql('SELECT amout FROM sales.orders WHERE order_id > 0'), 'SELECT amout FROM sales.orders WHERE order_id > 0', 'amout', dir);
    await expectPointedAt(c.sql(`SELECT 'né', o.amout FROM sales.orders o`), `SELECT 'né', o.amout FROM sales.orders o`, 'amout', dir, 'o.amout');
    const streamed = async () => {
      for await (const _ of c.sqlBatches('SELECT order_id FROM sales.orders WHERE amout > 1')) void _;
    };
    await expectPointedAt(streamed(), 'SELECT order_id FROM sales.orders WHERE amout > 1', 'amout', dir);
  });
});
