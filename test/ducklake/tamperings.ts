// Ways to tamper with a DuckLake lake's SQLite file, each with what an import must answer: issue 42's list
// ("Import trusts every row"), one by one in test/ducklake/import.test.ts and at random, mixed with random
// edits, in the import fuzzer (test/fuzz/import.fuzz.test.ts).
import type { ErrorCode } from '../../src/index.js';

const newestLive = (table: string, column: string) => `(SELECT max(${column}) FROM ${table} WHERE end_snapshot IS NULL)`;
const columnOf = (name: string) => `(SELECT column_id FROM ducklake_column c2 WHERE c2.table_id = ducklake_column.table_id AND c2.column_name = '${name}' LIMIT 1)`;
const withoutKey = (table: string) => `CREATE TABLE x AS SELECT * FROM ${table}; DROP TABLE ${table}; ALTER TABLE x RENAME TO ${table};`;

/** [what the lake does, the SQL that makes it so, the code, what the message says]. */
export const TAMPERED: [string, string, ErrorCode, RegExp][] = [
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
  [
    "a default outside its column's type (a double past int64's range, as a REAL in a text column)",
    "UPDATE ducklake_column SET initial_default = -9.2233720368547779e+18, default_value = -9.2233720368547779e+18 WHERE column_name = 'id'",
    'INVALID_ARGUMENT',
    /column "id" defaults to "-9\.2233720368547779e\+18", which is no value of type int64 \(Conversion Error: Could not convert/,
  ],
  ['a default that is no value of its column\'s type', "UPDATE ducklake_column SET initial_default = 'soon', default_value = 'soon' WHERE column_name = 'amount'", 'INVALID_ARGUMENT', /column "amount" defaults to "soon", which is no value of type decimal\(12,2\)/],
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
  ['a file read through a name mapping', `UPDATE ducklake_data_file SET mapping_id = 1 WHERE data_file_id = ${newestLive('ducklake_data_file', 'data_file_id')}`, 'INVALID_ARGUMENT', /names name mapping 1, which ducklake_column_mapping does not hold/],
  ['a partial file', `UPDATE ducklake_data_file SET partial_max = begin_snapshot + 1 WHERE data_file_id = ${newestLive('ducklake_data_file', 'data_file_id')}`, 'INVALID_ARGUMENT', /a partial file/],
  ['an encrypted file', "UPDATE ducklake_data_file SET encryption_key = 'k' WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file)", 'INVALID_ARGUMENT', /is encrypted/],
  ['a delete file in Puffin', "UPDATE ducklake_delete_file SET format = 'puffin'", 'INVALID_ARGUMENT', /positional delete files in Parquet/],
  ['a file outside the data path', "UPDATE ducklake_data_file SET path = '/etc/passwd', path_is_relative = 0 WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file)", 'INVALID_ARGUMENT', /outside the lake's data path/],
  ['a path that climbs out of the data path', "UPDATE ducklake_data_file SET path = '../../../etc/passwd' WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file)", 'INVALID_ARGUMENT', /is not a path relative to the data path/],
  ['a view with no SQL', "UPDATE ducklake_view SET sql = '   '", 'INVALID_ARGUMENT', /view "sales"."open_orders" needs its SQL text/],
  ['a version of DuckLake this import does not read', "UPDATE ducklake_metadata SET value = '0.3' WHERE key = 'version'", 'INVALID_ARGUMENT', /this import reads DuckLake 1.0/],
  ['an id past the counters of its snapshot', 'UPDATE ducklake_data_file SET data_file_id = data_file_id + 1000 WHERE data_file_id = (SELECT max(data_file_id) FROM ducklake_data_file)', 'INVALID_ARGUMENT', /next_file_id there is/],
];

/** Every (table, begin/end column) of a lake that names a snapshot, and the tables keyed by one. */
const SNAPSHOT_COLUMNS: [string, string][] = [
  ['ducklake_snapshot', 'snapshot_id'], ['ducklake_snapshot_changes', 'snapshot_id'], ['strata_snapshot', 'snapshot_id'],
  ['strata_snapshot_tag', 'snapshot_id'], ['strata_retention', 'retain_from'], ['ducklake_schema_versions', 'begin_snapshot'],
  ...['ducklake_schema', 'ducklake_table', 'ducklake_view', 'ducklake_column', 'ducklake_data_file', 'ducklake_delete_file'].flatMap((t): [string, string][] => [[t, 'begin_snapshot'], [t, 'end_snapshot']]),
];

/** SQL moving every snapshot id from `from` on up by `by`: a gap of `by` ids, as expiring them in DuckLake leaves. */
export const gapAt = (from: number, by: number) => SNAPSHOT_COLUMNS.map(([t, c]) => `UPDATE ${t} SET ${c} = ${c} + ${by} WHERE ${c} >= ${from};`).join('\n');

