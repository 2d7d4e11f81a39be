// One open catalog below its facade: the local index kept an exact prefix of the log (index-sync.ts), the
// transactions run on it and committed in groups (group-commit.ts, committer.ts), the system entries of tags
// and GC (snapshot-tags.ts, maintenance.ts), checkpoints and following (background.ts), and the readers
// opened at a snapshot. The facade (src/catalog/catalog.ts) checks a caller's arguments and delegates here;
// the SQL layer reads and commits through it (CommitLayer), and the DuckLake import builds its
// catalog on one. An engine owns one local index and one store, and nothing else in the process touches
// either.
import { kvSeq, type SnapshotId } from '../../keys/ids.js';
import { StrataError } from '../errors.js';
import type { ReadView } from '../kv/read-view.js';
import * as q from '../read/catalog-queries.js';
import type { SnapshotReads } from '../read/read-state.js';
import { Reader } from '../read/reader.js';
import { resolveSnapshot, type SnapshotSelector } from '../read/resolve-snapshot.js';
import type { ObjectStore } from '../store/object-store.js';
import { checkCommitMeta, type CommitMeta } from '../txn/plan.js';
import { StaleRead } from '../txn/conflicts.js';
import { type Commits, prepare, type Prepared, type TransactionFn } from '../txn/prepared.js';
import type { TxnContext, TxnSql } from '../txn/transaction.js';
import { Background, type CheckpointResult } from './background.js';
import { Committer } from './committer.js';
import { GroupCommit } from './group-commit.js';
import { IdBlocks } from './id-blocks.js';
import { Maintenance } from './maintenance.js';
import { type EngineOptions, type Opened, openCatalog } from './open.js';
import { SnapshotTags } from './snapshot-tags.js';
import { FollowStatus } from './status.js';
import { type FileChecks, verifyCatalog, type VerifyReport } from './verify.js';

/**
 * What the layer above (the SQL plane) stands on: reads at a snapshot and commits, the store and its data
 * path, and the local directory (the cache of fetched files, DuckDB's scratch).
 */
export interface CommitLayer extends SnapshotReads, Commits {
  readonly store: ObjectStore;
  readonly dataPath: string;
  readonly dir: string;
}

/** What else runs on the catalog (the SQL layer's statements): stopped at close, before transactions are waited for. */
export interface Closable {
  close(): Promise<void>;
}

/** What a call on a closed catalog is told. */
export const closedCatalog = () => new StrataError('INVALID_ARGUMENT', 'this catalog is closed; open it again with Catalog.open');

/** Entries written without asking the store first, after which a transaction asks anyway (decision 0057). */
const ASK_EVERY = 8;

export class CommitEngine implements CommitLayer {
  readonly status = new FollowStatus();
  readonly background: Background;
  /** The GC entry points: retain-from, leases, excision, reclamation, checkpoint pruning, log compaction. */
  readonly gc: Maintenance;
  readonly tags: SnapshotTags;
  private readonly committer: Committer;
  private readonly ids: IdBlocks;
  private readonly commits: GroupCommit;
  private readonly readers = new Set<Reader>();
  /** Transactions under way, from their function to their commit: close() lets them finish. */
  private readonly transactions = new Set<Promise<unknown>>();
  private closed = false;

  private constructor(readonly parts: Opened) {
    const { sync, log, clock, limits } = parts;
    this.background = new Background(sync, log, this.status, clock, limits.checkpointEvery);
    this.committer = new Committer(sync, log, this.status, this.background, { maxCommitAttempts: limits.maxCommitAttempts });
    this.ids = new IdBlocks(this.committer);
    this.commits = new GroupCommit(this.committer, clock, this.ids.inHand, () => this.transactions.size);
    this.gc = new Maintenance({
      ...parts,
      committer: this.committer,
      background: this.background,
      status: this.status,
      assert: (write) => (write ? this.writable() : this.assertOpen()),
    });
    this.tags = new SnapshotTags(this.committer, limits, clock, () => this.writable());
  }

