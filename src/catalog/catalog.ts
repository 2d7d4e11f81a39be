// The public entry point: a facade over the modules that do the work. Opening is src/commit/open.ts; keeping the index
// an exact prefix of the log is index-sync.ts; the commit loop and the commit point are committer.ts, which
// group-commit.ts feeds; background checkpoints and following are background.ts; the GC entry points are
// maintenance.ts. A Catalog owns one local index and one store, and nothing else in the process touches
// either.
import type { AdvanceResult, AdvanceTarget } from '../../gc/retain-from.js';
import { checkLeaseOptions, type LeaseInfo, type LeaseOptions } from '../../gc/leases.js';
import type { ExciseOptions, ExciseReport, ExcisionJobRow } from '../../gc/excise.js';
import type { ReclaimOptions, ReclaimReport } from '../../gc/reclaim.js';
import type { PruneCheckpointsOptions, PruneCheckpointsReport } from '../../gc/checkpoints.js';
import type { CompactLogOptions, CompactLogReport } from '../../gc/compact-log.js';
import type { CatalogId, SnapshotId } from '../../keys/ids.js';
import { flag, options } from '../arguments.js';
import { StrataError } from '../errors.js';
import { quote } from '../messages.js';
import type { ReadView } from '../kv/read-view.js';
import * as q from '../read/catalog-queries.js';
import { type HistoryBound, historyOf, type HistoryOptions, type ReadSource, resolveBound, type TableChanges, tableChangesByName } from '../read/history.js';
import { Reader } from '../read/reader.js';
import { rowEvents } from '../read/row-events.js';
import type { SnapshotInfo } from '../read/records.js';
import { resolveSnapshot, type SnapshotSelector } from '../read/resolve-snapshot.js';
import { checkCommitMeta, type CommitMeta } from '../txn/plan.js';
import { prepare, type TransactionFn } from '../txn/prepared.js';
import type { TxnContext } from '../txn/transaction.js';
import { Background, type CheckpointResult } from '../commit/background.js';
import { Committer } from '../commit/committer.js';
import { GroupCommit } from '../commit/group-commit.js';
import { IdBlocks } from '../commit/id-blocks.js';
import { Maintenance } from '../commit/maintenance.js';
import { type Opened, openCatalog, type OpenOptions } from '../commit/open.js';
import { SnapshotTags } from '../commit/snapshot-tags.js';
import { FollowStatus } from '../commit/status.js';
import { type ChangeBound, type CompactOptions, type CompactResult, DataPlane, type LoadOptions, type LoadResult, type SqlOptions, type SqlResult } from '../sql/data-plane.js';
import { verifyCatalog, type VerifyOptions, type VerifyReport } from '../commit/verify.js';
import { type ExportOptions, type ExportReport, exportLake } from '../ducklake/export.js';
import { dataLocation } from '../ducklake/values.js';

export type { HistoryOptions, OpenOptions };

/**
 * Which snapshot a reader reads: at most one of snapshot, timestamp, tag, previous; none = the newest. With
 * `lease`, the reader also takes a durable pin that GC in every process honours until it expires or the
 * reader closes.
 */
export type ReaderOptions = SnapshotSelector & { lease?: LeaseOptions };

export class Catalog {
  private readonly status = new FollowStatus();
  private readonly background: Background;
  private readonly committer: Committer;
  private readonly commits: GroupCommit;
  private readonly txnContext: TxnContext;
  private readonly gc: Maintenance;
  private readonly snapshotTags: SnapshotTags;
  private readonly plane: DataPlane;
  private readonly readers = new Set<Reader>();
  /** Transactions under way, from their function to their commit: close() lets them finish. */
  private readonly transactions = new Set<Promise<unknown>>();
  /** The background load of the snapshot timeline started by open(); close() waits for it. */
  private warming: Promise<void> = Promise.resolve();
  private closed = false;
  /** Key prefix of data files in the store, e.g. `data/`. */
  readonly dataPath: string;

