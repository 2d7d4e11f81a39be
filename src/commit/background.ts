// Work a catalog does on its own, off the callers' paths: automatic checkpoints every `checkpointEvery`
// entries, or sooner after CHECKPOINT_EVERY_WRITES keys written (then pruning the checkpoints they supersede),
// and following other writers' commits on a timer.
// Failures are kept in the FollowStatus, never thrown at a caller whose commit already stands.
import type { KvSeq } from '../../keys/ids.js';
import { checkPruneOptions, planCheckpointPrune, type PruneCheckpointsOptions, type PruneCheckpointsReport } from '../../gc/checkpoints.js';
import { StrataError } from '../errors.js';
import type { ReadView } from '../kv/read-view.js';
import type { CommitLog } from '../log/commit-log.js';
import { changesSince, valuesIn } from './checkpoint-changes.js';
import type { IndexSync } from './index-sync.js';
import type { FollowStatus } from './status.js';

export interface CheckpointResult {
  seq: KvSeq;
  chunks: number;
  keys: number;
  /** The checkpoint this one holds the changes since (decision 0059); null: it holds the whole keyspace. */
  after: KvSeq | null;
}

/**
 * Keys this process's entries may write before a checkpoint is due however few the entries: a catalog of
 * few large commits (a table of 1M files added 10,000 a commit: 138 entries, some 4M keys) got none, and a
 * machine without its index replayed the whole log (12.7 s). A million keys replay in a few seconds.
 */
export const CHECKPOINT_EVERY_WRITES = 1_000_000;

export class Background {
  /** Keys this process's entries wrote since the view of its last checkpoint (automatic or not) was taken. */
  private writesSince = 0;
  /** The automatic checkpoints being written, if any; close() waits for them. */
  private checkpointing: Promise<void> | undefined;
  /** A checkpoint came due while one was being written: the newest state is written when it ends. */
  private owed = false;
  /** close() has begun: no owed checkpoint starts. */
  private stopping = false;
  private follower: NodeJS.Timeout | undefined;

  constructor(
    private readonly sync: IndexSync,
    private readonly log: CommitLog,
    private readonly status: FollowStatus,
    private readonly clock: () => number,
    /** Write a checkpoint after every this many log entries (0: never). */
    private readonly checkpointEvery: number,
  ) {}

  /**
   * After this process appended entry `seq`, of `writes` keys (and while it still holds the writer lock). A
   * checkpoint due while one is being written is owed, not skipped: under a fast writer, skipping left the
   * newest checkpoint 13,000 entries behind.
   */
  async appended(seq: KvSeq, writes: number): Promise<void> {
    if (this.checkpointEvery === 0) return;
    this.writesSince += writes;
    if (seq % this.checkpointEvery !== 0 && this.writesSince < CHECKPOINT_EVERY_WRITES) return;
    if (this.checkpointing !== undefined) {
      this.owed = true;
      return;
    }
    this.writesSince = 0;
    this.checkpointInBackground(await this.sync.kv.readView(), this.sync.kv.latestAppliedTxn);
  }

  /** catalog.checkpoint(), of `view` (the writer lock held): the keys written before it are in it. */
  checkpointNow(view: ReadView, txn: string): Promise<CheckpointResult> {
    this.writesSince = 0;
    return this.checkpointAt(view, txn);
  }

  /**
   * Writes an automatic checkpoint of `view` (and closes it) without holding up commits: on a large
   * catalog a checkpoint takes seconds (bench: ~10 s for 1.5M keys). Then prunes the checkpoints it
   * supersedes, with pruneCheckpoints' defaults, as Delta cleans up when it checkpoints. Then, if one came due meanwhile, the same for the newest state. The commit it follows is
   * durable already, so a failure is only reported.
   */
  private checkpointInBackground(view: ReadView, txn: string): void {
    this.checkpointing = (async () => {
      for (let next: [ReadView, string] | undefined = [view, txn]; next !== undefined; ) {
        const [at, itsTxn] = next;
        try {
          await this.checkpointAt(at, itsTxn);
          await this.prune(checkPruneOptions({}));
        } catch (e) {
          this.status.failed(e);
        } finally {
          await at.close().catch(() => undefined);
        }
        next = this.owed && !this.stopping ? await this.newest() : undefined;
      }
      // In the same step as the last look at `owed`: a checkpoint due from here on starts its own.
      this.checkpointing = undefined;
    })();
  }

  /**
   * The newest applied state and its entry's txn, read together under the writer lock, for an owed
   * checkpoint; undefined once close() has begun, or when the index cannot give a view (reported).
   */
  private async newest(): Promise<[ReadView, string] | undefined> {
    this.owed = false;
    try {
      return await this.sync.exclusive(async () => {
        if (this.stopping) return undefined;
        this.writesSince = 0;
        return [await this.sync.kv.readView(), this.sync.kv.latestAppliedTxn];
      });
    } catch (e) {
      this.status.failed(e);
      return undefined;
    }
  }

  /**
   * A checkpoint of exactly the state `view` shows, whose newest entry is `txn`: what changed since the newest
   * checkpoint below it where that is small, else the whole keyspace.
   */
  async checkpointAt(view: ReadView, txn: string): Promise<CheckpointResult> {
    // One there already (an earlier call, another process) is the same state: it is not written again.
    const there = await this.log.checkpoints.newestFirst(async (seq) => seq === view.seq).next();
    if (!there.done) return { seq: there.value.seq, chunks: there.value.chunks, keys: there.value.keys, after: there.value.after };
    const changes = await changesSince(this.log, view);
    const entries = changes === undefined ? this.sync.kv.checkpointEntries(view) : valuesIn(view, changes.keys);
    const m = await this.log.checkpoints.write(view.seq, txn, entries, this.clock(), changes?.after ?? null);
    return { seq: m.seq, chunks: m.chunks, keys: m.keys, after: m.after };
  }

  /** Deletes the checkpoints newer ones have superseded (gc/checkpoints.ts decides which). */
  async prune(opts: Required<PruneCheckpointsOptions>): Promise<PruneCheckpointsReport> {
    const stored = await this.log.checkpoints.list();
    const doomed = planCheckpointPrune(stored, this.clock(), opts);
    const gone = new Set(doomed.map((c) => c.seq));
    const report = {
      dryRun: opts.dryRun,
      kept: stored.filter((c) => c.complete && !gone.has(c.seq)).map((c) => c.seq),
      deleted: doomed.map((c) => c.seq),
      objects: doomed.reduce((n, c) => n + c.keys.length, 0),
    };
    if (!opts.dryRun) for (const c of doomed) await this.log.checkpoints.delete(c);
    return report;
  }

  /** Refreshes the index every `intervalMs`; a failure is kept in the status and retried at the next tick. */
  follow(intervalMs: number): void {
    if (!Number.isFinite(intervalMs) || intervalMs < 1) {
      throw new StrataError('INVALID_ARGUMENT', `followIntervalMs must be a positive number of ms, got ${JSON.stringify(intervalMs)}`);
    }
    let running = false;
    this.follower = setInterval(() => {
      if (running) return;
      running = true;
      this.sync
        .refresh()
        .then(
          () => this.status.refreshed(new Date(this.clock())),
          (e: unknown) => this.status.failed(e),
        )
        .finally(() => (running = false));
    }, intervalMs);
    // Following must not keep a process alive on its own.
    this.follower.unref();
  }

  stopFollowing(): void {
    clearInterval(this.follower);
  }

  /** Waits for an automatic checkpoint under way; one owed is not started. */
  async settled(): Promise<void> {
    this.stopping = true;
    await this.checkpointing;
  }
}
