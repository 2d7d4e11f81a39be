// The public API of strata.
export { Catalog, type HistoryOptions, importDuckLake, type ImportOptions, type ImportReport, type OpenOptions, type ReaderOptions } from './catalog/catalog.js';
export { serve, type IcebergServer, type ServeOptions } from './serve/server.js';
export type { TransactionFn } from './txn/prepared.js';
export type { HistoryBound, ReadSource, TableChanges } from './read/history.js';
export type { SnapshotSelector } from './read/resolve-snapshot.js';
export { StrataError, type ErrorCode, isStrataError } from './errors.js';
export type { Reader } from './read/reader.js';
export type {
  CatalogTotals,
  ColumnInfo,
  DataFileInfo,
  DeleteFileInfo,
  SchemaInfo,
  SnapshotInfo,
  TableInfo,
  TableSummary,
  TableTotals,
  ViewInfo,
} from './read/records.js';
export type { Transaction, ColumnSpec, DataFileSpec, DeleteFileSpec } from './txn/transaction.js';
export type { CommitMeta } from './txn/plan.js';
export type { ObjectInfo, ObjectStore } from './store/object-store.js';
export { DirectoryStore, type DirectoryStoreOptions } from './store/directory-store.js';
export { S3Store, type S3StoreOptions } from './store/s3-store.js';
export type { SnapshotId, KvSeq, CatalogId, FileId, ColumnId } from '../keys/ids.js';
export type { AdvanceResult, AdvanceTarget } from '../gc/retain-from.js';
export type { LeaseInfo, LeaseOptions } from '../gc/leases.js';
export type { ExciseCounts, ExciseOptions, ExciseReport, ExcisionJobRow } from '../gc/excise.js';
export type { ReclaimOptions, ReclaimReport } from '../gc/reclaim.js';
export type { PruneCheckpointsOptions, PruneCheckpointsReport } from '../gc/checkpoints.js';
export type { CompactLogOptions, CompactLogReport } from '../gc/compact-log.js';
export type { VerifyOptions, VerifyReport, Violation } from './commit/verify.js';
export type { SqlOptions, SqlResult } from './sql/query.js';
export type { SqlParam, SqlParams } from './sql/params.js';
export type { ChangeBound } from './sql/row-changes.js';
export type { LoadResult } from './sql/load.js';
export type { ColumnStats } from '../keys/file-column-stats.js';
export type { ExportOptions, ExportReport } from './ducklake/export.js';
export type { ColumnStatsSpec } from './txn/transaction.js';
