// What reads one state of the catalog: a Reader at a committed snapshot, or a transaction's pending state
// (txn/pending-reads.ts) — the calls the SQL layer makes to bind a statement, and nothing else.
import type { ColumnStats } from '../../keys/file-column-stats.js';
import type { FileId, SnapshotId } from '../../keys/ids.js';
import type { NameMapping } from '../../keys/name-mappings.js';
import type { DataFileInfo, DeleteFileInfo, SchemaInfo, TableInfo, TableSummary, ViewInfo } from './records.js';

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
