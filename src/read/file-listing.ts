// The files of a table at a snapshot: what a planner lists on every query, so this is the read path that
// has to cost what the files cost. Data files are listed from their manifests (one value per commit, files
// ascending by id) merged with the index of file ends (ascending by id too); small tables are cached whole.
// Either way a listing is in commit order (inCommitOrder).
import {
  type BaseFile,
  baseParts,
  basesThrough,
  dataFileEnds,
  dataFileEndsOfTables,
  decodeBase,
  decodeBasePart,
  decodeEndedAt,
  endedBetween,
  manifestFile,
  manifestsBetween,
  dataFileEntity,
  dataFileIdOf,
  type DataFileRow,
  dataFilesOfTable,
  decodeDataFileEnd,
  decodeManifest,
  decodeManifestPart,
  type ManifestFile,
  MANIFEST_PART_FILES,
  manifestParts,
  manifestsFrom,
  manifestsOfTable,
  manifestTableOf,
  ManifestedFile,
} from '../../keys/data-files.js';
import {
  deleteFileEntity,
  deleteFileIdEnd,
  deleteFileIdOf,
  type DeleteFileRow,
  deleteFilesFrom,
  deleteFilesOfTable,
  deleteFileTableOf,
} from '../../keys/delete-files.js';
import { type CatalogId, type FileId, fileId, type SnapshotId, snapshotId } from '../../keys/ids.js';
import { beginOf, type Key } from '../../keys/key-codec.js';
import type { Group } from '../../keys/groups.js';
import { decodeVersion, type StoredVersion, type Version } from '../../keys/versions.js';
import { isVisible } from '../../keys/visibility.js';
import type { ReadView } from '../kv/read-view.js';
import { MAX_CACHED_GROUP } from '../kv/version-cache.js';
import { snapshotRow, tableStats, versionBatches } from './catalog-queries.js';
import { listedBy, type TableStatsRow } from '../../keys/stats.js';
import type { DataFileInfo, DeleteFileInfo } from './records.js';

export type DataFileVersion = { id: FileId } & Version<DataFileRow>;
export type DeleteFileVersion = { id: FileId } & Version<DeleteFileRow>;

/**
 * A snapshot's next_file_id is above every file id committed by then, so no file visible at an old snapshot
 * S has an id at or above it: a listing at S stops there instead of reading most files added after it. At
 * the newest snapshot there is nothing to skip.
 */
async function fileScanEnd(view: ReadView, at: SnapshotId, end: (nextFileId: FileId) => Key): Promise<Key | undefined> {
  if ((await snapshotRow(view, snapshotId(at + 1))) === undefined) return undefined;
  const row = await snapshotRow(view, at);
  return row && end(row.nextFileId);
}

/**
 * The table's data files visible at `at`, in batches: from the cached group when the table is small and
 * was listed before, else from its manifests merged with the index of file ends, so a listing reads about
 * one value per commit, not one per file. A table of at most MAX_CACHED_GROUP files is read to its end,
 * whatever `at`, and cached whole.
 */
