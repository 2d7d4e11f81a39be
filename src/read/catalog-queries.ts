// The catalog read at a snapshot, one family at a time: what readers, transactions, history and GC ask of a
// read view. How each catalog table is laid out is its family module's (keys/); this module only reads
// through those and applies the one visibility rule.
import { columnIdFloorKey, type ColumnIdFloorRow, columnIdOf, type ColumnRow, columnsOfTable } from '../../keys/columns.js';
import { type ColumnStats, decodeFileColumnStats, fileColumnStatsKey } from '../../keys/file-column-stats.js';
import { decodeFileTable, decodeIdRange, decodePathIndex, decodePathRef, fileTableRange, idRangesStarting, idRangesThrough, pathIndexKey, pathRefsPrefix, runHolding } from '../../keys/data-files.js';
import { cachedKind, type Group, groupPrefix } from '../../keys/groups.js';
import { decodeNameMapping, type NameMapping, nameMappingKey } from '../../keys/name-mappings.js';
import { type CatalogId, type ColumnId, type FileId, type SnapshotId, snapshotId } from '../../keys/ids.js';
import { beginOf, type Field, type Key } from '../../keys/key-codec.js';
import { ALL_OPTIONS, decodeOption, optionKey } from '../../keys/options.js';
import {
  ALL_VIEWS,
  ALL_TABLES,
  relationIdOf,
  type RelationKind,
  type RelationNameIndexRow,
  relationNameEntity,
  relationNameOf,
  relationNamesIn,
  type TableRow,
  tableEntity,
  type ViewRow,
  viewEntity,
} from '../../keys/relations.js';
import {
  ALL_LEASES,
  ALL_TAGS,
  decodeLease,
  decodeTag,
  leaseKey,
  type LeaseRow,
  RETAIN_FROM_KEY,
  type RetainFromRow,
  type SnapshotTagRow,
  tagKey,
} from '../../keys/retention.js';
import { ALL_SCHEMAS, schemaEntity, schemaIdOf, schemaNameEntity, type SchemaRow } from '../../keys/schemas.js';
import {
  ALL_SNAPSHOTS,
  changesUpTo,
  snapshotChangesKey,
  type SnapshotChangesRow,
  snapshotKey,
  snapshotOfKey,
  type SnapshotRow,
  snapshotsFrom,
  snapshotsUpTo,
  timesUpTo,
} from '../../keys/snapshots.js';
import { type TableStatsRow, tableStatsKey } from '../../keys/stats.js';
import { HEAD_SNAPSHOT_KEY, type HeadSnapshotRow, headSnapshotId } from '../../keys/system.js';
import { decodeValue } from '../../keys/value-codec.js';
import type { Entity, Version, Versioned } from '../../keys/versions.js';
import { isVisible } from '../../keys/visibility.js';
import { checkName } from '../arguments.js';
import { StrataError } from '../errors.js';
import type { ReadView } from '../kv/read-view.js';
import type { SnapshotInfo } from './records.js';

export type { Version };

/** The version of one entity visible at `at`: the newest version that begins at or before it, if not ended. */
export async function versionAt<T extends Versioned>(view: ReadView, entity: Entity<T>, at: SnapshotId): Promise<Version<T> | undefined> {
  let begin: SnapshotId;
  let row: T;
  if (cachedKind(entity)?.metadata) {
    const versions = await view.group(entity);
    // Binary search for the last version with begin <= at.
    let lo = 0;
    let hi = versions.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (versions[mid]!.begin <= at) lo = mid + 1;
      else hi = mid;
    }
    if (lo === 0) return undefined;
    begin = versions[lo - 1]!.begin as SnapshotId;
    row = versions[lo - 1]!.row as T;
  } else {
    // One reverse seek, whatever the depth of the entity's history.
    const hit = await view.last(groupPrefix(entity), entity.key(at));
    if (hit === undefined) return undefined;
    begin = snapshotId(beginOf(hit[0]));
    row = decodeValue<T>(hit[0], hit[1]);
  }
  return isVisible(begin, row.end, at) ? { begin, row } : undefined;
}

/** Every version in a group, visible at `at` or (with `at` undefined) all of them, in batches. */
export async function* versionBatches<T extends Versioned>(
  view: ReadView,
  g: Group,
  at: SnapshotId | undefined,
  end?: Uint8Array,
): AsyncGenerator<readonly (Version<T> & { fields: readonly Field[] })[]> {
  // Stored versions already have this shape; they are filtered, not copied.
  for await (const batch of view.versionBatches(g, end)) {
    const out = (at === undefined ? batch : batch.filter((v) => isVisible(v.begin, (v.row as T).end, at))) as unknown as readonly (Version<T> & {
      fields: readonly Field[];
    })[];
    if (out.length > 0) yield out;
  }
}

