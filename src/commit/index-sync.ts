// Keeps the local index an exact prefix of the commit log. Two names for it, and only two: `catchUp` applies
// what the log has past the index (for a caller already holding the writer lock), `refresh` waits for the
// index to hold everything the log has (taking the lock only when there is something to apply). The writer
// lock is here because applying and committing both advance the index's applied sequence and must not
// interleave.
import { setImmediate as yieldTurn } from 'node:timers/promises';
import { type KvSeq, kvSeq, type SnapshotId } from '../../keys/ids.js';
import { decodeWriterEpoch, touchesWriterEpoch, type WriterEpochRow, WRITER_EPOCH_KEY } from '../../keys/system.js';
import { isStrataError, LocalIndexError, StrataError } from '../errors.js';
import type { KvStore } from '../kv/kv-store.js';
import type { ReadView } from '../kv/read-view.js';
import type { CheckpointManifest } from '../log/checkpoint.js';
import type { CommitLog } from '../log/commit-log.js';
import type { LogEntry } from '../log/log-entry.js';
import { Mutex } from './mutex.js';
import { LastSeen } from '../last-seen.js';

/** Other writers' entries whose snapshots are kept for foreignAfter (a transaction running past more checks every commit since its base). */
const FOREIGN_KEPT = 4096;

export class IndexSync {
  private readonly writer = new Mutex();

  constructor(
    readonly kv: KvStore,
    private readonly log: CommitLog,
  ) {}

  /** Runs `fn` as this process's only writer of the index. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.writer.run(fn);
  }

  /**
   * Applies the log entries the index does not have yet; replay is idempotent. An index that meets a stub
   * (log compaction) is older than the log the store still holds: it is rebuilt from the newest checkpoint
   * (which covers that entry: compaction only stubs entries a checkpoint holds), and replay goes on after it.
   * The caller holds the writer lock.
   */
  async catchUp(opts: { thorough?: boolean } = {}): Promise<void> {
    for (;;) {
      let stubbed: KvSeq | undefined;
      for await (const entry of this.log.readAfter(this.kv.latestApplied, opts)) {
        if (entry.kind === 'stub') {
          stubbed = entry.seq;
          break;
        }
        await this.apply(entry);
        this.applied(entry);
        // What open reads (thoroughly) was written while this process was away, not by a writer beside it.
        if (opts.thorough !== true) this.otherWriterSeen.now();
      }
      if (stubbed === undefined) {
        this.askedAt = this.kv.latestApplied;
        return;
      }
      // The entries a checkpoint brings are not listed one by one: which were other writers' is not known.
      this.foreignKnownAfter = kvSeq(Math.max(this.foreignKnownAfter, stubbed));
      this.foreign.length = 0;
      if (!(await this.fromCheckpoint('rebuild', stubbed))) {
        throw new StrataError(
          'CORRUPT',
          `log entry ${stubbed} was compacted, and no checkpoint in ${this.log.description} that covers it can be read; ` +
            'the store has lost a checkpoint it needs: restore it from a backup (strata verify lists what is damaged)',
        );
      }
    }
  }

  /**
   * The snapshots of the entries other writers appended after entry `seq` that this process has applied, in
   * order; undefined when it no longer knows which those were (more than FOREIGN_KEPT came since, or an index
   * rebuilt from a checkpoint). What a transaction that did not ask the store first checks its reads against.
   */
  foreignAfter(seq: KvSeq): SnapshotId[] | undefined {
    if (seq < this.foreignKnownAfter) return undefined;
    let from = this.foreign.length;
    while (from > 0 && this.foreign[from - 1]!.seq > seq) from--;
    return this.foreign.slice(from).flatMap((e) => e.snapshots);
  }

  /** Whether this process applied an entry of another writer (not at open) within the last `ms`. */
  sawOtherWriterWithin(ms: number): boolean {
    return this.otherWriterSeen.within(ms);
  }

  private readonly otherWriterSeen = new LastSeen();

