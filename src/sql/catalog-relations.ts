// The catalog's own state as relations a statement reads and joins like any table, at the statement's snapshot:
// DuckLake's snapshots(), table_info() and change feeds (table_changes(), table_insertions(), table_deletions():
// tableChanges' query, inlined), files('s.t') (list_files), tags() (Iceberg's refs: the named pins on
// snapshots); DESCRIBE schema.table with the catalog's types, NOT NULLs and defaults; SHOW TABLES, SHOW ALL
// TABLES and information_schema.schemata, .tables and .columns. DuckDB answers DESCRIBE, SHOW ALL TABLES and
// information_schema over the mirror (the catalog's tables as empty DuckDB tables with their constraints), so
// they read as DuckDB's own would. The rows go to the
// statement as a JSON file in its scratch directory, read with the relation's column types.
import { writeFile } from 'node:fs/promises';
import type { SnapshotId } from '../../keys/ids.js';
import { tags } from '../read/catalog-queries.js';
import { history } from '../read/history.js';
import type { ReadState, SnapshotReads } from '../read/read-state.js';
import type { SnapshotInfo } from '../read/records.js';
import type { SnapshotSelector } from '../read/resolve-snapshot.js';
import type { Reader } from '../read/reader.js';
import { StrataError } from '../errors.js';
import type { PlaneContext } from './query.js';
import { changesQuery } from './row-changes.js';
import type { StatementFiles } from './statement-files.js';
import type { AtClause } from './statement.js';
import { ident, literal } from './sql-text.js';

/** A relation of the catalog a statement names: a table function, or a SHOW / DESCRIBE of the catalog's tables. */
export type CatalogRelation =
  | { kind: 'snapshots' }
  | { kind: 'table_info' }
  | { kind: 'tags' }
  | { kind: 'table_changes'; only: ChangeKinds; schema: string; table: string; from: AtClause; to: AtClause }
  | { kind: 'files'; schema: string; table: string }
  | { kind: 'information_schema'; view: 'schemata' | 'tables' | 'columns' }
  | { kind: 'describe'; schema: string; table: string }
  | { kind: 'show_tables' }
  | { kind: 'show_all_tables' };

/** Which changes a change feed gives: all (table_changes), the rows given (table_insertions), the rows taken (table_deletions). */
export type ChangeKinds = 'all' | 'insertions' | 'deletions';

/** The change types of each feed: an update is its postimage given and its preimage taken. */
const CHANGE_TYPES: Record<Exclude<ChangeKinds, 'all'>, string> = {
  insertions: "'insert', 'update_postimage'",
  deletions: "'delete', 'update_preimage'",
};

/** What reading a relation needs of the statement: its bounds' times as selectors (evaluated once per statement), and where its files are held. */
export interface RelationReads {
  selector(at: AtClause): Promise<SnapshotSelector>;
  held: StatementFiles;
}

/** The table functions without arguments that are catalog relations (DuckLake's names, as its functions are called in a `USE`d lake). */
export const CATALOG_FUNCTIONS: ReadonlyMap<string, CatalogRelation> = new Map<string, CatalogRelation>([
  ['snapshots', { kind: 'snapshots' }],
  ['table_info', { kind: 'table_info' }],
  ['tags', { kind: 'tags' }],
]);

export interface Column {
  name: string;
  type: string;
}

const SNAPSHOT_COLUMNS: Column[] = [
  { name: 'snapshot_id', type: 'BIGINT' },
  { name: 'snapshot_time', type: 'TIMESTAMP WITH TIME ZONE' },
  { name: 'schema_version', type: 'BIGINT' },
  { name: 'changes', type: 'MAP(VARCHAR, VARCHAR[])' },
  { name: 'author', type: 'VARCHAR' },
  { name: 'commit_message', type: 'VARCHAR' },
  { name: 'commit_extra_info', type: 'VARCHAR' },
];

const TABLE_INFO_COLUMNS: Column[] = [
  { name: 'table_name', type: 'VARCHAR' },
  { name: 'schema_id', type: 'BIGINT' },
  { name: 'table_id', type: 'BIGINT' },
  { name: 'table_uuid', type: 'UUID' },
  { name: 'file_count', type: 'BIGINT' },
  { name: 'file_size_bytes', type: 'BIGINT' },
  { name: 'delete_file_count', type: 'BIGINT' },
  { name: 'delete_file_size_bytes', type: 'BIGINT' },
];

/**
 * DuckLake's list_files() columns, with each file's id and rows, but its encryption keys (the lake encrypts no
 * file) and a delete file's footer size (the catalog records none).
 */
const FILE_COLUMNS: Column[] = [
  { name: 'data_file_id', type: 'BIGINT' },
  { name: 'data_file', type: 'VARCHAR' },
  { name: 'record_count', type: 'BIGINT' },
  { name: 'row_id_start', type: 'BIGINT' },
  { name: 'data_file_size_bytes', type: 'UBIGINT' },
  { name: 'data_file_footer_size', type: 'UBIGINT' },
  { name: 'delete_file_id', type: 'BIGINT' },
  { name: 'delete_file', type: 'VARCHAR' },
  { name: 'delete_count', type: 'BIGINT' },
  { name: 'delete_file_size_bytes', type: 'UBIGINT' },
];

