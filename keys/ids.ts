// Branded integer types. A SnapshotId (the catalog version users time-travel to) and a KvSeq (which log
// entries the local index has applied) are both plain numbers at run time; the brands make the compiler
// refuse to pass one where the other is expected, which is the mix-up docs/DESIGN.md §1 forbids.
declare const brand: unique symbol;
type Brand<T, B extends string> = T & { readonly [brand]: B };

export type SnapshotId = Brand<number, 'SnapshotId'>;
export type KvSeq = Brand<number, 'KvSeq'>;
/** Shared by schemas, tables, views and macros (DuckLake's next_catalog_id). */
export type CatalogId = Brand<number, 'CatalogId'>;
/** Shared by data files and delete files (DuckLake's next_file_id). */
export type FileId = Brand<number, 'FileId'>;
/** Unique within one table only (DuckLake's field ids). */
export type ColumnId = Brand<number, 'ColumnId'>;

/** The largest id a key can hold without losing precision in a JS number. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;

function checked(n: number, what: string): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${what} must be a non-negative safe integer, got ${n}`);
  return n;
}

export const snapshotId = (n: number): SnapshotId => checked(n, 'snapshot id') as SnapshotId;
export const kvSeq = (n: number): KvSeq => checked(n, 'kv sequence') as KvSeq;
export const catalogId = (n: number): CatalogId => checked(n, 'catalog id') as CatalogId;
export const fileId = (n: number): FileId => checked(n, 'file id') as FileId;
export const columnId = (n: number): ColumnId => checked(n, 'column id') as ColumnId;
