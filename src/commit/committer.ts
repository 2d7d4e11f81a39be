// The commit loop and the commit point. Every write — catalog commits and system entries (tags, writer
// epochs, leases, retain-from, excision batches, unscheduling) — is an attempt built on the newest local
// state and written as log entry `view.seq + 1`; another writer owning that entry is a lost race, after which
// the writer tries in its turn (decision 0060). Fencing is checked here, once, for all of them.
import { type KvSeq, kvSeq, type SnapshotId } from '../../keys/ids.js';
import type { Mutation } from '../../keys/mutation.js';
import { putWriterEpoch } from '../../keys/system.js';
import { StrataError } from '../errors.js';
import type { ReadView } from '../kv/read-view.js';
import type { AppendOptions, CommitLog } from '../log/commit-log.js';
import type { LogEntry } from '../log/log-entry.js';
import type { IndexSync } from './index-sync.js';
import type { Background } from './background.js';
import type { FollowStatus } from './status.js';
import { randomUUID } from '../random.js';

/** How long after this process last met another writer (an entry, or a writer waiting) it counts as contended. */
const CONTENDED_MS = 10_000;

/** Where a commit lost the race: the log entry another writer created first. */
export interface LostRace {
  lostAt: KvSeq;
}

export interface CommitterOptions {
  /** How many times one write is tried before it fails with CONFLICT. */
  maxCommitAttempts: number;
}

export class Committer {
  /** This process's writer epoch: 0 unless it opened with exclusiveWriter. */
  private epoch = 0;

  constructor(
    private readonly sync: IndexSync,
    private readonly log: CommitLog,
    private readonly status: FollowStatus,
    private readonly background: Background,
    private readonly opts: CommitterOptions,
  ) {
    // An index batch lands after its commit returned (kv/unlanded.ts): its failure is reported here.
    sync.kv.onWriteFailure((e) => status.failed(e));
  }

  /**
   * Runs `attempt` as this process's only writer over the newest local state, up to maxCommitAttempts tries.
   * The first try does not ask the store what is new: a stale state loses the race for its entry, which
   * costs what the question would have. A writer that lost, and every writer while others are at work,
   * tries in its turn (decision 0060): the writers waiting go in the order they began to wait, each
   * catching up on what the others write meanwhile, and a writer that lost within its turn (to one that
   * had not seen it wait) tries again at once.
   */
  loop<T>(attempt: (view: ReadView) => Promise<{ value: T } | LostRace>): Promise<T> {
    return this.sync.exclusive(async () => {
      let tries = 0;
      /** Counts a lost try: past maxCommitAttempts, CONFLICT. */
      const lost = async (out: LostRace): Promise<void> => {
        if (++tries >= this.opts.maxCommitAttempts) throw await this.gaveUp(out.lostAt, tries);
      };
      if (!this.contended()) {
        const out = await this.sync.view(attempt);
        if ('value' in out) return out.value;
        await lost(out);
      }
      return this.log.turn(
        async () => {
          for (;;) {
            await this.sync.catchUp();
            const out = await this.sync.view(attempt);
            if ('value' in out) return out.value;
            await lost(out);
          }
        },
        () => this.sync.catchUp(),
      );
    });
  }