async function* versionsIn<T extends Versioned>(view: ReadView, g: Group, at: SnapshotId | undefined): AsyncGenerator<Version<T> & { fields: readonly Field[] }> {
  for await (const batch of versionBatches<T>(view, g, at)) yield* batch;
}

// ---- snapshots

export async function headSnapshot(view: ReadView): Promise<Version<SnapshotRow>> {
  const id = headSnapshotId(await view.stateValue<HeadSnapshotRow>(HEAD_SNAPSHOT_KEY));
  const row = id === undefined ? undefined : await snapshotRow(view, id);
  if (row === undefined) throw new StrataError('CORRUPT', 'the index holds no newest snapshot; rebuild it from the store');
  return { begin: id!, row };
}

export function snapshotRow(view: ReadView, id: SnapshotId): Promise<SnapshotRow | undefined> {
  return view.getImmutable<SnapshotRow>(snapshotKey(id));
}

export function snapshotChanges(view: ReadView, id: SnapshotId): Promise<SnapshotChangesRow | undefined> {
  return view.getImmutable<SnapshotChangesRow>(snapshotChangesKey(id));
}

export async function snapshotInfo(view: ReadView, id: SnapshotId, row: SnapshotRow): Promise<SnapshotInfo> {
  return snapshotInfoOf(id, row, await snapshotChanges(view, id));
}

/** A snapshot as callers see it, from its record and its changes (absent: it recorded none). */
export function snapshotInfoOf(id: SnapshotId, row: SnapshotRow, changes: SnapshotChangesRow | undefined): SnapshotInfo {
  return {
    id,
    time: new Date(row.time),
    schemaVersion: row.schemaVersion,
    author: changes?.author ?? null,
    message: changes?.message ?? null,
    extraInfo: changes?.extraInfo ?? null,
    changes: changes?.changes ?? [],
    maintenance: changes?.maintenance ?? false,
  };
}

/** The newest snapshot committed at or before `time` (ties: the higher id), if any. */
export async function snapshotAtOrBefore(view: ReadView, time: number): Promise<SnapshotId | undefined> {
  const fromTimeline = await view.snapshotAtOrBefore(time, (await headSnapshot(view)).begin);
  if (fromTimeline !== null) return fromTimeline;
  const { gte, lte } = timesUpTo(time);
  const hit = await view.last(gte, lte);
  return hit && snapshotId(beginOf(hit[0]));
}

/** The oldest snapshot in the view. */
export async function firstSnapshot(view: ReadView): Promise<Version<SnapshotRow> | undefined> {
  for await (const [key, bytes] of view.scan({ ...ALL_SNAPSHOTS, limit: 1 })) {
    return { begin: snapshotOfKey(key), row: decodeValue<SnapshotRow>(key, bytes) };
  }
  return undefined;
}

/** Every snapshot record up to `upTo`, oldest first, streamed: the ids that exist, however far apart. */
export async function* snapshotRows(view: ReadView, upTo: SnapshotId): AsyncGenerator<Version<SnapshotRow>> {
  for await (const [key, bytes] of view.scan(snapshotsUpTo(upTo))) yield { begin: snapshotOfKey(key), row: decodeValue<SnapshotRow>(key, bytes) };
}

/** Snapshot ids from `from` downwards with their maintenance flag, newest first, streamed. */
export async function* snapshotsDownFrom(view: ReadView, from: SnapshotId): AsyncGenerator<{ id: SnapshotId; maintenance: boolean }> {
  for await (const [key, bytes] of view.scan({ ...changesUpTo(from), reverse: true })) {
    yield { id: snapshotOfKey(key), maintenance: decodeValue<SnapshotChangesRow>(key, bytes).maintenance };
  }
}

/** The existing snapshot ids just below and just above `id`, for "did you mean" messages. */
export async function nearestSnapshots(view: ReadView, id: SnapshotId): Promise<SnapshotId[]> {
  const { gte, lte } = snapshotsUpTo(id);
  const below = await view.last(gte, lte);
  const out: SnapshotId[] = below ? [snapshotOfKey(below[0])] : [];
  for await (const [key] of view.scan({ ...snapshotsFrom(id), limit: 1 })) out.push(snapshotOfKey(key));
  return out;
}

// ---- tags

