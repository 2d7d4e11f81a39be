// DuckLake 1.0's catalog tables as its SQLite catalog creates them (the specification's "Full Schema Creation
// Script", which DuckLake's metadata manager runs through DuckDB's SQLite extension), and the few tables Strata
// adds beside them for what DuckLake has no column for. DuckLake reads only its own tables, so a lake
// exported here opens in DuckLake, and a Strata import finds its own additions when they are there.

/** The version DuckLake writes into ducklake_metadata for this schema. */
export const DUCKLAKE_VERSION = '1.0';

type Columns = readonly (readonly [name: string, type: string])[];

const B = 'BIGINT';
const V = 'VARCHAR';
const BOOL = 'BOOLEAN';
const TZ = 'TIMESTAMPTZ';

/** Every ducklake_* table of the 1.0 specification, its columns in order, with their declared types. */
export const DUCKLAKE_TABLES: Readonly<Record<string, Columns>> = {
  ducklake_metadata: [['key', V], ['value', V], ['scope', V], ['scope_id', B]],
  ducklake_snapshot: [['snapshot_id', B], ['snapshot_time', TZ], ['schema_version', B], ['next_catalog_id', B], ['next_file_id', B]],
  ducklake_snapshot_changes: [['snapshot_id', B], ['changes_made', V], ['author', V], ['commit_message', V], ['commit_extra_info', V]],
  ducklake_schema: [['schema_id', B], ['schema_uuid', 'UUID'], ['begin_snapshot', B], ['end_snapshot', B], ['schema_name', V], ['path', V], ['path_is_relative', BOOL]],
  ducklake_table: [['table_id', B], ['table_uuid', 'UUID'], ['begin_snapshot', B], ['end_snapshot', B], ['schema_id', B], ['table_name', V], ['path', V], ['path_is_relative', BOOL]],
  ducklake_view: [['view_id', B], ['view_uuid', 'UUID'], ['begin_snapshot', B], ['end_snapshot', B], ['schema_id', B], ['view_name', V], ['dialect', V], ['sql', V], ['column_aliases', V]],
  ducklake_tag: [['object_id', B], ['begin_snapshot', B], ['end_snapshot', B], ['key', V], ['value', V]],
  ducklake_column_tag: [['table_id', B], ['column_id', B], ['begin_snapshot', B], ['end_snapshot', B], ['key', V], ['value', V]],
  ducklake_data_file: [
    ['data_file_id', B], ['table_id', B], ['begin_snapshot', B], ['end_snapshot', B], ['file_order', B], ['path', V], ['path_is_relative', BOOL],
    ['file_format', V], ['record_count', B], ['file_size_bytes', B], ['footer_size', B], ['row_id_start', B], ['partition_id', B],
    ['encryption_key', V], ['mapping_id', B], ['partial_max', B],
  ],
  ducklake_file_column_stats: [
    ['data_file_id', B], ['table_id', B], ['column_id', B], ['column_size_bytes', B], ['value_count', B], ['null_count', B],
    ['min_value', V], ['max_value', V], ['contains_nan', BOOL], ['extra_stats', V],
  ],
  ducklake_file_variant_stats: [
    ['data_file_id', B], ['table_id', B], ['column_id', B], ['variant_path', V], ['shredded_type', V], ['column_size_bytes', B],
    ['value_count', B], ['null_count', B], ['min_value', V], ['max_value', V], ['contains_nan', BOOL], ['extra_stats', V],
  ],
  ducklake_delete_file: [
    ['delete_file_id', B], ['table_id', B], ['begin_snapshot', B], ['end_snapshot', B], ['data_file_id', B], ['path', V], ['path_is_relative', BOOL],
    ['format', V], ['delete_count', B], ['file_size_bytes', B], ['footer_size', B], ['encryption_key', V], ['partial_max', B],
  ],
  ducklake_column: [
    ['column_id', B], ['begin_snapshot', B], ['end_snapshot', B], ['table_id', B], ['column_order', B], ['column_name', V], ['column_type', V],
    ['initial_default', V], ['default_value', V], ['nulls_allowed', BOOL], ['parent_column', B], ['default_value_type', V], ['default_value_dialect', V],
  ],
  ducklake_table_stats: [['table_id', B], ['record_count', B], ['next_row_id', B], ['file_size_bytes', B]],
  ducklake_table_column_stats: [['table_id', B], ['column_id', B], ['contains_null', BOOL], ['contains_nan', BOOL], ['min_value', V], ['max_value', V], ['extra_stats', V]],
  ducklake_partition_info: [['partition_id', B], ['table_id', B], ['begin_snapshot', B], ['end_snapshot', B]],
  ducklake_partition_column: [['partition_id', B], ['table_id', B], ['partition_key_index', B], ['column_id', B], ['transform', V]],
  ducklake_file_partition_value: [['data_file_id', B], ['table_id', B], ['partition_key_index', B], ['partition_value', V]],
  ducklake_files_scheduled_for_deletion: [['data_file_id', B], ['path', V], ['path_is_relative', BOOL], ['schedule_start', TZ]],
  ducklake_inlined_data_tables: [['table_id', B], ['table_name', V], ['schema_version', B]],
  ducklake_column_mapping: [['mapping_id', B], ['table_id', B], ['type', V]],
  ducklake_name_mapping: [['mapping_id', B], ['column_id', B], ['source_name', V], ['target_field_id', B], ['parent_column', B], ['is_partition', BOOL]],
  ducklake_schema_versions: [['begin_snapshot', B], ['schema_version', B], ['table_id', B]],
  ducklake_macro: [['schema_id', B], ['macro_id', B], ['macro_name', V], ['begin_snapshot', B], ['end_snapshot', B]],
  ducklake_macro_impl: [['macro_id', B], ['impl_id', B], ['dialect', V], ['sql', V], ['type', V]],
  ducklake_macro_parameters: [
    ['macro_id', B], ['impl_id', B], ['column_id', B], ['parameter_name', V], ['parameter_type', V], ['default_value', V], ['default_value_type', V],
  ],
  ducklake_sort_info: [['sort_id', B], ['table_id', B], ['begin_snapshot', B], ['end_snapshot', B]],
  ducklake_sort_expression: [['sort_id', B], ['table_id', B], ['sort_key_index', B], ['expression', V], ['dialect', V], ['sort_direction', V], ['null_order', V]],
};

