// The one place that knows how each catalog table is laid out in the keyspace and how to read it at a
// snapshot. Readers and transactions both go through these functions; neither touches keys directly.
import { type CatalogId, type ColumnId, type FileId, MAX_ID, type SnapshotId, snapshotId } from '../../keys/ids.js';
import { decodeKey, encodeKey, type Field, type Key, keyPrefix, prefixEnd, readU64 } from '../../keys/key-codec.js';
import type {
  DataFileEndRow,
  DataFileManifestRow,
  ColumnRow,
  DataFileRow,
  DeleteFileRow,
  FileTableIndexRow,
  MetadataRow,
  RelationKind,
  RelationNameIndexRow,
  SchemaNameIndexRow,
  SchemaRow,
  SnapshotChangesRow,
  SnapshotRow,
  SnapshotTagRow,
  TableRow,
  TableStatsRow,
  ViewRow,
  FilePathRow,
} from '../../keys/rows.js';
import { SystemKey, Tag } from '../../keys/tags.js';
import { manifestRow } from '../../keys/manifest.js';
import { isVisible } from '../../keys/visibility.js';
import { StrataError } from '../errors.js';
import { beginOf as keyBegin, decodeRow } from '../kv/decode.js';
import type { ReadView } from '../kv/read-view.js';
import { type CachedVersion, cachedGroup, MAX_CACHED_GROUP } from '../kv/version-cache.js';

export { decodeRow };

const beginOf = (key: Key): SnapshotId => snapshotId(keyBegin(key));
export const beginOfKey = beginOf;
import type { DataFileInfo, DeleteFileInfo, SnapshotInfo } from './records.js';

/** A row together with the snapshot that wrote it (the key's begin_snapshot). */
export interface Version<T> {
  begin: SnapshotId;
  row: T;
}

/** The version of one entity visible at `at`: the newest version that begins at or before it, if not ended. */
export async function versionAt<T extends { end: SnapshotId | null }>(
  view: ReadView,
  tag: Tag,
  fields: readonly Field[],
  at: SnapshotId,
): Promise<Version<T> | undefined> {
  let begin: SnapshotId;
  let row: T;
  if (cachedGroup(tag, fields.length)?.readAhead) {
    const versions = await view.group(tag, fields);
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
    const hit = await view.last(keyPrefix(tag, fields), encodeKey(tag, fields, at));
    if (hit === undefined) return undefined;
    begin = beginOf(hit[0]);
    row = decodeRow<T>(hit[0], hit[1]);
  }
  return isVisible(begin, row.end, at) ? { begin, row } : undefined;
}

/** Every version under a key prefix, visible at `at` or (with `at` undefined) all of them, in batches. */
async function* versionBatches<T extends { end: SnapshotId | null }>(
  view: ReadView,
  tag: Tag,
  fields: readonly Field[],
  at: SnapshotId | undefined,
  end?: Key,
): AsyncGenerator<readonly (Version<T> & { fields: readonly Field[] })[]> {
  // Cached versions already have this shape; they are filtered, not copied.
  for await (const batch of view.versionBatches(tag, fields, end)) {
    const out = (at === undefined ? batch : batch.filter((v) => isVisible(v.begin, (v.row as T).end, at))) as unknown as readonly (Version<T> & {
      fields: readonly Field[];
    })[];
    if (out.length > 0) yield out;
  }
}

async function* versionsUnder<T extends { end: SnapshotId | null }>(
  view: ReadView,
  tag: Tag,
  fields: readonly Field[],
  at: SnapshotId | undefined,
): AsyncGenerator<Version<T> & { fields: readonly Field[] }> {
  for await (const batch of versionBatches<T>(view, tag, fields, at)) yield* batch;
}

// ---- snapshots

const HEAD_SNAPSHOT_KEY = encodeKey(Tag.System, [SystemKey.HeadSnapshot]);

export async function headSnapshot(view: ReadView): Promise<Version<SnapshotRow>> {
  const head = await view.stateValue<{ id: number }>(HEAD_SNAPSHOT_KEY);
  const id = head === undefined ? undefined : snapshotId(head.id);
  const row = id === undefined ? undefined : await snapshotRow(view, id);
  if (row === undefined) throw new StrataError('CORRUPT', 'the index holds no newest snapshot; rebuild it from the store');
  return { begin: id!, row };
}

export function snapshotRow(view: ReadView, id: SnapshotId): Promise<SnapshotRow | undefined> {
  return view.getImmutable<SnapshotRow>(encodeKey(Tag.Snapshot, [], id));
}