export async function* dataFilesAt(view: ReadView, at: SnapshotId, tableId: CatalogId): AsyncGenerator<DataFileVersion[]> {
  const group = dataFilesOfTable(tableId);
  let hit = view.cached(group);
  const stats = hit === undefined ? await tableStats(view, tableId) : undefined;
  hit ??= await smallTablesFrom(view, tableId, stats);
  // A table that never ended a file has no base.
  if (hit === undefined && !cachedWhole(stats) && stats?.endedFiles !== 0) {
    const base = await newestBase(view, tableId, at);
    if (base !== undefined) {
      yield* fromBase(view, tableId, at, base);
      return;
    }
  }
  if (hit !== undefined) {
    const out: DataFileVersion[] = [];
    for (const v of inCommitOrder(hit)) {
      const row = v.row as DataFileRow;
      if (!isVisible(v.begin, row.end, at)) continue;
      out.push(v instanceof ManifestedFile ? v : { id: dataFileIdOf(v.fields), begin: v.begin as SnapshotId, row });
    }
    if (out.length > 0) yield out;
    return;
  }
  // What was read so far, while the table may still be small enough to cache.
  let whole: ManifestedFile[] | undefined = [];
  // A table none of whose files ever ended has no ends to merge (a point read instead of an iterator). Else
  // the ends are asked for from the first batch of manifests on: their first read starts now, so the two
  // trips to LevelDB's thread pool overlap instead of following each other.
  const ends = stats?.endedFiles === 0 ? NO_ENDS : new EndCursor(view, tableId);
  // Handed on a batch of LevelDB's at a time, not a manifest at a time: a step through these generators
  // costs more than the ten files a commit of a few files adds (docs/decisions/0005).
  let out: DataFileVersion[] = [];
  const take = async (begin: SnapshotId, files: readonly ManifestFile[]) => {
    await ends.readTo(files[0]![0], files.at(-1)![0]);
    for (const file of files) {
      const end = ends.endOf(file[0]);
      const version = new ManifestedFile(tableId, begin, file, end);
      whole?.push(version);
      if (isVisible(begin, end, at)) out.push(version);
    }
    if (whole !== undefined && whole.length > MAX_CACHED_GROUP) whole = undefined;
  };
  try {
    scan: for await (const batch of view.scanBatches(manifestsOfTable(tableId))) {
      for (const [key, bytes] of batch) {
        const begin = snapshotId(beginOf(key));
        // Past `at` only to complete a small table's group: nothing there is visible.
        if (begin > at && whole === undefined) break scan;
        const first = decodeManifest(key, bytes);
        await take(begin, first.files);
        if (first.more) {
          for await (const parts of view.scanBatches(manifestParts(key))) {
            for (const [k, v] of parts) {
              await take(begin, decodeManifestPart(k, v));
              if (out.length >= MANIFEST_PART_FILES) {
                yield out;
                out = [];
              }
            }
          }
        }
        if (out.length >= MANIFEST_PART_FILES) {
          yield out;
          out = [];
        }
      }
    }
    if (out.length > 0) yield out;
  } finally {
    await ends.close();
  }
  if (whole === undefined) return;
  for (const v of whole) Object.freeze(v);
  // A group is in key order, which is file-id order; commits of two writers can interleave their ids.
  view.offer(group, whole.sort((a, b) => a.id - b.id));
}

/** Whether a listing of the table is kept whole (it has held at most MAX_CACHED_GROUP files), as far as its stats say. */
const cachedWhole = (stats: TableStatsRow | undefined): boolean =>
  stats?.dataFiles !== undefined && stats.endedFiles !== undefined && stats.dataFiles + stats.endedFiles <= MAX_CACHED_GROUP;

/**
 * Files past those of its live files a listing at the newest snapshot may read before a commit writes the
 * table a new base: a few manifests' worth, so a table that ends files now and then is not rewritten for it.
 */
const REBASE_SLACK = 1024;

/**
 * Live files past which no commit writes a base: a base is written in the commit's own log entry, ~100–150
 * bytes a file, and a commit that removes one file of a table of millions should not carry hundreds of
 * megabytes. Such a table lists from its manifests, as before bases (decision 0058).
 */
const MAX_BASE_FILES = 100_000;

/**
 * Whether a commit that leaves a table with stats `stats` writes it a base (the files visible at its
 * snapshot): when a listing there would read more than twice its live files and the slack, and the table is
 * not one whose listings are kept whole anyway. A base costs a commit its live files; it is written once
 * the files read past them are at least as many, so the bases of a table hold at most about as many entries
 * as its manifests and ends, and a listing reads at most about twice what it returns (decision 0058).
 */
export function rebaseDue(stats: TableStatsRow): boolean {
  const listed = listedBy(stats);
  return (
    listed !== undefined &&
    stats.dataFiles !== undefined &&
    stats.dataFiles <= MAX_BASE_FILES &&
    !cachedWhole(stats) &&
    listed > 2 * stats.dataFiles + REBASE_SLACK
  );
}

/** The files visible at `at` of table `tableId` as its base there records them, in commit order. */
export async function baseFilesAt(view: ReadView, at: SnapshotId, tableId: CatalogId): Promise<BaseFile[]> {
  const out: BaseFile[] = [];
  for await (const batch of dataFilesAt(view, at, tableId)) for (const v of batch) out.push([v.begin, manifestFile(v.id, v.row)]);
  return out;
}

