// A DuckLake catalog (its SQLite file) read into a new Strata catalog, snapshot by snapshot: each of the lake's
// snapshots becomes one commit with the lake's snapshot id, time, ids, author and message, so a reader at any
// snapshot answers as DuckLake's tables say. Paths are kept relative to the catalog's data path: the files
// must be under it, where they are (a store whose data path is the lake's), or copied there (copyFiles).
import { copyFile, mkdir, stat } from 'node:fs/promises';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import type { ColumnStats } from '../../keys/file-column-stats.js';
import { columnType } from '../../keys/column-types.js';
import { type CatalogId, type ColumnId, type FileId, snapshotId } from '../../keys/ids.js';
import { Catalog, type OpenOptions } from '../catalog/catalog.js';
import { StrataError } from '../errors.js';
import type { ImportedSnapshot } from '../txn/imported.js';
import type { CommitMeta } from '../txn/plan.js';
import { DUCKLAKE_TABLES, STRATA_TABLES } from './tables.js';
import { dataLocation, parseSqlTime, sqlBool } from './values.js';

export interface ImportOptions extends OpenOptions {
  /** Copy every file the lake names into the new catalog's data path (both on local disks). */
  copyFiles?: boolean;
}

export interface ImportReport {
  snapshots: number;
  head: number;
  dataFiles: number;
  deleteFiles: number;
  tags: number;
  copiedFiles: number;
  copiedBytes: number;
  /** Snapshots the lake had expired, excised again after the import rebuilt them. */
  excised: number;
}

type Row = Record<string, unknown>;
type Lake = Map<string, Row[]>;

const bad = (file: string, what: string) => new StrataError('INVALID_ARGUMENT', `${file} is not a DuckLake catalog Strata can import: ${what}`);
const num = (v: unknown) => (typeof v === 'bigint' ? Number(v) : (v as number));
const text = (v: unknown) => (v === null || v === undefined ? null : String(v));

function readLake(file: string): Lake {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const present = new Set((db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map((r) => r.name));
    for (const need of ['ducklake_metadata', 'ducklake_snapshot', 'ducklake_schema', 'ducklake_table', 'ducklake_column', 'ducklake_data_file']) {
      if (!present.has(need)) throw bad(file, `it has no table ${need}`);
    }
    // Tables of later versions, or Strata's own, may be missing: they read as empty.
    return new Map([...Object.keys(DUCKLAKE_TABLES), ...Object.keys(STRATA_TABLES)].map((t) => [t, present.has(t) ? (db.prepare(`SELECT * FROM ${t}`).all() as Row[]) : []]));
  } catch (e) {
    if (e instanceof StrataError) throw e;
    throw bad(file, e instanceof Error ? e.message : String(e));
  } finally {
    db.close();
  }
}

/** Where a file row's object is, relative to the lake's data path (DuckLake resolves file, table, schema, data path). */
function relativePaths(file: string, lake: Lake, dataPath: string): (row: Row) => string {
  const versionAt = (rows: Row[], idCol: string, id: unknown, at: number) =>
    rows.find((r) => r[idCol] === id && num(r.begin_snapshot) <= at && (r.end_snapshot === null || num(r.end_snapshot) > at));
  return (row) => {
    const at = num(row.begin_snapshot);
    const table = versionAt(lake.get('ducklake_table')!, 'table_id', row.table_id, at);
    const schema = table && versionAt(lake.get('ducklake_schema')!, 'schema_id', table.schema_id, at);
    const within = (r: Row | undefined, base: string) => (r === undefined || r.path === null || r.path === undefined ? base : sqlBool(r.path_is_relative) === false ? String(r.path) : base + String(r.path));
    const full = sqlBool(row.path_is_relative) === false ? String(row.path) : within(table, within(schema, dataPath)) + String(row.path);
    if (!full.startsWith(dataPath)) throw bad(file, `file ${JSON.stringify(full)} is outside the lake's data path ${JSON.stringify(dataPath)}; Strata keeps files under its data path`);
    return full.slice(dataPath.length);
  };
}

const VERSIONED = ['ducklake_schema', 'ducklake_table', 'ducklake_view', 'ducklake_column', 'ducklake_data_file', 'ducklake_delete_file'];

