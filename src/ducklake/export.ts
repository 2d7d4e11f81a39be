// A catalog's retained history as DuckLake's catalog tables: every version of every schema, table, view,
// column, data file and delete file with its begin and end snapshot, the snapshots with their changes, the
// files' column statistics and each table's stats, in a SQLite file DuckLake (or plain SQL) reads. Data paths
// are relative to the data path written in ducklake_metadata, which names the catalog's own data files:
// nothing is copied. Cut at a snapshot, the lake is what the catalog was then: later versions are left out
// and ends after the cut are open.
import { rename, rm, stat } from 'node:fs/promises';
import type { ColumnRow } from '../../keys/columns.js';
import { type DataFileRow, dataFileIdOf, dataFilesOfTable } from '../../keys/data-files.js';
import { type DeleteFileRow, deleteFileIdOf, deleteFilesOfTable } from '../../keys/delete-files.js';
import { type CatalogId, type SnapshotId, snapshotId } from '../../keys/ids.js';
import { DATA_PATH_OPTION } from '../../keys/options.js';
import type { TableRow, ViewRow } from '../../keys/relations.js';
import type { SchemaRow } from '../../keys/schemas.js';
import type { Versioned } from '../../keys/versions.js';
import { checkCount } from '../arguments.js';
import { StrataError } from '../errors.js';
import type { ReadView } from '../kv/read-view.js';
import * as q from '../read/catalog-queries.js';
import { sqlite } from './lake.js';
import { createStatements, DUCKLAKE_TABLES, DUCKLAKE_VERSION, STRATA_TABLES } from './tables.js';
import { sqlTime } from './values.js';

export interface ExportOptions {
  /** The snapshot to cut the history at (default: the newest). */
  at?: number;
}

export interface ExportReport {
  file: string;
  snapshots: number;
  /** The newest snapshot exported. */
  head: SnapshotId;
  dataFiles: number;
  deleteFiles: number;
  tags: number;
}

type Row = Record<string, unknown>;
type When = { begin_snapshot: number; end_snapshot: number | null };
type Life = (begin: number, end: number | null) => When | undefined;

/** Collects the rows of every table from `view`, cut at `cut`. */
async function collect(view: ReadView, cut: SnapshotId, dataLocation: string, createdBy: string): Promise<Map<string, Row[]>> {
  const out = new Map<string, Row[]>([...Object.keys(DUCKLAKE_TABLES), ...Object.keys(STRATA_TABLES)].map((t) => [t, []]));
  const add = (table: string, row: Row) => out.get(table)!.push(row);
  // A version begun after the cut is not there yet; one ended after it is still open then.
  const life: Life = (begin, end) => (begin > cut ? undefined : { begin_snapshot: begin, end_snapshot: end === null || end > cut ? null : end });

  add('ducklake_metadata', { key: 'version', value: DUCKLAKE_VERSION });
  add('ducklake_metadata', { key: 'created_by', value: createdBy });
  add('ducklake_metadata', { key: 'data_path', value: dataLocation });
  add('ducklake_metadata', { key: 'encrypted', value: 'false' });
  for (const [key, value] of await q.options(view)) if (key !== DATA_PATH_OPTION) add('ducklake_metadata', { key, value });

  // The ids that exist: excision and an imported lake's expired snapshots leave the others out.
  for await (const { begin: id, row: s } of q.snapshotRows(view, cut)) {
    const c = await q.snapshotChanges(view, id);
    add('ducklake_snapshot', { snapshot_id: id, snapshot_time: sqlTime(s.time), schema_version: s.schemaVersion, next_catalog_id: s.nextCatalogId, next_file_id: s.nextFileId });
    // DuckLake refuses a changes_made kind it does not know: a restore's own (restored_table) goes in Strata's table.
    const restored = (c?.changes ?? []).filter((x) => x.startsWith('restored_table:'));
    const changes = (c?.changes ?? []).filter((x) => !x.startsWith('restored_table:'));
    add('ducklake_snapshot_changes', { snapshot_id: id, changes_made: changes.join(','), author: c?.author ?? null, commit_message: c?.message ?? null, commit_extra_info: c?.extraInfo ?? null });
    add('strata_snapshot', {
      snapshot_id: id,
      maintenance: c?.maintenance ?? false,
      read_sources: c?.readSources ? JSON.stringify(c.readSources) : null,
      restored_tables: restored.length === 0 ? null : restored.map((x) => x.slice('restored_table:'.length)).join(','),
    });
  }

  const versions = async <T extends Versioned>(kind: q.EntityKind, each: (id: CatalogId, when: When, row: T) => void) => {
    for await (const batch of q.entityVersions(view, kind)) {
      for (const v of batch) {
        const when = life(v.begin, v.row.end);
        if (when) each(v.id, when, v.row as T);
      }
    }
  };
  await versions<SchemaRow>('schema', (id, when, r) => add('ducklake_schema', { schema_id: id, schema_uuid: r.uuid, ...when, schema_name: r.name, path: '', path_is_relative: true }));
  const tableIds = new Set<CatalogId>();
  await versions<TableRow>('table', (id, when, r) => {
    tableIds.add(id);
    add('ducklake_table', { table_id: id, table_uuid: r.uuid, ...when, schema_id: r.schemaId, table_name: r.name, path: '', path_is_relative: true });
  });
  await versions<ViewRow>('view', (id, when, r) =>
    add('ducklake_view', { view_id: id, view_uuid: r.uuid, ...when, schema_id: r.schemaId, view_name: r.name, dialect: r.dialect, sql: r.sql, column_aliases: '' }),
  );

  for (const tableId of tableIds) {
    const schemaChanges = new Set<number>();
    for (const t of out.get('ducklake_table')!) if (t.table_id === tableId) schemaChanges.add(t.begin_snapshot as number);
    for (const c of await q.columnsOf(view, tableId, undefined)) {
      const when = life(c.begin, c.row.end);
      if (!when) continue;
      schemaChanges.add(c.begin);
      if (when.end_snapshot !== null) schemaChanges.add(when.end_snapshot);
      add('ducklake_column', columnRow(tableId, c.id, when, c.row));
    }
    await files(view, tableId, life, add);
    for (const at of [...schemaChanges].sort((a, b) => a - b)) {
      const s = await q.snapshotRow(view, snapshotId(at));
      if (s) add('ducklake_schema_versions', { begin_snapshot: at, schema_version: s.schemaVersion, table_id: tableId });
    }
  }
  add('strata_retention', { retain_from: Math.min((await q.retainFrom(view)).snapshot, cut) });
  for await (const t of q.tags(view)) {
    if (t.snapshot <= cut) add('strata_snapshot_tag', { tag_name: t.name, snapshot_id: t.snapshot, created_at: sqlTime(t.createdAt) });
  }
  return out;
}