  static async open(opts: EngineOptions): Promise<CommitEngine> {
    const engine = new CommitEngine(await openCatalog(opts));
    engine.parts.sync.kv.readTimelineLater();
    try {
      if (opts.exclusiveWriter === true) {
        if (engine.parts.readOnly) throw new StrataError('INVALID_ARGUMENT', 'exclusiveWriter and readOnly exclude each other');
        await engine.committer.claimWriterEpoch(engine.parts.writerName, engine.parts.clock);
      }
      if (opts.followIntervalMs !== undefined) engine.background.follow(opts.followIntervalMs);
    } catch (e) {
      await engine.close();
      throw e;
    }
    return engine;
  }

  get store(): ObjectStore {
    return this.parts.store;
  }

  /** Key prefix of data files in the store, e.g. `data/`. */
  get dataPath(): string {
    return this.parts.dataPath;
  }

  /** The local directory (index, file cache). */
  get dir(): string {
    return this.parts.dir;
  }

  /**
   * Runs `fn` against the newest committed state and commits what it did as one snapshot (see
   * Catalog.transaction); `sql` is what its tx.sql, its views and its registered files are read with.
   */
  async transaction(fn: TransactionFn, meta: CommitMeta | undefined, sql: TxnSql): Promise<{ snapshot: SnapshotId | null }> {
    this.writable();
    if (typeof fn !== 'function') throw new StrataError('INVALID_ARGUMENT', 'transaction() takes a function (tx) => …');
    const checked = checkCommitMeta(meta);
    const { sync, clock, store, dataPath } = this.parts;
    const ctx = { sql, ids: this.ids, maxPathBytes: store.maxKeyBytes - Buffer.byteLength(dataPath) };
    const running = (async () => {
      // On segments the store is asked first, so the function reads every commit made before it began; not
      // while a group is being written (its write learns what is new), nor by the epoch's holder (decision
      // 0016). On a log kept as objects, where asking is a round trip, it is not (decision 0057) — but while
      // other writers are at work, and once ASK_EVERY entries were written since the log last said where it
      // ends, so that a writer that lost a race gets in: a writer asking nothing commits a round trip after
      // its last, before a loser has read the entry it lost to.
      if (!sync.probesAreRequests || this.committer.exclusive || this.committer.contended() || sync.entriesSinceAsked >= ASK_EVERY) {
        if (!this.commits.busy && !this.committer.exclusive) await sync.refresh();
        return this.committed(await sync.view((view) => prepare(view, fn, checked, clock(), ctx, true)));
      }
      let ranAt = kvSeq(0);
      let prepared: Prepared;
      try {
        prepared = await sync.view((view) => {
          ranAt = view.seq;
          return prepare(view, fn, checked, clock(), ctx, false);
        });
      } catch (e) {
        // A store that cannot be asked leaves the failure as it was.
        let asked = true;
        await sync.refresh(() => (asked = false));
        if (!asked || this.committer.foreignAfter(ranAt)?.length === 0) throw e;
        return this.againOnTheNewerState(fn, checked, ctx);
      }
      try {
        return await this.committed(prepared);
      } catch (e) {
        // What it read, another writer changed; any other conflict is DuckLake's, and the caller's to handle.
        if (!(e instanceof StaleRead)) throw e;
        // The commits it met may not be all there are: the store is asked, as a run that asks first does.
        await sync.refresh();
        return this.againOnTheNewerState(fn, checked, ctx);
      }
    })();
    this.transactions.add(running);
    try {
      return await running;
    } finally {
      this.transactions.delete(running);
    }
  }

  /**
   * The outcome of a prepared transaction. One that has nothing to write on the state it ran on, when it did
   * not ask first and read or did something there (a restore to where that state already was), has no race
   * to tell it that state was old: the store is asked now, and what other writers committed since is met as
   * a lost race meets it.
   */
  private async committed(prepared: Prepared): Promise<{ snapshot: SnapshotId | null }> {
    if (prepared.plan?.mutations.length === 0) {
      if (prepared.askedFirst || (prepared.state.reads.empty && prepared.state.ops.length === 0)) return { snapshot: null };
      await this.parts.sync.refresh();
      if (this.committer.foreignAfter(prepared.seq)?.length === 0) return { snapshot: null };
    }
    return this.commits.commit(prepared);
  }

