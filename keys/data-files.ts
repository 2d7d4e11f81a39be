// Data files (ducklake_data_file) and everything that indexes them:
//   [DataFile][table_id][data_file_id][begin]      the file's row (append-only; gets an end when removed)
//   [DataFileManifest][table_id][begin]            the files one commit added to the table (as an Iceberg
//                                                  manifest): a listing reads a value per commit; its first
//                                                  MANIFEST_PART_FILES files, when it has more
//   [DataFileManifestPart][table_id][begin][part]  the rest of such a commit's files, MANIFEST_PART_FILES a part
//   [DataFileEndIndex][table_id][data_file_id]     the end of every file that has one, in file-id order like
//                                                  the manifests, so a listing merges the two
//   [DataFileEndedAt][table_id][end][data_file_id] the same ends in end order: which files ended after a base
//   [DataFileBase][table_id][begin]                a base: every file visible at that snapshot of a table that
//                                                  ended many (its first MANIFEST_PART_FILES, when it has
//   [DataFileBasePart][table_id][begin][part]      more, and the rest in parts), so a listing at S reads the
//                                                  newest base at or before S and what came after it
//   [FileIdRange][first_id]                        a run of consecutive data file ids one commit added to
//                                                  one table (a manifest's ids, split where they skip one):
//                                                  the table a file id belongs to (a delete file aimed at
//                                                  another table's file is refused) in a key per run
//   [FileTableIndex][data_file_id][begin]          before decision 0068, the same a key per file: still
//                                                  read, and deleted by excision, never written
//   [FilePathRef][path][file_id]                   a file (data or delete) naming an object path, one key
//                                                  each, written blind: reclamation deletes an object only
//                                                  once none is left under its path (decision 0067)
//   [FilePathIndex][path]                          before decision 0067, the same ids in one value per path,
//                                                  rewritten by every commit that named it: still read, and
//                                                  trimmed by excision, never written by a commit
// Every file id committed by snapshot S is below S's next_file_id, which lets a listing at an old snapshot
// stop early. Ids ascend within each manifest, and mostly from one commit to the next (a writer's ids come
// from the block it claimed, so commits of two writers interleave theirs): a listing merges the manifests
// with the end index by id, going back in it when a commit's ids start below the last one's.
import type { CatalogId, FileId, SnapshotId } from './ids.js';
import { beginOf, decodeKey, encodeKey, type Key, type KeyRange, keyPrefix, prefixEnd, prefixRange, readU64 } from './key-codec.js';
import { append, del, type Mutation, putRow } from './mutation.js';
import { group, type Group } from './groups.js';
import { filePathNote } from './end-index.js';
import { Space } from './spaces.js';
import { decodeValue } from './value-codec.js';
import { Entity, type Row, type StoredVersion, type Versioned } from './versions.js';
import type { Violation } from './violation.js';

export interface DataFileRow extends Versioned {
  path: string;
  format: string;
  recordCount: number;
  fileSizeBytes: number;
  footerSize: number | null;
  /** First row id of the file within its table (DuckLake's row lineage). */
  rowIdStart: number;
  /** CRC-32 of the file's bytes, when its writer gave one (absent in rows from before it was recorded). */
  contentCrc32?: number | null;
  /**
   * DuckLake's mapping_id: the file's columns carry no field ids and are read by name through this mapping
   * (name-mappings.ts). Absent: read by field id.
   */
  mappingId?: CatalogId;
}

/**
 * One manifest entry, positional: [id, path, format, recordCount, fileSizeBytes, footerSize, rowIdStart,
 * contentCrc32, mappingId?] (entries written before the CRC was recorded have seven; a file read by field id
 * has no mapping id).
 */
export type ManifestFile = [FileId, string, string, number, number, number | null, number, (number | null)?, CatalogId?];

/**
 * Files per manifest value. A commit of 100,000 files in one 4 MB value made every LevelDB seek landing near
 * it read the whole value (a block holds at least one entry), 2 ms a seek for any table's listing.
 */
export const MANIFEST_PART_FILES = 512;

/** The data files one commit added to one table, ascending by id: the first part. */
export interface DataFileManifestRow {
  files: ManifestFile[];
  /** Whether DataFileManifestPart values hold the rest (absent: no). */
  more?: true;
}

interface ManifestPartRow {
  files: ManifestFile[];
}

interface DataFileEndRow {
  end: SnapshotId;
}

interface FileTableIndexRow {
  tableId: CatalogId;
}

/** A run of data file ids, `[first id, lastId]`, that one commit (`begin`) added to one table. */
interface FileIdRangeRow {
  tableId: CatalogId;
  lastId: FileId;
  begin: SnapshotId;
}

interface FilePathRow {
  fileIds: FileId[];
}

