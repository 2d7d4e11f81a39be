// Delete files (ducklake_delete_file): `[DeleteFile][table_id][delete_file_id][begin]`, append-only, ended
// when replaced (delete files are cumulative per data file) or when their data file goes. Their object paths
// share the path index with data files (data-files.ts).
import type { CatalogId, FileId } from './ids.js';
import { type Key, type KeyRange, keyPrefix, prefixEnd, readU64 } from './key-codec.js';
import { group, type Group } from './groups.js';
import { filePathNote } from './end-index.js';
import { Space } from './spaces.js';
import { Entity, type Versioned } from './versions.js';

export interface DeleteFileRow extends Versioned {
  dataFileId: FileId;
  path: string;
  format: string;
  deleteCount: number;
  fileSizeBytes: number;
  /** CRC-32 of the file's bytes, when its writer gave one. */
  contentCrc32?: number | null;
}

/** A delete file: its end records the path, for excision. */
export const deleteFileEntity = (tableId: CatalogId, id: FileId): Entity<DeleteFileRow> => new Entity<DeleteFileRow>(Space.DeleteFile, [tableId, id], filePathNote);

/** Every delete file row of one table, in id order. */
export const deleteFilesOfTable = (tableId: CatalogId): Group => group(Space.DeleteFile, [tableId]);

export const deleteFileIdOf = (fields: readonly unknown[]): FileId => fields[1] as FileId;

/** As dataFileIdEnd: no delete file visible at a snapshot has an id at or above its next_file_id. */
export const deleteFileIdEnd = (tableId: CatalogId, nextFileId: FileId): Key => keyPrefix(Space.DeleteFile, [tableId, nextFileId]);

/** The delete files of table `tableId` and of every table after it by id: what a read-ahead reads. */
export const deleteFilesFrom = (tableId: CatalogId): KeyRange => ({ gte: keyPrefix(Space.DeleteFile, [tableId]), lt: prefixEnd(keyPrefix(Space.DeleteFile)) });

/** The table a DeleteFile key belongs to. */
export const deleteFileTableOf = (key: Key): CatalogId => readU64(key, 1) as CatalogId;
