// Data files (ducklake_data_file) and everything that indexes them:
//   [DataFile][table_id][data_file_id][begin]      the file's row (append-only; gets an end when removed)
//   [DataFileManifest][table_id][begin]            the files one commit added to the table, in one value (as
//                                                  an Iceberg manifest): a listing reads a value per commit
//   [DataFileEndIndex][table_id][data_file_id]     the end of every file that has one, in file-id order like
//                                                  the manifests, so a listing merges the two
//   [FileTableIndex][data_file_id][begin]          the table a file id belongs to (a delete file aimed at
//                                                  another table's file is refused)
//   [FilePathIndex][path]                          the file ids (data and delete) naming one object path:
//                                                  reclamation deletes an object only once none is left
// File ids grow with snapshots (each commit allocates from the previous snapshot's next_file_id), which is
// what lets a listing at an old snapshot stop early and the manifests and ends merge by id.
import type { CatalogId, FileId, SnapshotId } from './ids.js';
import { encodeKey, type Key, type KeyRange, keyPrefix, prefixEnd, prefixRange, readU64 } from './key-codec.js';
import { del, type Mutation, putRow } from './mutation.js';
import { group, type Group } from './groups.js';
import { filePathNote } from './end-index.js';
import { Space } from './spaces.js';
import { decodeValue } from './value-codec.js';
import { Entity, type Row, type Versioned } from './versions.js';
import type { Violation } from './violation.js';

export interface DataFileRow extends Versioned {
  path: string;
  format: string;
  recordCount: number;
  fileSizeBytes: number;
  footerSize: number | null;
  /** First row id of the file within its table (DuckLake's row lineage). */
  rowIdStart: number;
}

/** One manifest entry, positional: [id, path, format, recordCount, fileSizeBytes, footerSize, rowIdStart]. */
export type ManifestFile = [FileId, string, string, number, number, number | null, number];

/** The data files one commit added to one table, ascending by id. */
export interface DataFileManifestRow {
  files: ManifestFile[];
}

interface DataFileEndRow {
  end: SnapshotId;
}

interface FileTableIndexRow {
  tableId: CatalogId;
}

interface FilePathRow {
  fileIds: FileId[];
}

// ---- rows

export const dataFileKey = (tableId: CatalogId, id: FileId, begin: number): Key => encodeKey(Space.DataFile, [tableId, id], begin);

/** A data file: its end also records the path (for excision) and the end by file id (for listings). */
export const dataFileEntity = (tableId: CatalogId, id: FileId): Entity<DataFileRow> =>
  new Entity<DataFileRow>(Space.DataFile, [tableId, id], filePathNote, (at) => [putRow(encodeKey(Space.DataFileEndIndex, [tableId, id]), { end: at } satisfies DataFileEndRow)]);

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
  return [id, row.path, row.format, row.recordCount, row.fileSizeBytes, row.footerSize, row.rowIdStart];
}

/** The row a manifest entry stands for, with the end the end index gives it. */
export function manifestRow(file: ManifestFile, end: SnapshotId | null): DataFileRow {
  const [, path, format, recordCount, fileSizeBytes, footerSize, rowIdStart] = file;
  return { path, format, recordCount, fileSizeBytes, footerSize, rowIdStart, end };
}

const manifestKey = (tableId: CatalogId, begin: number): Key => encodeKey(Space.DataFileManifest, [tableId], begin);

/** The manifests of the commits up to `at`, and of those after it. */
export function manifestRanges(tableId: CatalogId, at: SnapshotId): { upTo: KeyRange; after: KeyRange } {
  const prefix = keyPrefix(Space.DataFileManifest, [tableId]);
  return { upTo: { gte: prefix, lte: manifestKey(tableId, at) }, after: { gte: manifestKey(tableId, at + 1), lt: prefixEnd(prefix) } };
}

export const decodeManifest = (key: Key, bytes: Uint8Array): ManifestFile[] => decodeValue<DataFileManifestRow>(key, bytes).files;

/** The files a commit adds to one table: its manifest (files ascending by id) and each file's table entry. */
export function addedDataFiles(tableId: CatalogId, at: SnapshotId, files: ManifestFile[]): Mutation[] {
  const sorted = files.sort((a, b) => a[0] - b[0]);
  const out = [putRow(manifestKey(tableId, at), { files: sorted } satisfies DataFileManifestRow)];
  for (const f of sorted) out.push(putRow(encodeKey(Space.FileTableIndex, [f[0]], at), { tableId } satisfies FileTableIndexRow));
  return out;
}

/** A manifest without the files excision took out of it; one left empty goes. */
export function trimmedManifest(key: Key, bytes: Uint8Array, gone: ReadonlySet<number>): Mutation {
  const files = decodeManifest(key, bytes).filter(([id]) => !gone.has(id));
  return files.length === 0 ? del(key) : putRow(key, { files } satisfies DataFileManifestRow);
}

// ---- ends by file id

export const dataFileEnds = (tableId: CatalogId): KeyRange => prefixRange(keyPrefix(Space.DataFileEndIndex, [tableId]));