/** The lake's versioned rows by the snapshot that begins and the one that ends them, and file stats by file: read once, not per snapshot. */
interface LakeIndex {
  begun: Map<string, Map<number, Row[]>>;
  ended: Map<string, Map<number, Row[]>>;
  stats: Map<number, ColumnStats[]>;
}

function indexLake(lake: Lake): LakeIndex {
  const by = (rows: Row[], column: string) => {
    const out = new Map<number, Row[]>();
    for (const r of rows) {
      if (r[column] === null || r[column] === undefined) continue;
      const at = num(r[column]);
      out.set(at, [...(out.get(at) ?? []), r]);
    }
    return out;
  };
  const stats = new Map<number, ColumnStats[]>();
  for (const r of lake.get('ducklake_file_column_stats')!) {
    const list = stats.get(num(r.data_file_id)) ?? [];
    list.push({ columnId: num(r.column_id) as ColumnId, valueCount: r.value_count === null ? null : num(r.value_count), nullCount: r.null_count === null ? null : num(r.null_count), min: text(r.min_value), max: text(r.max_value), containsNan: sqlBool(r.contains_nan) });
    stats.set(num(r.data_file_id), list);
  }
  return {
    begun: new Map(VERSIONED.map((t) => [t, by(lake.get(t)!, 'begin_snapshot')])),
    ended: new Map(VERSIONED.map((t) => [t, by(lake.get(t)!, 'end_snapshot')])),
    stats,
  };
}

/** What snapshot `s` begins and ends, as the transaction applies it. */
function snapshotDelta(lake: LakeIndex, s: number, rel: (row: Row) => string, crc: Map<number, number>): ImportedSnapshot {
  const touched = (table: string, key: (r: Row) => string, build: (r: Row) => unknown) => {
    const out = new Map<string, { row: Row; next: unknown }>();
    for (const r of lake.ended.get(table)!.get(s) ?? []) out.set(key(r), { row: r, next: null });
    for (const r of lake.begun.get(table)!.get(s) ?? []) out.set(key(r), { row: r, next: build(r) });
    return [...out.values()];
  };
  const stats = lake.stats;
  const id = (r: Row, c: string) => num(r[c]) as CatalogId;
  return {
    schemas: touched('ducklake_schema', (r) => String(r.schema_id), (r) => ({ name: String(r.schema_name), uuid: String(r.schema_uuid) })).map((t) => ({ id: id(t.row, 'schema_id'), next: t.next as never })),
    tables: touched('ducklake_table', (r) => String(r.table_id), (r) => ({ schemaId: id(r, 'schema_id'), name: String(r.table_name), uuid: String(r.table_uuid) })).map((t) => ({ id: id(t.row, 'table_id'), next: t.next as never })),
    views: touched('ducklake_view', (r) => String(r.view_id), (r) => ({ schemaId: id(r, 'schema_id'), name: String(r.view_name), uuid: String(r.view_uuid), dialect: String(r.dialect ?? 'duckdb'), sql: String(r.sql) })).map((t) => ({ id: id(t.row, 'view_id'), next: t.next as never })),
    columns: touched('ducklake_column', (r) => `${r.table_id}.${r.column_id}`, (r) => {
      const type = columnType(String(r.column_type));
      if (type === undefined) throw new StrataError('INVALID_ARGUMENT', `column ${JSON.stringify(r.column_name)} of table ${r.table_id} has type ${JSON.stringify(r.column_type)}, which Strata does not know`);
      return { name: String(r.column_name), type, order: num(r.column_order), nullsAllowed: sqlBool(r.nulls_allowed) ?? true, defaultValue: text(r.initial_default ?? r.default_value), parentColumn: r.parent_column === null ? null : num(r.parent_column) };
    }).map((t) => ({ tableId: id(t.row, 'table_id'), id: num(t.row.column_id) as ColumnId, next: t.next as never })),
    dataFiles: touched('ducklake_data_file', (r) => String(r.data_file_id), (r) => ({
      path: rel(r), format: String(r.file_format ?? 'parquet'), recordCount: num(r.record_count), fileSizeBytes: num(r.file_size_bytes),
      footerSize: r.footer_size === null ? null : num(r.footer_size), rowIdStart: num(r.row_id_start ?? 0), contentCrc32: crc.get(num(r.data_file_id)) ?? null,
    })).map((t) => ({ tableId: id(t.row, 'table_id'), id: num(t.row.data_file_id) as FileId, next: t.next as never, stats: t.next === null ? [] : stats.get(num(t.row.data_file_id)) ?? [] })),
    deleteFiles: touched('ducklake_delete_file', (r) => String(r.delete_file_id), (r) => ({
      dataFileId: num(r.data_file_id) as FileId, path: rel(r), format: String(r.format ?? 'parquet'), deleteCount: num(r.delete_count), fileSizeBytes: num(r.file_size_bytes), contentCrc32: crc.get(num(r.delete_file_id)) ?? null,
    })).map((t) => ({ tableId: id(t.row, 'table_id'), id: num(t.row.delete_file_id) as FileId, next: t.next as never })),
    nextCatalogId: 0,
    nextFileId: 0,
    restoredTables: [],
  };
}

