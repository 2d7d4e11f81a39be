// The catalog as tables a statement reads and joins: DESCRIBE, SHOW TABLES and SHOW ALL TABLES answered from the
// lake with its NOT NULLs (compared with DuckDB over the same definitions in plain tables), snapshots(),
// table_info(), files() and tags() as DuckLake has them (compared with the API's own history, totals, files and
// tags), information_schema as DuckDB has it over the same definitions, each at the statement's
// snapshot — an `at`, or a transaction's state.
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/index.js';
import { changesMap } from '../../src/sql/catalog-relations.js';
import { expectCode, openCatalog } from '../helpers.js';

const DDL = [
  'CREATE SCHEMA s',
  "CREATE TABLE s.t (id INTEGER NOT NULL, name VARCHAR DEFAULT 'x', amount DECIMAL(10,2), tags VARCHAR[], point STRUCT(x DOUBLE, y DOUBLE))",
  'CREATE TABLE m (a BIGINT NOT NULL, b BOOLEAN)',
  'CREATE VIEW v AS SELECT a FROM m',
];

const ROWS = "INSERT INTO s.t (id, amount) VALUES (1, 2.50), (2, NULL)";

const plain = (rows: Record<string, unknown>[]) => JSON.parse(JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))) as unknown;

describe('the catalog as tables', () => {
  let c: Catalog;
  let db: DuckDBInstance;
  let k: DuckDBConnection;
  beforeEach(async () => {
    c = await openCatalog();
    for (const q of DDL) await c.sql(q);
    await c.sql(ROWS);
    db = await DuckDBInstance.create(':memory:');
    k = await db.connect();
    for (const q of [...DDL, ROWS]) await k.run(q);
  });
  // The catalog is closed by the helpers after each test.
  afterEach(() => {
    k.closeSync();
    db.closeSync();
  });
  const duck = async (sql: string) => plain((await k.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[]);
  const lake = async (sql: string, at?: number) => plain((await c.sql(sql, at === undefined ? {} : { at: { snapshot: at } })).rows);
  const head = async () => (await c.snapshots()).at(-1)!.id;

  it('DESCRIBE and SHOW of a table give its types and NOT NULLs as DuckDB does, and read at the statement\'s snapshot', async () => {
    for (const q of ['SELECT column_name, column_type, "null", key, extra FROM (DESCRIBE s.t)', 'SELECT column_name, column_type, "null" FROM (SHOW m)', 'SELECT column_name, "null" FROM (DESCRIBE s.t) WHERE "null" = \'NO\'']) {
      expect(await lake(q), q).toEqual(await duck(q));
    }
    // The default is the catalog's, shown as DuckDB shows it.
    const dflt = "SELECT \"default\" FROM (DESCRIBE s.t) WHERE column_name = 'name'";
    expect(await lake(dflt)).toEqual(await duck(dflt));
    expect(await lake(dflt)).toEqual([{ default: "'x'" }]);
    const typed = "CREATE TABLE d (a INTEGER DEFAULT 5, b DOUBLE DEFAULT 1.5, c BOOLEAN DEFAULT true, e DECIMAL(9,2) DEFAULT 12.50, f VARCHAR DEFAULT 'it''s', g BIGINT DEFAULT -7)";
    await c.sql(typed);
    await k.run(typed);
    const defaults = 'SELECT column_name, "default" FROM (DESCRIBE d)';
    expect(await lake(defaults)).toEqual(await duck(defaults));
    // A float default reads as one value whether a row was written before the column or after: its text cast
    // to the float, never a decimal literal rounded on the way.
    await c.sql('CREATE TABLE g (id INTEGER)');
    await c.sql('INSERT INTO g VALUES (1)');
    await c.sql('ALTER TABLE g ADD COLUMN x FLOAT DEFAULT 16777217.5');
    await c.sql('ALTER TABLE g ADD COLUMN y DOUBLE DEFAULT 0.1000000000000000055511151231257827');
    // A DECIMAL constant past 18 digits is a 128-bit integer in DuckDB's plan, negative ones too.
    await c.sql('ALTER TABLE g ADD COLUMN z DECIMAL(38,37) DEFAULT -0.1000000000000000055511151231257827');
    await c.sql('INSERT INTO g (id) VALUES (2)');
    expect(await lake('SELECT count(DISTINCT x) AS xs, count(DISTINCT y) AS ys, min(y) AS y, count(DISTINCT z) AS zs, CAST(min(z) AS VARCHAR) AS z FROM g')).toEqual([
      { xs: 1, ys: 1, y: 0.1, zs: 1, z: '-0.1000000000000000055511151231257827000' },
    ]);
    const before = await head();
    await c.sql('ALTER TABLE s.t ADD COLUMN extra INTEGER');
    expect((await lake('DESCRIBE s.t')) as unknown[]).toHaveLength(6);
    expect((await lake('DESCRIBE s.t', before)) as unknown[]).toHaveLength(5);
  });

  it('SHOW TABLES and SHOW ALL TABLES list the lake as DuckDB lists the same definitions', async () => {
    expect(await lake('SHOW TABLES')).toEqual(await duck('SHOW TABLES'));
    const all = 'SELECT schema, name, column_names, column_types, temporary FROM (SHOW ALL TABLES) ORDER BY schema, name';
    expect(await lake(all)).toEqual(await duck(all.replace('(SHOW ALL TABLES)', "(SHOW ALL TABLES) WHERE database = 'memory'")));
    expect(await lake('SELECT DISTINCT database FROM (SHOW ALL TABLES)')).toEqual([{ database: 'lake' }]);
    // At the first snapshot, no table yet.
    expect(await lake('SHOW ALL TABLES', 0)).toEqual([]);
  });

  it('snapshots() is the history the API gives, DuckLake\'s changes by kind, cut at the statement\'s snapshot, joinable', async () => {
    const history = await c.snapshots();
    const rows = (await c.sql<{ snapshot_id: bigint; snapshot_time: string; schema_version: bigint; changes: { key: string; value: string[] }[]; commit_message: string | null }>(
      'SELECT * FROM snapshots() ORDER BY snapshot_id',
    )).rows;
    expect(rows.map((r) => Number(r.snapshot_id))).toEqual(history.map((s) => s.id));
    expect(rows.map((r) => new Date(r.snapshot_time.replace(' ', 'T').replace(/\+00$/, 'Z')).getTime())).toEqual(history.map((s) => s.time.getTime()));
    expect(rows.map((r) => Number(r.schema_version))).toEqual(history.map((s) => s.schemaVersion));
    expect(rows.map((r) => r.commit_message)).toEqual(history.map((s) => s.message));
    const r = await c.reader();
    const tableId = (await r.table('s', 't')).id;
    await r.close();
    expect(rows.map((r) => r.changes)).toEqual([
      [{ key: 'schemas_created', value: ['main'] }],
      [{ key: 'schemas_created', value: ['s'] }],
      [{ key: 'tables_created', value: ['s.t'] }],
      [{ key: 'tables_created', value: ['main.m'] }],
      [{ key: 'views_created', value: ['main.v'] }],
      [{ key: 'tables_inserted_into', value: [String(tableId)] }],
    ]);
    expect(await lake('SELECT count(*) AS n FROM snapshots()', 2)).toEqual([{ n: 3 }]);
    expect(await lake("SELECT s.snapshot_id FROM snapshots() s JOIN (SELECT 2 AS id) x ON s.snapshot_id = x.id")).toEqual([{ snapshot_id: 2 }]);
    await c.transaction(async (tx) => {
      await tx.sql('INSERT INTO m VALUES (1, true)');
      // The transaction's own commit is not a snapshot yet.
      expect(plain((await tx.sql('SELECT max(snapshot_id) AS n FROM snapshots()')).rows)).toEqual([{ n: rows.length - 1 }]);
    });
  });

  it('table_info() gives each table\'s files and bytes as the API\'s totals do, at the statement\'s snapshot', async () => {
    const before = await head();
    await c.sql('DELETE FROM s.t WHERE id = 2');
    const r = await c.reader();
    const totals = await r.tableTotals('s', 't');
    const t = await r.table('s', 't');
    await r.close();
    expect(await lake("SELECT table_name, table_id, table_uuid::VARCHAR AS uuid, file_count, file_size_bytes, delete_file_count, delete_file_size_bytes FROM table_info() WHERE table_name = 't'")).toEqual([
      { table_name: 't', table_id: t.id, uuid: t.uuid, file_count: totals.dataFiles, file_size_bytes: totals.dataBytes, delete_file_count: totals.deleteFiles, delete_file_size_bytes: totals.deleteBytes },
    ]);
    expect(totals.deleteFiles).toBe(1);
    expect(await lake("SELECT delete_file_count FROM table_info() WHERE table_name = 't'", before)).toEqual([{ delete_file_count: 0 }]);
    expect(await lake('SELECT table_name FROM table_info() ORDER BY table_name')).toEqual([{ table_name: 'm' }, { table_name: 't' }]);
  });

  it('tags() lists the tags naming the statement\'s snapshot or one before it, as the API has them, joinable with snapshots()', async () => {
    const now = await head();
    await c.createTag('q1', 2);
    await c.createTag('today', now);
    const api = new Map((await c.tags()).map((t) => [t.name, t]));
    const rows = (await c.sql<{ tag_name: string; snapshot_id: bigint; created_at: string }>('SELECT * FROM tags() ORDER BY tag_name')).rows;
    expect(rows.map((r) => [r.tag_name, Number(r.snapshot_id), new Date(r.created_at.replace(' ', 'T').replace(/\+00$/, 'Z')).getTime()])).toEqual(
      ['q1', 'today'].map((n) => [n, api.get(n)!.snapshot, api.get(n)!.createdAt.getTime()]),
    );
    // At an older snapshot, only the tag that names it or one before it.
    expect(await lake('SELECT tag_name FROM tags()', 3)).toEqual([{ tag_name: 'q1' }]);
    expect(await lake('SELECT t.tag_name, s.schema_version FROM tags() t JOIN snapshots() s USING (snapshot_id) ORDER BY 1')).toEqual([
      { tag_name: 'q1', schema_version: (await c.snapshots())[2]!.schemaVersion },
      { tag_name: 'today', schema_version: (await c.snapshots()).at(-1)!.schemaVersion },
    ]);
    await c.dropTag('today');
    expect(await lake('SELECT tag_name FROM tags()')).toEqual([{ tag_name: 'q1' }]);
  });

  it('information_schema.schemata, .tables and .columns list the lake as DuckDB lists the same definitions, at the statement\'s snapshot', async () => {
    const cols = (where: string) =>
      `SELECT table_schema, table_name, column_name, ordinal_position, column_default, is_nullable, data_type FROM information_schema.columns WHERE ${where}table_schema IN ('main', 's') ORDER BY table_schema, table_name, ordinal_position`;
    expect(await lake(cols(''))).toEqual(await duck(cols("table_catalog = 'memory' AND ")));
    const tables = (where: string) => `SELECT table_schema, table_name, table_type FROM information_schema.tables WHERE ${where} ORDER BY 1, 2`;
    expect(await lake(tables("table_schema IN ('main', 's')"))).toEqual(await duck(tables("table_catalog = 'memory' AND table_schema IN ('main', 's')")));
    expect(await lake("SELECT schema_name FROM information_schema.schemata WHERE schema_name IN ('main', 's') ORDER BY 1")).toEqual([{ schema_name: 'main' }, { schema_name: 's' }]);
    expect(await lake('SELECT DISTINCT table_catalog FROM information_schema.tables')).toEqual([{ table_catalog: 'lake' }]);
    // At the first snapshot, no table yet; joined with a lake table, one snapshot.
    expect(await lake("SELECT count(*) AS n FROM information_schema.tables WHERE table_schema IN ('main', 's')", 0)).toEqual([{ n: 0 }]);
    expect(await lake("SELECT t.table_name, count(m.a) AS n FROM information_schema.tables t LEFT JOIN m ON true WHERE t.table_name = 'm' GROUP BY 1")).toEqual([{ table_name: 'm', n: 0 }]);
    await expectCode(c.sql('SELECT * FROM information_schema.key_column_usage'), 'NOT_FOUND', /has information_schema\.schemata, \.tables and \.columns/);
  });

  it('CREATE TABLE … AS and INSERT … SELECT read the catalog relations: the rows the same SELECT reads, one commit each', async () => {
    const query = "SELECT snapshot_id, map_keys(changes) AS kinds, commit_message FROM snapshots() WHERE snapshot_id > 0";
    const expected = await lake(`${query} ORDER BY snapshot_id`);
    const before = await head();
    await c.sql(`CREATE TABLE main.history AS ${query}`);
    expect(await head()).toBe(before + 1);
    expect(await lake('SELECT * FROM main.history ORDER BY snapshot_id')).toEqual(expected);
    await c.sql('CREATE TABLE main.audit (snapshot_id BIGINT, change_type VARCHAR, id INTEGER)');
    const r = await c.sql(`INSERT INTO main.audit SELECT snapshot_id, change_type, id FROM table_changes('s.t', 0, ${before}) WHERE change_type = $1`, { params: ['insert'] });
    expect(r.rows).toEqual([{ Count: 2n }]);
    expect(await lake('SELECT id FROM main.audit ORDER BY id')).toEqual([{ id: 1 }, { id: 2 }]);
    await c.sql("INSERT INTO main.audit (snapshot_id, change_type) SELECT snapshot_id, 'tagged ' || tag_name FROM tags()");
    await c.sql("CREATE TABLE main.listing AS SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema = 's'");
    expect(await lake('SELECT table_name FROM main.listing')).toEqual([{ table_name: 't' }]);
    await expectCode(c.sql('CREATE OR REPLACE TABLE main.history AS SELECT * FROM snapshots()'), 'INVALID_ARGUMENT', /CREATE TABLE a new one from the query, then DROP the old one/);
  });

  it("files('s.t') lists the table's data files at the statement's snapshot with their delete files, as the API does", async () => {
    const before = await head();
    await c.sql('INSERT INTO s.t (id) VALUES (3)');
    await c.sql('DELETE FROM s.t WHERE id = 2');
    const r = await c.reader();
    const [data, deletes] = [await r.dataFiles('s', 't'), await r.deleteFiles('s', 't')];
    await r.close();
    const rows = await lake("SELECT data_file_id, data_file, record_count, row_id_start, data_file_size_bytes, delete_file_id, delete_file, delete_count FROM files('s.t') ORDER BY data_file_id");
    expect(rows).toEqual(
      data.map((f) => {
        const d = deletes.find((x) => x.dataFileId === f.id);
        return { data_file_id: f.id, data_file: f.path, record_count: f.recordCount, row_id_start: f.rowIdStart, data_file_size_bytes: f.fileSizeBytes, delete_file_id: d?.id ?? null, delete_file: d?.path ?? null, delete_count: d?.deleteCount ?? null };
      }),
    );
    expect(deletes).toHaveLength(1);
    expect(await lake("SELECT count(*) AS n, count(delete_file) AS d FROM files('s.t')", before)).toEqual([{ n: 1, d: 0 }]);
    expect(await lake("SELECT count(*) AS n FROM files('m')")).toEqual([{ n: 0 }]);
    await expectCode(c.sql('SELECT * FROM files()'), 'INVALID_ARGUMENT', /files\('schema\.table'\) takes the table as a string/);
    await expectCode(c.sql("SELECT * FROM files('s.nope')"), 'NOT_FOUND', /nope/);
  });

  it('refused: a SHOW of DuckDB\'s own catalog, arguments to a catalog function, DESCRIBE of what the lake does not hold', async () => {
    await expectCode(c.sql('SHOW DATABASES'), 'INVALID_ARGUMENT', /SHOW TABLES, SHOW ALL TABLES and DESCRIBE schema\.table answer from the lake/);
    await expectCode(c.sql('SELECT * FROM snapshots(1)'), 'INVALID_ARGUMENT', /snapshots\(\) takes no arguments/);
    for (const q of ['DESCRIBE s.nothing', 'DESCRIBE information_schema.tables', 'DESCRIBE pg_catalog.pg_class']) await expectCode(c.sql(q), 'NOT_FOUND');
  });

  it('a view that reads a catalog relation is refused when it is made, in SQL and by the API, and nothing is committed', async () => {
    const head = (await c.snapshots()).at(-1)!.id;
    for (const q of [
      'CREATE VIEW history AS SELECT * FROM snapshots()',
      "CREATE OR REPLACE VIEW feed AS SELECT * FROM table_changes('s.t', 1, 2)",
      'CREATE VIEW names AS SELECT table_name FROM information_schema.tables',
      'CREATE VIEW listed AS SELECT * FROM (SHOW TABLES)',
      '/* made by a tool */ CREATE VIEW commented AS SELECT * FROM snapshots()',
    ]) {
      await expectCode(c.sql(q), 'INVALID_ARGUMENT', /a view cannot read the catalog's own relations/);
    }
    await expectCode(c.transaction((tx) => tx.createView('main', 'v', "SELECT * FROM files('s.t')")), 'INVALID_ARGUMENT', /view "main"\."v" cannot read the catalog's own relations/);
    expect((await c.snapshots()).at(-1)!.id).toBe(head);
  });

  it('SUMMARIZE, and DESCRIBE of a WITH name or a query, are DuckDB\'s over what they read', async () => {
    for (const q of ['SELECT column_name, count, null_percentage::VARCHAR AS nulls FROM (SUMMARIZE s.t)', "WITH t AS (SELECT 1.5 AS q) SELECT column_name, column_type FROM (DESCRIBE t)", 'SELECT column_name, column_type FROM (DESCRIBE SELECT id, amount * 2 AS x FROM s.t)']) {
      expect(await lake(q), q).toEqual(await duck(q));
    }
  });

  it('SHOW TABLES lists a view whose table is gone, as DuckDB does', async () => {
    await c.sql('CREATE TABLE gone (x INTEGER)');
    await c.transaction((tx) => tx.createView('main', 'orphan', 'SELECT x FROM gone'));
    await c.sql('DROP TABLE gone');
    expect(await lake('SHOW TABLES')).toEqual([{ name: 'm' }, { name: 'orphan' }, { name: 'v' }]);
  });

  it('a statement reads one snapshot in all its catalog relations and tables, while commits land beside it', async () => {
    let going = true;
    const writer = (async () => {
      for (let i = 0; going; i++) await c.sql(`INSERT INTO m VALUES (${i}, true)`);
    })();
    try {
      for (let i = 0; i < 25; i++) {
        const r = await c.sql<{ a: bigint; b: bigint; n: bigint; files: bigint }>(
          "SELECT (SELECT max(snapshot_id) FROM snapshots()) AS a, (SELECT max(snapshot_id) FROM snapshots()) AS b, (SELECT count(*) FROM m) AS n, (SELECT file_count FROM table_info() WHERE table_name = 'm') AS files",
        );
        const row = r.rows[0]!;
        expect(row.a).toBe(row.b);
        expect(Number(row.a)).toBe(r.snapshot);
        // Each insert is one row in one file: the table and table_info() read the same snapshot.
        expect(row.n).toBe(row.files);
      }
    } finally {
      going = false;
      await writer;
    }
    const only = await c.sql('SELECT max(snapshot_id) AS m FROM snapshots()');
    expect(only.snapshot).toBe(await head());
  });

  it("inside a transaction DESCRIBE, SHOW and table_info() read the transaction's state, snapshots() the committed history", async () => {
    await c.transaction(async (tx) => {
      await tx.sql('INSERT INTO m VALUES (1, true)');
      await tx.sql('CREATE TABLE s.u (k INTEGER)');
      expect(plain((await tx.sql("SELECT table_name, file_count FROM table_info() ORDER BY table_name")).rows)).toEqual([
        { table_name: 'm', file_count: 1 },
        { table_name: 't', file_count: 1 },
        { table_name: 'u', file_count: 0 },
      ]);
      expect(plain((await tx.sql('SELECT column_name FROM (DESCRIBE s.u)')).rows)).toEqual([{ column_name: 'k' }]);
      expect(plain((await tx.sql('SELECT count(*) AS n FROM (SHOW ALL TABLES)')).rows)).toEqual([{ n: 4 }]);
    });
  });

  it('names with quotes and dots come out of snapshots()\' changes whole', async () => {
    await c.sql('CREATE TABLE s."we""ird.na me" (x INTEGER)');
    expect(await lake('SELECT changes FROM snapshots() ORDER BY snapshot_id DESC LIMIT 1')).toEqual([{ changes: [{ key: 'tables_created', value: ['s.we"ird.na me'] }] }]);
  });
});

describe("snapshots()'s changes", () => {
  it('name every kind of change by its DuckLake key, names unquoted, ids as text, kinds it does not know as written', () => {
    expect(
      changesMap([
        'created_schema:"s"',
        `created_table:${['s', 'a "b".c'].map((x) => JSON.stringify(x)).join('.')}`,
        'created_view:"main"."v"',
        'inserted_into_table:3',
        'inserted_into_table:4',
        'deleted_from_table:3',
        'compacted_table:3',
        'altered_table:5',
        'dropped_table:6',
        'dropped_view:7',
        'dropped_schema:2',
        'restored_table:3',
        'something_new:9',
      ]),
    ).toEqual({
      schemas_created: ['s'],
      tables_created: ['s.a "b".c'],
      views_created: ['main.v'],
      tables_inserted_into: ['3', '4'],
      tables_deleted_from: ['3'],
      tables_compacted: ['3'],
      tables_altered: ['5'],
      tables_dropped: ['6'],
      views_dropped: ['7'],
      schemas_dropped: ['2'],
      tables_restored: ['3'],
      something_new: ['9'],
    });
  });
});