  /** Entries applied by catching up (this process applies its own as it appends them): other writers'. */
  private readonly foreign: { seq: KvSeq; snapshots: readonly SnapshotId[] }[] = [];
  private foreignKnownAfter: KvSeq = kvSeq(0);

  private applied(entry: LogEntry): void {
    if (entry.snapshots.length === 0) return;
    this.foreign.push({ seq: entry.seq, snapshots: entry.snapshots });
    if (this.foreign.length > FOREIGN_KEPT) this.foreignKnownAfter = this.foreign.shift()!.seq;
  }

  /** Whether a probe of the log is a request of the store (a log kept as objects), not a local read (segments). */
  get probesAreRequests(): boolean {
    return this.log.layout === 'objects';
  }

  /**
   * Waits until the index holds every entry the log has. The common case, nothing new, is one probe of the
   * log. With `unreachable`, a store that cannot be reached is handed to it and the index stays as it is
   * (reads go on with the local state; GC's grace period covers the gap); an index that cannot be written
   * is thrown even so, since it may lack commits this process acknowledged.
   */
  async refresh(unreachable?: (e: unknown) => void): Promise<void> {
    try {
      await this.sharedProbe();
    } catch (e) {
      if (unreachable === undefined || e instanceof LocalIndexError) throw e;
      unreachable(e);
    }
  }

  /**
   * One probe for every caller that arrives while one is under way: they share the next, which starts
   * after the one under way ends — after each of them asked, so none gets an answer older than its
   * question. On a log kept as objects, where a probe is store requests (on S3, billed round trips), it
   * starts a turn of the event loop after it is first asked for, so that callers woken together (the
   * members of a group commit, each beginning its next transaction) share it: eight callers committing in a
   * loop make one probe per group, not two. On segments a probe is one local read, cheaper than the turn
   * (a reader opened per query: 12 against 16 µs), so it starts at once.
   */
  private sharedProbe(): Promise<void> {
    this.nextProbe ??= this.probeAfter(this.probing);
    return this.nextProbe;
  }

  private async probeAfter(previous: Promise<void> | undefined): Promise<void> {
    await previous?.catch(() => undefined);
    if (this.probesAreRequests) await yieldTurn();
    // Started: whoever asks from here on waits for the probe after this one.
    const probing = this.probe();
    this.nextProbe = undefined;
    this.probing = probing;
    try {
      await probing;
    } finally {
      if (this.probing === probing) this.probing = undefined;
    }
  }

  /** The probe under way, and the one that starts after it (which every caller until then shares). */
  private probing: Promise<void> | undefined;
  private nextProbe: Promise<void> | undefined;

  private async probe(): Promise<void> {
    const asked = this.kv.latestApplied;
    if ((await this.log.head(asked)) !== asked) await this.exclusive(() => this.catchUp());
    this.askedAt = Math.max(this.askedAt, asked);
  }

  /** The newest entry the index had when the log last answered that nothing came after it (a probe, a catch-up). */
  private askedAt = 0;

  /** How many entries this process has applied since the log last said what its end was. */
  get entriesSinceAsked(): number {
    return this.kv.latestApplied - this.askedAt;
  }

  /** Runs `fn` over a view of the index as it is (no refresh), and closes the view after, whatever happens. */
  async view<T>(fn: (view: ReadView) => Promise<T>): Promise<T> {
    const view = await this.kv.readView();
    try {
      return await fn(view);
    } finally {
      await view.close();
    }
  }

