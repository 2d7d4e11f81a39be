// The lake as the snapshots an import commits, each with what it begins and ends. The ids kept are the lake's
// own: every snapshot it holds, and every id a row of it names (a version that began or ended at a snapshot
// the lake expired), rebuilt from the rows that name it. Ids neither holds are not committed: a reader asking
// for one is told it does not exist, as DuckLake would tell it, whatever the gap (docs/decisions/0035).
// What the lake says of itself is checked here (its counters above every id it begins, times that never go
// back, only what Strata can read — Parquet, no name mapping, no partial file); what its rows mean is checked
// where they are applied (src/txn/imported.ts).
import type { ColumnStats } from '../../keys/file-column-stats.js';
import type { NameMapping } from '../../keys/name-mappings.js';
import { type CatalogId, type ColumnId, type FileId, type SnapshotId, snapshotId } from '../../keys/ids.js';
import { StrataError } from '../errors.js';
import type { ImportedSnapshot } from '../txn/imported.js';
import type { Lake, LakeColumn, LakeDataFile, LakeDeleteFile, LakeSnapshot, Life } from './lake.js';

/** One snapshot the import commits: the lake's own (its record), or one it rebuilds (none). */
export interface Planned {
  id: number;
  lake: LakeSnapshot | undefined;
  delta: ImportedSnapshot;
}

/** What a file row becomes in the new catalog: its path under the data path, its CRC-32, its statistics. */
export interface FileFacts {
  rel: (row: LakeDataFile | LakeDeleteFile, what: string) => string;
  crc: (fileId: number) => number | null;
  stats: (dataFileId: number) => ColumnStats[];
  /** The name mapping a data file without field ids is read through (mappings.ts), for a row that names one. */
  mapping: (row: LakeDataFile) => NameMapping;
}

/** Files the import wrote itself (from inlined rows): rows like the lake's, at the snapshots they belong to. */
export type ExtraFiles = Pick<ImportedSnapshot, 'dataFiles' | 'deleteFiles'> & { at: number };

const refuse = (what: string) => new StrataError('INVALID_ARGUMENT', what);

/** Refuses what the lake holds that Strata cannot read as DuckLake would: a different answer is worse than none. */
export function checkReadable(lake: Lake): void {
  for (const f of lake.dataFiles) {
    const what = `data file ${f.id} (ducklake_data_file)`;
    if (f.encrypted) throw refuse(`${what} is encrypted; Strata reads no encrypted file`);
    if (f.format.toLowerCase() !== 'parquet') throw refuse(`${what} is ${JSON.stringify(f.format)}; Strata reads Parquet data files`);
    if (f.partialMax !== null && f.partialMax > f.begin) {
      throw refuse(`${what} holds rows of snapshots ${f.begin} to ${f.partialMax} (a partial file, as ducklake_flush_inlined_data writes); Strata shows a file's rows from one snapshot on`);
    }
  }
  for (const d of lake.deleteFiles) {
    const what = `delete file ${d.id} (ducklake_delete_file)`;
    if (d.encrypted) throw refuse(`${what} is encrypted; Strata reads no encrypted file`);
    if (d.format.toLowerCase() !== 'parquet') throw refuse(`${what} is ${JSON.stringify(d.format)}; Strata reads positional delete files in Parquet`);
    if (d.partialMax !== null && d.partialMax > d.begin) throw refuse(`${what} holds deletes of snapshots ${d.begin} to ${d.partialMax}; Strata applies a delete file whole from the snapshot it begins at`);
  }
}

/** The lake's snapshots in id order, their times never going back (reads by time search them in order). */
function orderedSnapshots(lake: Lake): LakeSnapshot[] {
  const sorted = [...lake.snapshots].sort((a, b) => a.id - b.id);
  sorted.forEach((s, i) => {
    const before = sorted[i - 1];
    if (before === undefined) return;
    if (before.id === s.id) throw refuse(`ducklake_snapshot holds snapshot ${s.id} twice`);
    if (s.time < before.time) {
      throw refuse(`snapshot ${s.id} was taken at ${new Date(s.time).toISOString()}, before snapshot ${before.id} (${new Date(before.time).toISOString()}); Strata's snapshot times never go back, and a read by time would answer otherwise than the lake`);
    }
    if (s.nextCatalogId < before.nextCatalogId || s.nextFileId < before.nextFileId) throw refuse(`snapshot ${s.id}'s counters (next_catalog_id ${s.nextCatalogId}, next_file_id ${s.nextFileId}) are below snapshot ${before.id}'s; they only grow`);
  });
  return sorted;
}