/** The table's newest base at or before `at`: its first value, read in one reverse step. */
async function newestBase(view: ReadView, tableId: CatalogId, at: SnapshotId): Promise<[Key, Uint8Array] | undefined> {
  for await (const batch of view.scanBatches({ ...basesThrough(tableId, at), reverse: true, limit: 1 })) return batch[0];
  return undefined;
}

/**
 * The files visible at `at` from the base `base` (at snapshot B <= at): its files, then those of the
 * manifests after B up to `at`, less every file that ended after B up to `at` — one range of the ends by
 * end. What it reads follows the base and the commits since, not the table's history. The ends past `at` are
 * not read: a file listed here has none as of `at` (dataFileInfo's endSnapshot is null for it either way).
 */
async function* fromBase(view: ReadView, tableId: CatalogId, at: SnapshotId, base: [Key, Uint8Array]): AsyncGenerator<DataFileVersion[]> {
  const first = decodeBase(...base);
  const ended = new Set<number>();
  for await (const batch of view.scanBatches(endedBetween(tableId, first.at, at))) for (const [key] of batch) ended.add(decodeEndedAt(key).id);
  let out: DataFileVersion[] = [];
  const take = (begin: SnapshotId, file: ManifestFile) => {
    if (!ended.has(file[0])) out.push(new ManifestedFile(tableId, begin, file, null));
  };
  for (const [begin, file] of first.files) take(begin, file);
  if (first.more) {
    for await (const parts of view.scanBatches(baseParts(base[0]))) {
      for (const [k, v] of parts) for (const [begin, file] of decodeBasePart(k, v)) take(begin, file);
      if (out.length >= MANIFEST_PART_FILES) {
        yield out;
        out = [];
      }
    }
  }
  for await (const batch of view.scanBatches(manifestsBetween(tableId, first.at, at))) {
    for (const [key, bytes] of batch) {
      const begin = snapshotId(beginOf(key));
      const manifest = decodeManifest(key, bytes);
      for (const file of manifest.files) take(begin, file);
      if (manifest.more) for await (const parts of view.scanBatches(manifestParts(key))) for (const [k, v] of parts) for (const file of decodeManifestPart(k, v)) take(begin, file);
      if (out.length >= MANIFEST_PART_FILES) {
        yield out;
        out = [];
      }
    }
  }
  if (out.length > 0) yield out;
}

/**
 * Files (or delete files) a read-ahead decodes, and entries it reads, at most. Listing a small table from the
 * index costs a LevelDB iterator, ~80 µs through the thread pool whatever it holds, where SQLite answers in
 * ~70 µs: for a catalog of many small tables, each listed once by a process that just opened it, that was the
 * whole cost. Reading other tables in the same iterator cost ~1.3 µs a file warm, ~3 µs cold (decoding
 * included); their first listings then come from memory.
 */
const LISTING_READ_AHEAD = 16_384;

const NO_FILES: readonly StoredVersion[] = Object.freeze([]);

/** Below every table id: where a read of every table's manifests starts. */
const FIRST_TABLE = 0 as CatalogId;

/** Why a read-ahead passed a table over: its group is in the cache already, or it is left to its own listing. */
const CACHED = 'cached';
const LEFT_OUT = 'left out';
type Passed = typeof CACHED | typeof LEFT_OUT;

/** The groups of the tables a read-ahead left out: their misses read alone, not ahead again. */
const leftOut = <T>(read: ReadonlyMap<CatalogId, T | Passed>, groupOf: (table: CatalogId) => Group): Group[] =>
  [...read].filter(([, v]) => v === LEFT_OUT).map(([table]) => groupOf(table));

/**
 * The versions of table `tableId`'s data files, read with those of other small tables (up to
 * LISTING_READ_AHEAD files, whole tables only), all of which go to the cache. Where the read starts is the
 * cache's call (VersionCache.readAheadStart): a catalog's first read-ahead starts at its first table, passing
 * over tables already cached, so that a catalog within the limit is read once whatever table was touched
 * first; a later one starts at `tableId` and stops at the first table cached (an earlier read-ahead went on
 * from there). Undefined where the cache would not keep what is read, or read the table ahead and let it go,
 * or this is the process's first miss (a command that shows one table reads no other), or the table is too
 * large to keep, or its stats do not say how many files it has (a row from before they were counted), or the
 * read stopped before it: it is read alone.
 */