  /**
   * Applies one entry. An entry written under a writer epoch older than the index's current one comes from
   * a fenced writer: its sequence number is consumed, its mutations are not applied.
   */
  async apply(entry: LogEntry): Promise<void> {
    const applied = this.kv.latestAppliedTxn;
    // Each entry names the one it follows: one that does not follow what this index applied was written into
    // a gap or comes from another history, and applying it would serve a catalog no writer made.
    if (entry.prev !== '' && applied !== '' && entry.prev !== applied) {
      throw new StrataError(
        'CORRUPT',
        `log entry ${entry.seq} in ${this.log.description} follows an entry ${entry.seq - 1} (txn ${entry.prev}) other than the one this ` +
          `index applied (txn ${applied}): an entry was replaced or written into a gap; restore the log from a backup ` +
          '(strata verify lists what is damaged)',
      );
    }
    const current = await this.writerEpoch();
    const mutations = entry.epoch < current.epoch ? [] : entry.mutations;
    await this.kv.apply(entry.seq, entry.txn, mutations);
    if (!touchesWriterEpoch(mutations)) this.epochAt = { seq: entry.seq, txn: entry.txn, row: current };
  }

  /**
   * The writer epoch of the index as applied (fencing: entries written under an older one are not applied,
   * and a writer holding one writes nothing). Fencing asks for it twice per commit (the writer's check and
   * the apply's), and only an entry that writes it changes it, so it is kept for the entry it was read or
   * carried at — named by number and txn, which a restore or rebuild to another history does not share.
   * The caller holds the writer lock.
   */
  async writerEpoch(): Promise<WriterEpochRow> {
    const { latestApplied: seq, latestAppliedTxn: txn } = this.kv;
    const at = this.epochAt;
    if (at !== undefined && at.seq === seq && at.txn === txn) return at.row;
    const row = decodeWriterEpoch(await this.kv.get(WRITER_EPOCH_KEY));
    this.epochAt = { seq, txn, row };
    return row;
  }

  private epochAt: { seq: KvSeq; txn: string; row: WriterEpochRow } | undefined;

  /**
   * A new index starts from the newest checkpoint that can be read (an older one when the newest is damaged),
   * then replays only the log after it; with none, from the log's start.
   */
  async bootstrap(): Promise<void> {
    await this.fromCheckpoint('restore', kvSeq(0));
  }

  /**
   * An index holds a prefix of its store's log. One whose newest applied entry the store does not hold, or
   * holds as another entry (another `txn`), was built from history the store no longer has: the store was
   * put back from an older copy, or a machine crash in relaxed mode lost the entry's name but not the index's
   * write. Serving it would show commits that do not exist, and its next commit would leave a gap in the log
   * that no reader could pass; so it is rebuilt, from the newest checkpoint the log reaches or else from
   * entry 1.
   */
  async rebuildIfAheadOfLog(): Promise<void> {
    const seq = this.kv.latestApplied;
    if (seq === 0) return;
    const entry = await this.log.read(seq);
    const txn = this.kv.latestAppliedTxn;
    // A stub still names an entry the log had; an index that never recorded a txn can only be checked by number.
    if (entry !== undefined && (txn === '' || entry.txn === txn)) return;
    if (!(await this.fromCheckpoint('rebuild', kvSeq(0)))) await this.kv.rebuild(kvSeq(0), '', noChunks());
  }

  /**
   * Fills the index from the newest checkpoint at or past `atLeast` that can be read: one that turns out
   * damaged is skipped for the next older. Only checkpoints whose entry the log holds count: one ahead of the
   * log would put an index ahead of it. False when none would do.
   */
  private async fromCheckpoint(how: 'restore' | 'rebuild', atLeast: KvSeq): Promise<boolean> {
    const usable = async (seq: KvSeq) => seq >= atLeast && (await this.log.read(seq)) !== undefined;
    const candidates = this.log.checkpoints.newestFirst(usable);
    for (;;) {
      let m: CheckpointManifest;
      try {
        const next = await candidates.next();
        if (next.done) return false;
        m = next.value;
        await this.kv[how](m.seq, m.txn, this.log.checkpoints.read(m));
        return true;
      } catch (e) {
        // A damaged checkpoint (manifest or chunk) is passed over; anything else (the index cannot be written,
        // the store cannot be reached) is not the checkpoint's fault.
        if (!isStrataError(e, 'CORRUPT') || e instanceof LocalIndexError) throw e;
      }
    }
  }
}

async function* noChunks(): AsyncGenerator<[Uint8Array, Uint8Array][]> {}
