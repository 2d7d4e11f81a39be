// Keeps the local index an exact prefix of the commit log. Two names for it, and only two: `catchUp` applies
// what the log has past the index (for a caller already holding the writer lock), `refresh` waits for the
// index to hold everything the log has (taking the lock only when there is something to apply). The writer
// lock is here because applying and committing both advance the index's applied sequence and must not
// interleave.
import { type KvSeq, kvSeq } from '../../keys/ids.js';
import { decodeWriterEpoch, type WriterEpochRow, WRITER_EPOCH_KEY } from '../../keys/system.js';
import { LocalIndexError, StrataError } from '../errors.js';
import type { KvStore } from '../kv/kv-store.js';
import type { ReadView } from '../kv/read-view.js';
import type { CheckpointManifest } from '../log/checkpoint.js';
import type { CommitLog } from '../log/commit-log.js';
import type { LogEntry } from '../log/log-entry.js';
import { Mutex } from './mutex.js';

/** The writer epoch a state records (fencing: entries written under an older one are not applied). */
export async function writerEpoch(from: Pick<ReadView, 'get'>): Promise<WriterEpochRow> {
  return decodeWriterEpoch(await from.get(WRITER_EPOCH_KEY));
}

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
  async catchUp(): Promise<void> {
    for (;;) {
      let stubbed: KvSeq | undefined;
      for await (const entry of this.log.readAfter(this.kv.latestApplied)) {
        if (entry.kind === 'stub') {
          stubbed = entry.seq;
          break;
        }
        await this.apply(entry);
      }
      if (stubbed === undefined) return;
      const checkpoint = await this.newestCheckpoint();
      if (checkpoint === undefined || checkpoint.seq < stubbed) {
        throw new StrataError(
          'CORRUPT',
          `log entry ${stubbed} was compacted, and the newest checkpoint in ${this.log.description} ` +
            `(${checkpoint?.seq ?? 'none'}) does not cover it; the store has lost a checkpoint it needs`,
        );
      }
      await this.kv.rebuild(checkpoint.seq, this.log.checkpoints.read(checkpoint));
    }
  }

  /**
   * Waits until the index holds every entry the log has. The common case, nothing new, is one probe of the
   * log. With `unreachable`, a store that cannot be reached is handed to it and the index stays as it is
   * (reads go on with the local state; GC's grace period covers the gap); an index that cannot be written
   * is thrown even so, since it may lack commits this process acknowledged.
   */
  async refresh(unreachable?: (e: unknown) => void): Promise<void> {
    try {
      if ((await this.log.head(this.kv.latestApplied)) === this.kv.latestApplied) return;
      await this.exclusive(() => this.catchUp());
    } catch (e) {
      if (unreachable === undefined || e instanceof LocalIndexError) throw e;
      unreachable(e);
    }
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
    const fenced = entry.epoch < (await writerEpoch(this.kv)).epoch;
    await this.kv.apply(entry.seq, entry.txn, fenced ? [] : entry.mutations);
  }

  /** A new index starts from the newest checkpoint, then replays only the log after it. */
  async bootstrap(): Promise<void> {
    const checkpoint = await this.newestCheckpoint();
    if (checkpoint !== undefined) await this.kv.restore(checkpoint.seq, this.log.checkpoints.read(checkpoint));
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
    if (entry !== undefined && (entry.kind === 'stub' || txn === '' || entry.txn === txn)) return;
    const checkpoint = await this.newestCheckpoint();
    await this.kv.rebuild(checkpoint?.seq ?? kvSeq(0), checkpoint === undefined ? noChunks() : this.log.checkpoints.read(checkpoint));
  }

  /** The newest complete checkpoint whose entry the log holds: one ahead of the log would put an index ahead of it. */
  private newestCheckpoint(): Promise<CheckpointManifest | undefined> {
    return this.log.checkpoints.newest(async (seq) => (await this.log.read(seq)) !== undefined);
  }
}

async function* noChunks(): AsyncGenerator<[Uint8Array, Uint8Array][]> {}
