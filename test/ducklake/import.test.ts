// An import is as strict as the API: a lake whose rows the API would refuse — as calls, or as the state they
// leave — is refused with a StrataError naming the row, and leaves nothing behind: no catalog, no directory,
// no object in a store it was pointed at. Each lake here is a real export of a real history, tampered with by
// plain SQL on its SQLite file (issue 42, "Import trusts every row").
import { cpSync, existsSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalog, type ErrorCode } from '../../src/index.js';
import { readAll } from '../helpers.js';
import { runCli } from '../support/run-cli.js';
import { type ExportedLake, exportedLake, listing, outcome, removeLake, tampered } from './lakes.js';

let lake: ExportedLake;
beforeAll(async () => {
  lake = await exportedLake();
}, 60_000);
afterAll(() => removeLake(lake));

let targets = 0;
const target = () => path.join(lake.root, `import-${++targets}`);

const newestLive = (table: string, column: string) => `(SELECT max(${column}) FROM ${table} WHERE end_snapshot IS NULL)`;
const columnOf = (name: string) => `(SELECT column_id FROM ducklake_column c2 WHERE c2.table_id = ducklake_column.table_id AND c2.column_name = '${name}' LIMIT 1)`;
const withoutKey = (table: string) => `CREATE TABLE x AS SELECT * FROM ${table}; DROP TABLE ${table}; ALTER TABLE x RENAME TO ${table};`;