  private constructor(private readonly parts: Opened) {
    const { sync, log, clock, limits } = parts;
    this.dataPath = parts.dataPath;
    this.background = new Background(sync, log, this.status, clock, limits.checkpointEvery);
    this.committer = new Committer(sync, log, this.status, this.background, { maxCommitAttempts: limits.maxCommitAttempts, random: parts.random });
    const reader = (at?: SnapshotSelector) => this.reader(at);
    const writable = () => this.assertWritable();
    const events = (tableId: CatalogId, range: { from: SnapshotId; to: SnapshotId }) => this.view((view) => rowEvents(view, tableId, range.from, range.to));
    const columnVersions = (tableId: CatalogId) => this.view((view) => q.columnsOf(view, tableId, undefined));
    this.plane = new DataPlane({ reader, transaction: (fn, meta) => this.transaction(fn, meta), writable, rowEvents: events, columnVersions, store: parts.store, dataPath: parts.dataPath }, parts.dir, parts.sql);
    const ids = new IdBlocks(this.committer);
    this.txnContext = {
      ids,
      files: this.plane.inspector,
      maxPathBytes: parts.store.maxKeyBytes - Buffer.byteLength(parts.dataPath),
      sql: (tx, text, opts) => this.plane.inTransaction(tx, text, opts),
      viewDefinition: (sql, view) => this.plane.viewDefinition(sql, view),
    };
    this.commits = new GroupCommit(this.committer, clock, { ...this.txnContext, ids: ids.inHand }, () => this.transactions.size);
    this.gc = new Maintenance({
      ...parts,
      committer: this.committer,
      background: this.background,
      status: this.status,
      assert: (write) => (write ? this.assertWritable() : this.assertOpen()),
    });
    this.snapshotTags = new SnapshotTags(this.committer, limits, clock, () => this.assertWritable());
  }

  static async open(opts: OpenOptions): Promise<Catalog> {
    const catalog = new Catalog(await openCatalog(opts));
    // In the background: the first timestamp lookup would otherwise scan the time index itself. A failure
    // only leaves that to the first lookup.
    catalog.warming = catalog.parts.sync.kv.warmTimeline().catch(() => undefined);
    try {
      if (opts.exclusiveWriter === true) {
        if (catalog.parts.readOnly) throw new StrataError('INVALID_ARGUMENT', 'exclusiveWriter and readOnly exclude each other');
        await catalog.committer.claimWriterEpoch(catalog.parts.writerName, catalog.parts.clock);
      }
      if (opts.followIntervalMs !== undefined) catalog.background.follow(opts.followIntervalMs);
    } catch (e) {
      await catalog.close();
      throw e;
    }
    return catalog;
  }

  /**
   * Runs `fn` against the newest committed state and commits what it did as one snapshot. Returns the new
   * snapshot id, or null when the net effect on the catalog is empty.
   *
   * Transactions are optimistic, as DuckLake's are: `fn` runs once, concurrently with other transactions of
   * this process and of other writers. If others commit first, this one is checked against their changes
   * with DuckLake's conflict rules and, when they commute (e.g. inserts into one table), its recorded
   * operations are replayed on the newer state, with the ids they handed out. Transactions of this process
   * that are ready at once share one log entry (group commit), each with its own snapshot. An operation
   * that fails where `fn` never looks (not awaited, not caught) fails the whole transaction.
   */
  async transaction(fn: TransactionFn, meta?: CommitMeta): Promise<{ snapshot: SnapshotId | null }> {
    this.assertWritable();
    if (typeof fn !== 'function') throw new StrataError('INVALID_ARGUMENT', 'transaction() takes a function (tx) => …');
    const checked = checkCommitMeta(meta);
    const running = (async () => {
      // Asked first, so the function reads every commit made before it began; not while a group is being
      // written (its write learns what is new), nor by the epoch's holder (decision 0016).
      if (!this.commits.busy && !this.committer.exclusive) await this.parts.sync.refresh();
      const prepared = await this.parts.sync.view((view) => prepare(view, fn, checked, this.parts.clock(), this.txnContext));
      if (prepared.plan?.mutations.length === 0) return { snapshot: null };
      return this.commits.commit(prepared);
    })();
    this.transactions.add(running);
    try {
      return await running;
    } finally {
      this.transactions.delete(running);
    }
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
    this.assertOpen();
    const { lease, ...selector } = options('reader()', given, ['snapshot', 'timestamp', 'tag', 'previous', 'lease']);
    const leaseOptions = lease === undefined ? undefined : checkLeaseOptions(lease);
    if (leaseOptions) this.assertWritable();
    // Retain-from, tags and the newest snapshot as the store has them now, not as this index last saw them.
    await this.parts.sync.refresh((e) => this.status.failed(e));
    const view = await this.parts.sync.kv.readView();
    try {
      const { id, row } = await resolveSnapshot(view, selector, { previousWalkLimit: this.parts.limits.previousWalkLimit });
      const pin = leaseOptions && (await this.gc.takeLease(id, leaseOptions.holder ?? this.parts.writerName, leaseOptions.ttlMs));
      const reader = new Reader(view, await q.snapshotInfo(view, id, row), (r) => this.readers.delete(r), pin);
      this.readers.add(reader);
      return reader;
    } catch (e) {
      await view.close();
      throw e;
    }
  }

  /** One SELECT (DESIGN §8; each table at its AT, else `opts.at`, else the newest), or one INSERT (a commit). */
  sql(text: string, opts?: SqlOptions): Promise<SqlResult> {
    this.assertOpen();
    return this.plane.sql(text, opts);
  }

