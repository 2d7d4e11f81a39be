// The public entry point, and nothing else: a facade that checks a caller's arguments, checks the catalog is
// open (and writable), and delegates — to the commit engine below it (src/commit/commit-engine.ts: opening,
// transactions, readers, tags, GC, checkpoints, verify), to the SQL plane (src/sql/data-plane.ts), and to the
// DuckLake exchange (src/ducklake/: export over a read view, import on an engine of its own).
import type { AdvanceResult, AdvanceTarget } from '../../gc/retain-from.js';
import { checkLeaseOptions, type LeaseInfo, type LeaseOptions } from '../../gc/leases.js';
import type { ExciseOptions, ExciseReport, ExcisionJobRow } from '../../gc/excise.js';
import { checkReclaimOptions, type ReclaimOptions, type ReclaimReport } from '../../gc/reclaim.js';
import type { PruneCheckpointsOptions, PruneCheckpointsReport } from '../../gc/checkpoints.js';
import type { CompactLogOptions, CompactLogReport } from '../../gc/compact-log.js';
import type { SnapshotId } from '../../keys/ids.js';
import { flag, options } from '../arguments.js';
import { StrataError } from '../errors.js';
import { quote } from '../messages.js';
import * as q from '../read/catalog-queries.js';
import { type HistoryBound, historyCount, historyOf, type HistoryOptions, type ReadSource, resolveBound, type TableChanges, tableChangesByName } from '../read/history.js';
import type { Reader } from '../read/reader.js';
import type { SnapshotInfo } from '../read/records.js';
import type { SnapshotSelector } from '../read/resolve-snapshot.js';
import type { CommitMeta } from '../txn/plan.js';
import type { TransactionFn } from '../txn/prepared.js';
import type { CheckpointResult } from '../commit/background.js';
import { closedCatalog, CommitEngine } from '../commit/commit-engine.js';
import { ENGINE_OPTIONS, type EngineOptions } from '../commit/open.js';
import type { VerifyOptions, VerifyReport } from '../commit/verify.js';
import type { ChangeBound, CompactOptions, CompactResult, DataPlane, LoadOptions, LoadResult, SqlOptions, SqlResult } from '../sql/data-plane.js';
import { type SqlEngineOptions, type SqlSettings, sqlSettings } from '../sql/settings.js';
import type { ExportOptions, ExportReport } from '../ducklake/export.js';
import type { ImportReport } from '../ducklake/import.js';
import { dataLocation } from '../ducklake/values.js';
import { checkIcebergObjects } from '../iceberg/object-names.js';
import { icebergKeep, reclaimIcebergObjects } from '../iceberg/reclaim-objects.js';
import { ServedObjects } from '../iceberg/served-objects.js';
import type { IcebergTable } from '../iceberg/table-metadata.js';

// The SQL plane (DuckDB's, and every module of sql/), the DuckLake exchange and the Iceberg metadata are loaded
// when first used: every CLI call is a process, and one that only reads the catalog needs none of them.
const planeModule = () => loaded(import('../sql/data-plane.js'), 'the SQL plane');

/** A module of this package, imported; one that cannot be is a broken installation, said as such. */
async function loaded<M>(module: Promise<M>, what: string): Promise<M> {
  try {
    return await module;
  } catch (e) {
    throw new StrataError('STORE_UNAVAILABLE', `${what} could not be loaded (${(e as Error).message}); the stratalake package is installed incompletely: install it again`, { cause: e });
  }
}

export interface OpenOptions extends EngineOptions {
  /** How sql() and the other SQL calls run DuckDB: its memory limit, and whether statements read host files. */
  sql?: SqlEngineOptions;
}

const OPEN_OPTIONS: readonly (keyof OpenOptions)[] = [...ENGINE_OPTIONS, 'sql'];

export interface ImportOptions extends OpenOptions {
  /** Copy every file the lake names from its (local) data path into the new catalog's store. */
  copyFiles?: boolean;
}

export type { HistoryOptions, ImportReport };

/**
 * Which snapshot a reader reads: at most one of snapshot, timestamp, tag, previous; none = the newest. With
 * `lease`, the reader also takes a durable pin that GC in every process honours until it expires or the
 * reader closes.
 */
export type ReaderOptions = SnapshotSelector & { lease?: LeaseOptions };