async function smallTablesFrom(view: ReadView, tableId: CatalogId, stats: TableStatsRow | undefined): Promise<readonly StoredVersion[] | undefined> {
  if (stats?.dataFiles === undefined || stats.endedFiles === undefined) return undefined;
  const files = stats.dataFiles + stats.endedFiles;
  if (files === 0) return NO_FILES;
  const start = files > MAX_CACHED_GROUP ? undefined : view.readAheadStart(dataFilesOfTable(tableId));
  if (start === undefined) return undefined;
  const from = start === 'first' ? FIRST_TABLE : tableId;
  // Per table, its files as versions with no end (the ends, few, are read after), or why it is not kept: it
  // is cached already, or left out (too many files, or a manifest in parts: a commit of hundreds of files),
  // which its own listing reads.
  const added = new Map<CatalogId, ManifestedFile[] | Passed>();
  let read = 0;
  let seen = 0;
  scan: for await (const batch of view.scanBatches(manifestsFrom(from))) {
    for (const [key, bytes] of batch) {
      const table = manifestTableOf(key);
      let files = added.get(table);
      if (files === undefined) {
        // Only whole tables: the read stops where the next one starts.
        if (read >= LISTING_READ_AHEAD) break scan;
        const cached = table !== tableId && view.cached(dataFilesOfTable(table)) !== undefined;
        if (cached && start === 'here') break scan;
        added.set(table, (files = cached ? CACHED : []));
      }
      // Entries passed over cost their reading too (a table left out may hold a manifest per commit of
      // millions): past the limit the read stops, without the table it was in.
      if (++seen > LISTING_READ_AHEAD) {
        added.delete(table);
        break scan;
      }
      if (!Array.isArray(files)) continue;
      const begin = snapshotId(beginOf(key));
      const manifest = decodeManifest(key, bytes);
      if (manifest.more || files.length + manifest.files.length > MAX_CACHED_GROUP) {
        added.set(table, LEFT_OUT);
        continue;
      }
      for (const file of manifest.files) files.push(new ManifestedFile(table, begin, file, null));
      read += manifest.files.length;
    }
  }
  const last = [...added.keys()].at(-1);
  if (last === undefined) return undefined;
  const ended = new Map<CatalogId, Map<number, SnapshotId>>();
  for await (const batch of view.scanBatches(dataFileEndsOfTables(from, last))) {
    for (const [key, bytes] of batch) {
      const { tableId: table, id, end } = decodeDataFileEnd(key, bytes);
      let byId = ended.get(table);
      if (byId === undefined) ended.set(table, (byId = new Map()));
      byId.set(id, end);
    }
  }
  const groups: [Group, readonly StoredVersion[]][] = [];
  for (const [table, files] of added) {
    if (!Array.isArray(files)) continue;
    const ends = ended.get(table);
    const versions = ends === undefined ? files : files.map((v) => (ends.has(v.id) ? v.withEnd(ends.get(v.id)!) : v));
    for (const v of versions) Object.freeze(v);
    // A group is in key order, which is file-id order; commits of two writers can interleave their ids.
    const inOrder = versions.every((v, i) => i === 0 || versions[i - 1]!.id < v.id);
    groups.push([dataFilesOfTable(table), inOrder ? versions : versions.sort((a, b) => a.id - b.id)]);
  }
  view.offerReadAhead(dataFilesOfTable(tableId), groups, start, false, leftOut(added, dataFilesOfTable));
  return groups.find(([g]) => g.fields[0] === tableId)?.[1];
}

/** The file id of a data file version of a cached group (kept by a listing, or patched in by an apply). */
const fileIdOf = (v: StoredVersion): FileId => (v instanceof ManifestedFile ? v.id : dataFileIdOf(v.fields));

/**
 * A listing is in commit order — by the snapshot that added the file, then by id, as its manifests hold
 * it and as its row ids were given — whether it comes from the manifests or from the cached group, which
 * is in key (file-id) order: the two differ once two writers' id blocks interleave. Sorted once per cached
 * group, not per listing.
 */