/** Each information_schema view over the mirror database `db`, in DuckDB's columns, the catalog named 'lake'. */
const INFORMATION_SCHEMA_SQL: Record<'schemata' | 'tables' | 'columns', (db: string) => string> = {
  schemata: (db) => `SELECT * REPLACE ('lake' AS catalog_name) FROM information_schema.schemata WHERE catalog_name = ${literal(db)} ORDER BY schema_name`,
  tables: (db) => `SELECT * REPLACE ('lake' AS table_catalog) FROM information_schema.tables WHERE table_catalog = ${literal(db)} ORDER BY table_schema, table_name`,
  columns: (db) => `SELECT * REPLACE ('lake' AS table_catalog) FROM information_schema.columns WHERE table_catalog = ${literal(db)} ORDER BY table_schema, table_name, ordinal_position`,
};

const TAG_COLUMNS: Column[] = [
  { name: 'tag_name', type: 'VARCHAR' },
  { name: 'snapshot_id', type: 'BIGINT' },
  { name: 'created_at', type: 'TIMESTAMP WITH TIME ZONE' },
];

/**
 * A snapshot's changes as DuckLake's snapshots() gives them: `created_table:"s"."t"` under tables_created as
 * `s.t`, `inserted_into_table:3` under tables_inserted_into as `3`, and so for every kind of change.
 */
export function changesMap(changes: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const c of changes) {
    const colon = c.indexOf(':');
    const [verb, value] = colon < 0 ? [c, ''] : [c.slice(0, colon), c.slice(colon + 1)];
    const m = /^(created|dropped|altered|inserted_into|deleted_from|compacted|restored)_(schema|table|view)$/.exec(verb);
    const key = m === null ? verb : `${m[2]}s_${m[1]}`;
    // Names are JSON strings, as the catalog writes them (messages.ts `quote`: "s"."t", a quote inside as \"); ids are bare.
    const name = [...value.matchAll(/"(?:[^"\\]|\\.)*"/g)].map((q) => JSON.parse(q[0]) as string).join('.') || value;
    (out[key] ??= []).push(name);
  }
  return out;
}

/** The SELECT that reads `rel` at `at` (the statement's snapshot, or its state inside a transaction). */
export async function catalogRelationScan(ctx: PlaneContext, rel: CatalogRelation, at: { snapshot: SnapshotId } | undefined, reads: RelationReads): Promise<string> {
  if (rel.kind === 'table_changes') return changesScan(ctx, rel, at, reads);
  const r = await ctx.reads.reader(at);
  try {
    switch (rel.kind) {
      case 'describe':
        // The lake's table or view, or NOT_FOUND naming what there is: never a name DuckDB's own catalogs resolve.
        if ((await r.viewNamed(rel.schema, rel.table)) === undefined) await r.table(rel.schema, rel.table);
        return await relationSql(ctx, await ctx.mirror.answer(r, (db) => `DESCRIBE ${ident(db)}.${ident(rel.schema)}.${ident(rel.table)}`));
      case 'show_tables':
        return await relationSql(ctx, { columns: [{ name: 'name', type: 'VARCHAR' }], rows: await mainRelations(r) });
      case 'show_all_tables':
        // The planner holds other databases than this snapshot's mirror (the engine's own, other mirrors).
        return await relationSql(ctx, await ctx.mirror.answer(r, (db) => `SELECT * REPLACE ('lake' AS database) FROM (SHOW ALL TABLES) WHERE database = ${literal(db)} ORDER BY schema, name`));
      case 'snapshots':
        return await relationSql(ctx, { columns: SNAPSHOT_COLUMNS, rows: await snapshotRows(ctx.committed, r.snapshot.id) });
      case 'table_info':
        return await relationSql(ctx, { columns: TABLE_INFO_COLUMNS, rows: await tableInfoRows(r) });
      case 'files':
        return await relationSql(ctx, { columns: FILE_COLUMNS, rows: await fileRows(r, rel.schema, rel.table) });
      case 'information_schema':
        // DuckDB's own views over the mirror, the mirror's database named as the lake (as SHOW ALL TABLES names it).
        return await relationSql(ctx, await ctx.mirror.answer(r, (db) => INFORMATION_SCHEMA_SQL[rel.view](db)));
      case 'tags':
        return await relationSql(ctx, { columns: TAG_COLUMNS, rows: await tagRows(ctx.committed, r.snapshot.id) });
    }
  } finally {
    await r.close();
  }
}

/**
 * A table's changes between two committed snapshots (also inside a transaction, whose own changes are not
 * committed yet), none after the statement's snapshot: a statement reads one state of the lake.
 */