export function snapshotChanges(view: ReadView, id: SnapshotId): Promise<SnapshotChangesRow | undefined> {
  return view.getImmutable<SnapshotChangesRow>(encodeKey(Tag.SnapshotChanges, [], id));
}

export async function snapshotInfo(view: ReadView, id: SnapshotId, row: SnapshotRow): Promise<SnapshotInfo> {
  const changes = await snapshotChanges(view, id);
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
  const hit = await view.last(keyPrefix(Tag.SnapshotTimeIndex), encodeKey(Tag.SnapshotTimeIndex, [time], MAX_ID));
  return hit && beginOf(hit[0]);
}

/** The oldest snapshot in the view. */
export async function firstSnapshot(view: ReadView): Promise<Version<SnapshotRow> | undefined> {
  const prefix = keyPrefix(Tag.Snapshot);
  for await (const [key, bytes] of view.scan({ gte: prefix, lt: prefixEnd(prefix), limit: 1 })) {
    return { begin: beginOf(key), row: decodeRow<SnapshotRow>(key, bytes) };
  }
  return undefined;
}

/** Snapshot ids from `from` downwards with their maintenance flag, newest first, streamed. */
export async function* snapshotsDownFrom(view: ReadView, from: SnapshotId): AsyncGenerator<{ id: SnapshotId; maintenance: boolean }> {
  const prefix = keyPrefix(Tag.SnapshotChanges);
  for await (const [key, bytes] of view.scan({ gte: prefix, lte: encodeKey(Tag.SnapshotChanges, [], from), reverse: true })) {
    yield { id: beginOf(key), maintenance: decodeRow<SnapshotChangesRow>(key, bytes).maintenance };
  }
}

// ---- tags

export function tag(view: ReadView, name: string): Promise<SnapshotTagRow | undefined> {
  return view.stateValue<SnapshotTagRow>(encodeKey(Tag.SnapshotTag, [name]), { rememberAbsent: false });
}

export async function* tags(view: ReadView): AsyncGenerator<{ name: string } & SnapshotTagRow> {
  const prefix = keyPrefix(Tag.SnapshotTag);
  for await (const [key, bytes] of view.scan({ gte: prefix, lt: prefixEnd(prefix) })) {
    yield { name: decodeKey(key).fields[0] as string, ...decodeRow<SnapshotTagRow>(key, bytes) };
  }
}

/** Every snapshot in the view, oldest first. */
export async function* snapshots(view: ReadView): AsyncGenerator<SnapshotInfo> {
  const prefix = keyPrefix(Tag.Snapshot);
  for await (const [key, bytes] of view.scan({ gte: prefix, lt: prefixEnd(prefix) })) {
    yield snapshotInfo(view, beginOf(key), decodeRow<SnapshotRow>(key, bytes));
  }
}

/** The existing snapshot ids just below and just above `id`, for "did you mean" messages. */
export async function nearestSnapshots(view: ReadView, id: SnapshotId): Promise<SnapshotId[]> {
  const prefix = keyPrefix(Tag.Snapshot);
  const probe = encodeKey(Tag.Snapshot, [], id);
  const below = await view.last(prefix, probe);
  const out: SnapshotId[] = below ? [beginOf(below[0])] : [];
  for await (const [key] of view.scan({ gte: probe, lt: prefixEnd(prefix), limit: 1 })) out.push(beginOf(key));
  return out;
}

// ---- schemas

export async function schemaIdByName(view: ReadView, at: SnapshotId, name: string): Promise<CatalogId | undefined> {
  return (await versionAt<SchemaNameIndexRow>(view, Tag.SchemaNameIndex, [name], at))?.row.schemaId;
}

export function schemaAt(view: ReadView, at: SnapshotId, id: CatalogId): Promise<Version<SchemaRow> | undefined> {
  return versionAt<SchemaRow>(view, Tag.Schema, [id], at);
}

export async function* schemasAt(view: ReadView, at: SnapshotId): AsyncGenerator<{ id: CatalogId } & Version<SchemaRow>> {
  for await (const v of versionsUnder<SchemaRow>(view, Tag.Schema, [], at)) {
    yield { id: v.fields[0] as CatalogId, begin: v.begin, row: v.row };
  }
}

// ---- tables and views (one namespace per schema, as in DuckDB)