const commitOrdered = new WeakMap<readonly StoredVersion[], readonly StoredVersion[]>();
const byCommit = (a: StoredVersion, b: StoredVersion) => a.begin - b.begin || fileIdOf(a) - fileIdOf(b);

function inCommitOrder(group: readonly StoredVersion[]): readonly StoredVersion[] {
  let ordered = commitOrdered.get(group);
  if (ordered === undefined) {
    const sorted = group.every((v, i) => i === 0 || byCommit(group[i - 1]!, v) < 0);
    ordered = sorted ? group : [...group].sort(byCommit);
    commitOrdered.set(group, ordered);
  }
  return ordered;
}

/** Where a listing learns the end of each file it reads from the manifests. */
interface Ends {
  /** Makes the ends of files `first` to `last` (ascending) known. */
  readTo(first: number, last: number): Promise<void>;
  /** The end of file `id` (ids asked in ascending order, after readTo), or null. */
  endOf(id: number): SnapshotId | null;
  close(): Promise<void>;
}

const NO_ENDS: Ends = { readTo: async () => undefined, endOf: () => null, close: async () => undefined };

/**
 * The ends of a table's data files, read in file-id order as a listing's manifests ask for them: ascending
 * within a commit, and mostly from one commit to the next; a commit whose ids start below what was read
 * (ids from a block another writer claimed earlier) starts the reading again from its first id.
 */
class EndCursor implements Ends {
  private batches!: AsyncIterator<[Key, Uint8Array][]>;
  /** The read under way, started before anyone waits for it. */
  private next!: Promise<IteratorResult<[Key, Uint8Array][]>>;
  private ends: { id: number; end: SnapshotId }[] = [];
  private at = 0;
  private done = false;
  /** The lowest id the buffered ends answer for. */
  private from = 0;

  constructor(
    private readonly view: ReadView,
    private readonly tableId: CatalogId,
  ) {
    this.start(0);
  }

  /** Buffers the ends of files `first` to `last` (ascending), and a batch beyond. */
  async readTo(first: number, last: number): Promise<void> {
    if (first < this.from) {
      await this.close();
      this.start(first);
    }
    while (!this.done && (this.at >= this.ends.length || this.ends.at(-1)!.id < last)) {
      const next = await this.next;
      if (next.done) {
        this.done = true;
        return;
      }
      this.next = this.batches.next();
      this.ends = this.ends.slice(this.at).concat(next.value.map(([k, v]) => decodeDataFileEnd(k, v)));
      this.at = 0;
    }
  }

  private start(from: number): void {
    this.batches = this.view.scanBatches(dataFileEnds(this.tableId, fileId(from)))[Symbol.asyncIterator]();
    this.next = this.batches.next();
    // Read ahead: a listing that stops early (or fails) may never wait for it.
    this.next.catch(() => undefined);
    this.ends = [];
    this.at = 0;
    this.done = false;
    this.from = from;
  }

  async close(): Promise<void> {
    await this.next.catch(() => undefined);
    await this.batches.return?.();
  }

  endOf(id: number): SnapshotId | null {
    while (this.at < this.ends.length && this.ends[this.at]!.id < id) this.at++;
    this.from = id;
    return this.at < this.ends.length && this.ends[this.at]!.id === id ? this.ends[this.at]!.end : null;
  }
}

/** The table's delete files visible at `at`, in batches. */
export async function* deleteFilesAt(view: ReadView, at: SnapshotId, tableId: CatalogId): AsyncGenerator<DeleteFileVersion[]> {
  const hit = view.cached(deleteFilesOfTable(tableId)) ?? (await deleteFilesReadAhead(view, tableId));
  if (hit !== undefined) {
    const out: DeleteFileVersion[] = [];
    for (const v of hit) {
      const row = v.row as DeleteFileRow;
      if (isVisible(v.begin, row.end, at)) out.push({ id: deleteFileIdOf(v.fields), begin: v.begin as SnapshotId, row });
    }
    if (out.length > 0) yield out;
    return;
  }
  const end = await fileScanEnd(view, at, (next) => deleteFileIdEnd(tableId, next));
  for await (const batch of versionBatches<DeleteFileRow>(view, deleteFilesOfTable(tableId), at, end)) {
    yield batch.map((v) => ({ id: deleteFileIdOf(v.fields), begin: v.begin, row: v.row }));
  }
}