export const decodeDataFileEnd = (key: Key, bytes: Uint8Array): { id: number; end: SnapshotId } => ({
  id: readU64(key, 9),
  end: decodeValue<DataFileEndRow>(key, bytes).end,
});

// ---- file → table

export const fileTableRange = (id: FileId): KeyRange => prefixRange(keyPrefix(Space.FileTableIndex, [id]));

export const decodeFileTable = (key: Key, bytes: Uint8Array): CatalogId => decodeValue<FileTableIndexRow>(key, bytes).tableId;

// ---- object paths

export const pathIndexKey = (path: string): Key => encodeKey(Space.FilePathIndex, [path]);

export const decodePathIndex = (key: Key, bytes: Uint8Array): FileId[] => decodeValue<FilePathRow>(key, bytes).fileIds;

/** The file ids naming `path` now; none left deletes the entry. */
export const pathIndexEntry = (path: string, fileIds: FileId[]): Mutation =>
  fileIds.length === 0 ? del(pathIndexKey(path)) : putRow(pathIndexKey(path), { fileIds } satisfies FilePathRow);

// ---- excision

/** What excising one data file row removes beside the row and its end-index entry, and the manifest it is in. */
export function excisedDataFile(fields: readonly unknown[], begin: number): { mutations: Mutation[]; manifest: Key } {
  const [tableId, id] = fields as [CatalogId, FileId];
  return {
    mutations: [del(encodeKey(Space.FileTableIndex, [id], begin)), del(encodeKey(Space.DataFileEndIndex, [tableId, id]))],
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

/**
 * Each commit's manifest lists exactly the data files that commit added to the table, with their fields:
 * listings read the manifests, not the rows, so a manifest that disagrees would list other files.
 */
export function manifestProblems(files: readonly DataFileFact[], manifests: readonly { tableId: number; begin: number; files: ManifestFile[]; key: string }[]): Violation[] {
  const out: Violation[] = [];
  const expected = new Map<string, ManifestFile[]>();
  for (const f of files) {
    const k = `${f.tableId}@${f.begin}`;
    (expected.get(k) ?? expected.set(k, []).get(k)!).push(manifestFile(f.id as FileId, f.row));
  }
  const seen = new Set<string>();
  for (const m of manifests) {
    const k = `${m.tableId}@${m.begin}`;
    seen.add(k);
    const want = (expected.get(k) ?? []).sort((a, b) => a[0] - b[0]);
    if (JSON.stringify(m.files) !== JSON.stringify(want)) {
      out.push({ invariant: 'manifests-list-their-files', key: m.key, message: `the manifest of table ${m.tableId} at snapshot ${m.begin} lists ${m.files.length} files; the rows give ${want.length} that differ from them` });
    }
  }
  for (const [k, want] of expected) {
    if (!seen.has(k)) out.push({ invariant: 'manifests-list-their-files', message: `no manifest lists the ${want.length} data files table ${k.replace('@', ' added at snapshot ')}` });
  }
  return out;
}

/** Each data file's id resolves to its table, and only to it (a delete file aimed at another table's file is refused by it). */
export function fileTableProblems(files: readonly DataFileFact[], entries: readonly { id: number; begin: number; tableId: number; key: string }[]): Violation[] {
  const out: Violation[] = [];
  const byId = new Map(entries.map((e) => [`${e.id}@${e.begin}`, e]));
  for (const f of files) {
    const e = byId.get(`${f.id}@${f.begin}`);
    if (e?.tableId !== f.tableId) out.push({ invariant: 'file-table-index-names-each-file', key: f.key, message: `data file ${f.id} is in table ${f.tableId}; the file→table index says ${e === undefined ? 'nothing' : `table ${e.tableId}`}` });
    byId.delete(`${f.id}@${f.begin}`);
  }
  for (const e of byId.values()) out.push({ invariant: 'file-table-index-names-each-file', key: e.key, message: `the file→table index names data file ${e.id}, which has no row` });
  return out;
}

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

/**
 * The path index names, for each object path, exactly the file rows (data and delete files) that name it:
 * reclamation deletes an object once none is left, so a missing id would let a live file be deleted.
 */
export function pathIndexProblems(rows: readonly { id: number; path: string; key: string }[], entries: readonly { path: string; ids: readonly number[]; key: string }[]): Violation[] {
  const out: Violation[] = [];
  const expected = new Map<string, number[]>();
  for (const r of rows) (expected.get(r.path) ?? expected.set(r.path, []).get(r.path)!).push(r.id);
  for (const e of entries) {
    const want = (expected.get(e.path) ?? []).sort((a, b) => a - b);
    expected.delete(e.path);
    if (JSON.stringify([...e.ids].sort((a, b) => a - b)) !== JSON.stringify(want)) {
      out.push({ invariant: 'path-index-names-every-row', key: e.key, message: `the path index gives files ${JSON.stringify(e.ids)} for ${JSON.stringify(e.path)}; the rows naming it are ${JSON.stringify(want)}` });
    }
  }
  for (const [path, ids] of expected) out.push({ invariant: 'path-index-names-every-row', message: `${JSON.stringify(path)} is named by file rows ${JSON.stringify(ids)} but not in the path index` });
  return out;
}