export async function relationByName(
  view: ReadView,
  at: SnapshotId,
  schemaId: CatalogId,
  name: string,
): Promise<{ kind: RelationKind; id: CatalogId } | undefined> {
  const v = await versionAt<RelationNameIndexRow>(view, Tag.RelationNameIndex, [schemaId, name], at);
  return v && { kind: v.row.kind, id: v.row.id };
}

export async function* relationsAt(
  view: ReadView,
  at: SnapshotId,
  schemaId: CatalogId,
): AsyncGenerator<{ kind: RelationKind; id: CatalogId; name: string }> {
  for await (const v of versionsUnder<RelationNameIndexRow>(view, Tag.RelationNameIndex, [schemaId], at)) {
    yield { kind: v.row.kind, id: v.row.id, name: v.fields[1] as string };
  }
}

export function tableAt(view: ReadView, at: SnapshotId, id: CatalogId): Promise<Version<TableRow> | undefined> {
  return versionAt<TableRow>(view, Tag.Table, [id], at);
}

export function viewAt(view: ReadView, at: SnapshotId, id: CatalogId): Promise<Version<ViewRow> | undefined> {
  return versionAt<ViewRow>(view, Tag.View, [id], at);
}

/** Every version of every schema, table or view, in batches (for whole-catalog operations such as restore). */
export async function* entityVersions(
  view: ReadView,
  tag: Tag.Schema | Tag.Table | Tag.View,
): AsyncGenerator<readonly (Version<{ end: SnapshotId | null }> & { fields: readonly Field[] })[]> {
  yield* versionBatches<{ end: SnapshotId | null }>(view, tag, [], undefined);
}

// ---- columns

export type ColumnVersion = { id: ColumnId } & Version<ColumnRow>;

/** The table's columns visible at `at`, in column order; with `at` undefined, every version ever written. */
export async function columnsOf(view: ReadView, tableId: CatalogId, at: SnapshotId | undefined): Promise<ColumnVersion[]> {
  // A table's columns are one cached metadata group: read as one array, not streamed (a lookup's hot path).
  const out: ColumnVersion[] = [];
  for (const v of await view.group(Tag.Column, [tableId])) {
    const row = v.row as ColumnRow;
    if (at === undefined || isVisible(v.begin, row.end, at)) out.push({ id: v.fields[1] as ColumnId, begin: v.begin as SnapshotId, row });
  }
  return at === undefined ? out : out.sort((a, b) => a.row.order - b.row.order);
}

// ---- files

export type DataFileVersion = { id: FileId } & Version<DataFileRow>;
export type DeleteFileVersion = { id: FileId } & Version<DeleteFileRow>;

/**
 * File ids grow with snapshots (each commit allocates from the previous snapshot's next_file_id), so no file
 * visible at an old snapshot S has an id at or above S's next_file_id: a listing at S stops there instead of
 * reading the files added after it. At the newest snapshot there is nothing to skip.
 */
async function fileScanEnd(view: ReadView, tag: Tag, tableId: CatalogId, at: SnapshotId): Promise<Key | undefined> {
  if ((await snapshotRow(view, snapshotId(at + 1))) === undefined) return undefined;
  const row = await snapshotRow(view, at);
  return row && keyPrefix(tag, [tableId, row.nextFileId]);
}

/**
 * The table's data files visible at `at`, in batches: from the cached group when the table is small and
 * was listed before, else from its manifests (one value per commit, files ascending by id) merged with the
 * index of file ends (ascending by id too), so a listing reads about one value per commit, not one per
 * file. A table of at most MAX_CACHED_GROUP files is read to its end, whatever `at`, and cached whole.
 */