function columnRow(tableId: CatalogId, id: number, when: When, r: ColumnRow): Row {
  // Strata's default is the value old files read for an added column and new rows get: both of DuckLake's.
  // DuckLake writes every column's default as a typed literal, 'NULL' for none.
  return {
    column_id: id, ...when, table_id: tableId, column_order: r.order, column_name: r.name, column_type: r.type,
    initial_default: r.defaultValue, default_value: r.defaultValue ?? 'NULL', nulls_allowed: r.nullsAllowed, parent_column: r.parentColumn,
    default_value_type: 'literal', default_value_dialect: 'duckdb',
  };
}

/** A table's data files, delete files and file statistics, every version, and its stats at the cut. */
async function files(view: ReadView, tableId: CatalogId, life: Life, add: (t: string, r: Row) => void): Promise<void> {
  const stored = await q.tableStats(view, tableId);
  const stats = { record_count: 0, file_size_bytes: 0, next_row_id: stored?.nextRowId ?? 0 };
  let anyFile = false;
  const written = new Set<number>();
  for await (const batch of q.versionBatches<DataFileRow>(view, dataFilesOfTable(tableId), undefined)) {
    const kept = batch.flatMap((v) => {
      const when = life(v.begin, v.row.end);
      return when ? [{ id: dataFileIdOf(v.fields), begin: v.begin, when, row: v.row }] : [];
    });
    const columnStats = await q.fileColumnStats(view, tableId, kept.map((f) => ({ id: f.id, begin: snapshotId(f.begin) })));
    const mappings = await q.nameMappings(view, tableId, kept.map((f) => ({ id: f.id, begin: snapshotId(f.begin), mappingId: f.row.mappingId ?? null })));
    for (const { id, when, row } of kept) {
      anyFile = true;
      // As DuckLake writes a file it wrote whole: no order, partition or key, and not partial (every row visible
      // from its begin snapshot on: its partial_max is NULL); a file without field ids names its name mapping,
      // written once (files of one table laid out alike share one).
      add('ducklake_data_file', {
        data_file_id: id, table_id: tableId, ...when, file_order: null, path: row.path, path_is_relative: true, file_format: row.format,
        record_count: row.recordCount, file_size_bytes: row.fileSizeBytes, footer_size: row.footerSize, row_id_start: row.rowIdStart,
        partition_id: null, encryption_key: null, mapping_id: row.mappingId ?? null, partial_max: null,
      });
      const mapping = mappings.get(id);
      if (mapping !== undefined && !written.has(mapping.mappingId)) {
        written.add(mapping.mappingId);
        add('ducklake_column_mapping', { mapping_id: mapping.mappingId, table_id: tableId, type: mapping.type });
        for (const c of mapping.columns) {
          add('ducklake_name_mapping', { mapping_id: mapping.mappingId, column_id: c.columnId, source_name: c.sourceName, target_field_id: c.targetFieldId, parent_column: c.parentColumn, is_partition: c.isPartition });
        }
      }
      if (row.contentCrc32 != null) add('strata_file', { file_id: id, content_crc32: row.contentCrc32 });
      for (const c of columnStats.get(id) ?? []) {
        add('ducklake_file_column_stats', {
          data_file_id: id, table_id: tableId, column_id: c.columnId, column_size_bytes: null, value_count: c.valueCount,
          null_count: c.nullCount, min_value: c.min, max_value: c.max, contains_nan: c.containsNan,
        });
      }
      if (when.end_snapshot === null) {
        stats.record_count += row.recordCount;
        stats.file_size_bytes += row.fileSizeBytes;
      }
      stats.next_row_id = Math.max(stats.next_row_id, row.rowIdStart + row.recordCount);
    }
  }
  for await (const batch of q.versionBatches<DeleteFileRow>(view, deleteFilesOfTable(tableId), undefined)) {
    for (const v of batch) {
      const when = life(v.begin, v.row.end);
      if (!when) continue;
      const id = deleteFileIdOf(v.fields);
      add('ducklake_delete_file', {
        delete_file_id: id, table_id: tableId, ...when, data_file_id: v.row.dataFileId, path: v.row.path, path_is_relative: true,
        format: v.row.format, delete_count: v.row.deleteCount, file_size_bytes: v.row.fileSizeBytes, footer_size: null, encryption_key: null, partial_max: null,
      });
      if (v.row.contentCrc32 != null) add('strata_file', { file_id: id, content_crc32: v.row.contentCrc32 });
    }
  }
  if (anyFile || stored !== undefined) add('ducklake_table_stats', { table_id: tableId, ...stats });
}