  /** The same, streamed in DuckDB's batches of rows (each with the columns): memory bounded by a batch. */
  sqlBatches(text: string, opts?: SqlOptions): AsyncGenerator<SqlResult> {
    this.assertOpen();
    return this.plane.sqlBatches(text, opts);
  }

  /** Loads a CSV or Parquet file into a table as one new data file, in one commit. */
  load(schema: string, table: string, source: string, opts?: LoadOptions): Promise<LoadResult> {
    this.assertWritable();
    return this.plane.load(schema, table, source, opts);
  }

  /** Rewrites small files and those with deleted rows: a maintenance commit that keeps row ids. */
  compact(schema: string, table: string, opts?: CompactOptions): Promise<CompactResult> {
    this.assertWritable();
    return this.plane.compact(schema, table, opts);
  }

  /** Applies entries that other writers committed to the shared store since this process last looked. */
  async refresh(): Promise<void> {
    this.assertOpen();
    await this.parts.sync.refresh();
  }

  /** With followIntervalMs: when the background refresh last succeeded; the last background failure, if any. */
  followStatus(): { lastRefreshAt: Date | null; lastError: StrataError | null } {
    return this.status.current();
  }

  // ---------------------------------------------------------------- history

  /**
   * The history, oldest first, streamed: every snapshot, or those in [from, to] (ids or times, inclusive),
   * or only those that created, changed or dropped one table (named as it is now, or as it was at `to`).
   */
  async *iterateSnapshots(given?: HistoryOptions): AsyncGenerator<SnapshotInfo> {
    this.assertOpen();
    const view = await this.parts.sync.kv.readView();
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

  /**
   * The data and delete files a table gained and lost in snapshots [from, to] (ids or
   * times, inclusive); the table named as at `to` (or `from`) and followed by id through renames.
   */
  changes(schema: string, table: string, range: { from: HistoryBound; to: HistoryBound }): Promise<TableChanges> {
    return this.view((view) => tableChangesByName(view, schema, table, range));
  }

  /**
   * The rows a table gained and lost in snapshots [from, to] (ids, times or { tag }; both inclusive), as DuckLake's
   * table_changes: snapshot_id, rowid, change_type (insert, delete, update_preimage, update_postimage), then the
   * columns as of `to`; a row a commit only moved (a compaction, a restore) is no change. */
  tableChanges(schema: string, table: string, range: { from: ChangeBound; to: ChangeBound }): Promise<SqlResult> {
    this.assertOpen();
    return this.plane.tableChanges(schema, table, range);
  }

  /** tableChanges streamed in DuckDB's batches of rows. */
  tableChangesBatches(schema: string, table: string, range: { from: ChangeBound; to: ChangeBound }): AsyncGenerator<SqlResult> {
    this.assertOpen();
    return this.plane.tableChangesBatches(schema, table, range);
  }

  /** The table snapshots a commit said it was computed from (`meta.readSources`), the receipt for a replay. */
  async lineage(snapshot: number): Promise<ReadSource[]> {
    return this.view(async (view) => (await q.snapshotChanges(view, await resolveBound(view, 'snapshot', snapshot)))?.readSources ?? []);
  }

  /**
   * The catalog's options (DuckLake's ducklake_metadata: data_path and what transactions set with
   * setOption). Options are not versioned: this is their current value.
   */
  async options(): Promise<Record<string, string>> {
    return this.view(async (view) => Object.fromEntries(await q.options(view)));
  }

  /** Where the engine should write (and read) a data file registered under `relativePath`. */
  dataFileLocation(relativePath: string): string {
    return this.parts.store.url(`${this.dataPath}${relativePath}`);
  }

  /** Where the catalog keeps things: its store, the layout of its log, and where data files go. */
  storage(): { store: string; logLayout: 'objects' | 'segments'; dataLocation: string } {
    return { store: this.parts.store.description, logLayout: this.parts.log.layout, dataLocation: dataLocation((rel) => this.dataFileLocation(rel)) };
  }

  /** The retained history (or its part up to `at`) as DuckLake 1.0's catalog tables in a new SQLite file. */
  exportDuckLake(file: string, opts?: ExportOptions): Promise<ExportReport> {
    const checked = options('exportDuckLake()', opts, ['at']);
    return this.view((view) => exportLake(view, file, checked, (rel) => this.dataFileLocation(rel), 'Strata'));
  }

  // ---------------------------------------------------------------- tags

  /** Pins `snapshot` under `name`. Tags are immutable: moving one is dropTag + createTag. */
  createTag(name: string, snapshot: number): Promise<void> {
    return this.snapshotTags.create(name, snapshot);
  }

  dropTag(name: string): Promise<void> {
    return this.snapshotTags.drop(name);
  }

  async tags(): Promise<{ name: string; snapshot: SnapshotId; createdAt: Date }[]> {
    return this.view((view) => this.snapshotTags.list(view));
  }

  // ---------------------------------------------------------------- checkpoints, retention and GC

  /**
   * Writes a checkpoint of the newest state to the store, so that new machines bootstrap from it instead of
   * replaying the whole log. Returns where it stands.
   */
  async checkpoint(): Promise<CheckpointResult> {
    this.assertWritable();
    const { sync } = this.parts;
    return sync.exclusive(async () => {
      await sync.catchUp();
      return sync.view((view) => this.background.checkpointAt(view, sync.kv.latestAppliedTxn));
    });
  }

  /** Retain-from: untagged snapshots below it are OUT_OF_RETENTION. 0 until first advanced. */
  retainFrom(): Promise<SnapshotId> {
    return this.gc.retainFrom();
  }

  /**
   * Moves retain-from forward: to `{ snapshot }`, or past the snapshots committed before `{ olderThan }`.
   * Never backwards, never past the newest snapshot, never past an unexpired lease (the result says which).
   */
  advanceRetainFrom(target: AdvanceTarget, opts?: { dryRun?: boolean }): Promise<AdvanceResult> {
    return this.gc.advanceRetainFrom(target, opts);
  }

  /** The leases readers hold (expired ones included until their reader closes; they protect nothing). */
  leases(): Promise<LeaseInfo[]> {
    return this.gc.leases();
  }

  /** Physically deletes what retain-from made unreadable (gc/excise.ts), in logged batches; resumes a crashed job. */
  excise(opts?: ExciseOptions): Promise<ExciseReport> {
    return this.gc.excise(opts);
  }

  /** The records of excision jobs, oldest first: when, who, retain-from, what each removed. */
  excisionJobs(): Promise<({ id: number } & ExcisionJobRow)[]> {
    return this.gc.excisionJobs();
  }

  /**
   * Deletes the files excision scheduled once their grace period is over; with `orphans`, also unnamed objects
   * under the data path and what crashed writes left, older than minAgeMs. Catalog objects are never touched.
   */
  reclaimFiles(opts?: ReclaimOptions): Promise<ReclaimReport> {
    return this.gc.reclaimFiles(opts);
  }

  /** Deletes superseded checkpoints (keeping the newest `keep` complete ones) and incomplete ones: each is a full copy. */
  pruneCheckpoints(opts?: PruneCheckpointsOptions): Promise<PruneCheckpointsReport> {
    return this.gc.pruneCheckpoints(opts);
  }

  /** Replaces the log entries the newest old-enough checkpoint covers with stubs (docs/decisions/0006). */
  compactLog(opts?: CompactLogOptions): Promise<CompactLogReport> {
    return this.gc.compactLog(opts);
  }

  /**
   * Checks every invariant the catalog keeps against what is stored (src/commit/verify.ts): log and newest
   * checkpoint read whole, the index against one rebuilt from the store, with `files` every file. Changes nothing.
   */
  async verify(opts?: VerifyOptions): Promise<VerifyReport> {
    this.assertOpen();
    const files = flag('files', options('verify()', opts, ['files']).files);
    const { sync, log, store, dataPath } = this.parts;
    return verifyCatalog(sync, log, store, dataPath, { files }, (named) => this.plane.deletePositionViolations(named));
  }

  /** Closes open readers, stops running statements (CANCELLED) and closes the index. Acknowledged commits are durable. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.background.stopFollowing();
    // Readers release their leases through the log, so they close while the catalog is still open; a
    // release that fails leaves the lease to expire.
    await Promise.all([...this.readers].map((r) => r.close().catch(() => undefined)));
    this.closed = true;
    await this.plane.close(); // first: a statement running in DuckDB, in a transaction or not, is stopped
    await Promise.allSettled([...this.transactions, this.warming]);
    await this.parts.sync.exclusive(async () => undefined);
    // Last: any write that was still under way (a tag, a lease) may have started one.
    await this.background.settled();
    await this.parts.sync.kv.close();
    this.parts.closeStore();
  }

  /** Runs `fn` over a view of the newest local state. */
  private view<T>(fn: (view: ReadView) => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.parts.sync.view(fn);
  }

  private assertWritable(): void {
    this.assertOpen();
    if (this.parts.readOnly) throw new StrataError('READ_ONLY', 'this catalog was opened with readOnly: true; open it without readOnly to write');
  }

  private assertOpen(): void {
    if (this.closed) throw new StrataError('INVALID_ARGUMENT', 'this catalog is closed; open it again with Catalog.open');
  }
}