export class Catalog {
  /** Key prefix of data files in the store, e.g. `data/`. */
  readonly dataPath: string;
  /** The Iceberg objects this process has seen in the store, and the tables it last served (catalog.iceberg()). */
  private readonly served: ServedObjects<IcebergTable>;

  /** The SQL plane once made; until then, its making under way (see plane()). */
  private made: DataPlane | undefined;
  private making: Promise<DataPlane> | undefined;
  /** Set as close() begins: no plane is made after it, since none would be closed. */
  private closing = false;

  private constructor(
    private readonly engine: CommitEngine,
    private readonly settings: SqlSettings,
    loaded: Awaited<ReturnType<typeof planeModule>> | undefined,
  ) {
    this.dataPath = engine.dataPath;
    this.served = new ServedObjects(engine.store);
    if (loaded !== undefined) this.made = new loaded.DataPlane(engine, settings);
  }

  static async open(given: OpenOptions): Promise<Catalog> {
    const { sql, ...opts } = options('Catalog.open()', given, OPEN_OPTIONS);
    const settings = sqlSettings(sql);
    // A writable catalog's transactions check the files they register through the SQL plane, so it loads
    // beside the open; a read-only one needs it only for a statement, and loads it then.
    const loading = opts.readOnly === true ? undefined : planeModule();
    // Heard below, or by nobody if the open fails first.
    loading?.catch(() => undefined);
    const engine = await CommitEngine.open(opts);
    try {
      return new Catalog(engine, settings, await loading);
    } catch (e) {
      await engine.close();
      throw e;
    }
  }

  /** The SQL plane, made the first time it is asked for (a failed load is tried again by the next call). */
  private plane(): Promise<DataPlane> {
    if (this.made !== undefined) return Promise.resolve(this.made);
    if (this.closing) return Promise.reject(closedCatalog());
    this.making ??= planeModule().then(
      (m) => (this.made = new m.DataPlane(this.engine, this.settings)),
      (e: unknown) => {
        this.making = undefined;
        throw e;
      },
    );
    return this.making;
  }

  /** A call of the plane's, once it is loaded, if the catalog is still open then. */
  private withPlane<T>(call: (plane: DataPlane) => Promise<T>): Promise<T> {
    if (this.made !== undefined) return call(this.made);
    return this.plane().then((p) => (this.closing ? Promise.reject(closedCatalog()) : call(p)));
  }

  /** A stream of the plane's, the plane loaded when the stream is first read (and the catalog still open). */
  private async *fromPlane<T>(stream: (plane: DataPlane) => AsyncGenerator<T>): AsyncGenerator<T> {
    const plane = await this.plane();
    if (this.closing) throw closedCatalog();
    yield* stream(plane);
  }

  /**
   * Runs `fn` against the newest committed state and commits what it did as one snapshot. Returns the new
   * snapshot id, or null when the net effect on the catalog is empty.
   *
   * Transactions are optimistic, as DuckLake's are: `fn` runs concurrently with other transactions of
   * this process and of other writers. If others commit first, this one is checked against their changes
   * with DuckLake's conflict rules and, when they commute (e.g. inserts into one table), its recorded
   * operations are replayed on the newer state, with the ids they handed out. On a log kept as objects
   * (S3) the store is not asked first: `fn` runs on the newest state this process has, and runs once more,
   * on the newer state, when commits of other writers it had not seen changed what it read (tx.reads(),
   * tx.sql) or it failed there; nothing of the first run is committed (docs/decisions/0057). Transactions of this process
   * that are ready at once share one log entry (group commit), each with its own snapshot. An operation
   * that fails where `fn` never looks (not awaited, not caught) fails the whole transaction.
   */
  async transaction(fn: TransactionFn, meta?: CommitMeta): Promise<{ snapshot: SnapshotId | null }> {
    // A writable catalog made its plane at open: one without is read-only, and says so before loading anything.
    if (this.made === undefined) this.engine.writable();
    return this.engine.transaction(fn, meta, this.made ?? (await this.plane()));
  }

  /**
   * Restores a table's columns and files to what they were at `snapshot`, as a new commit (history only
   * moves forward; the restored-from snapshot stays readable). Returns the new snapshot, or null if the
   * table already is as it was.
   */
  restoreTable(schema: string, table: string, snapshot: number, meta: CommitMeta = {}): Promise<{ snapshot: SnapshotId | null }> {
    return this.transaction((tx) => tx.restoreTable(schema, table, snapshot), { message: `restore ${quote(schema, table)} to snapshot ${snapshot}`, ...meta });
  }