export async function* dataFilesAt(view: ReadView, at: SnapshotId, tableId: CatalogId): AsyncGenerator<DataFileVersion[]> {
  const hit = view.cached(Tag.DataFile, [tableId]);
  if (hit !== undefined) {
    const out: DataFileVersion[] = [];
    for (const v of hit) {
      const row = v.row as DataFileRow;
      if (isVisible(v.begin, row.end, at)) out.push({ id: v.fields[1] as FileId, begin: v.begin as SnapshotId, row });
    }
    if (out.length > 0) yield out;
    return;
  }
  // What was read so far, while the table may still be small enough to cache (built into versions at the
  // end, so a large table pays nothing for it).
  let whole: { begin: SnapshotId; rows: [FileId, DataFileRow][] }[] | undefined = [];
  let count = 0;
  const ends = new EndCursor(view, tableId);
  const prefix = keyPrefix(Tag.DataFileManifest, [tableId]);
  const upToAt = { gte: prefix, lte: encodeKey(Tag.DataFileManifest, [tableId], at) };
  const afterAt = { gte: encodeKey(Tag.DataFileManifest, [tableId], at + 1), lt: prefixEnd(prefix) };
  try {
    for (const range of [upToAt, afterAt]) {
      // Past `at` only to complete a small table's group: nothing there is visible.
      if (range === afterAt && whole === undefined) break;
      for await (const batch of view.scanBatches(range)) {
        for (const [key, bytes] of batch) {
          const begin = beginOf(key);
          const { files } = decodeRow<DataFileManifestRow>(key, bytes);
          await ends.readTo(files.at(-1)![0]);
          const rows: [FileId, DataFileRow][] = [];
          const out: DataFileVersion[] = [];
          for (const file of files) {
            const id = file[0];
            const end = ends.endOf(id);
            const row = manifestRow(file, end);
            rows.push([id, row]);
            if (begin <= at && (end === null || end > at)) out.push({ id, begin, row });
          }
          count += rows.length;
          whole = whole !== undefined && count <= MAX_CACHED_GROUP ? (whole.push({ begin, rows }), whole) : undefined;
          if (out.length > 0) yield out;
        }
        if (range === afterAt && whole === undefined) break;
      }
    }
  } finally {
    await ends.close();
  }
  if (whole === undefined) return;
  const versions: CachedVersion[] = [];
  for (const { begin, rows } of whole) {
    for (const [id, row] of rows) {
      versions.push(Object.freeze({ key: encodeKey(Tag.DataFile, [tableId, id], begin), fields: Object.freeze([tableId, id]), begin, row: Object.freeze(row) }));
    }
  }
  view.offer(Tag.DataFile, [tableId], versions);
}

/** The ends of a table's data files, read in key (= file id) order as a listing's manifests ask for them. */
class EndCursor {
  private readonly batches: AsyncIterator<[Key, Uint8Array][]>;
  private ends: { id: number; end: SnapshotId }[] = [];
  private at = 0;
  private done = false;

  constructor(view: ReadView, tableId: CatalogId) {
    const prefix = keyPrefix(Tag.DataFileEndIndex, [tableId]);
    this.batches = view.scanBatches({ gte: prefix, lt: prefixEnd(prefix) })[Symbol.asyncIterator]();
  }

  /** Buffers the ends up to file `id` (and a batch beyond). */
  async readTo(id: number): Promise<void> {
    while (!this.done && (this.at >= this.ends.length || this.ends.at(-1)!.id < id)) {
      const next = await this.batches.next();
      if (next.done) {
        this.done = true;
        return;
      }
      this.ends = this.ends.slice(this.at).concat(next.value.map(([k, v]) => ({ id: readU64(k, 9), end: decodeRow<DataFileEndRow>(k, v).end })));
      this.at = 0;
    }
  }

  async close(): Promise<void> {
    await this.batches.return?.();
  }

  /** The end of file `id` (ids asked in ascending order, after readTo), or null. */
  endOf(id: number): SnapshotId | null {
    while (this.at < this.ends.length && this.ends[this.at]!.id < id) this.at++;
    return this.at < this.ends.length && this.ends[this.at]!.id === id ? this.ends[this.at]!.end : null;
  }
}

/** The table's delete files visible at `at`, in batches. */
export async function* deleteFilesAt(view: ReadView, at: SnapshotId, tableId: CatalogId): AsyncGenerator<DeleteFileVersion[]> {
  const end = await fileScanEnd(view, Tag.DeleteFile, tableId, at);
  for await (const batch of versionBatches<DeleteFileRow>(view, Tag.DeleteFile, [tableId], at, end)) {
    yield batch.map((v) => ({ id: v.fields[1] as FileId, begin: v.begin, row: v.row }));
  }
}

/** A data file by id, whatever its visibility (a file has exactly one version). */
export async function dataFile(view: ReadView, tableId: CatalogId, id: FileId): Promise<DataFileVersion | undefined> {
  for await (const v of versionsUnder<DataFileRow>(view, Tag.DataFile, [tableId, id], undefined)) {
    return { id, begin: v.begin, row: v.row };
  }
  return undefined;
}