const given = <K extends string>(key: K, v: string | null) => (v === null ? {} : ({ [key]: v } as Record<K, string>));

const RESERVED_KEYS = new Set(['version', 'created_by', 'data_path', 'encrypted']);

/** Creates a catalog at `opts` (which must not hold one yet) from the DuckLake catalog in `file`. */
export async function importDuckLake(file: string, opts: ImportOptions): Promise<ImportReport> {
  const { copyFiles = false, ...open } = opts;
  const lake = readLake(file);
  const meta = new Map(lake.get('ducklake_metadata')!.filter((r) => r.scope === null || r.scope === undefined).map((r) => [String(r.key), String(r.value)]));
  if (meta.get('encrypted') === 'true') throw bad(file, 'its data files are encrypted');
  const dataPath = meta.get('data_path');
  if (dataPath === undefined) throw bad(file, 'ducklake_metadata has no data_path');
  const snapshots = lake.get('ducklake_snapshot')!.map((r) => ({ row: r, id: num(r.snapshot_id) })).sort((a, b) => a.id - b.id);
  if (snapshots.length === 0) throw bad(file, 'ducklake_snapshot is empty');
  const atZero = lake.get('ducklake_schema')!.filter((r) => num(r.begin_snapshot) === 0);
  if (atZero.length !== 1 || num(atZero[0]!.schema_id) !== 0 || atZero[0]!.schema_name !== 'main' || lake.get('ducklake_table')!.some((r) => num(r.begin_snapshot) === 0)) {
    throw bad(file, 'snapshot 0 must hold schema "main" (id 0) alone, as DuckLake creates it');
  }
  const rel = relativePaths(file, lake, dataPath);
  const indexed = indexLake(lake);
  const crc = new Map(lake.get('strata_file')!.map((r) => [num(r.file_id), num(r.content_crc32)]));
  const changes = new Map(lake.get('ducklake_snapshot_changes')!.map((r) => [num(r.snapshot_id), r]));
  const extra = new Map(lake.get('strata_snapshot')!.map((r) => [num(r.snapshot_id), r]));

  const present = new Map(snapshots.map((x) => [x.id, x]));
  const head = snapshots.at(-1)!.id;
  // Snapshots the lake expired are gone from ducklake_snapshot, but Strata's ids have no gaps: each comes back
  // from the rows that outlived it, stamped with the time before it, and is excised again at the end.
  const after = (id: number) => snapshots.find((x) => x.id >= id)!;
  let now = parseSqlTime('the first snapshot time', (present.get(0) ?? snapshots[0]!).row.snapshot_time);
  const catalog = await Catalog.open({ ...open, clock: () => now });
  const report: ImportReport = { snapshots: snapshots.length, head, dataFiles: 0, deleteFiles: 0, tags: 0, copiedFiles: 0, copiedBytes: 0, excised: 0 };
  try {
    if ((await catalog.snapshots()).length !== 1) {
      throw new StrataError('ALREADY_EXISTS', 'the catalog to import into already has a history; import creates a new catalog: give a new dir (and store)');
    }
    const files = [...lake.get('ducklake_data_file')!, ...lake.get('ducklake_delete_file')!];
    await placeFiles(files.map(rel), dataPath, (p) => catalog.dataFileLocation(p), copyFiles, report);
    const options = [...meta].filter(([k]) => !RESERVED_KEYS.has(k));
    if (options.length > 0) await catalog.transaction(async (tx) => { for (const [k, v] of options) await tx.setOption(k, v); });
    for (let id = 1; id <= head; id++) {
      const s = present.get(id);
      if (s) now = parseSqlTime(`snapshot ${id} time`, s.row.snapshot_time);
      const counters = after(id).row;
      const c = changes.get(id);
      const restoredTables = [...String(c?.changes_made ?? '').matchAll(/(?:^|,)restored_table:(\d+)/g)].map((m) => num(m[1]) as CatalogId);
      const delta = { ...snapshotDelta(indexed, id, rel, crc), nextCatalogId: num(counters.next_catalog_id), nextFileId: num(counters.next_file_id), restoredTables };
      report.dataFiles += delta.dataFiles.filter((f) => f.next !== null).length;
      report.deleteFiles += delta.deleteFiles.filter((f) => f.next !== null).length;
      const x = extra.get(id);
      const commitMeta: CommitMeta = s
        ? {
            ...given('author', text(c?.author)), ...given('message', text(c?.commit_message)), ...given('extraInfo', text(c?.commit_extra_info)),
            maintenance: sqlBool(x?.maintenance) ?? String(c?.changes_made ?? '').includes('compacted_table:'),
            ...(x?.read_sources ? { readSources: JSON.parse(String(x.read_sources)) } : {}),
          }
        : { message: 'expired from the lake: rebuilt by the import from the rows that outlived it' };
      const { snapshot } = await catalog.transaction((tx) => tx.importSnapshot(delta), commitMeta);
      if (snapshot !== snapshotId(id)) throw new StrataError('CONFLICT', `snapshot ${id} of the lake was committed as ${snapshot}: another writer wrote to the catalog during the import`);
    }
    for (const t of lake.get('strata_snapshot_tag')!) {
      now = parseSqlTime(`tag ${t.tag_name} time`, t.created_at);
      await catalog.createTag(String(t.tag_name), num(t.snapshot_id));
      report.tags++;
    }
    // Strata's own retain-from when the lake has one; else below the lake's first snapshot, nothing it kept.
    const retainFrom = num(lake.get('strata_retention')![0]?.retain_from ?? snapshots[0]!.id);
    if (retainFrom > 0) {
      await catalog.advanceRetainFrom({ snapshot: retainFrom });
      report.excised = (await catalog.excise()).snapshots;
    }
  } finally {
    await catalog.close();
  }
  return report;
}