  /** Restores the whole catalog (schemas, tables, views, columns, files) to `snapshot`, as a new commit. */
  restoreCatalog(snapshot: number, meta: CommitMeta = {}): Promise<{ snapshot: SnapshotId | null }> {
    return this.transaction((tx) => tx.restoreCatalog(snapshot), { message: `restore the catalog to snapshot ${snapshot}`, ...meta });
  }

  /** A reader pinned to one snapshot (the newest, or the one `selector` names); close it when done. */
  async reader(given?: ReaderOptions): Promise<Reader> {
    this.engine.assertOpen();
    const { lease, ...selector } = options('reader()', given, ['snapshot', 'timestamp', 'tag', 'previous', 'lease']);
    return this.engine.reader(selector, lease === undefined ? undefined : checkLeaseOptions(lease));
  }

  /** One SELECT (docs/DESIGN.md §8; each table at its AT, else `opts.at`, else the newest), or one INSERT (a commit). */
  sql<Row extends Record<string, unknown> = Record<string, unknown>>(text: string, opts?: SqlOptions): Promise<SqlResult<Row>> {
    this.engine.assertOpen();
    return this.withPlane((p) => p.sql(text, opts)) as Promise<SqlResult<Row>>;
  }

  /** The same, streamed in DuckDB's batches of rows (each with the columns): memory bounded by a batch. */
  sqlBatches<Row extends Record<string, unknown> = Record<string, unknown>>(text: string, opts?: SqlOptions): AsyncGenerator<SqlResult<Row>> {
    this.engine.assertOpen();
    return this.fromPlane((p) => p.sqlBatches(text, opts)) as AsyncGenerator<SqlResult<Row>>;
  }

  /** Loads a CSV or Parquet file into a table as one new data file, in one commit. */
  load(schema: string, table: string, source: string, opts?: LoadOptions): Promise<LoadResult> {
    this.engine.writable();
    return this.withPlane((p) => p.load(schema, table, source, opts));
  }

  /** Rewrites small files and those with deleted rows: a maintenance commit that keeps row ids. */
  compact(schema: string, table: string, opts?: CompactOptions): Promise<CompactResult> {
    this.engine.writable();
    return this.withPlane((p) => p.compact(schema, table, opts));
  }

  /** Applies entries that other writers committed to the shared store since this process last looked. */
  refresh(): Promise<void> {
    return this.engine.refresh();
  }

  /** With followIntervalMs: when the background refresh last succeeded; the last background failure, if any. */
  followStatus(): { lastRefreshAt: Date | null; lastError: StrataError | null } {
    return this.engine.status.current();
  }

  // ---------------------------------------------------------------- history

  /**
   * The history, oldest first, streamed: every snapshot, or those in [from, to] (ids or times, inclusive),
   * or only those that created, changed or dropped one table (named as it is now, or as it was at `to`).
   */
  async *iterateSnapshots(given?: HistoryOptions): AsyncGenerator<SnapshotInfo> {
    const view = await this.engine.readView();
    try {
      yield* historyOf(view, given);
    } finally {
      await view.close();
    }
  }

  async snapshots(opts?: HistoryOptions): Promise<SnapshotInfo[]> {
    const out: SnapshotInfo[] = [];
    for await (const s of this.iterateSnapshots(opts)) out.push(s);
    return out;
  }

  /** How many snapshots snapshots(opts) returns, without reading them (but for one table's, which are found by reading). */
  snapshotCount(opts?: HistoryOptions): Promise<number> {
    return this.engine.view((view) => historyCount(view, opts));
  }

  /**
   * The data and delete files a table gained and lost in snapshots [from, to] (ids or
   * times, inclusive); the table named as at `to` (or `from`) and followed by id through renames.
   */
  changes(schema: string, table: string, range: { from: HistoryBound; to: HistoryBound }): Promise<TableChanges> {
    return this.engine.view((view) => tableChangesByName(view, schema, table, range));
  }

  /**
   * The rows a table gained and lost in snapshots [from, to] (ids, times or { tag }; both inclusive), as DuckLake's
   * table_changes: snapshot_id, rowid, change_type (insert, delete, update_preimage, update_postimage), then the
   * columns as of `to`; a row a commit only moved (a compaction, a restore) is no change. */
  tableChanges(schema: string, table: string, range: { from: ChangeBound; to: ChangeBound }): Promise<SqlResult> {
    this.engine.assertOpen();
    return this.withPlane((p) => p.tableChanges(schema, table, range));
  }