/**
 * The versions of table `tableId`'s delete files, read with those of other tables as smallTablesFrom reads
 * data files (the same limit, the same starts). Most tables have none, and a table without is a group that
 * does not exist, which only a read of every table tells: a read from the first table to the end, nothing
 * cut short or left out, leaves the cache holding them whole, and any table's first listing after it is an
 * answer from memory — one iterator for the catalog instead of one per table. A read from the first table
 * decodes the tables already cached again, so that all it offers comes from one read. Undefined as for
 * smallTablesFrom.
 */
async function deleteFilesReadAhead(view: ReadView, tableId: CatalogId): Promise<readonly StoredVersion[] | undefined> {
  const start = view.readAheadStart(deleteFilesOfTable(tableId));
  if (start === undefined) return undefined;
  const groups = new Map<CatalogId, StoredVersion[] | Passed>();
  let read = 0;
  let seen = 0;
  let cut = false;
  // The read passed the table's place: a table it found nothing of has no delete files.
  let passed = false;
  scan: for await (const batch of view.scanBatches(deleteFilesFrom(start === 'first' ? FIRST_TABLE : tableId))) {
    for (const [key, bytes] of batch) {
      const table = deleteFileTableOf(key);
      passed ||= table > tableId;
      let versions = groups.get(table);
      if (versions === undefined) {
        const cached = start === 'here' && table !== tableId && view.cached(deleteFilesOfTable(table)) !== undefined;
        if (read >= LISTING_READ_AHEAD || cached) {
          cut = true;
          break scan;
        }
        groups.set(table, (versions = []));
      }
      // As smallTablesFrom: entries passed over count too, and a read stopped inside a table has none of it.
      if (++seen > LISTING_READ_AHEAD) {
        groups.delete(table);
        cut = true;
        break scan;
      }
      if (!Array.isArray(versions)) continue;
      // A table this large is left to its own listing, which streams it.
      if (versions.length === MAX_CACHED_GROUP) {
        groups.set(table, LEFT_OUT);
        continue;
      }
      versions.push(decodeVersion(key, bytes));
      read++;
    }
  }
  const found: [Group, readonly StoredVersion[]][] = [];
  for (const [table, versions] of groups) if (Array.isArray(versions)) found.push([deleteFilesOfTable(table), Object.freeze(versions)]);
  const whole = !cut && found.length === groups.size;
  const own = groups.get(tableId);
  // A table the read found nothing of, having passed its place, has none: kept as such, its next listing
  // is an answer from memory even where the parent is not held whole.
  const none = own === undefined && (passed || !cut);
  if (none) found.push([deleteFilesOfTable(tableId), NO_FILES]);
  view.offerReadAhead(deleteFilesOfTable(tableId), found, start, whole, leftOut(groups, deleteFilesOfTable));
  if (none) return NO_FILES;
  return Array.isArray(own) ? own : undefined;
}

/** A data file by id, whatever its visibility (a file has exactly one version). */
export function dataFile(view: ReadView, tableId: CatalogId, id: FileId): Promise<DataFileVersion | undefined> {
  return onlyVersion<DataFileRow>(view, dataFileEntity(tableId, id), id);
}

/** A delete file by id, whatever its visibility (it too is written once). */
export function deleteFile(view: ReadView, tableId: CatalogId, id: FileId): Promise<DeleteFileVersion | undefined> {
  return onlyVersion<DeleteFileRow>(view, deleteFileEntity(tableId, id), id);
}

async function onlyVersion<T extends DataFileRow | DeleteFileRow>(view: ReadView, entity: Group, id: FileId): Promise<({ id: FileId } & Version<T>) | undefined> {
  for await (const batch of versionBatches<T>(view, entity, undefined)) {
    const v = batch[0]!;
    return { id, begin: v.begin, row: v.row };
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
    contentCrc32: row.contentCrc32 ?? null,
    mappingId: row.mappingId ?? null,
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
    contentCrc32: row.contentCrc32 ?? null,
    beginSnapshot: begin,
    endSnapshot: endAsOf(row.end, asOf),
  };
}