/**
 * The snapshots the import commits, in order, each with its delta: the lake's snapshots after 0 (which the
 * new catalog makes itself) and the ids its rows (and `extra`, the import's own files) name that it lacks.
 */
export function plannedSnapshots(lake: Lake, facts: FileFacts, extra: readonly ExtraFiles[]): Planned[] {
  const snapshots = orderedSnapshots(lake);
  const held = new Map(snapshots.map((s) => [s.id, s]));
  const head = snapshots.at(-1)!.id;
  const begun = new Map<number, Entries>();
  const ended = new Map<number, Entries>();
  const entries = (m: Map<number, Entries>, at: number) => m.get(at) ?? m.set(at, new Entries()).get(at)!;
  const track = <T extends Life>(rows: readonly T[], what: (r: T) => string, put: (e: Entries, r: T) => void) => {
    for (const r of rows) {
      for (const at of r.end === null ? [r.begin] : [r.begin, r.end]) if (at > head) throw refuse(`${what(r)} names snapshot ${at}, past the lake's newest, ${head}`);
      put(entries(begun, r.begin), r);
      if (r.end !== null) put(entries(ended, r.end), r);
    }
  };
  track(lake.schemas, (r) => `schema ${r.id}`, (e, r) => e.schemas.push(r));
  track(lake.tables, (r) => `table ${r.id}`, (e, r) => e.tables.push(r));
  track(lake.views, (r) => `view ${r.id}`, (e, r) => e.views.push(r));
  track(lake.columns, (r) => `column ${r.id} of table ${r.tableId}`, (e, r) => e.columns.push(r));
  track(lake.dataFiles, (r) => `data file ${r.id}`, (e, r) => e.dataFiles.push(r));
  track(lake.deleteFiles, (r) => `delete file ${r.id}`, (e, r) => e.deleteFiles.push(r));
  const extraAt = new Map<number, ExtraFiles[]>();
  for (const x of extra) {
    if (x.at > head) throw refuse(`its inlined rows name snapshot ${x.at}, past the lake's newest, ${head}`);
    (extraAt.get(x.at) ?? extraAt.set(x.at, []).get(x.at)!).push(x);
  }
  const ids = [...new Set([...held.keys(), ...begun.keys(), ...ended.keys(), ...extraAt.keys()])].filter((id) => id > 0).sort((a, b) => a - b);
  // A rebuilt snapshot takes the counters of the next one the lake holds: every id it holds is below them.
  let next = 0;
  return ids.map((id) => {
    while (snapshots[next]!.id < id) next++;
    const counters = snapshots[next]!;
    const delta = deltaOf(snapshotId(id), begun.get(id) ?? new Entries(), ended.get(id) ?? new Entries(), facts, counters);
    for (const x of extraAt.get(id) ?? []) {
      delta.dataFiles.push(...x.dataFiles);
      delta.deleteFiles.push(...x.deleteFiles);
    }
    return { id, lake: held.get(id), delta };
  });
}

class Entries {
  readonly schemas: Lake['schemas'] = [];
  readonly tables: Lake['tables'] = [];
  readonly views: Lake['views'] = [];
  readonly columns: LakeColumn[] = [];
  readonly dataFiles: LakeDataFile[] = [];
  readonly deleteFiles: LakeDeleteFile[] = [];
}

/**
 * What snapshot `at` begins and ends. The lake's counters there are above every id it begins (DuckLake's
 * next_catalog_id and next_file_id), or a later allocation would hand out an id in use.
 */