  /** tableChanges streamed in DuckDB's batches of rows. */
  tableChangesBatches(schema: string, table: string, range: { from: ChangeBound; to: ChangeBound }): AsyncGenerator<SqlResult> {
    this.engine.assertOpen();
    return this.fromPlane((p) => p.tableChangesBatches(schema, table, range));
  }

  /** The table snapshots a commit said it was computed from (`meta.readSources`), the receipt for a replay. */
  async lineage(snapshot: number): Promise<ReadSource[]> {
    return this.engine.view(async (view) => (await q.snapshotChanges(view, await resolveBound(view, 'snapshot', snapshot)))?.readSources ?? []);
  }

  /**
   * The catalog's options (DuckLake's ducklake_metadata: data_path and what transactions set with
   * setOption). Options are not versioned: this is their current value.
   */
  async options(): Promise<Record<string, string>> {
    return this.engine.view(async (view) => Object.fromEntries(await q.options(view)));
  }

  /** Where the engine should write (and read) a data file registered under `relativePath`. */
  dataFileLocation(relativePath: string): string {
    return this.engine.store.url(`${this.dataPath}${relativePath}`);
  }

  /** Where the catalog keeps things: its store, the layout of its log, and where data files go. */
  storage(): { store: string; logLayout: 'objects' | 'segments'; dataLocation: string } {
    const { store, log } = this.engine.parts;
    return { store: store.description, logLayout: log.layout, dataLocation: dataLocation(store, this.dataPath) };
  }

  /** The retained history (or its part up to `at`) as DuckLake 1.0's catalog tables in a new SQLite file. */
  exportDuckLake(file: string, opts?: ExportOptions): Promise<ExportReport> {
    const checked = options('exportDuckLake()', opts, ['at']);
    this.engine.assertOpen();
    return loaded(import('../ducklake/export.js'), 'the DuckLake export').then(({ exportLake }) =>
      this.engine.view((view) => exportLake(view, file, checked, dataLocation(this.engine.store, this.dataPath), 'Strata')),
    );
  }

  /**
   * The table as an Apache Iceberg v2 table at a snapshot (the newest, or the one `at` names), for an engine
   * handed its metadata: the metadata, and where it and the manifests it names are in the store (docs/DESIGN.md §9).
   */
  async iceberg(schema: string, table: string, at?: SnapshotSelector): Promise<IcebergTable> {
    this.engine.assertOpen();
    const selector = options('iceberg()', at, ['snapshot', 'timestamp', 'tag']);
    const reader = await this.engine.reader(selector);
    try {
      const info = await reader.table(schema, table);
      const [{ icebergTable }, deletes] = await Promise.all([loaded(import('../iceberg/table-metadata.js'), 'the Iceberg metadata'), this.plane()]);
      const src = { store: this.engine.store, dataPath: this.dataPath, deletes, served: this.served };
      return await this.engine.view((view) => icebergTable({ ...src, view }, `${quote(schema)}.${quote(table)}`, info.id, reader.snapshot.id));
    } finally {
      await reader.close();
    }
  }

  // ---------------------------------------------------------------- tags

  /** Pins `snapshot` under `name`. Tags are immutable: moving one is dropTag + createTag. */
  createTag(name: string, snapshot: number): Promise<void> {
    return this.engine.tags.create(name, snapshot);
  }

  dropTag(name: string): Promise<void> {
    return this.engine.tags.drop(name);
  }

  async tags(): Promise<{ name: string; snapshot: SnapshotId; createdAt: Date }[]> {
    return this.engine.view((view) => this.engine.tags.list(view));
  }

  // ---------------------------------------------------------------- checkpoints, retention and GC

  /**
   * Writes a checkpoint of the newest state to the store, so that new machines bootstrap from it instead of
   * replaying the whole log. Returns where it stands.
   */
  checkpoint(): Promise<CheckpointResult> {
    return this.engine.checkpoint();
  }

  /** Retain-from: untagged snapshots below it are OUT_OF_RETENTION. 0 until first advanced. */
  retainFrom(): Promise<SnapshotId> {
    return this.engine.gc.retainFrom();
  }