export function tag(view: ReadView, name: string): Promise<SnapshotTagRow | undefined> {
  return view.stateValue<SnapshotTagRow>(tagKey(name), { rememberAbsent: false });
}

export async function* tags(view: ReadView): AsyncGenerator<{ name: string } & SnapshotTagRow> {
  for await (const [key, bytes] of view.scan(ALL_TAGS)) yield decodeTag(key, bytes);
}

// ---- schemas

// Names are checked where every lookup by name starts: a name no key can hold is a bad argument, whichever
// public call it came through.
export async function schemaIdByName(view: ReadView, at: SnapshotId, name: string): Promise<CatalogId | undefined> {
  checkName('schema name', name);
  return (await versionAt(view, schemaNameEntity(name), at))?.row.schemaId;
}

export function schemaAt(view: ReadView, at: SnapshotId, id: CatalogId): Promise<Version<SchemaRow> | undefined> {
  return versionAt(view, schemaEntity(id), at);
}

export async function* schemasAt(view: ReadView, at: SnapshotId): AsyncGenerator<{ id: CatalogId } & Version<SchemaRow>> {
  for await (const v of versionsIn<SchemaRow>(view, ALL_SCHEMAS, at)) yield { id: schemaIdOf(v.fields), begin: v.begin, row: v.row };
}

// ---- tables and views (one namespace per schema, as in DuckDB)

export async function relationByName(
  view: ReadView,
  at: SnapshotId,
  schemaId: CatalogId,
  name: string,
): Promise<{ kind: RelationKind; id: CatalogId } | undefined> {
  checkName('table or view name', name);
  const v = await versionAt(view, relationNameEntity(schemaId, name), at);
  return v && { kind: v.row.kind, id: v.row.id };
}

export async function* relationsAt(
  view: ReadView,
  at: SnapshotId,
  schemaId: CatalogId,
): AsyncGenerator<{ kind: RelationKind; id: CatalogId; name: string }> {
  for await (const v of versionsIn<RelationNameIndexRow>(view, relationNamesIn(schemaId), at)) {
    yield { kind: v.row.kind, id: v.row.id, name: relationNameOf(v.fields) };
  }
}

export function tableAt(view: ReadView, at: SnapshotId, id: CatalogId): Promise<Version<TableRow> | undefined> {
  return versionAt(view, tableEntity(id), at);
}

export function viewAt(view: ReadView, at: SnapshotId, id: CatalogId): Promise<Version<ViewRow> | undefined> {
  return versionAt(view, viewEntity(id), at);
}

/** The snapshot that created a table: the begin of its first version. */
export async function tableCreation(view: ReadView, tableId: CatalogId): Promise<SnapshotId | undefined> {
  return (await view.group(tableEntity(tableId)))[0]?.begin as SnapshotId | undefined;
}

export type EntityKind = 'schema' | 'table' | 'view';

const ALL_OF: Record<EntityKind, Group> = { schema: ALL_SCHEMAS, table: ALL_TABLES, view: ALL_VIEWS };

/** Every version of every schema, table or view with its id, in batches (for whole-catalog operations such as restore). */
export async function* entityVersions(view: ReadView, kind: EntityKind): AsyncGenerator<readonly ({ id: CatalogId } & Version<Versioned>)[]> {
  const idOf = kind === 'schema' ? schemaIdOf : relationIdOf;
  for await (const batch of versionBatches<Versioned>(view, ALL_OF[kind], undefined)) {
    yield batch.map((v) => ({ id: idOf(v.fields), begin: v.begin, row: v.row }));
  }
}

// ---- columns

export type ColumnVersion = { id: ColumnId } & Version<ColumnRow>;

/** The table's columns visible at `at`, in column order; with `at` undefined, every version ever written. */
export async function columnsOf(view: ReadView, tableId: CatalogId, at: SnapshotId | undefined): Promise<ColumnVersion[]> {
  // A table's columns are one cached metadata group: read as one array, not streamed (a lookup's hot path).
  const out: ColumnVersion[] = [];
  for (const v of await view.group(columnsOfTable(tableId))) {
    const row = v.row as ColumnRow;
    if (at === undefined || isVisible(v.begin, row.end, at)) out.push({ id: columnIdOf(v.fields), begin: v.begin as SnapshotId, row });
  }
  return at === undefined ? out : out.sort((a, b) => a.row.order - b.row.order);
}

// ---- files (listings are in file-listing.ts)