/** Checks that every file is where the catalog reads it, copying it there first with copyFiles. */
async function placeFiles(paths: string[], dataPath: string, target: (rel: string) => string, copy: boolean, report: ImportReport): Promise<void> {
  const missing: string[] = [];
  for (const rel of new Set(paths)) {
    const to = target(rel);
    if (/^[a-z0-9]+:\/\//i.test(to)) return; // an object store: the catalog finds the files when it reads them
    const there = await stat(to).then((s) => s.size, () => undefined);
    if (there !== undefined && (!copy || path.resolve(dataPath + rel) === path.resolve(to))) continue;
    if (!copy) {
      missing.push(rel);
      continue;
    }
    const from = dataPath + rel;
    const size = await stat(from).then((s) => s.size, () => {
      throw new StrataError('NOT_FOUND', `the lake names ${from}, which does not exist; nothing was imported`);
    });
    await mkdir(path.dirname(to), { recursive: true });
    await copyFile(from, to);
    report.copiedFiles++;
    report.copiedBytes += size;
  }
  if (missing.length > 0) {
    throw new StrataError(
      'NOT_FOUND',
      `${missing.length} file(s) the lake names are not under this catalog's data path (${dataLocation(target)}), e.g. ${missing[0]}; ` +
        `the lake keeps them under ${dataPath}: import with copyFiles (--copy-files) to copy them, or into a store whose data path holds them`,
    );
  }
}