/** [what the lake does, the SQL that makes it so, the code, what the message says]. */
const TAMPERED: [string, string, ErrorCode, RegExp][] = [
  ['counters behind the ids in use', 'UPDATE ducklake_snapshot SET next_catalog_id = 1, next_file_id = 0', 'INVALID_ARGUMENT', /next_catalog_id there is 1: every id in use is below it/],
  ['a delete file of a missing data file', 'UPDATE ducklake_delete_file SET data_file_id = 9999', 'INVALID_ARGUMENT', /its data file 9999 is not a data file of table/],
  [
    "a delete file of another table's data file",
    'UPDATE ducklake_delete_file SET data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file d WHERE d.table_id <> ducklake_delete_file.table_id)',
    'INVALID_ARGUMENT',
    /is not a data file of table|outside its data file's 2 rows/,
  ],
  ['a data file of a missing table', 'UPDATE ducklake_data_file SET table_id = 9999 WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file)', 'INVALID_ARGUMENT', /table 9999 does not exist at this snapshot/],
  ['a table in a missing schema', 'UPDATE ducklake_table SET schema_id = 9999', 'INVALID_ARGUMENT', /schema 9999, which does not exist/],
  [
    'a table id given to a second live table',
    "INSERT INTO ducklake_table SELECT table_id, table_uuid, begin_snapshot + 1, NULL, schema_id, table_name || '_again', path, path_is_relative FROM ducklake_table WHERE end_snapshot IS NULL AND table_name = 'orders2'",
    'INVALID_ARGUMENT',
    /while its version from snapshot \d+ is live \(two versions of one table overlap\)/,
  ],
  ['a version that ends where it begins', `UPDATE ducklake_data_file SET end_snapshot = begin_snapshot WHERE data_file_id = ${newestLive('ducklake_data_file', 'data_file_id')}`, 'INVALID_ARGUMENT', /a version ends after it begins/],
  ['a negative record count', 'UPDATE ducklake_data_file SET record_count = -5', 'INVALID_ARGUMENT', /record_count must be an integer >= 0, got -5/],
  ['a record count of 2^63 - 1', 'UPDATE ducklake_data_file SET record_count = 9223372036854775807', 'INVALID_ARGUMENT', /record_count must be an integer >= 0, got "9223372036854775807"/],
  ['a record count of 2^63', 'UPDATE ducklake_data_file SET record_count = 9223372036854775808', 'INVALID_ARGUMENT', /record_count must be an integer >= 0/],
  ['a column that is its own parent', "UPDATE ducklake_column SET parent_column = column_id WHERE column_name = 'status'", 'INVALID_ARGUMENT', /parents go round in a cycle/],
  [
    'two columns each the parent of the other',
    `UPDATE ducklake_column SET parent_column = CASE column_name WHEN 'status' THEN ${columnOf('amount')} ELSE ${columnOf('status')} END WHERE column_name IN ('status', 'amount')`,
    'INVALID_ARGUMENT',
    /parents go round in a cycle/,
  ],
  ['two columns with one name', "UPDATE ducklake_column SET column_name = 'id' WHERE column_name = 'status'", 'INVALID_ARGUMENT', /names column "id" twice/],
  [
    'a column id given to two live columns',
    "INSERT INTO ducklake_column SELECT column_id, begin_snapshot, NULL, table_id, column_order, column_name || '2', column_type, initial_default, default_value, nulls_allowed, parent_column, default_value_type, default_value_dialect FROM ducklake_column WHERE column_name = 'status' AND end_snapshot IS NULL",
    'INVALID_ARGUMENT',
    /two versions of column \d+ begin at snapshot/,
  ],
  ['a name a million characters long', "UPDATE ducklake_table SET table_name = printf('%.*c', 1000000, 'x')", 'INVALID_ARGUMENT', /table name is 1000000 characters long; the limit is 255/],
  ['an empty name', "UPDATE ducklake_table SET table_name = ''", 'INVALID_ARGUMENT', /table name must be a non-empty string without NUL characters/],
  ['a name with a NUL in it', "UPDATE ducklake_schema SET schema_name = 'sa' || char(0) || 'les' WHERE schema_name = 'sales'", 'INVALID_ARGUMENT', /schema name must be a non-empty string without NUL characters/],
  [
    'a lone surrogate in a name a commit says it read',
    `UPDATE strata_snapshot SET read_sources = '[{"schema":"\\ud800","table":"t","snapshot":1}]' WHERE snapshot_id = (SELECT max(snapshot_id) FROM strata_snapshot)`,
    'INVALID_ARGUMENT',
    /snapshot \d+: schema name must be a non-empty string/,
  ],
  [
    'one data file id with two versions',
    `${withoutKey('ducklake_data_file')} INSERT INTO ducklake_data_file SELECT * FROM ducklake_data_file WHERE data_file_id = ${newestLive('ducklake_data_file', 'data_file_id')}`,
    'INVALID_ARGUMENT',
    /two versions of data file \d+ begin at snapshot/,
  ],
  [
    'one data file id begun again while live',
    `${withoutKey('ducklake_data_file')} INSERT INTO ducklake_data_file SELECT data_file_id, table_id, begin_snapshot + 1, end_snapshot, file_order, path, path_is_relative, file_format, record_count, file_size_bytes, footer_size, row_id_start, partition_id, encryption_key, mapping_id, partial_max FROM ducklake_data_file WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file WHERE end_snapshot IS NULL)`,
    'INVALID_ARGUMENT',
    /a data file holds that id already/,
  ],
  [
    'two live schemas with one name',
    "UPDATE ducklake_snapshot SET next_catalog_id = next_catalog_id + 100; INSERT INTO ducklake_schema VALUES (90, '00000000-0000-4000-8000-000000000000', 1, NULL, 'sales', '', 1)",
    'INVALID_ARGUMENT',
    /is called "sales" too/,
  ],
  ['a schema dropped with its tables live', "UPDATE ducklake_schema SET end_snapshot = (SELECT max(snapshot_id) FROM ducklake_snapshot) WHERE schema_name = 'sales'", 'INVALID_ARGUMENT', /it is dropped here, but .*"orders2" in it stay live/],
  ['a negative size', 'UPDATE ducklake_data_file SET file_size_bytes = -1', 'INVALID_ARGUMENT', /file_size_bytes must be an integer >= 0, got -1/],
  ['a wrong CRC-32', 'UPDATE strata_file SET content_crc32 = 12345', 'INVALID_ARGUMENT', /which is not the file it records: the catalog records CRC-32 00003039/],
  ['a size that is not the file', 'UPDATE ducklake_data_file SET file_size_bytes = file_size_bytes + 1', 'INVALID_ARGUMENT', /which is not the file it records/],
  ['a record count that is not the file\'s', `UPDATE ducklake_data_file SET record_count = record_count + 1 WHERE data_file_id = ${newestLive('ducklake_data_file', 'data_file_id')}`, 'INVALID_ARGUMENT', /rows by its Parquet footer; the lake records/],
  ['a delete count that is not the file\'s', 'UPDATE ducklake_delete_file SET delete_count = delete_count + 1', 'INVALID_ARGUMENT', /positions; the lake records \d+ deletes/],
  ['a time that is not a time', "UPDATE ducklake_snapshot SET snapshot_time = 'yesterday' WHERE snapshot_id = 2", 'INVALID_ARGUMENT', /snapshot_time is "yesterday", not a timestamp/],
  ['a day that does not exist', "UPDATE ducklake_snapshot SET snapshot_time = '2026-02-30 00:00:00+00' WHERE snapshot_id = 2", 'INVALID_ARGUMENT', /not a real instant/],
  ['times that go back', "UPDATE ducklake_snapshot SET snapshot_time = '2001-01-01 00:00:00+00' WHERE snapshot_id = 3", 'INVALID_ARGUMENT', /Strata's snapshot times never go back/],
  ['read_sources that are not JSON', "UPDATE strata_snapshot SET read_sources = '{' WHERE snapshot_id = 2", 'INVALID_ARGUMENT', /read_sources "\{" is not JSON/],
  ['a type Strata does not know', "UPDATE ducklake_column SET column_type = 'frobnicate' WHERE column_name = 'status'", 'INVALID_ARGUMENT', /"frobnicate" is not a supported type/],
  ['a default computed per row', "UPDATE ducklake_column SET default_value = 'now()', default_value_type = 'expression' WHERE column_name = 'status'", 'INVALID_ARGUMENT', /constant defaults only/],
  ['retain-from past the newest snapshot', 'DELETE FROM strata_retention; INSERT INTO strata_retention VALUES (99)', 'INVALID_ARGUMENT', /retain-from 99 .*past the newest snapshot/],
  ['a tag of a snapshot that does not exist', "INSERT INTO strata_snapshot_tag VALUES ('x', 99, '2026-01-01 00:00:00+00')", 'SNAPSHOT_NOT_FOUND', /tag "x" .*snapshot 99 does not exist/],
  ['a tag with an empty name', "INSERT INTO strata_snapshot_tag VALUES ('', 1, '2026-01-01 00:00:00+00')", 'INVALID_ARGUMENT', /tag name must be a non-empty string/],
  ['a file read through a name mapping', `UPDATE ducklake_data_file SET mapping_id = 1 WHERE data_file_id = ${newestLive('ducklake_data_file', 'data_file_id')}`, 'INVALID_ARGUMENT', /name mapping 1 .*does not carry name mappings yet/],
  ['a partial file', `UPDATE ducklake_data_file SET partial_max = begin_snapshot + 1 WHERE data_file_id = ${newestLive('ducklake_data_file', 'data_file_id')}`, 'INVALID_ARGUMENT', /a partial file/],
  ['an encrypted file', "UPDATE ducklake_data_file SET encryption_key = 'k' WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file)", 'INVALID_ARGUMENT', /is encrypted/],
  ['a delete file in Puffin', "UPDATE ducklake_delete_file SET format = 'puffin'", 'INVALID_ARGUMENT', /positional delete files in Parquet/],
  ['a file outside the data path', "UPDATE ducklake_data_file SET path = '/etc/passwd', path_is_relative = 0 WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file)", 'INVALID_ARGUMENT', /outside the lake's data path/],
  ['a path that climbs out of the data path', "UPDATE ducklake_data_file SET path = '../../../etc/passwd' WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file)", 'INVALID_ARGUMENT', /is not a path relative to the data path/],
  ['a view with no SQL', "UPDATE ducklake_view SET sql = '   '", 'INVALID_ARGUMENT', /view "sales"."open_orders" needs its SQL text/],
  ['a version of DuckLake this import does not read', "UPDATE ducklake_metadata SET value = '0.3' WHERE key = 'version'", 'INVALID_ARGUMENT', /this import reads DuckLake 1.0/],
  ['an id past the counters of its snapshot', 'UPDATE ducklake_data_file SET data_file_id = data_file_id + 1000 WHERE data_file_id = (SELECT max(data_file_id) FROM ducklake_data_file)', 'INVALID_ARGUMENT', /next_file_id there is/],
];

describe('DuckLake import is as strict as the API', () => {
  it.each(TAMPERED)('refuses %s, naming it, and leaves nothing behind', async (_what, sql, code, message) => {
    const file = await tampered(lake, sql);
    const dir = target();
    const { error, report } = await outcome(file, { dir, copyFiles: true });
    expect(report, 'imported').toBeUndefined();
    expect(error!.code, error!.message).toBe(code);
    expect(error!.message).toMatch(message);
    expect(error!.message).toContain(file);
    expect(existsSync(dir), `${dir} is left behind`).toBe(false);
  });

  it("into a store that already holds the lake's files: a refusal leaves them as they were, and adds nothing", async () => {
    const store = path.join(lake.root, `store-${++targets}`);
    cpSync(lake.dataDir, path.join(store, 'data'), { recursive: true });
    const before = listing(store);
    const dir = target();
    // Late in the import: every snapshot is committed before the tag is found wrong.
    const file = await tampered(lake, "INSERT INTO strata_snapshot_tag VALUES ('late', 9999, '2026-01-01 00:00:00+00')");
    const { error } = await outcome(file, { dir, store: { path: store } });
    expect(error?.code).toBe('SNAPSHOT_NOT_FOUND');
    expect(listing(store)).toEqual(before);
    expect(existsSync(dir)).toBe(false);
    // The same lake untampered imports in place, reading the files where they are.
    const { report } = await outcome(lake.file, { dir, store: { path: store } });
    expect(report?.copiedFiles).toBe(0);
    const c = await Catalog.open({ dir, store: { path: store }, create: false });
    try {
      expect((await c.verify({ files: true })).violations).toEqual([]);
      expect((await c.sql('SELECT count(*) AS n FROM sales.orders2')).rows).toEqual([{ n: 22n }]);
    } finally {
      await c.close();
    }
  });

  it('strata import refuses a tampered lake with exit 1 and the error, and leaves no catalog directory', { timeout: 60_000 }, async () => {
    const file = await tampered(lake, 'UPDATE ducklake_snapshot SET next_catalog_id = 1, next_file_id = 0');
    const dir = target();
    const r = await runCli('import', '--dir', dir, '--from', file, '--copy-files');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^strata: INVALID_ARGUMENT: .*next_catalog_id there is 1/);
    expect(existsSync(dir)).toBe(false);
    const ok = await runCli('import', '--dir', dir, '--from', lake.file, '--copy-files');
    expect(ok.code, ok.stderr).toBe(0);
    expect((await runCli('verify', '--dir', dir, '--files')).code).toBe(0);
  });
});

/** Every (table, begin/end column) of a lake that names a snapshot, and the tables keyed by one. */
const SNAPSHOT_COLUMNS: [string, string][] = [
  ['ducklake_snapshot', 'snapshot_id'], ['ducklake_snapshot_changes', 'snapshot_id'], ['strata_snapshot', 'snapshot_id'],
  ['strata_snapshot_tag', 'snapshot_id'], ['strata_retention', 'retain_from'], ['ducklake_schema_versions', 'begin_snapshot'],
  ...['ducklake_schema', 'ducklake_table', 'ducklake_view', 'ducklake_column', 'ducklake_data_file', 'ducklake_delete_file'].flatMap((t): [string, string][] => [[t, 'begin_snapshot'], [t, 'end_snapshot']]),
];

/** SQL moving every snapshot id from `from` on up by `by`: a gap of `by` ids, as expiring them in DuckLake leaves. */
const gapAt = (from: number, by: number) => SNAPSHOT_COLUMNS.map(([t, c]) => `UPDATE ${t} SET ${c} = ${c} + ${by} WHERE ${c} >= ${from};`).join('\n');

describe('snapshot ids: the lake keeps them, and so does the import, gaps and all', () => {
  it('a gap of 10^12 ids imports in a few commits, not one per id; every snapshot the lake holds reads as before, and one in the gap does not exist', { timeout: 120_000 }, async () => {
    const G = 1_000_000_000_000;
    const K = 9;
    const file = await tampered(lake, gapAt(K, G));
    const dir = target();
    const started = Date.now();
    const { report, error } = await outcome(file, { dir, copyFiles: true });
    expect(error).toBeUndefined();
    const seconds = (Date.now() - started) / 1000;
    expect(seconds, `the import took ${seconds} s`).toBeLessThan(60);
    const source = await Catalog.open({ dir: lake.catalogDir, create: false });
    const imported = await Catalog.open({ dir, create: false });
    try {
      const original = await source.snapshots();
      expect(report!.head).toBe(original.at(-1)!.id + G);
      expect((await imported.snapshots()).map((s) => s.id)).toEqual(original.map((s) => (s.id >= K ? s.id + G : s.id)));
      // What a reader sees at each snapshot, its snapshot ids put back where the source has them.
      const back = (x: unknown) => JSON.parse(JSON.stringify(x, (k, v: unknown) => (/Snapshot$/.test(k) && typeof v === 'number' && v >= G ? v - G : v)));
      for (const s of original) {
        const at = s.id >= K ? s.id + G : s.id;
        expect(back((await readAll(imported, at)).schemas), `snapshot ${s.id}`).toEqual(back((await readAll(source, s.id)).schemas));
      }
      expect((await imported.sql(`SELECT count(*) AS n FROM sales.orders AT (VERSION => 'loaded')`)).rows).toEqual([{ n: 22n }]);
      const missing = await imported.reader({ snapshot: K + 5 }).catch((e: unknown) => e);
      expect(missing).toMatchObject({ code: 'SNAPSHOT_NOT_FOUND', nearest: [K - 1, K + G] });
      expect((await imported.verify({ files: true })).violations).toEqual([]);
      // Exported again, the lake keeps its ids (the export walks the ids that exist), and imports again.
      const again = path.join(lake.root, `again-${++targets}.sqlite`);
      expect((await imported.exportDuckLake(again)).head).toBe(report!.head);
      const second = await outcome(again, { dir: target(), copyFiles: true });
      expect(second.error).toBeUndefined();
      expect(second.report!.head).toBe(report!.head);
      // New commits go on from the lake's newest id.
      const { snapshot } = await imported.transaction((tx) => tx.createSchema('after'));
      expect(snapshot).toBe(report!.head + 1);
    } finally {
      await source.close();
      await imported.close();
    }
  });

  it('snapshots the lake expired come back from the rows that name them: below its first, excised again; in the middle, readable', { timeout: 120_000 }, async () => {
    const expired = [0, 1, 2, 3, 4, 5, 10];
    const forget = expired.map((id) => `DELETE FROM ducklake_snapshot WHERE snapshot_id = ${id}; DELETE FROM ducklake_snapshot_changes WHERE snapshot_id = ${id}; DELETE FROM strata_snapshot WHERE snapshot_id = ${id};`).join('\n');
    const file = await tampered(lake, `${forget} DELETE FROM strata_retention;`);
    const dir = target();
    const { report, error } = await outcome(file, { dir, copyFiles: true });
    expect(error).toBeUndefined();
    const source = await Catalog.open({ dir: lake.catalogDir, create: false });
    const imported = await Catalog.open({ dir, create: false });
    try {
      expect(report!.excised).toBeGreaterThan(0);
      expect(await imported.retainFrom()).toBe(6);
      for (const s of await source.snapshots()) {
        if (s.id < 6) {
          await expect(imported.reader({ snapshot: s.id })).rejects.toMatchObject({ code: 'OUT_OF_RETENTION' });
          continue;
        }
        expect((await readAll(imported, s.id)).schemas, `snapshot ${s.id}`).toEqual((await readAll(source, s.id)).schemas);
      }
      expect((await imported.snapshots()).find((s) => s.id === 10)?.message).toMatch(/rebuilt by the import/);
      expect((await imported.verify({ files: true })).violations).toEqual([]);
    } finally {
      await source.close();
      await imported.close();
    }
  });
});