/** The table a data file was registered in, if the file exists: by its commit's id range, or its entry from before decision 0068. */
export async function tableOfDataFile(view: ReadView, id: FileId): Promise<CatalogId | undefined> {
  const { gte, lte } = idRangesThrough(id);
  const range = await view.last(gte, lte);
  if (range !== undefined) {
    const { lastId, tableId } = decodeIdRange(range[0], range[1]);
    if (lastId >= id) return tableId;
  }
  for await (const [key, bytes] of view.scan({ ...fileTableRange(id), limit: 1 })) return decodeFileTable(key, bytes);
  return undefined;
}

/**
 * For each id, whether the run of a commit since decision 0068 holds it: one step back from the least id
 * and one scan of the runs starting up to the greatest, whatever the number of ids.
 */
export async function heldByRuns(view: ReadView, ids: readonly FileId[]): Promise<boolean[]> {
  if (ids.length === 0) return [];
  const least = ids.reduce((a, b) => (b < a ? b : a));
  const greatest = ids.reduce((a, b) => (b > a ? b : a));
  const { gte, lte } = idRangesThrough(least);
  const before = await view.last(gte, lte);
  const runs = before === undefined ? [] : [decodeIdRange(before[0], before[1])];
  if (greatest > least) for await (const batch of view.scanBatches(idRangesStarting((least + 1) as FileId, greatest))) for (const [k, v] of batch) runs.push(decodeIdRange(k, v));
  return ids.map((id) => runHolding(runs, id) !== undefined);
}

/**
 * For each path, the ids its value from before decision 0067 holds (undefined: it has none), in one
 * multi-get; the files registered since name it by keys of their own (pathsNamed).
 */
export async function indexedPathIds(view: ReadView, paths: readonly string[]): Promise<(FileId[] | undefined)[]> {
  const keys = paths.map(pathIndexKey);
  return (await view.getMany(keys)).map((v, i) => (v === undefined ? undefined : decodePathIndex(keys[i]!, v)));
}

/**
 * For each path, whether a file row names it, leaving out the files `gone` gives for it: a reference under
 * it, or an id in its value from before decision 0067 (`indexed`, when the caller read them already). One
 * multi-get and one iterator for them all.
 */
export async function pathsNamed(
  view: ReadView,
  paths: readonly string[],
  gone: (path: string) => ReadonlySet<number> | undefined = () => undefined,
  read?: readonly (FileId[] | undefined)[],
): Promise<boolean[]> {
  const indexed = read ?? (await indexedPathIds(view, paths));
  const referenced = await view.anyUnder(paths.map(pathRefsPrefix), (key) => {
    const { path, id } = decodePathRef(key);
    return gone(path)?.has(id) !== true;
  });
  return paths.map((p, i) => referenced[i]! || (indexed[i]?.some((id) => gone(p)?.has(id) !== true) ?? false));
}

// ---- singletons

export async function tableStats(view: ReadView, tableId: CatalogId): Promise<TableStatsRow | undefined> {
  return (await tableStatsOf(view, [tableId]))[0];
}

/** Each table's stats row, in one multi-get. */
export async function tableStatsOf(view: ReadView, tableIds: readonly CatalogId[]): Promise<(TableStatsRow | undefined)[]> {
  const keys = tableIds.map(tableStatsKey);
  const values = await view.getMany(keys);
  return values.map((bytes, i) => (bytes === undefined ? undefined : decodeValue<TableStatsRow>(keys[i]!, bytes)));
}

/** Each table's column id floor, if excision left one (keys/columns.ts). */
export async function columnIdFloors(view: ReadView, tableIds: readonly CatalogId[]): Promise<(ColumnIdFloorRow | undefined)[]> {
  const keys = tableIds.map(columnIdFloorKey);
  const values = await view.getMany(keys);
  return values.map((bytes, i) => (bytes === undefined ? undefined : decodeValue<ColumnIdFloorRow>(keys[i]!, bytes)));
}

export async function option(view: ReadView, name: string): Promise<string | undefined> {
  const key = optionKey(name);
  const bytes = await view.get(key);
  return bytes === undefined ? undefined : decodeOption(key, bytes).value;
}

/** Every catalog option (ducklake_metadata, global scope), by key. */
export async function options(view: ReadView): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const [key, bytes] of view.scan(ALL_OPTIONS)) {
    const { name, value } = decodeOption(key, bytes);
    out.set(name, value);
  }
  return out;
}

// ---- retention (written by gc/)

/** Retain-from: untagged snapshots below it are out of retention. 0 until first advanced. */
export async function retainFrom(view: ReadView): Promise<RetainFromRow> {
  return (await view.stateValue<RetainFromRow>(RETAIN_FROM_KEY)) ?? { snapshot: snapshotId(0), since: 0 };
}