/** An index entry says all by its key. */
const NOTHING = {};

// ---- rows

export const dataFileKey = (tableId: CatalogId, id: FileId, begin: number): Key => encodeKey(Space.DataFile, [tableId, id], begin);

/** A data file: its end also records the path (for excision) and the end by file id (for listings). */
export const dataFileEntity = (tableId: CatalogId, id: FileId): Entity<DataFileRow> =>
  new Entity<DataFileRow>(Space.DataFile, [tableId, id], filePathNote, (at) => [
    putRow(encodeKey(Space.DataFileEndIndex, [tableId, id]), { end: at } satisfies DataFileEndRow),
    putRow(endedAtKey(tableId, at, id), NOTHING),
  ]);

/** Every data file row of one table, in file-id order. */
export const dataFilesOfTable = (tableId: CatalogId): Group => group(Space.DataFile, [tableId]);

/** The data file id of a row read from dataFilesOfTable. */
export const dataFileIdOf = (fields: readonly unknown[]): FileId => fields[1] as FileId;

/**
 * Where a scan of a table's data file rows may stop when reading at a snapshot whose next_file_id is
 * `nextFileId`: no file visible there has an id at or above it.
 */
export const dataFileIdEnd = (tableId: CatalogId, nextFileId: FileId): Key => keyPrefix(Space.DataFile, [tableId, nextFileId]);

// ---- manifests

/** The manifest entry of one file row; the one place that knows the positional order. */
export function manifestFile(id: FileId, row: Row<DataFileRow>): ManifestFile {
  const file: ManifestFile = [id, row.path, row.format, row.recordCount, row.fileSizeBytes, row.footerSize, row.rowIdStart, row.contentCrc32 ?? null];
  if (row.mappingId !== undefined) file.push(row.mappingId);
  return file;
}

/** DuckLake's one data file format: a listing keeps one string for it, not one per file it decodes. */
// Stryker disable next-line StringLiteral: any other constant makes ManifestedFile keep file[2], the same string
const PARQUET = 'parquet';

/**
 * A data file as a listing reads it from its commit's manifest: its row and its version in one object, since
 * a first listing of a table keeps every file it reads (the table's cached group) and each object a file
 * kept made the garbage collector's young-generation copies longer (docs/decisions/0005). The row's fields
 * are its own enumerable properties, so a spread of `row` (ending the file) or a JSON of it is the row and
 * nothing else; the version's fields are private, and `key` and `fields` are built only when asked for (an
 * apply patching the group, a merge: docs/decisions/0005).
 */
export class ManifestedFile implements DataFileRow, StoredVersion {
  readonly path: string;
  readonly format: string;
  readonly recordCount: number;
  readonly fileSizeBytes: number;
  readonly footerSize: number | null;
  readonly rowIdStart: number;
  readonly contentCrc32: number | null;
  /** Only a mapped file has the property: the row of a file read by field id has none (see DataFileRow). */
  declare readonly mappingId?: CatalogId;
  readonly end: SnapshotId | null;
  readonly #tableId: CatalogId;
  readonly #begin: SnapshotId;
  readonly #id: FileId;

  constructor(tableId: CatalogId, begin: SnapshotId, file: ManifestFile, end: SnapshotId | null) {
    this.#tableId = tableId;
    this.#begin = begin;
    this.#id = file[0];
    this.path = file[1];
    // Stryker disable next-line ConditionalExpression: when the test holds, file[2] is the same string; the constant only spares memory
    this.format = file[2] === PARQUET ? PARQUET : file[2];
    this.recordCount = file[3];
    this.fileSizeBytes = file[4];
    this.footerSize = file[5];
    this.rowIdStart = file[6];
    this.contentCrc32 = file[7] ?? null;
    if (file[8] !== undefined) (this as { mappingId?: CatalogId }).mappingId = file[8];
    this.end = end;
  }

  get id(): FileId {
    return this.#id;
  }

