// A statement reaches the lake and nothing else (docs/DESIGN.md §8.1, decision 0030): DuckDB is confined to the
// lake's files and the catalog's scratch directory, a statement names no file unless its caller opted in to
// host files, a refused statement leaves nothing behind, and host files, once opted in, are read (loaded
// first) without the lake's engine ever reaching them. Everything on the real directory store, with real
// files on disk.
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/index.js';
import { expectCode, openCatalog, runTsx, tempDir } from '../helpers.js';

/** A catalog with one table of three rows, one of them deleted: sales.orders (id, note). */
async function lake(opts: Parameters<typeof openCatalog>[0] = {}): Promise<{ c: Catalog; dir: string }> {
  const dir = await tempDir();
  const c = await openCatalog({ dir, ...opts });
  await c.sql('CREATE SCHEMA sales');
  await c.sql('CREATE TABLE sales.orders (id BIGINT, note VARCHAR)');
  await c.sql(`INSERT INTO sales.orders VALUES (1, 'kept'), (2, 'secret'), (3, 'kept')`);
  await c.sql('DELETE FROM sales.orders WHERE id = 2');
  return { c, dir };
}

const dataDir = (dir: string, c: Catalog) => path.join(dir, 'store', c.dataPath);

describe('the sandbox: a statement reaches the lake and nothing else', () => {
  it('host files, the index and the log are refused to a SELECT, and nothing is read', async () => {
    const { c, dir } = await lake();
    for (const q of [
      `SELECT * FROM read_csv('/etc/passwd')`,
      `SELECT * FROM read_text('/etc/hostname')`,
      `SELECT * FROM read_blob('/etc/hostname')`,
      `SELECT * FROM glob('/')`,
      `SELECT * FROM glob('${dir}/index/*')`,
      `SELECT * FROM read_blob('${dir}/store/**')`,
      `SELECT * FROM query('SELECT * FROM read_csv(''/etc/passwd'')')`,
    ]) {
      await expectCode(c.sql(q), 'INVALID_ARGUMENT', /reads a file|does not run/);
    }
    // Functions that compute rows from their arguments still run.
    expect((await c.sql('SELECT count(*)::INT AS n FROM range(5) r, unnest([1, 2]) u')).rows).toEqual([{ n: 10 }]);
  });

  it("the store's own Parquet cannot be read past the catalog: a deleted row and a retired snapshot stay out of reach", async () => {
    const { c, dir } = await lake();
    const files = readdirSync(path.join(dataDir(dir, c), 'sales', 'orders')).map((f) => path.join(dataDir(dir, c), 'sales', 'orders', f));
    expect(files.length).toBe(2); // the data file and its delete file
    await c.advanceRetainFrom({ snapshot: (await c.snapshots()).at(-1)!.id });
    await expectCode(c.sql('SELECT * FROM sales.orders AT (VERSION => 3)'), 'OUT_OF_RETENTION');
    for (const q of [`SELECT * FROM read_parquet('${dataDir(dir, c)}**/*.parquet')`, `SELECT note FROM read_parquet('${files[0]}')`, `SELECT * FROM parquet_scan('${files[0]}')`, `SELECT * FROM parquet_metadata('${files[0]}')`]) {
      await expectCode(c.sql(q), 'INVALID_ARGUMENT');
    }
    // Nor by a view, nor inside a write.
    await c.transaction((tx) => tx.createView('sales', 'raw', `SELECT * FROM read_parquet('${dataDir(dir, c)}**/*.parquet')`));
    await expectCode(c.sql('SELECT * FROM sales.raw'), 'INVALID_ARGUMENT', /view sales\.raw calls read_parquet/);
    const before = (await c.snapshots()).length;
    await expectCode(c.sql(`INSERT INTO sales.orders SELECT * FROM read_parquet('${files[0]}')`), 'INVALID_ARGUMENT', /reads a file/);
    await expectCode(c.sql(`INSERT INTO sales.orders SELECT 9, content FROM read_text('/etc/hostname')`), 'INVALID_ARGUMENT', /reads a file/);
    expect((await c.snapshots()).length).toBe(before);
    expect((await c.sql('SELECT id, note FROM sales.orders ORDER BY id')).rows).toEqual([
      { id: 1n, note: 'kept' },
      { id: 3n, note: 'kept' },
    ]);
  });

  it("SHOW TABLES and SHOW ALL TABLES list the lake, never DuckDB's own catalog (where the engine keeps what it read); SHOW DATABASES is refused", async () => {
    const { c } = await lake();
    await c.sql('SELECT count(*) FROM sales.orders'); // its delete file's positions are kept in DuckDB now
    for (const q of ['SHOW DATABASES', 'SHOW TABLES FROM sales', 'SHOW TABLES FROM memory.main']) {
      await expectCode(c.sql(q), 'INVALID_ARGUMENT', /this SHOW lists DuckDB's own catalog, not the lake's.*reader\(\)\.tables\(schema\)/);
    }
    const r = await c.reader();
    const lakeTables = (await r.tables('sales')).map((t) => t.name).sort();
    await r.close();
    expect((await c.sql('SHOW TABLES')).rows).toEqual([]);
    expect((await c.sql('SELECT * FROM (SHOW TABLES)')).rows).toEqual([]);
    const all = (await c.sql('SELECT database, schema, name FROM (SHOW ALL TABLES) ORDER BY name')).rows;
    expect(all).toEqual(lakeTables.map((name) => ({ database: 'lake', schema: 'sales', name })));
    // DESCRIBE of a lake table or query is the lake's: it stays.
    expect((await c.sql('DESCRIBE sales.orders')).rows.map((r) => r.column_name)).toEqual(['id', 'note']);
  });

  it('a refused statement has no side effect: EXPORT, COPY TO, ATTACH, SET, PRAGMA, INSTALL, LOAD, profiling', async () => {
    const { c, dir } = await lake();
    const outside = await tempDir();
    const inLake = dataDir(dir, c);
    const statements = [
      `EXPORT DATABASE '${outside}/exported'`,
      `EXPORT DATABASE '${inLake}exported'`,
      `COPY sales.orders TO '${outside}/copy.csv'`,
      `COPY sales.orders TO '${inLake}copy.csv'`,
      `COPY (SELECT 1) TO '${outside}/copy.parquet'`,
      `ATTACH '${outside}/attached.db' AS other`,
      `ATTACH '${inLake}attached.db' AS other`,
      'SET threads = 1',
      `SET memory_limit = '10GB'`,
      'PRAGMA threads = 1',
      'INSTALL httpfs',
      'LOAD httpfs',
      'CALL enable_profiling()',
      'SELECT * FROM enable_profiling()',
      'SELECT * FROM enable_logging()',
    ];
    const settings = async () => (await c.sql(`SELECT current_setting('threads') AS t, current_setting('memory_limit') AS m, current_setting('enable_profiling') AS p`)).rows;
    const before = { snapshots: (await c.snapshots()).length, settings: await settings(), lake: readdirSync(inLake), outside: readdirSync(outside) };
    for (const q of statements) await expectCode(c.sql(q), 'INVALID_ARGUMENT');
    expect({ snapshots: (await c.snapshots()).length, settings: await settings(), lake: readdirSync(inLake), outside: readdirSync(outside) }).toEqual(before);
    expect(before.settings[0]!.p).not.toBe('query_tree');
  });

  it('CREATE SECRET, INSTALL and LOAD download nothing and write nothing under HOME (a process of its own, HOME a fresh directory)', async () => {
    const home = await tempDir();
    const { stdout } = await runTsx(new URL('../fixtures/sandbox-child.ts', import.meta.url), [path.join(home, 'lake'), home]);
    expect(stdout.trim().split('\n')).toEqual(['CREATE SECRET: INVALID_ARGUMENT', 'INSTALL: INVALID_ARGUMENT', 'LOAD: INVALID_ARGUMENT', 'CREATE SECRET persistent: INVALID_ARGUMENT']);
    expect(readdirSync(home)).toEqual(['lake']);
  });

  it("DuckDB's own configuration is locked and confined: no file outside the lake, the scratch directory as spill", async () => {
    const { c, dir } = await lake({ sql: { memoryLimit: 100 * 2 ** 20 } });
    const rows = (await c.sql(`SELECT current_setting('enable_external_access') AS e, current_setting('lock_configuration') AS l, current_setting('autoload_known_extensions') AS a, current_setting('autoinstall_known_extensions') AS i, current_setting('temp_directory') AS t, current_setting('memory_limit') AS m`)).rows;
    expect(rows).toEqual([{ e: false, l: true, a: false, i: false, t: path.join(dir, 'sql-scratch', 'spill'), m: '100.0 MiB' }]);
    const byDefault = await openCatalog();
    expect((await byDefault.sql(`SELECT current_setting('memory_limit') AS m`)).rows).toEqual([{ m: '192.0 MiB' }]);
  });
});