export async function* leases(view: ReadView): AsyncGenerator<{ id: string } & LeaseRow> {
  for await (const [key, bytes] of view.scan(ALL_LEASES)) yield decodeLease(key, bytes);
}

export async function lease(view: ReadView, id: string): Promise<LeaseRow | undefined> {
  const key = leaseKey(id);
  const bytes = await view.get(key);
  return bytes === undefined ? undefined : decodeValue<LeaseRow>(key, bytes);
}

/** Whether a tag pins `id`. Tags are few (maxTags), so a scan is cheap; it runs only below retain-from. */
export async function isTagged(view: ReadView, id: SnapshotId): Promise<boolean> {
  for await (const t of tags(view)) if (t.snapshot === id) return true;
  return false;
}

/** Refuses an untagged snapshot below retain-from, whether or not its records were excised yet. */
export async function assertRetained(view: ReadView, id: SnapshotId): Promise<void> {
  const r = await retainFrom(view);
  if (id >= r.snapshot || (await isTagged(view, id))) return;
  throw new StrataError(
    'OUT_OF_RETENTION',
    `snapshot ${id} is below retain-from (${r.snapshot}) and untagged, so it is no longer readable; ` +
      `the oldest readable snapshot is ${r.snapshot} (tagged snapshots below it stay readable by tag)`,
    { snapshot: id, first: r.snapshot },
  );
}

// ---- file column statistics

/** The statistics of the files (by id and begin) of one table, in one multi-get; files without any are absent. */
/** The name mappings of the given data files of a table (those that name one), by file id. */
export async function nameMappings(view: ReadView, tableId: CatalogId, files: readonly { id: FileId; begin: SnapshotId; mappingId: number | null }[]): Promise<Map<FileId, NameMapping>> {
  const mapped = files.filter((f) => f.mappingId !== null);
  const keys = mapped.map((f) => nameMappingKey(tableId, f.id, f.begin));
  const values = await view.getMany(keys);
  const out = new Map<FileId, NameMapping>();
  values.forEach((v, i) => {
    if (v === undefined) throw new StrataError('CORRUPT', `data file ${mapped[i]!.id} of table ${tableId} names name mapping ${mapped[i]!.mappingId}, which the index does not hold; strata verify finds such rows, strata repair --rebuild-index rebuilds the index`);
    out.set(mapped[i]!.id, decodeNameMapping(keys[i]!, v));
  });
  return out;
}

export async function fileColumnStats(view: ReadView, tableId: CatalogId, files: readonly { id: FileId; begin: SnapshotId }[]): Promise<Map<FileId, ColumnStats[]>> {
  const keys = files.map((f) => fileColumnStatsKey(tableId, f.id, f.begin));
  const values = isDense(files) ? await valuesByScan(view, keys) : await view.getMany(keys);
  const out = new Map<FileId, ColumnStats[]>();
  values.forEach((v, i) => {
    if (v !== undefined) out.set(files[i]!.id, decodeFileColumnStats(keys[i]!, v));
  });
  return out;
}

/**
 * Files whose ids span at most twice their number (a commit's files, a table's at a snapshot): their stats
 * are most of one key range, which one scan reads on the index's own thread, where a point read per file
 * would each cost the event loop several µs.
 */
function isDense(files: readonly { id: FileId }[]): boolean {
  if (files.length < 16) return false;
  let [lo, hi] = [Infinity, -Infinity];
  for (const f of files) [lo, hi] = [Math.min(lo, f.id), Math.max(hi, f.id)];
  return hi - lo + 1 <= 2 * files.length;
}

/** The values of `keys` (undefined where there is none), read by one scan from the least key to the greatest. */
async function valuesByScan(view: ReadView, keys: readonly Key[]): Promise<(Uint8Array | undefined)[]> {
  const order = keys.map((_, i) => i).sort((a, b) => Buffer.compare(keys[a]!, keys[b]!));
  const out: (Uint8Array | undefined)[] = new Array(keys.length).fill(undefined);
  let next = 0;
  for await (const batch of view.scanBatches({ gte: keys[order[0]!]!, lte: keys[order.at(-1)!]! })) {
    for (const [key, value] of batch) {
      // Every key asked for up to this one is answered: by it, or by none (the same file asked twice, twice).
      for (let c: number; next < order.length && (c = Buffer.compare(keys[order[next]!]!, key)) <= 0; next++) if (c === 0) out[order[next]!] = value;
    }
  }
  return out;
}