/** The table a data file was registered in, if the file exists. */
export async function tableOfDataFile(view: ReadView, id: FileId): Promise<CatalogId | undefined> {
  const prefix = keyPrefix(Tag.FileTableIndex, [id]);
  for await (const [key, bytes] of view.scan({ gte: prefix, lt: prefixEnd(prefix), limit: 1 })) {
    return decodeRow<FileTableIndexRow>(key, bytes).tableId;
  }
  return undefined;
}

/**
 * The end a file has as of snapshot `asOf`: an end after it is the future, which an answer about `asOf`
 * must not show (or the same question would get another answer once the file is removed).
 */
const endAsOf = (end: SnapshotId | null, asOf: SnapshotId) => (end !== null && end <= asOf ? end : null);

export function dataFileInfo(id: FileId, begin: SnapshotId, row: DataFileRow, asOf: SnapshotId): DataFileInfo {
  return {
    id,
    path: row.path,
    format: row.format,
    recordCount: row.recordCount,
    fileSizeBytes: row.fileSizeBytes,
    footerSize: row.footerSize,
    rowIdStart: row.rowIdStart,
    beginSnapshot: begin,
    endSnapshot: endAsOf(row.end, asOf),
  };
}

export function deleteFileInfo(id: FileId, begin: SnapshotId, row: DeleteFileRow, asOf: SnapshotId): DeleteFileInfo {
  return {
    id,
    dataFileId: row.dataFileId,
    path: row.path,
    format: row.format,
    deleteCount: row.deleteCount,
    fileSizeBytes: row.fileSizeBytes,
    beginSnapshot: begin,
    endSnapshot: endAsOf(row.end, asOf),
  };
}

// ---- singletons

export async function tableStats(view: ReadView, tableId: CatalogId): Promise<TableStatsRow | undefined> {
  const key = encodeKey(Tag.TableStats, [tableId]);
  const bytes = await view.get(key);
  return bytes === undefined ? undefined : decodeRow<TableStatsRow>(key, bytes);
}

export async function option(view: ReadView, name: string): Promise<string | undefined> {
  const key = encodeKey(Tag.Metadata, [name]);
  const bytes = await view.get(key);
  return bytes === undefined ? undefined : decodeRow<MetadataRow>(key, bytes).value;
}

/** Every catalog option (ducklake_metadata, global scope), by key. */
export async function options(view: ReadView): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const prefix = keyPrefix(Tag.Metadata);
  for await (const [key, bytes] of view.scan({ gte: prefix, lt: prefixEnd(prefix) })) {
    out.set(decodeKey(key).fields[0] as string, decodeRow<MetadataRow>(key, bytes).value);
  }
  return out;
}

// ---------------------------------------------------------------- retention (written by gc/)

export interface RetainFromRow {
  snapshot: SnapshotId;
  /** When it was last advanced (catalog clock). */
  since: number;
}

export interface LeaseRow {
  holder: string;
  snapshot: SnapshotId;
  expiresAt: number;
  createdAt: number;
}

const RETAIN_FROM_KEY = encodeKey(Tag.System, [SystemKey.RetainFrom]);

/** Retain-from: untagged snapshots below it are out of retention. 0 until first advanced. */
export async function retainFrom(view: ReadView): Promise<RetainFromRow> {
  return (await view.stateValue<RetainFromRow>(RETAIN_FROM_KEY)) ?? { snapshot: snapshotId(0), since: 0 };
}

export function retainFromKey(): Key {
  return RETAIN_FROM_KEY;
}

export async function* leases(view: ReadView): AsyncGenerator<{ id: string } & LeaseRow> {
  const prefix = keyPrefix(Tag.Lease);
  for await (const [key, bytes] of view.scan({ gte: prefix, lt: prefixEnd(prefix) })) {
    yield { id: decodeKey(key).fields[0] as string, ...decodeRow<LeaseRow>(key, bytes) };
  }
}

export async function lease(view: ReadView, id: string): Promise<LeaseRow | undefined> {
  const key = encodeKey(Tag.Lease, [id]);
  const bytes = await view.get(key);
  return bytes === undefined ? undefined : decodeRow<LeaseRow>(key, bytes);
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

/** For each path, the file ids of the rows that name it (empty when none), in one multi-get. */
export async function filePathRows(view: ReadView, paths: readonly string[]): Promise<Map<string, FileId[]>> {
  const keys = paths.map((p) => encodeKey(Tag.FilePathIndex, [p]));
  const values = await view.getMany(keys);
  return new Map(paths.map((p, i) => [p, values[i] === undefined ? [] : decodeRow<FilePathRow>(keys[i]!, values[i]!).fileIds]));
}