/** SQLite takes numbers, strings, bigints, buffers and null; DuckLake's SQLite catalog keeps booleans as 0 and 1. */
const sqliteValue = (v: unknown) => (typeof v === 'boolean' ? (v ? 1 : 0) : v ?? null);

/**
 * Writes the catalog as `view` has it into a new SQLite file at `file` (never over an existing one), its
 * data_path `dataLocation` (values.ts).
 */
export async function exportLake(view: ReadView, file: string, opts: ExportOptions, dataLocation: string, createdBy: string): Promise<ExportReport> {
  if (await stat(file).then(() => true, () => false)) {
    throw new StrataError('ALREADY_EXISTS', `${file} already exists; export writes a new file: remove it or name another`);
  }
  const head = (await q.headSnapshot(view)).begin;
  const cut = opts.at === undefined ? head : snapshotId(checkCount('at', opts.at));
  if (cut > head) throw new StrataError('NOT_FOUND', `snapshot ${cut} does not exist; the newest is ${head}`);
  await q.assertRetained(view, cut);
  const rows = await collect(view, cut, dataLocation, createdBy);
  // Written under a temporary name and renamed, so a failed export leaves no lake that looks whole.
  const partial = `${file}.partial-${process.pid}`;
  try {
    const db = new (sqlite())(partial);
    try {
      db.pragma('journal_mode = DELETE');
      db.transaction(() => {
        for (const statement of createStatements()) db.exec(statement);
        for (const [table, list] of rows) {
          const columns = (DUCKLAKE_TABLES[table] ?? STRATA_TABLES[table])!.map(([c]) => c);
          const insert = db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
          for (const row of list) insert.run(columns.map((c) => sqliteValue(row[c])));
        }
      })();
    } finally {
      db.close();
    }
    await rename(partial, file);
  } catch (e) {
    await rm(partial, { force: true });
    throw e;
  }
  return {
    file,
    snapshots: rows.get('ducklake_snapshot')!.length,
    head: cut,
    dataFiles: rows.get('ducklake_data_file')!.length,
    deleteFiles: rows.get('ducklake_delete_file')!.length,
    tags: rows.get('strata_snapshot_tag')!.length,
  };
}