  /**
   * The commit point: log entry `view.seq + 1` is created in the store, then applied to the index. Returns
   * undefined when it was, or where the race was lost when another writer owns that entry. A writer whose
   * epoch was superseded writes nothing.
   */
  async append(
    view: ReadView,
    body: Pick<LogEntry, 'kind' | 'snapshots' | 'mutations'>,
    { epoch = this.epoch, ...appending }: { epoch?: number } & AppendOptions = {},
  ): Promise<LostRace | undefined> {
    // The writer lock is held, so the view is of the newest applied entry: the one this entry follows.
    const current = await this.sync.writerEpoch();
    if (current.epoch > epoch) {
      throw new StrataError(
        'FENCED',
        `this writer (epoch ${epoch}) was superseded by ${current.holder} (epoch ${current.epoch}) at ` +
          `${new Date(current.since).toISOString()}; nothing was written — reopen the catalog to write again`,
      );
    }
    const seq = kvSeq(view.seq + 1);
    const entry: LogEntry = { seq, epoch, txn: randomUUID(), prev: this.sync.kv.latestAppliedTxn, ...body };
    // A writer that holds the epoch knows the log's end; any other may not (decision 0057).
    if (!(await this.log.appendOwn(entry, { ...appending, mayFillGap: this.epoch === 0, othersMayWait: this.epoch === 0 }))) return { lostAt: seq };
    try {
      await this.sync.apply(entry);
    } catch (e) {
      // The entry is in the store, so the commit happened whatever the index says: failing the commit would
      // invite a retry that commits it twice. The index is behind the log now; reads catch it up first, and
      // fail while it cannot be written rather than show a state without this commit.
      this.status.failed(e);
      return undefined;
    }
    // Still the writer: an automatic checkpoint due here is of exactly this entry, whatever commits next.
    await this.background.appended(seq, entry.mutations.length);
    return undefined;
  }

  /**
   * Writes a system entry (one that changes no catalog snapshot): `build` sees the newest state and returns
   * the entry's mutations and a result, or throws to write nothing; no mutations = nothing written. A lost
   * race builds again on the newer state.
   */
  writeSystem<T>(build: (view: ReadView) => Promise<{ mutations: Mutation[]; value: T }>): Promise<T> {
    return this.loop(async (view) => {
      const { mutations, value } = await build(view);
      if (mutations.length === 0) return { value };
      const lost = await this.append(view, { kind: 'system', snapshots: [], mutations });
      return lost ?? { value };
    });
  }

  /**
   * Whether other writers are at work: this process met another's entry or saw one waiting for its turn
   * within CONTENDED_MS. Its transactions then ask the store first and commit in their turn.
   */
  contended(): boolean {
    return this.sync.sawOtherWriterWithin(CONTENDED_MS) || this.log.sawWaiterWithin(CONTENDED_MS);
  }

  /**
   * Whether this process holds the newest writer epoch (it opened with exclusiveWriter): its local state is
   * then the newest there is, but for an entry that fences it, which its next append finds.
   */
  get exclusive(): boolean {
    return this.epoch > 0;
  }

  /** The snapshots of other writers' entries applied after `seq` (IndexSync.foreignAfter). */
  foreignAfter(seq: KvSeq): SnapshotId[] | undefined {
    return this.sync.foreignAfter(seq);
  }

  /** Whether an entry applied after `seq` changed the catalog's state (not just claimed ids). */
  changedSince(seq: KvSeq): boolean {
    return this.sync.kv.changedSince(seq);
  }

  /** Takes the next writer epoch: from now on, writers holding an older one (or none) are FENCED. */
  async claimWriterEpoch(holder: string, now: () => number): Promise<void> {
    this.epoch = await this.loop(async (view) => {
      const epoch = (await this.sync.writerEpoch()).epoch + 1;
      const mutations = [putWriterEpoch({ epoch, holder, since: now() })];
      const lost = await this.append(view, { kind: 'system', snapshots: [], mutations }, { epoch });
      return lost ?? { value: epoch };
    });
  }

  private async gaveUp(seq: KvSeq, attempts: number): Promise<StrataError> {
    const other = await this.log.read(seq);
    const newest = other?.snapshots.at(-1);
    // An entry not there is one this writer let another, waiting for its turn, write first (decision 0060).
    const what = other === undefined ? `a writer waiting for its turn, let in first at log entry ${seq}` : newest === undefined ? `log entry ${seq}` : `snapshot ${newest} (log entry ${seq})`;
    return new StrataError(
      'CONFLICT',
      `other writers committed first ${attempts} times in a row (the last: ${what}); nothing was written — ` +
        'run the transaction again, or open the catalog with a higher maxCommitAttempts',
      newest === undefined ? {} : { snapshot: newest },
    );
  }
}