  /** The same file with end `end`: what a listing that read the ends after the manifests makes of it. */
  withEnd(end: SnapshotId): ManifestedFile {
    const file: ManifestFile = [this.#id, this.path, this.format, this.recordCount, this.fileSizeBytes, this.footerSize, this.rowIdStart, this.contentCrc32];
    if (this.mappingId !== undefined) file[8] = this.mappingId;
    return new ManifestedFile(this.#tableId, this.#begin, file, end);
  }

  get begin(): SnapshotId {
    return this.#begin;
  }

  get row(): DataFileRow {
    return this;
  }

  get key(): Key {
    return dataFileKey(this.#tableId, this.#id, this.#begin);
  }

  get fields(): readonly [CatalogId, FileId] {
    return [this.#tableId, this.#id];
  }
}

const manifestKey = (tableId: CatalogId, begin: number): Key => encodeKey(Space.DataFileManifest, [tableId], begin);

const partKey = (tableId: CatalogId, begin: number, part: number): Key => encodeKey(Space.DataFileManifestPart, [tableId, begin, part]);

/** The manifests of every commit that added files to the table, in commit order. */
export const manifestsOfTable = (tableId: CatalogId): KeyRange => prefixRange(keyPrefix(Space.DataFileManifest, [tableId]));

/** The manifests of table `tableId` and of every table after it by id: what a read-ahead over small tables reads. */
export const manifestsFrom = (tableId: CatalogId): KeyRange => ({
  gte: keyPrefix(Space.DataFileManifest, [tableId]),
  lt: prefixEnd(keyPrefix(Space.DataFileManifest)),
});

/** The table a DataFileManifest key belongs to. */
export const manifestTableOf = (key: Key): CatalogId => readU64(key, 1) as CatalogId;

/** A commit's first manifest part: its files, and whether more parts follow (read them at manifestParts(key)). */
export function decodeManifest(key: Key, bytes: Uint8Array): { files: ManifestFile[]; more: boolean } {
  const row = decodeValue<DataFileManifestRow>(key, bytes);
  return { files: row.files, more: row.more === true };
}

/** Where the rest of the manifest at `key` (a DataFileManifest key) is, in order. */
export function manifestParts(key: Key): KeyRange {
  const { fields, begin } = decodeKey(key);
  return prefixRange(keyPrefix(Space.DataFileManifestPart, [fields[0] as number, begin!]));
}

export const decodeManifestPart = (key: Key, bytes: Uint8Array): ManifestFile[] => decodeValue<ManifestPartRow>(key, bytes).files;

/** The files a commit adds to one table: its manifest (files ascending by id, in parts) and the runs of their ids. */
export function addedDataFiles(tableId: CatalogId, at: SnapshotId, files: ManifestFile[]): Mutation[] {
  const sorted = files.sort((a, b) => a[0] - b[0]);
  const out = manifestValues(tableId, at, sorted, 1);
  append(out, idRanges(tableId, at, sorted));
  return out;
}

/** The id ranges of a manifest's files (ascending by id): a key per run of consecutive ids. */
function idRanges(tableId: CatalogId, at: SnapshotId, files: readonly ManifestFile[]): Mutation[] {
  return idRuns(files).map(([first, lastId]) => putRow(idRangeKey(first), { tableId, lastId, begin: at } satisfies FileIdRangeRow));
}

/** The runs of consecutive ids of files ascending by id, each as its first and last id. */
function idRuns(files: readonly ManifestFile[]): [FileId, FileId][] {
  const out: [FileId, FileId][] = [];
  for (const [id] of files) {
    const run = out.at(-1);
    if (run !== undefined && id === run[1] + 1) run[1] = id;
    else out.push([id, id]);
  }
  return out;
}

/** The manifest values of `files` (ascending): the first part, and parts from `firstPart` on if more follow. */
const manifestValues = (tableId: CatalogId, at: number, files: ManifestFile[], firstPart: number): Mutation[] =>
  inParts(manifestKey(tableId, at), (part) => partKey(tableId, at, part), files, firstPart);

/**
 * A list of files as a first value under `head` (its first MANIFEST_PART_FILES, `more` when others follow)
 * and values of MANIFEST_PART_FILES under `part(n)` from `firstPart` on: no value grows with the list.
 */
function inParts<T>(head: Key, part: (n: number) => Key, files: readonly T[], firstPart: number): Mutation[] {
  const first: { files: T[]; more?: true } = { files: files.slice(0, MANIFEST_PART_FILES) };
  if (files.length > MANIFEST_PART_FILES) first.more = true;
  const out = [putRow(head, first)];
  for (let i = MANIFEST_PART_FILES, n = firstPart; i < files.length; i += MANIFEST_PART_FILES, n++) {
    out.push(putRow(part(n), { files: files.slice(i, i + MANIFEST_PART_FILES) }));
  }
  return out;
}

/** The manifests of the commits after snapshot `after`, up to `upTo`, that added files to the table. */
export const manifestsBetween = (tableId: CatalogId, after: SnapshotId, upTo: SnapshotId): KeyRange => ({
  gte: manifestKey(tableId, after + 1),
  lte: manifestKey(tableId, upTo),
});

/**
 * A commit's manifest (its first part `head`, the rest `parts`) without the files excision took out of it:
 * rewritten whole, its parts numbered after the old ones so that no key is both deleted and written; one
 * left empty goes. Its id ranges likewise (idRanges), when it has them: `ranged`, whether a range starts at
 * its first file (`idRangeKey`); a commit from before decision 0068 has file→table entries instead, which
 * excision deletes a file at a time, and ranges for the files it leaves would name them twice.
 */
export function trimmedManifest(head: [Key, Uint8Array], parts: readonly [Key, Uint8Array][], gone: ReadonlySet<number>, ranged: boolean): Mutation[] {
  const { fields, begin } = decodeKey(head[0]);
  const tableId = fields[0] as CatalogId;
  const all = decodeManifest(head[0], head[1]).files.concat(...parts.map(([k, v]) => decodeManifestPart(k, v)));
  const left = all.filter(([id]) => !gone.has(id));
  const out = parts.map(([k]) => del(k));
  if (ranged) {
    // A run's key is its first id: each run deleted unless one starts there again, so that no key is both.
    const starts = new Set(idRuns(left).map(([first]) => first));
    for (const [first] of idRuns(all)) if (!starts.has(first)) out.push(del(idRangeKey(first)));
    append(out, idRanges(tableId, begin as SnapshotId, left));
  }
  if (left.length === 0) return [...out, del(head[0])];
  const lastPart = parts.length === 0 ? 0 : (decodeKey(parts.at(-1)![0]).fields[2] as number);
  append(out, manifestValues(tableId, begin!, left, lastPart + 1));
  return out;
}

// ---- bases

/** A file of a base: the snapshot that added it and its manifest entry. */
export type BaseFile = [SnapshotId, ManifestFile];

const baseKey = (tableId: CatalogId, at: number): Key => encodeKey(Space.DataFileBase, [tableId], at);

const basePartKey = (tableId: CatalogId, at: number, part: number): Key => encodeKey(Space.DataFileBasePart, [tableId, at, part]);

/**
 * The base of table `tableId` at snapshot `at`: every file visible there, `files`, in commit order (by the
 * snapshot that added it, then by id), in parts as a manifest is.
 */
export const baseValues = (tableId: CatalogId, at: SnapshotId, files: readonly BaseFile[]): Mutation[] =>
  inParts(baseKey(tableId, at), (part) => basePartKey(tableId, at, part), files, 1);

/** The table's bases at or before `at`, ascending: the newest is the last (read in reverse, one entry). */
export const basesThrough = (tableId: CatalogId, at: SnapshotId): KeyRange => ({ gte: keyPrefix(Space.DataFileBase, [tableId]), lte: baseKey(tableId, at) });

/** A base's first value: its first files, whether parts follow (at baseParts(key)), and its snapshot. */
export function decodeBase(key: Key, bytes: Uint8Array): { tableId: CatalogId; at: SnapshotId; files: BaseFile[]; more: boolean } {
  const row = decodeValue<{ files: BaseFile[]; more?: true }>(key, bytes);
  return { tableId: readU64(key, 1) as CatalogId, at: beginOf(key) as SnapshotId, files: row.files, more: row.more === true };
}

/** Where the rest of the base at `key` (a DataFileBase key) is, in order. */
export function baseParts(key: Key): KeyRange {
  return prefixRange(keyPrefix(Space.DataFileBasePart, [readU64(key, 1), beginOf(key)]));
}

export const decodeBasePart = (key: Key, bytes: Uint8Array): BaseFile[] => decodeValue<{ files: BaseFile[] }>(key, bytes).files;

/** A base and its parts, deleted. */
export const deletedBase = (key: Key, parts: readonly Key[]): Mutation[] => [del(key), ...parts.map(del)];

// ---- ends by end

const endedAtKey = (tableId: CatalogId, end: number, id: FileId): Key => encodeKey(Space.DataFileEndedAt, [tableId, end, id]);

/** The table's data files that ended after snapshot `after`, up to `upTo`: their ids by endedAtIdOf. */
export const endedBetween = (tableId: CatalogId, after: SnapshotId, upTo: SnapshotId): KeyRange => ({
  gte: keyPrefix(Space.DataFileEndedAt, [tableId, after + 1]),
  lt: keyPrefix(Space.DataFileEndedAt, [tableId, upTo + 1]),
});

export const decodeEndedAt = (key: Key): { tableId: CatalogId; end: SnapshotId; id: FileId } => ({
  tableId: readU64(key, 1) as CatalogId,
  end: readU64(key, 9) as SnapshotId,
  id: readU64(key, 17) as FileId,
});

// ---- ends by file id

/** The ends of a table's data files from file id `from` on, ascending by id. */
export const dataFileEnds = (tableId: CatalogId, from: FileId): KeyRange => ({
  gte: keyPrefix(Space.DataFileEndIndex, [tableId, from]),
  lt: prefixEnd(keyPrefix(Space.DataFileEndIndex, [tableId])),
});

/** The ends of the data files of tables `first` to `last` (by id), in key order. */
export const dataFileEndsOfTables = (first: CatalogId, last: CatalogId): KeyRange => ({
  gte: keyPrefix(Space.DataFileEndIndex, [first]),
  lt: prefixEnd(keyPrefix(Space.DataFileEndIndex, [last])),
});

export const decodeDataFileEnd = (key: Key, bytes: Uint8Array): { tableId: CatalogId; id: number; end: SnapshotId } => ({
  tableId: readU64(key, 1) as CatalogId,
  id: readU64(key, 9),
  end: decodeValue<DataFileEndRow>(key, bytes).end,
});

// ---- file → table

/** The id range starting at `first`, as a commit writes it: a manifest's first file always starts one. */
export const idRangeKey = (first: FileId): Key => encodeKey(Space.FileIdRange, [first]);

/** The id ranges that start at or below `id`, for the greatest: `last(gte, lte)` gives the one that may hold it. */
export const idRangesThrough = (id: FileId): { gte: Key; lte: Key } => ({ gte: keyPrefix(Space.FileIdRange), lte: idRangeKey(id) });

/** The id ranges that start from `from` to `through`, ascending. */
export const idRangesStarting = (from: FileId, through: FileId): KeyRange => ({ gte: idRangeKey(from), lte: idRangeKey(through) });

/** Every id range, for the greatest: the range of the highest data file id a commit wrote since decision 0068. */
export const ALL_ID_RANGES = { gte: keyPrefix(Space.FileIdRange), lte: prefixEnd(keyPrefix(Space.FileIdRange)) };

export function decodeIdRange(key: Key, bytes: Uint8Array): { first: FileId; lastId: FileId; tableId: CatalogId; begin: SnapshotId } {
  const row = decodeValue<FileIdRangeRow>(key, bytes);
  return { first: readU64(key, 1) as FileId, lastId: row.lastId, tableId: row.tableId, begin: row.begin };
}

/** Where the file→table entries of file id `id` from before decision 0068 are: a key under it means a data file holds the id. */
export const fileTablePrefix = (id: FileId): Key => keyPrefix(Space.FileTableIndex, [id]);

export const fileTableRange = (id: FileId): KeyRange => prefixRange(fileTablePrefix(id));

/** Every file→table entry from before decision 0068, for the greatest one: `last(gte, lte)`. */
export const FILE_TABLE_ENTRIES = { gte: keyPrefix(Space.FileTableIndex), lte: prefixEnd(keyPrefix(Space.FileTableIndex)) };

/** The data file id of a file→table key. */
export const decodeFileTableKey = (key: Key): FileId => readU64(key, 1) as FileId;

export const decodeFileTable = (key: Key, bytes: Uint8Array): CatalogId => decodeValue<FileTableIndexRow>(key, bytes).tableId;

// ---- object paths

/** That file `id` names `path`: put by the commit that registers the file, without reading what else does. */
export const pathRef = (path: string, id: FileId): Mutation => putRow(encodeKey(Space.FilePathRef, [path, id]), NOTHING);

/** The reference of file `id` to `path`, gone with its row. */
export const pathRefGone = (path: string, id: FileId): Mutation => del(encodeKey(Space.FilePathRef, [path, id]));

/** Where the references to `path` are: a key under it is a file that names the path. */
export const pathRefsPrefix = (path: string): Key => keyPrefix(Space.FilePathRef, [path]);

export function decodePathRef(key: Key): { path: string; id: FileId } {
  const { fields } = decodeKey(key);
  return { path: fields[0] as string, id: fields[1] as FileId };
}

/** Where a path's ids from before decision 0067 are, in one value. */
export const pathIndexKey = (path: string): Key => encodeKey(Space.FilePathIndex, [path]);

export const decodePathIndex = (key: Key, bytes: Uint8Array): FileId[] => decodeValue<FilePathRow>(key, bytes).fileIds;

/** A value from before decision 0067 left with `fileIds` (by excision); none left deletes it. */
export const pathIndexEntry = (path: string, fileIds: FileId[]): Mutation =>
  fileIds.length === 0 ? del(pathIndexKey(path)) : putRow(pathIndexKey(path), { fileIds } satisfies FilePathRow);

// ---- excision

/** What excising one data file row (that ended at `end`) removes beside the row and its end-index entry, and the manifest it is in. */
export function excisedDataFile(fields: readonly unknown[], begin: number, end: number): { mutations: Mutation[]; manifest: Key } {
  const [tableId, id] = fields as [CatalogId, FileId];
  return {
    mutations: [del(encodeKey(Space.FileTableIndex, [id], begin)), del(encodeKey(Space.DataFileEndIndex, [tableId, id])), del(endedAtKey(tableId, end, id))],
    manifest: manifestKey(tableId, begin),
  };
}

// ---- invariants (verify)

/** What verify needs of one data file row: its place, its end, and what the indexes repeat of it. */
export interface DataFileFact {
  tableId: number;
  id: number;
  begin: number;
  end: number | null;
  row: DataFileRow;
  key: string;
}

/** A manifest value as verify reads it: a commit's first part (`more` when parts follow) or one of those parts. */
export type ManifestValue = { tableId: number; begin: number; files: ManifestFile[]; key: string } & ({ more: boolean; part?: undefined } | { part: true });

/**
 * Each commit's manifest lists exactly the data files that commit added to the table, with their fields,
 * ascending by id through its parts: listings read the manifests, not the rows, so a manifest that disagrees
 * would list other files. Parts belong to a first part that says they follow.
 */
export function manifestProblems(files: readonly DataFileFact[], values: readonly ManifestValue[]): Violation[] {
  const out: Violation[] = [];
  const expected = new Map<string, ManifestFile[]>();
  for (const f of files) {
    const k = `${f.tableId}@${f.begin}`;
    (expected.get(k) ?? expected.set(k, []).get(k)!).push(manifestFile(f.id as FileId, f.row));
  }
  // Census reads keys in order: every first part before any part, and parts in order.
  const manifests = new Map<string, { files: ManifestFile[]; more: boolean; parts: number; key: string }>();
  for (const v of values) {
    const k = `${v.tableId}@${v.begin}`;
    const m = manifests.get(k);
    if (v.part === undefined) manifests.set(k, { files: v.files.slice(), more: v.more, parts: 0, key: v.key });
    else if (m?.more !== true) out.push({ invariant: 'manifests-list-their-files', key: v.key, message: `a part of the manifest of table ${v.tableId} at snapshot ${v.begin}, whose first part ${m ? 'says none follow' : 'is missing'}` });
    else (append(m.files, v.files), m.parts++);
  }
  for (const [k, m] of manifests) {
    const want = expected.get(k) ?? [];
    if (JSON.stringify(m.files) !== JSON.stringify(want.sort((a, b) => a[0] - b[0])) || m.more !== m.parts > 0) {
      out.push({ invariant: 'manifests-list-their-files', key: m.key, message: `the manifest of table ${k.replace('@', ' at snapshot ')} lists ${m.files.length} files in ${m.parts + 1} parts; the rows give ${want.length} that differ from them` });
    }
  }
  for (const [k, want] of expected) {
    if (!manifests.has(k)) out.push({ invariant: 'manifests-list-their-files', message: `no manifest lists the ${want.length} data files table ${k.replace('@', ' added at snapshot ')}` });
  }
  return out;
}

/**
 * Each data file's id resolves to its table, and only to it (a delete file aimed at another table's file is
 * refused by it): by the id range of the commit that added it or, from before decision 0068, by an entry of
 * its own — one of the two. A range holds the ids of files that commit added to that table, and nothing else.
 * A census slice holds the files of its ids (those `slice` modulo `of`) and every range, and checks its ids.
 */
export function fileTableProblems(
  files: readonly DataFileFact[],
  entries: readonly { id: number; begin: number; tableId: number; key: string }[],
  ranges: readonly { first: number; lastId: number; tableId: number; begin: number; key: string }[],
  part: { slice: number; of: number } = { slice: 0, of: 1 },
): Violation[] {
  const out: Violation[] = [];
  const INV = 'file-table-index-names-each-file';
  const byId = new Map(entries.map((e) => [`${e.id}@${e.begin}`, e]));
  const sorted = [...ranges].sort((a, b) => a.first - b.first);
  // A run that is empty or overlaps the next is reported by the slice of its first id, and holds no file.
  const sound = sorted.filter((r, i) => {
    const next = sorted[i + 1];
    // Written so that a last id of the wrong shape (no number) is an empty run too.
    const empty = !(r.lastId >= r.first);
    if (!empty && (next === undefined || next.first > r.lastId)) return true;
    if (r.first % part.of === part.slice) {
      out.push({ invariant: INV, key: r.key, message: `the file→table index gives ids ${r.first} to ${r.lastId} to table ${r.tableId}, ${empty ? 'an empty run' : `and ids from ${next!.first} on to table ${next!.tableId} too`}` });
    }
    return false;
  });
  const held = new Map<(typeof sound)[number], number>();
  for (const f of files) {
    const e = byId.get(`${f.id}@${f.begin}`);
    byId.delete(`${f.id}@${f.begin}`);
    const r = runHolding(sound, f.id);
    const right = e !== undefined ? r === undefined && e.tableId === f.tableId : r?.tableId === f.tableId && r.begin === f.begin;
    if (right && r !== undefined) held.set(r, (held.get(r) ?? 0) + 1);
    if (right) continue;
    const says = e !== undefined && r !== undefined ? 'both an entry and a range' : r !== undefined ? `table ${r.tableId}, added at snapshot ${r.begin}` : e !== undefined ? `table ${e.tableId}` : 'nothing';
    out.push({ invariant: INV, key: f.key, message: `data file ${f.id} is in table ${f.tableId}, added at snapshot ${f.begin}; the file→table index says ${says}` });
  }
  for (const e of byId.values()) out.push({ invariant: INV, key: e.key, message: `the file→table index names data file ${e.id}, which has no row` });
  for (const r of sound) {
    const ids = idsOfSlice(r.first, r.lastId, part);
    const n = held.get(r) ?? 0;
    if (n < ids) out.push({ invariant: INV, key: r.key, message: `the file→table index gives ids ${r.first} to ${r.lastId} to table ${r.tableId} at snapshot ${r.begin}; ${ids - n} of them are no data file it added there` });
  }
  return out;
}

/** The run holding `id` among runs ascending by first id that do not overlap. */
export function runHolding<R extends { first: number; lastId: number }>(sorted: readonly R[], id: number): R | undefined {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]!.first <= id) lo = mid + 1;
    else hi = mid - 1;
  }
  const r = sorted[hi];
  return r !== undefined && r.lastId >= id ? r : undefined;
}

/** How many ids from `first` to `last` are `slice` modulo `of`. */
const idsOfSlice = (first: number, last: number, { slice, of }: { slice: number; of: number }) => Math.floor((last - slice) / of) - Math.floor((first - 1 - slice) / of);

/** Each data file that has an end has it in the end index by file id too, the same end: listings merge that index with the manifests. */
export function dataFileEndProblems(files: readonly DataFileFact[], ends: readonly { tableId: number; id: number; end: number; key: string }[]): Violation[] {
  const out: Violation[] = [];
  const byId = new Map(ends.map((e) => [`${e.tableId}/${e.id}`, e]));
  for (const f of files) {
    const e = byId.get(`${f.tableId}/${f.id}`);
    byId.delete(`${f.tableId}/${f.id}`);
    if (f.end === null && e === undefined) continue;
    if (e?.end !== f.end) out.push({ invariant: 'file-end-index-equals-the-rows', key: f.key, message: `data file ${f.id} ends at ${f.end ?? 'nothing'}; its end entry says ${e === undefined ? 'nothing' : e.end}` });
  }
  for (const e of byId.values()) out.push({ invariant: 'file-end-index-equals-the-rows', key: e.key, message: `an end entry for data file ${e.id} of table ${e.tableId}, which has no row` });
  return out;
}

/** A base with its parts, as verify puts it together: `parts` counts those read. */
type AssembledBase = { tableId: number; at: number; files: BaseFile[]; more: boolean; parts: number; key: string };

/** A base value as verify reads it: a base's first value (`more` when parts follow) or one of its parts. */
export type BaseValue = { tableId: number; at: number; files: BaseFile[]; key: string } & ({ more: boolean; part?: undefined } | { part: true });

/**
 * Each base lists exactly the data files of its table visible at its snapshot, in commit order, as their
 * manifests record them: a listing from it reads nothing older. Every end after a table's oldest base is in
 * the ends by end too, and that index names only ends the rows have: a listing from a base leaves out the
 * files it names, and lists the rest.
 */
export function baseProblems(files: readonly DataFileFact[], values: readonly BaseValue[], endedAt: readonly { tableId: number; end: number; id: number; key: string }[]): Violation[] {
  const out: Violation[] = [];
  const byTable = new Map<number, DataFileFact[]>();
  for (const f of files) (byTable.get(f.tableId) ?? byTable.set(f.tableId, []).get(f.tableId)!).push(f);
  // Census reads keys in order: a base's first value before its parts, and parts in order.
  const bases = new Map<string, AssembledBase>();
  for (const v of values) {
    const k = `${v.tableId}@${v.at}`;
    const b = bases.get(k);
    if (v.part === undefined) bases.set(k, { tableId: v.tableId, at: v.at, files: v.files.slice(), more: v.more, parts: 0, key: v.key });
    else if (b?.more !== true) out.push({ invariant: 'bases-list-visible-files', key: v.key, message: `a part of the base of table ${v.tableId} at snapshot ${v.at}, whose first value ${b ? 'says none follow' : 'is missing'}` });
    else (append(b.files, v.files), b.parts++);
  }
  // Per table, its bases in snapshot order against its files swept in the same order: the files visible at
  // each base without filtering the table's whole history once per base.
  const oldest = new Map<number, number>();
  const basesOf = new Map<number, AssembledBase[]>();
  for (const b of bases.values()) (basesOf.get(b.tableId) ?? basesOf.set(b.tableId, []).get(b.tableId)!).push(b);
  for (const [tableId, list] of basesOf) {
    list.sort((x, y) => x.at - y.at);
    oldest.set(tableId, list[0]!.at);
    const all = byTable.get(tableId) ?? [];
    const byBegin = [...all].sort((x, y) => x.begin - y.begin);
    const byEnd = all.filter((f) => f.end !== null).sort((x, y) => x.end! - y.end!);
    const visible = new Map<number, DataFileFact>();
    let begun = 0;
    let ended = 0;
    for (const b of list) {
      for (; begun < byBegin.length && byBegin[begun]!.begin <= b.at; begun++) {
        const f = byBegin[begun]!;
        if (f.end === null || f.end > b.at) visible.set(f.id, f);
      }
      for (; ended < byEnd.length && byEnd[ended]!.end! <= b.at; ended++) visible.delete(byEnd[ended]!.id);
      const want = [...visible.values()].sort((x, y) => x.begin - y.begin || x.id - y.id).map((f): BaseFile => [f.begin as SnapshotId, manifestFile(f.id as FileId, f.row)]);
      if (JSON.stringify(b.files) !== JSON.stringify(want) || b.more !== b.parts > 0) {
        out.push({ invariant: 'bases-list-visible-files', key: b.key, message: `the base of table ${b.tableId} at snapshot ${b.at} lists ${b.files.length} files in ${b.parts + 1} values; ${want.length} data files are visible there, and they differ from them` });
      }
    }
  }
  const named = new Set<string>();
  const byId = new Map(files.map((f) => [`${f.tableId}/${f.id}`, f]));
  for (const e of endedAt) {
    named.add(`${e.tableId}/${e.id}/${e.end}`);
    const f = byId.get(`${e.tableId}/${e.id}`);
    if (f?.end !== e.end) out.push({ invariant: 'ended-at-index-equals-the-ends', key: e.key, message: `the ends by end say data file ${e.id} of table ${e.tableId} ended at ${e.end}; its row says ${f === undefined ? 'there is no such file' : (f.end ?? 'it has no end')}` });
  }
  for (const [tableId, from] of oldest) {
    for (const f of byTable.get(tableId) ?? []) {
      if (f.end !== null && f.end > from && !named.has(`${tableId}/${f.id}/${f.end}`)) {
        out.push({ invariant: 'ended-at-index-equals-the-ends', key: f.key, message: `data file ${f.id} of table ${tableId} ended at ${f.end}, after its table's base at ${from}, and the ends by end do not say so: a listing from that base would show it` });
      }
    }
  }
  return out;
}

/**
 * The path index names, for each object path, exactly the file rows (data and delete files) that name it:
 * reclamation deletes an object once none is left, so a missing id would let a live file be deleted. A row
 * is named by its own reference or, written before decision 0067, in its path's value; never by both.
 */
export function pathIndexProblems(
  rows: readonly { id: number; path: string; key: string }[],
  entries: readonly { path: string; ids: readonly number[]; key: string }[],
  refs: readonly { path: string; id: number; key: string }[],
): Violation[] {
  const out: Violation[] = [];
  const expected = new Map<string, number[]>();
  for (const r of rows) (expected.get(r.path) ?? expected.set(r.path, []).get(r.path)!).push(r.id);
  const referenced = new Map<string, Set<number>>();
  for (const r of refs) {
    (referenced.get(r.path) ?? referenced.set(r.path, new Set()).get(r.path)!).add(r.id);
    if (!expected.get(r.path)?.includes(r.id)) out.push({ invariant: 'path-index-names-every-row', key: r.key, message: `the path index says file ${r.id} names ${JSON.stringify(r.path)}; no row of file ${r.id} does` });
  }
  const unreferenced = (path: string) => (expected.get(path) ?? []).filter((id) => !referenced.get(path)?.has(id)).sort((a, b) => a - b);
  for (const e of entries) {
    const want = unreferenced(e.path);
    expected.delete(e.path);
    if (JSON.stringify([...e.ids].sort((a, b) => a - b)) !== JSON.stringify(want)) {
      out.push({ invariant: 'path-index-names-every-row', key: e.key, message: `the path index gives files ${JSON.stringify(e.ids)} for ${JSON.stringify(e.path)}; the rows naming it without a reference of their own are ${JSON.stringify(want)}` });
    }
  }
  for (const path of expected.keys()) {
    const missing = unreferenced(path);
    if (missing.length > 0) out.push({ invariant: 'path-index-names-every-row', message: `${JSON.stringify(path)} is named by file rows ${JSON.stringify(missing)} but not in the path index` });
  }
  return out;
}
