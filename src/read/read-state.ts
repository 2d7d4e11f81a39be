// What reads one state of the catalog: a Reader at a committed snapshot, or a transaction's pending state
// (txn/pending-reads.ts) — the calls the SQL layer makes to bind a statement, and nothing else — and what
// opens such states: the SQL layer is handed one from below (the commit layer's CommitEngine), never a way
// back up into the facade.
import type { ColumnStats } from '../../keys/file-column-stats.js';
import type { FileId, SnapshotId } from '../../keys/ids.js';
import type { NameMapping } from '../../keys/name-mappings.js';
import type { ReadView } from '../kv/read-view.js';
import type { Reader } from './reader.js';
import type { DataFileInfo, DeleteFileInfo, SchemaInfo, TableInfo, TableSummary, ViewInfo } from './records.js';
import type { SnapshotSelector } from './resolve-snapshot.js';

export interface ReadState {
  /** The snapshot read (a transaction's: its base); the schema version, null for one no snapshot has. */
  readonly snapshot: { id: SnapshotId; schemaVersion: number | null };
  schemas(): Promise<SchemaInfo[]>;
  tables(schema: string): Promise<TableSummary[]>;
  views(schema: string): Promise<ViewInfo[]>;
  viewNamed(schema: string, name: string): Promise<ViewInfo | undefined>;
  table(schema: string, name: string): Promise<TableInfo>;
  dataFiles(schema: string, table: string): Promise<DataFileInfo[]>;
  deleteFiles(schema: string, table: string): Promise<DeleteFileInfo[]>;
  columnStats(schema: string, table: string, files: readonly DataFileInfo[]): Promise<Map<FileId, ColumnStats[]>>;
  /** The name mappings of those of the given data files that have one (mappingId), by file id. */
  nameMappings(schema: string, table: string, files: readonly DataFileInfo[]): Promise<Map<FileId, NameMapping>>;
  close(): Promise<void>;
}

/** Opens the state a statement's reference reads: the one `selector` names, or (none) the statement's own. */
export interface StateReads {
  reader(selector?: SnapshotSelector): Promise<ReadState>;
}

/**
 * Reads of the committed catalog: a Reader at the snapshot `selector` names (none: the newest), once the
 * index holds what the store has; and a view of the newest local state.
 */
export interface SnapshotReads extends StateReads {
  reader(selector?: SnapshotSelector): Promise<Reader>;
  view<T>(fn: (view: ReadView) => Promise<T>): Promise<T>;
}