/** The specification's primary keys (its other tables have none). */
const PRIMARY_KEYS: Readonly<Record<string, string>> = {
  ducklake_snapshot: 'snapshot_id',
  ducklake_snapshot_changes: 'snapshot_id',
  ducklake_schema: 'schema_id',
  ducklake_data_file: 'data_file_id',
  ducklake_delete_file: 'delete_file_id',
};

/**
 * Strata's additions: its snapshot tags (DuckLake's ducklake_tag holds comments on objects, not names of
 * snapshots), what it records of a commit beyond ducklake_snapshot_changes, the checksums it keeps of files,
 * and its retain-from (what an import excises again: the ids missing from ducklake_snapshot).
 */
export const STRATA_TABLES: Readonly<Record<string, Columns>> = {
  strata_snapshot_tag: [['tag_name', V], ['snapshot_id', B], ['created_at', TZ]],
  strata_snapshot: [['snapshot_id', B], ['maintenance', BOOL], ['read_sources', V], ['restored_tables', V]],
  strata_file: [['file_id', B], ['content_crc32', B]],
  strata_retention: [['retain_from', B]],
};

const STRATA_KEYS: Readonly<Record<string, string>> = { strata_snapshot_tag: 'tag_name', strata_snapshot: 'snapshot_id', strata_file: 'file_id' };

/** ducklake_metadata's key and value are the specification's only NOT NULL columns. */
const NOT_NULL = new Set(['ducklake_metadata.key', 'ducklake_metadata.value']);

function createStatement(name: string, columns: Columns, key: string | undefined): string {
  const defs = columns.map(([c, t]) => `${c} ${t}${c === key ? ' PRIMARY KEY' : ''}${NOT_NULL.has(`${name}.${c}`) ? ' NOT NULL' : ''}`);
  return `CREATE TABLE ${name}(${defs.join(', ')});`;
}

/** The statements that create an empty DuckLake catalog with Strata's additions. */
export function createStatements(): string[] {
  return [
    ...Object.entries(DUCKLAKE_TABLES).map(([name, cols]) => createStatement(name, cols, PRIMARY_KEYS[name])),
    ...Object.entries(STRATA_TABLES).map(([name, cols]) => createStatement(name, cols, STRATA_KEYS[name])),
  ];
}