  /**
   * Moves retain-from forward: to `{ snapshot }`, or past the snapshots committed before `{ olderThan }`.
   * Never backwards, never past the newest snapshot, never past an unexpired lease (the result says which).
   */
  advanceRetainFrom(target: AdvanceTarget, opts?: { dryRun?: boolean }): Promise<AdvanceResult> {
    return this.engine.gc.advanceRetainFrom(target, opts);
  }

  /** The leases readers hold (expired ones included until their reader closes; they protect nothing). */
  leases(): Promise<LeaseInfo[]> {
    return this.engine.gc.leases();
  }

  /** Physically deletes what retain-from made unreadable (gc/excise.ts), in logged batches; resumes a crashed job. */
  excise(opts?: ExciseOptions): Promise<ExciseReport> {
    return this.engine.gc.excise(opts);
  }

  /** The records of excision jobs, oldest first: when, who, retain-from, what each removed. */
  excisionJobs(): Promise<({ id: number } & ExcisionJobRow)[]> {
    return this.engine.gc.excisionJobs();
  }

  /**
   * Deletes the files excision scheduled once their grace period is over; with `orphans`, also unnamed objects
   * under the data path and what crashed writes left, older than minAgeMs. Catalog objects are never touched.
   */
  async reclaimFiles(opts?: ReclaimOptions): Promise<ReclaimReport> {
    const report = await this.engine.gc.reclaimFiles(opts);
    // Then the Iceberg objects no retained snapshot's metadata names, by the same grace (gc/protection.ts decides).
    const { graceMs, dryRun } = checkReclaimOptions(opts);
    const { store, clock } = this.engine.parts;
    const now = clock();
    const keep = await this.engine.view((view) => icebergKeep(view, store, now));
    const iceberg = await reclaimIcebergObjects(store, keep, now, graceMs, dryRun);
    return { ...report, iceberg: iceberg.deleted, failed: [...report.failed, ...iceberg.failed] };
  }

  /** Deletes superseded checkpoints (keeping the newest `keep` complete ones) and incomplete ones: each is a full copy. */
  pruneCheckpoints(opts?: PruneCheckpointsOptions): Promise<PruneCheckpointsReport> {
    return this.engine.gc.pruneCheckpoints(opts);
  }

  /** Replaces the log entries the newest old-enough checkpoint covers with stubs (docs/decisions/0006). */
  compactLog(opts?: CompactLogOptions): Promise<CompactLogReport> {
    return this.engine.gc.compactLog(opts);
  }

  /**
   * Checks every invariant the catalog keeps against what is stored (src/commit/verify.ts): log and newest
   * checkpoint read whole, the index against one rebuilt from the store, with `files` every file. Changes nothing.
   */
  async verify(opts?: VerifyOptions): Promise<VerifyReport> {
    this.engine.assertOpen();
    const files = flag('files', options('verify()', opts, ['files']).files);
    const report = await this.engine.verify(files, await this.plane());
    // The Iceberg objects served from this store, each against the checksum its name carries.
    const iceberg = await checkIcebergObjects(this.engine.store);
    const violations = [...report.violations, ...iceberg.problems.map((p) => ({ invariant: 'iceberg object matches its name', object: p.key, message: `CORRUPT: ${p.message}; delete it and serve the table again to remake it` }))];
    return { ok: violations.length === 0, violations, checked: { ...report.checked, icebergObjects: iceberg.checked } };
  }

  /** Closes open readers, stops running statements (CANCELLED) and closes the index. Acknowledged commits are durable. */
  async close(): Promise<void> {
    this.closing = true;
    // A plane still being made is closed once made: a statement may already run on its engine.
    return this.engine.close(this.made ?? (await this.making?.catch(() => undefined)));
  }
}

/**
 * Creates a catalog at `opts` (which must hold none) from the DuckLake catalog in `file` (src/ducklake/import.ts):
 * all of it, checked and verified, or nothing at all.
 */
export async function importDuckLake(file: string, opts: ImportOptions): Promise<ImportReport> {
  const { copyFiles = false, sql, ...open } = options('importDuckLake()', opts, [...OPEN_OPTIONS, 'copyFiles']);
  if (typeof copyFiles !== 'boolean') throw new StrataError('INVALID_ARGUMENT', 'copyFiles must be a boolean');
  const settings = sqlSettings(sql);
  const { importLake } = await loaded(import('../ducklake/import.js'), 'the DuckLake import');
  return importLake(file, open, { copyFiles, sql: settings });
}
