// Nested columns (struct, list, map) as DuckLake keeps them: a column whose fields are child columns with ids
// of their own, written by DuckDB with a Parquet field id on every level, read back by field id, with
// statistics for each leaf field.
import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { expectCode, openCatalog, tempDir } from '../helpers.js';
import { runCli } from '../support/run-cli.js';

async function duck<T>(fn: (run: (sql: string) => Promise<Record<string, unknown>[]>) => Promise<T>): Promise<T> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    return await fn(async (sql) => (await c.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[]);
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

const COLUMNS = [
  { name: 'id', type: 'int64' },
  { name: 'address', type: 'struct', children: [{ name: 'city', type: 'varchar' }, { name: 'zip', type: 'int32' }] },
  { name: 'tags', type: 'list', children: [{ name: 'element', type: 'varchar' }] },
  { name: 'scores', type: 'map', children: [{ name: 'key', type: 'varchar' }, { name: 'value', type: 'float64' }] },
];

describe('nested columns', () => {
  it('struct, list and map: ids on every level, written with field ids, read back, leaf statistics, renamed and added', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    await c.transaction((tx) => tx.createTable('main', 'people', COLUMNS));
    const table = await (await c.reader()).table('main', 'people');
    expect(table.columns.map((x) => [x.name, x.id, x.type, x.children?.map((k) => [k.name, k.id, k.type])])).toEqual([
      ['id', 1, 'int64', undefined],
      ['address', 2, 'struct', [['city', 3, 'varchar'], ['zip', 4, 'int32']]],
      ['tags', 5, 'list', [['element', 6, 'varchar']]],
      ['scores', 7, 'map', [['key', 8, 'varchar'], ['value', 9, 'float64']]],
    ]);

    await c.sql(`INSERT INTO people VALUES (1, {'city': 'London', 'zip': 10}, ['a', 'b'], MAP {'x': 1.5}), (2, NULL, [], MAP {})`);
    const read = await c.sql('SELECT id, address, address.city AS city, tags, len(tags) AS n, scores FROM people ORDER BY id');
    expect(read.rows).toEqual([
      { id: 1n, address: { city: 'London', zip: 10 }, city: 'London', tags: ['a', 'b'], n: 2n, scores: [{ key: 'x', value: 1.5 }] },
      { id: 2n, address: null, city: null, tags: [], n: 0n, scores: [] },
    ]);

    // The file: a field id on every level equal to the column's id; statistics for each leaf field.
    const r = await c.reader();
    const [file] = await r.dataFiles('main', 'people');
    const stats = (await r.columnStats('main', 'people', [file!])).get(file!.id)!;
    await r.close();
    const local = path.join(dir, 'store', c.dataPath, file!.path);
    const ids = await duck((run) => run(`SELECT name, field_id::INTEGER AS id FROM parquet_schema('${local}') WHERE field_id IS NOT NULL ORDER BY id`));
    expect(ids.map((x) => x.name)).toEqual(['id', 'address', 'city', 'zip', 'tags', 'element', 'scores', 'key', 'value']);
    expect(ids.map((x) => x.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const byId = new Map(stats.map((x) => [Number(x.columnId), x]));
    expect([byId.get(3)?.min, byId.get(3)?.max, byId.get(6)?.min, byId.get(6)?.max, byId.get(9)?.max]).toEqual(['London', 'London', 'a', 'b', '1.5']);
    expect(byId.has(2)).toBe(false); // a struct itself has no values of its own to bound

    // A rename reads the old file under the new name; a nested column added later reads as NULL in it.
    const before = (await c.snapshots()).at(-1)!.id;
    await c.transaction(async (tx) => {
      await tx.renameColumn('main', 'people', 'address', 'home');
      await tx.addColumn('main', 'people', { name: 'pets', type: 'list', children: [{ name: 'element', type: 'varchar' }] });
    });
    expect((await c.sql('SELECT home.city AS city, pets FROM people WHERE id = 1')).rows).toEqual([{ city: 'London', pets: null }]);
    await c.sql(`INSERT INTO people (id, pets) VALUES (3, ['cat'])`);
    expect((await c.sql('SELECT id, pets FROM people WHERE pets IS NOT NULL')).rows).toEqual([{ id: 3n, pets: ['cat'] }]);
    expect((await c.sql(`SELECT address.zip AS zip FROM people AT (VERSION => ${before}) WHERE id = 1`)).rows).toEqual([{ zip: 10 }]);

    // Dropping a nested column ends its fields with it.
    await c.transaction((tx) => tx.dropColumn('main', 'people', 'scores'));
    expect((await (await c.reader()).table('main', 'people')).columns.map((x) => x.name)).toEqual(['id', 'home', 'tags', 'pets']);
    expect((await c.verify()).violations).toEqual([]);
    // The command line shows a nested column's fields in its type.
    await c.close();
    const shown = await runCli('show', 'main.people', '--dir', dir);
    expect(shown.stdout).toMatch(/home\s+2\s+struct\(city varchar, zip int32\)/);
    expect(shown.stdout).toMatch(/tags\s+5\s+list\(varchar\)/);
  });

  it('a Parquet file with a struct column loads into a struct column', async () => {
    const dir = await tempDir();
    const source = path.join(dir, 'source.parquet');
    await duck((run) => run(`COPY (SELECT 7::BIGINT AS id, {'city': 'Paris', 'zip': 75} AS address) TO '${source}' (FORMAT parquet)`));
    const c = await openCatalog({ dir: path.join(dir, 'catalog') });
    await c.transaction((tx) => tx.createTable('main', 'people', COLUMNS.slice(0, 2)));
    await c.load('main', 'people', source);
    expect((await c.sql('SELECT address.city AS city FROM people')).rows).toEqual([{ city: 'Paris' }]);
    expect((await readdir(path.join(dir, 'catalog', 'store', c.dataPath, 'main', 'people'))).length).toBe(1);
  });

  it('refused: no children, misnamed or extra children, children on a primitive, a default, a changed type, a field named twice', async () => {
    const c = await openCatalog();
    const create = (columns: unknown) => c.transaction((tx) => tx.createTable('main', 't', columns as never));
    await expectCode(create([{ name: 's', type: 'struct' }]), 'INVALID_ARGUMENT', /children/);
    await expectCode(create([{ name: 'l', type: 'list', children: [{ name: 'item', type: 'int32' }] }]), 'INVALID_ARGUMENT', /element/);
    await expectCode(create([{ name: 'm', type: 'map', children: [{ name: 'key', type: 'int32' }] }]), 'INVALID_ARGUMENT', /key.*value/);
    await expectCode(create([{ name: 'x', type: 'int32', children: [{ name: 'a', type: 'int32' }] }]), 'INVALID_ARGUMENT', /no children/);
    await expectCode(create([{ name: 's', type: 'struct', default: '{}', children: [{ name: 'a', type: 'int32' }] }]), 'INVALID_ARGUMENT', /default/);
    await expectCode(create([{ name: 's', type: 'struct', children: [{ name: 'a', type: 'int32' }, { name: 'a', type: 'int32' }] }]), 'INVALID_ARGUMENT', /twice/);
    await expectCode(create([{ name: 's', type: 'struct', children: [{ name: 'a', type: 'no_such_type' }] }]), 'INVALID_ARGUMENT', /not a supported type/);
    await create([{ name: 's', type: 'struct', children: [{ name: 'a', type: 'int32' }] }, { name: 'a', type: 'int32' }]);
    await expectCode(c.transaction((tx) => tx.alterColumnType('main', 't', 's', 'int64')), 'INVALID_ARGUMENT', /does not change/);
    // A field's name is not a column name of the table: the table's own column "a" is the top-level one.
    await c.transaction((tx) => tx.renameColumn('main', 't', 'a', 'b'));
    expect((await (await c.reader()).table('main', 't')).columns.map((x) => [x.name, x.children?.map((k) => k.name)])).toEqual([
      ['s', ['a']],
      ['b', undefined],
    ]);
  });
});