function deltaOf(at: SnapshotId, begun: Entries, ended: Entries, facts: FileFacts, counters: LakeSnapshot): ImportedSnapshot {
  const below = (what: string, id: number, next: number, counter: string) => {
    if (id >= next) throw refuse(`${what} begins at snapshot ${at} with id ${id}, but the lake's ${counter} there is ${next}: every id in use is below it`);
  };
  const touched = <R extends { id: number }, K, T>(kind: string, b: readonly R[], e: readonly R[], key: (r: R) => K, next: (r: R) => T) => {
    const out = new Map<K, { row: R; ends: boolean; next: T | null }>();
    for (const r of e) out.set(key(r), { row: r, ends: true, next: null });
    for (const r of b) {
      const k = key(r);
      const seen = out.get(k);
      if (seen !== undefined && !seen.ends) throw refuse(`two versions of ${kind} ${r.id} begin at snapshot ${at}`);
      out.set(k, { row: r, ends: seen?.ends ?? false, next: next(r) });
    }
    return [...out.values()];
  };
  const catalogIds = (kind: string) => (r: { id: number }) => below(`${kind} ${r.id}`, r.id, counters.nextCatalogId, 'next_catalog_id');
  begun.schemas.forEach(catalogIds('schema'));
  begun.tables.forEach(catalogIds('table'));
  begun.views.forEach(catalogIds('view'));
  for (const f of [...begun.dataFiles, ...begun.deleteFiles]) below(`file ${f.id}`, f.id, counters.nextFileId, 'next_file_id');
  return {
    id: at,
    schemas: touched('schema', begun.schemas, ended.schemas, (r) => r.id, (r) => ({ name: r.name, uuid: r.uuid })).map((t) => ({ id: t.row.id as CatalogId, ends: t.ends, next: t.next })),
    tables: touched('table', begun.tables, ended.tables, (r) => r.id, (r) => ({ schemaId: r.schemaId as CatalogId, name: r.name, uuid: r.uuid })).map((t) => ({ id: t.row.id as CatalogId, ends: t.ends, next: t.next })),
    views: touched('view', begun.views, ended.views, (r) => r.id, (r) => ({ schemaId: r.schemaId as CatalogId, name: r.name, uuid: r.uuid, sql: r.sql, dialect: r.dialect })).map((t) => ({ id: t.row.id as CatalogId, ends: t.ends, next: t.next })),
    columns: touched('column', begun.columns, ended.columns, (r) => `${r.tableId}.${r.id}`, (r) => columnRow(r)).map((t) => ({ tableId: t.row.tableId as CatalogId, id: t.row.id as ColumnId, ends: t.ends, next: t.next })),
    dataFiles: touched('data file', begun.dataFiles, ended.dataFiles, (r) => r.id, (r) => {
      const what = `data file ${r.id}`;
      const crc = facts.crc(r.id);
      const stats = facts.stats(r.id);
      return {
        path: facts.rel(r, what), format: r.format.toLowerCase(), recordCount: r.recordCount, fileSizeBytes: r.fileSizeBytes, footerSize: r.footerSize,
        ...(crc === null ? {} : { contentCrc32: crc }), ...(stats.length === 0 ? {} : { columnStats: stats }), rowIdStart: r.rowIdStart,
        ...(r.mappingId === null ? {} : { mapping: facts.mapping(r) }),
      };
    }).map((t) => ({ tableId: t.row.tableId as CatalogId, id: t.row.id as FileId, ends: t.ends, next: t.next })),
    deleteFiles: touched('delete file', begun.deleteFiles, ended.deleteFiles, (r) => r.id, (r) => {
      const crc = facts.crc(r.id);
      return { dataFileId: r.dataFileId, path: facts.rel(r, `delete file ${r.id}`), format: r.format.toLowerCase(), deleteCount: r.deleteCount, fileSizeBytes: r.fileSizeBytes, ...(crc === null ? {} : { contentCrc32: crc }) };
    }).map((t) => ({ tableId: t.row.tableId as CatalogId, id: t.row.id as FileId, ends: t.ends && t.row.end !== t.row.begin, next: t.next, recordOnly: t.row.end === t.row.begin })),
    nextCatalogId: counters.nextCatalogId,
    nextFileId: counters.nextFileId,
    restoredTables: counters.restoredTables.map((t) => t as CatalogId),
  };
}

/**
 * A column's row. DuckLake keeps two defaults: the value files written before the column read
 * (initial_default) and what new rows get (default_value, 'NULL' for none); Strata keeps one, which is both.
 * A default DuckDB computes per row (an expression) is no constant, and Strata's columns take constants only.
 */
function columnRow(c: LakeColumn) {
  if (c.defaultType !== null && c.defaultType !== 'literal' && c.defaultValue !== null && c.defaultValue !== 'NULL') {
    throw refuse(`column ${c.id} of table ${c.tableId} (${JSON.stringify(c.name)}) defaults to the ${c.defaultType} ${JSON.stringify(c.defaultValue)}; Strata's columns take constant defaults only`);
  }
  const given = c.defaultValue === 'NULL' ? null : c.defaultValue;
  return { name: c.name, type: c.type, order: c.order, nullsAllowed: c.nullsAllowed, defaultValue: c.initialDefault ?? given, parentColumn: c.parent as ColumnId | null };
}