describe('host files, for a caller that opts in', () => {
  async function files(): Promise<{ csv: string; json: string; folder: string }> {
    const folder = await tempDir();
    const csv = path.join(folder, 'orders.csv');
    const json = path.join(folder, 'orders.json');
    await writeFile(csv, 'id,note\n7,from csv\n8,also csv\n');
    await writeFile(json, '[{"id": 9, "note": "from json"}]');
    return { csv, json, folder };
  }

  it('INSERT … SELECT FROM read_csv and read_json, SELECT from them, per call', async () => {
    const { c } = await lake();
    const { csv, json } = await files();
    await expectCode(c.sql(`INSERT INTO sales.orders SELECT * FROM read_csv('${csv}')`), 'INVALID_ARGUMENT', /hostFiles/);
    const inserted = await c.sql(`INSERT INTO sales.orders SELECT * FROM read_csv('${csv}')`, { hostFiles: true });
    expect(inserted.rows).toEqual([{ Count: 2n }]);
    await c.sql(`INSERT INTO sales.orders (note, id) SELECT note, id FROM read_json('${json}') WHERE id > 0`, { hostFiles: true });
    expect((await c.sql(`SELECT count(*)::INT AS n FROM read_csv('${csv}') JOIN sales.orders USING (id)`, { hostFiles: true })).rows).toEqual([{ n: 2 }]);
    expect((await c.sql('SELECT id, note FROM sales.orders ORDER BY id')).rows).toEqual([
      { id: 1n, note: 'kept' },
      { id: 3n, note: 'kept' },
      { id: 7n, note: 'from csv' },
      { id: 8n, note: 'also csv' },
      { id: 9n, note: 'from json' },
    ]);
    // A DELETE and an UPDATE can read one too.
    await c.sql(`DELETE FROM sales.orders WHERE id IN (SELECT id FROM read_csv('${csv}'))`, { hostFiles: true });
    await c.sql(`UPDATE sales.orders SET note = j.note || '!' FROM read_json('${json}') j WHERE orders.id = j.id`, { hostFiles: true });
    expect((await c.sql('SELECT id, note FROM sales.orders ORDER BY id')).rows).toEqual([
      { id: 1n, note: 'kept' },
      { id: 3n, note: 'kept' },
      { id: 9n, note: 'from json!' },
    ]);
    // Not in a view: a view reads the catalog.
    await expectCode(c.sql(`CREATE VIEW sales.v AS SELECT * FROM read_csv('${csv}')`, { hostFiles: true }), 'INVALID_ARGUMENT');
  });

  it("a process's first statement may load host rows: DuckDB starting does not clear the statement's scratch files", async () => {
    const c = await openCatalog();
    const { csv } = await files();
    await c.sql('CREATE TABLE t (id BIGINT, note VARCHAR)'); // DDL: planned, DuckDB's executor not yet started
    expect((await c.sql(`INSERT INTO t SELECT * FROM read_csv('${csv}')`, { hostFiles: true })).rows).toEqual([{ Count: 2n }]);
  });

  it('a list of directories: files under them are read, others are not, nor the lake, nor a missing file', async () => {
    const { c, dir } = await lake();
    const { csv, folder } = await files();
    const elsewhere = await tempDir();
    const other = path.join(elsewhere, 'other.csv');
    await writeFile(other, 'id,note\n1,x\n');
    expect((await c.sql(`SELECT count(*)::INT AS n FROM read_csv('${csv}')`, { hostFiles: [folder] })).rows).toEqual([{ n: 2 }]);
    await expectCode(c.sql(`SELECT * FROM read_csv('${other}')`, { hostFiles: [folder] }), 'INVALID_ARGUMENT', /not under the directories/);
    await expectCode(c.sql(`SELECT * FROM read_parquet('${dataDir(dir, c)}**/*.parquet')`, { hostFiles: [folder] }), 'INVALID_ARGUMENT', /not under the directories/);
    await expectCode(c.sql(`INSERT INTO sales.orders SELECT * FROM read_csv('${other}')`, { hostFiles: [folder] }), 'INVALID_ARGUMENT', /not under the directories/);
    await expectCode(c.sql(`SELECT * FROM read_csv('${folder}/missing.csv')`, { hostFiles: [folder] }), 'INVALID_ARGUMENT', /there is no file/);
    await expectCode(c.sql('SELECT 1', { hostFiles: 'yes' as never }), 'INVALID_ARGUMENT', /hostFiles/);
  });

  it('Catalog.open({ sql: { hostFiles } }) is the default for every call, which may turn it off', async () => {
    const { csv, folder } = await files();
    const { c } = await lake({ sql: { hostFiles: [folder] } });
    expect((await c.sql(`SELECT count(*)::INT AS n FROM read_csv('${csv}')`)).rows).toEqual([{ n: 2 }]);
    await expectCode(c.sql(`SELECT count(*) FROM read_csv('${csv}')`, { hostFiles: false }), 'INVALID_ARGUMENT', /hostFiles/);
    await expectCode(openCatalog({ sql: { hostFiles: 'all' as never } }), 'INVALID_ARGUMENT', /hostFiles/);
    await expectCode(openCatalog({ sql: { hostFiles: [] } }), 'INVALID_ARGUMENT', /hostFiles/);
    await expectCode(openCatalog({ sql: { memorylimit: 1 } as never }), 'INVALID_ARGUMENT', /did you mean "memoryLimit"/);
  });

  it("a load reads the file it is given and nothing else; the statement's scratch files are gone after it", async () => {
    const { c, dir } = await lake();
    const { csv } = await files();
    await mkdir(path.join(dir, 'sql-scratch', 'mine'), { recursive: true });
    await c.load('sales', 'orders', csv);
    expect((await c.sql('SELECT count(*)::INT AS n FROM sales.orders')).rows).toEqual([{ n: 4 }]);
    // Only what a statement of the engine left; a directory of somebody else's stays.
    expect(readdirSync(path.join(dir, 'sql-scratch')).sort()).toEqual(['mine', 'spill']);
    expect(existsSync(path.join(dir, 'sql-scratch', 'mine'))).toBe(true);
  });
});
