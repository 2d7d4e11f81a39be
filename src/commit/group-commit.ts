// Group commit: the transactions of one process that are ready while a log write is in flight go into the
// next log entry together, so they share one create-if-absent (and, on the directory store, its two syncs).
// Each keeps its own snapshot. Their functions ran concurrently on the state they found, so the group is
// ordered as they arrived and each later member is checked and replayed on the state the earlier ones
// leave (an OverlayView), exactly as a transaction that lost the race to another writer is: the group
// adds no rule of its own (docs/decisions/0004-group-commit.md).
import { setImmediate as yieldTurn } from 'node:timers/promises';
import type { SnapshotId } from '../../keys/ids.js';
import { append, type Mutation } from '../../keys/mutation.js';
import { OverlayView } from '../kv/overlay-view.js';
import type { ReadView } from '../kv/read-view.js';
import type { IdSource } from '../txn/ids.js';
import { PlannedPast, type Prepared, rebase, staleReads } from '../txn/prepared.js';
import type { Committer, LostRace } from './committer.js';

/** Transactions per entry at most: bounds an entry's size and the work one lost race throws away. */
const MAX_GROUP = 64;

/** Turns of the event loop a group waits for transactions under way to join it (see lead). */
const JOIN_TURNS = 4;

export type CommitResult = { snapshot: SnapshotId | null };

interface Member {
  prepared: Prepared;
  resolve: (r: CommitResult) => void;
  reject: (e: unknown) => void;
}

type Outcome = { member: Member } & ({ result: CommitResult } | { error: unknown });

export class GroupCommit {
  private readonly queue: Member[] = [];
  private leading = false;

  constructor(
    private readonly committer: Committer,
    private readonly clock: () => number,
    /** Where a rebase takes new ids: it runs under the writer lock, so from the blocks in hand. */
    private readonly inHand: IdSource,
    /** How many transactions of this process are under way (from their function to their commit). */
    private readonly underWay: () => number,
  ) {}

  /** Whether a group is being written: its outcome will show this process anything newer in the store. */
  get busy(): boolean {
    return this.leading;
  }

  commit(prepared: Prepared): Promise<CommitResult> {
    const done = new Promise<CommitResult>((resolve, reject) => this.queue.push({ prepared, resolve, reject }));
    if (!this.leading) void this.lead();
    return done;
  }

  /**
   * Commits what is queued, a group at a time; what arrives during one group's write joins the next. Before
   * a group is taken, transactions still running their functions get a few turns of the event loop to join
   * it: without them, callers committing in a loop fall into a convoy — the first to come back from a
   * group leads the next one alone while the rest are still preparing (8 callers wrote groups of 1 and 7 in
   * turn: 2 syncs per 8 commits).
   */
  private async lead(): Promise<void> {
    this.leading = true;
    try {
      while (this.queue.length > 0) {
        for (let turn = 0; turn < JOIN_TURNS && this.queue.length < Math.min(MAX_GROUP, this.underWay()); turn++) await yieldTurn();
        await this.commitGroup(this.queue.splice(0, MAX_GROUP));
      }
    } finally {
      this.leading = false;
    }
  }

  private async commitGroup(members: Member[]): Promise<void> {
    let outcomes: Outcome[];
    try {
      outcomes = await this.committer.loop((root) => this.attempt(root, members));
    } catch (e) {
      // The entry itself failed (fenced, store unavailable, too many lost races): nothing of the group landed.
      for (const m of members) m.reject(e);
      return;
    }
    for (const o of outcomes) {
      if ('result' in o) o.member.resolve(o.result);
      else o.member.reject(o.error);
    }
  }

  /**
   * Plans every member on the state the ones before it leave and writes them as one entry. A member that
   * conflicts fails alone, but only once the entry lands: after a lost race everything is planned again on
   * the newer state, where the answer may differ.
   *
   * Members whose functions ran on `root`'s state are planned on `root` itself while they touch no table
   * and no path the ones before them touched (PlannedPast): a plan made there is the one the state the
   * earlier members leave would give, made without laying their puts over the index or reading their
   * changes back. From the first member that cannot be, every member is rebased on an overlay of the ones
   * before it, as a transaction that lost the race to another writer is.
   */
  private async attempt(root: ReadView, members: readonly Member[]): Promise<{ value: Outcome[] } | LostRace> {
    const past = await PlannedPast.on(root);
    let view: ReadView | undefined;
    const outcomes: Outcome[] = [];
    const snapshots: SnapshotId[] = [];
    const mutations: Mutation[] = [];
    for (const [i, member] of members.entries()) {
      let plan;
      try {
        const stale = await staleReads(root, member.prepared, this.committer.foreignAfter(member.prepared.seq));
        if (stale) throw stale;
        // Entries that only claimed ids (this transaction's own claims, most often) leave its state as it was.
        const onRoot = !this.committer.changedSince(member.prepared.seq);
        if (view === undefined && onRoot) plan = await past.plan(root, member.prepared, this.clock());
        if (plan === undefined) {
          view ??= mutations.length === 0 ? root : OverlayView.over(root, mutations);
          plan = await rebase(view, member.prepared, view === root && onRoot, this.clock(), this.inHand);
        }
      } catch (error) {
        outcomes.push({ member, error });
        continue;
      }
      outcomes.push({ member, result: { snapshot: plan.snapshot?.id ?? null } });
      if (plan.mutations.length === 0) continue;
      if (plan.snapshot) snapshots.push(plan.snapshot.id);
      append(mutations, plan.mutations);
      // The state this member leaves, for the members after it (the last has none).
      if (view !== undefined && i < members.length - 1) view = OverlayView.over(view, plan.mutations);
    }
    if (mutations.length > 0) {
      // Transactions beyond this group's run their functions while its entry is synced: the next group.
      const lost = await this.committer.append(root, { kind: 'commit', snapshots, mutations }, { overlap: this.underWay() > members.length });
      if (lost) return lost;
    }
    return { value: outcomes };
  }
}