  /**
   * A transaction whose function ran on a state other writers had moved past, and failed there or read what
   * their commits changed, runs once more on the newer state, which the caller has just asked the store for,
   * as a process that asks first runs it (decision 0057); its outcome is the caller's, whatever it is.
   */
  private againOnTheNewerState(fn: TransactionFn, meta: CommitMeta, ctx: TxnContext): Promise<{ snapshot: SnapshotId | null }> {
    const { sync, clock } = this.parts;
    return sync.view((view) => prepare(view, fn, meta, clock(), ctx, true)).then((p) => this.committed(p));
  }

  /**
   * A reader pinned to the snapshot `selector` names (none: the newest), as the store has it now: retain-from,
   * tags and the newest snapshot are asked of the store first. With `lease`, it also holds a durable pin.
   */
  async reader(selector: SnapshotSelector = {}, lease?: { ttlMs: number; holder: string | undefined }): Promise<Reader> {
    this.assertOpen();
    if (lease) this.writable();
    const { sync, limits, writerName } = this.parts;
    await sync.refresh((e) => this.status.failed(e));
    const view = await sync.kv.readView();
    try {
      const { id, row } = await resolveSnapshot(view, selector, { previousWalkLimit: limits.previousWalkLimit });
      const pin = lease && (await this.gc.takeLease(id, lease.holder ?? writerName, lease.ttlMs));
      const reader = new Reader(view, await q.snapshotInfo(view, id, row), (r) => this.readers.delete(r), pin);
      this.readers.add(reader);
      return reader;
    } catch (e) {
      await view.close();
      throw e;
    }
  }

  /** Runs `fn` over a view of the newest local state. */
  view<T>(fn: (view: ReadView) => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.parts.sync.view(fn);
  }

  /** A view of the newest local state, for a reading that outlives one call (a stream); the caller closes it. */
  readView(): Promise<ReadView> {
    this.assertOpen();
    return this.parts.sync.kv.readView();
  }

  /** Applies entries that other writers committed to the shared store since this process last looked. */
  async refresh(): Promise<void> {
    this.assertOpen();
    await this.parts.sync.refresh();
  }

  /** Writes a checkpoint of the newest state to the store. */
  async checkpoint(): Promise<CheckpointResult> {
    this.writable();
    const { sync } = this.parts;
    return sync.exclusive(async () => {
      await sync.catchUp();
      return sync.view((view) => this.background.checkpointNow(view, sync.kv.latestAppliedTxn));
    });
  }

  /** Checks every invariant the catalog keeps against what is stored (verify.ts); with `files`, every file through `checks`. */
  verify(files: boolean, checks: FileChecks): Promise<VerifyReport> {
    this.assertOpen();
    const { sync, log, store, dataPath } = this.parts;
    return verifyCatalog(sync, log, store, dataPath, { files }, checks);
  }

  /** Throws READ_ONLY unless this catalog may write (and INVALID_ARGUMENT once it is closed). */
  writable(): void {
    this.assertOpen();
    if (this.parts.readOnly) throw new StrataError('READ_ONLY', 'this catalog was opened with readOnly: true; open it without readOnly to write');
  }

  assertOpen(): void {
    if (this.closed) throw closedCatalog();
  }

  /**
   * Closes open readers, then `statements` (what runs on the catalog above it), waits for transactions under
   * way and closes the index. Acknowledged commits are durable.
   */
  async close(statements?: Closable): Promise<void> {
    if (this.closed) return;
    this.background.stopFollowing();
    // Readers release their leases through the log, so they close while the catalog is still open; a
    // release that fails leaves the lease to expire.
    await Promise.all([...this.readers].map((r) => r.close().catch(() => undefined)));
    this.closed = true;
    await statements?.close(); // first: a statement running in DuckDB, in a transaction or not, is stopped
    await Promise.allSettled(this.transactions);
    await this.parts.sync.exclusive(async () => undefined);
    // Last: any write that was still under way (a tag, a lease) may have started one.
    await this.background.settled();
    await this.parts.sync.kv.close();
    this.parts.closeStore();
  }
}
