// The operations every side of a benchmark implements: Strata through its public API, the peer (DuckLake's
// catalog tables in SQLite) through SQL, and the raw limit (the same keys and values through classic-level,
// with no catalog logic). Workloads only speak this interface, so every side does the same work.
export interface FileSpec {
  path: string;
  rows: number;
  bytes: number;
}

/** Strata on its default log layout (segments, for a local directory), Strata with its log as objects, the peer, the raw limit. */
export type Side = 'strata' | 'strata-objects' | 'peer' | 'raw';

export interface Driver {
  readonly side: Side;
  /** What one durable commit costs this side, for the report. */
  readonly durability: string;
  /** Creates tables (COLUMNS unless given) in schema main, in one commit; returns its snapshot. */
  createTables(names: string[], columns?: ColumnSpec[]): Promise<number>;
  renameTables(pairs: [from: string, to: string][]): Promise<number>;
  addFiles(table: string, files: FileSpec[]): Promise<number>;
  /**
   * Ends the table's `remove` oldest live files and adds `files`, in one commit (a compaction, an
   * overwrite); returns its snapshot. Absent where the side does not model ending files (raw).
   */
  replaceFiles?(table: string, remove: number, files: FileSpec[]): Promise<number>;
  /** table(main, name) with its columns at the snapshot; returns the number of columns. */
  resolve(snapshot: number, table: string): Promise<number>;
  /** The same, through a consistent read opened for this one question and closed after (a reader per query). */
  resolveOnce(snapshot: number, table: string): Promise<number>;
  /** Streams the table's data files at the snapshot; returns how many there are. */
  listFiles(snapshot: number, table: string): Promise<number>;
  /** A query planner's call: open a consistent read at the snapshot, resolve the table, list its files, close. */
  plan(snapshot: number, table: string): Promise<number>;
  /** Pins `snapshot` under `name`. */
  createTag(name: string, snapshot: number): Promise<void>;
  /** Opens a read at the snapshot that `selector` names and returns its id. */
  snapshotBy(selector: SnapshotSelector): Promise<number>;
  /** Commit times of the first and the newest snapshot, ms. */
  timeRange(): Promise<[number, number]>;
  close(): Promise<void>;
}

export type SnapshotSelector = { id: number } | { time: number } | { tag: string };

export interface DriverOptions {
  dir: string;
  /** true: each commit is durable before it returns, as the side promises; false: each side's relaxed mode. */
  durable: boolean;
  /** Strata only: how its commit log is kept (default: the embedded default's, segments). */
  logLayout?: 'segments' | 'objects';
}

export interface ColumnSpec {
  name: string;
  type: string;
}

export const COLUMNS: ColumnSpec[] = [
  { name: 'id', type: 'int64' },
  { name: 'payload', type: 'varchar' },
];

/** A table as users make them: the shape the many-small-tables workloads resolve. */
export const TEN_COLUMNS: ColumnSpec[] = [
  ...COLUMNS,
  ...['int32', 'int64', 'float64', 'varchar', 'timestamp', 'date', 'boolean', 'decimal(18,3)'].map((type, i) => ({ name: `c${i}`, type })),
];