async function changesScan(ctx: PlaneContext, rel: Extract<CatalogRelation, { kind: 'table_changes' }>, at: { snapshot: SnapshotId } | undefined, reads: RelationReads): Promise<string> {
  const readers: Reader[] = [];
  try {
    const range = { from: await reads.selector(rel.from), to: await reads.selector(rel.to) };
    const { sql, to } = await changesQuery({ ...ctx, reads: ctx.committed }, rel.schema, rel.table, range, readers, reads.held);
    if (at !== undefined && to > at.snapshot) {
      throw new StrataError('INVALID_ARGUMENT', `table_changes() of ${rel.schema}.${rel.table} ends at snapshot ${to}, after the statement's snapshot ${at.snapshot}: a statement reads one state of the lake; end the range at ${at.snapshot} or read at a later snapshot`);
    }
    // DuckLake's table_insertions and table_deletions are scans of the rows given and taken: the table's columns alone.
    return rel.only === 'all' ? sql : `SELECT * EXCLUDE (snapshot_id, rowid, change_type) FROM (${sql}) WHERE change_type IN (${CHANGE_TYPES[rel.only]})`;
  } finally {
    for (const r of readers) await r.close();
  }
}

async function snapshotRows(committed: SnapshotReads, to: SnapshotId): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  const row = (s: SnapshotInfo) => ({
    snapshot_id: s.id,
    snapshot_time: s.time.toISOString(),
    schema_version: s.schemaVersion,
    changes: changesMap(s.changes),
    author: s.author,
    commit_message: s.message,
    commit_extra_info: s.extraInfo,
  });
  await committed.view(async (view) => {
    for await (const s of history(view, 0 as SnapshotId, to)) rows.push(row(s));
  });
  return rows;
}

/** A table's data files at `r`, in the order its listing gives them, each with its delete file or NULLs. */
async function fileRows(r: ReadState, schema: string, table: string): Promise<Record<string, unknown>[]> {
  const deletes = new Map((await r.deleteFiles(schema, table)).map((d) => [d.dataFileId, d]));
  return (await r.dataFiles(schema, table)).map((f) => {
    const d = deletes.get(f.id);
    return {
      data_file_id: f.id,
      data_file: f.path,
      record_count: f.recordCount,
      row_id_start: f.rowIdStart,
      data_file_size_bytes: f.fileSizeBytes,
      data_file_footer_size: f.footerSize,
      delete_file_id: d?.id ?? null,
      delete_file: d?.path ?? null,
      delete_count: d?.deleteCount ?? null,
      delete_file_size_bytes: d?.fileSizeBytes ?? null,
    };
  });
}

/**
 * The tags as they are now (a tag is no part of any snapshot: creating or dropping one makes none), those that
 * name the statement's snapshot or one before it, so that each joins snapshots() of the same statement; by name.
 */
async function tagRows(committed: SnapshotReads, to: SnapshotId): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  await committed.view(async (view) => {
    for await (const t of tags(view)) if (t.snapshot <= to) rows.push({ tag_name: t.name, snapshot_id: t.snapshot, created_at: new Date(t.createdAt).toISOString() });
  });
  return rows;
}

/** Each table's live files and bytes at `r` (a transaction's state too), as DuckLake's table_info(). */
async function tableInfoRows(r: ReadState): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  const bytes = (files: readonly { fileSizeBytes: number }[]) => files.reduce((n, f) => n + f.fileSizeBytes, 0);
  for (const s of await r.schemas()) {
    for (const t of await r.tables(s.name)) {
      const info = await r.table(s.name, t.name);
      const [data, deletes] = [await r.dataFiles(s.name, t.name), await r.deleteFiles(s.name, t.name)];
      rows.push({
        table_name: t.name,
        schema_id: info.schemaId,
        table_id: info.id,
        table_uuid: info.uuid,
        file_count: data.length,
        file_size_bytes: bytes(data),
        delete_file_count: deletes.length,
        delete_file_size_bytes: bytes(deletes),
      });
    }
  }
  return rows;
}

/** SHOW TABLES: the tables and views of schema main, by name, as DuckDB lists those of its current schema. */
async function mainRelations(r: ReadState): Promise<Record<string, unknown>[]> {
  if (!(await r.schemas()).some((s) => s.name === 'main')) return [];
  const names = [...(await r.tables('main')).map((t) => t.name), ...(await r.views('main')).map((v) => v.name)];
  return names.sort().map((name) => ({ name }));
}

/** Rows with their columns as a SELECT over a JSON file in the statement's scratch directory (none: a typed empty SELECT). */
async function relationSql(ctx: PlaneContext, { columns, rows }: { columns: readonly Column[]; rows: readonly Record<string, unknown>[] }): Promise<string> {
  if (rows.length === 0) return `SELECT ${columns.map((c) => `CAST(NULL AS ${c.type}) AS ${ident(c.name)}`).join(', ')} WHERE false`;
  const file = `${ctx.engine.path('catalog')}.json`;
  await writeFile(file, rows.map((row) => JSON.stringify(row)).join('\n'));
  const types = columns.map((c) => `${literal(c.name)}: ${literal(c.type)}`).join(', ');
  return `SELECT * FROM read_json(${literal(file)}, format = 'newline_delimited', columns = {${types}})`;
}
