// A transaction between its function and its log entry. The function runs once, on the newest state the
// process has; the commit may land on a later state (other writers won the race, or earlier transactions of
// the same group commit go first), where the recorded operations are checked against what came in between
// and replayed (docs/decisions/0003, 0004).
import { type CatalogId, type KvSeq, type SnapshotId, snapshotId } from '../../keys/ids.js';
import { StrataError } from '../errors.js';
import type { SnapshotRow } from '../../keys/snapshots.js';
import type { ReadView } from '../kv/read-view.js';
import * as q from '../read/catalog-queries.js';
import { verifyReadSources } from '../read/history.js';
import { findConflict, ownFootprint, readConflict } from './conflicts.js';
import { type CommitMeta, dataChanges, type Plan, planCommit } from './plan.js';
import { carriedOver, carriedPast, filesOnly } from './carry-over.js';
import { type IdSource, ReplayedIds } from './ids.js';
import { replayOrConflict } from './replay.js';
import type { PendingState } from './pending.js';
import { Transaction, type TxnContext, type TxnSql } from './transaction.js';

// The return value is ignored, so a one-liner like `(tx) => tx.createSchema('s')` needs no wrapping.
export type TransactionFn = (tx: Transaction) => unknown;

/** What runs and commits transactions (the commit layer's CommitEngine), as the layers above it see it. */
export interface Commits {
  /**
   * Runs `fn` on the newest state and commits what it did as one snapshot (null: nothing changed). `sql`
   * is what the transaction's tx.sql, its views and its registered files are read with.
   */
  transaction(fn: TransactionFn, meta: CommitMeta | undefined, sql: TxnSql): Promise<{ snapshot: SnapshotId | null }>;
  /** Throws unless the catalog is open and may write: checked before anything is put in the store. */
  writable(): void;
}

export interface Prepared {
  /** The state the function ran on: the log entry and the snapshot it ends with. */
  seq: KvSeq;
  base: SnapshotId;
  state: PendingState;
  /**
   * Its plan on that state; undefined when it was left to be made where the transaction lands (see
   * prepare), and then no more than its data changes are known before.
   */
  plan: Plan | undefined;
  meta: CommitMeta;
  /** What its function ran with: a replay runs with it again. */
  ctx: TxnContext;
  /**
   * Whether its process asked the store what was new before the function ran (decision 0016). One that did
   * not ran it on the process's own newest state, which other writers' commits may have passed: wherever it
   * lands past such commits, they are checked against what the function read (staleReads, decision 0057).
   */
  askedFirst: boolean;
}

/**
 * Runs `fn` on `view` (the function's only run) and plans its commit there — unless it adds or removes
 * files and does nothing else (one that only read returns at once), and names no `basedOn`: then it is planned
 * once, where it lands (decision 0004). Every member of a group commit but the first lands on a state its
 * function did not run on, and was planned twice, the first plan thrown away.
 */
export async function prepare(view: ReadView, fn: TransactionFn, meta: CommitMeta, time: number, ctx: TxnContext, askedFirst: boolean): Promise<Prepared> {
  const head = await q.headSnapshot(view);
  const state = await sealedRun(view, head, meta.basedOn === undefined ? ctx : { ...ctx, basedOn: snapshotId(meta.basedOn) }, fn);
  if (meta.basedOn === undefined && state.ops.length > 0 && filesOnly(state) !== undefined) return { seq: view.seq, base: head.begin, state, plan: undefined, meta, ctx, askedFirst };
  const plan = await planOn(view, head, state, meta, time);
  if (meta.basedOn !== undefined) {
    if (meta.basedOn > head.begin) throw new StrataError('INVALID_ARGUMENT', `basedOn ${meta.basedOn} is past the newest snapshot, ${head.begin}`);
    const found = await findConflict(view, snapshotId(meta.basedOn), head.begin, ownFootprint(state, plan.snapshot?.changes ?? []));
    if (found) throw found;
  }
  return { seq: view.seq, base: head.begin, state, plan, meta, ctx, askedFirst };
}

/**
 * The conflict of a prepared transaction whose process did not ask the store first with the commits of other
 * writers it landed past (`foreign`: their snapshots, undefined when this process no longer knows which they
 * were, and every commit since its base counts): one that changed what its function read. Undefined when
 * there is none, or the process asked first (then it follows DuckLake's rules alone, decision 0016).
 */
export async function staleReads(view: ReadView, p: Prepared, foreign: readonly SnapshotId[] | undefined): Promise<StrataError | undefined> {
  if (p.askedFirst || p.state.reads.empty) return undefined;
  return readConflict(view, p.state.reads, foreign ?? snapshotsAfter(p.base, (await q.headSnapshot(view)).begin));
}

function* snapshotsAfter(base: SnapshotId, head: SnapshotId): Generator<SnapshotId> {
  for (let s = base + 1; s <= head; s++) yield snapshotId(s);
}

/**
 * The plan of a prepared transaction on `view`: its own plan if `view` is the state it ran on (made now if
 * it was left for later), else its state carried over when the snapshots in between left what it read
 * alone, or (after DuckLake's conflict checks against those snapshots) the replay of its operations there.
 * A conflict throws CONFLICT naming them. A replay takes new ids from `ids`.
 */
export async function rebase(view: ReadView, p: Prepared, isOwnState: boolean, time: number, ids: IdSource): Promise<Plan> {
  if (isOwnState && p.plan !== undefined) return p.plan;
  const head = await q.headSnapshot(view);
  if (isOwnState) return planOn(view, head, p.state, p.meta, time);
  // A state is carried over only when the snapshots since its base changed nothing but other tables'
  // files, and no rule of findConflict's can fire on those: checking them too was a third of a group
  // member's rebase (docs/decisions/0004).
  const carried = await carriedOver(view, p.state, head);
  if (carried) return planOn(view, head, carried, p.meta, time);
  // A state planned later only adds and removes files (prepare): its data changes are all its changes.
  const changes = p.plan === undefined ? dataChanges(p.state, p.meta) : (p.plan.snapshot?.changes ?? []);
  const found = await findConflict(view, p.base, head.begin, ownFootprint(p.state, changes));
  if (found) throw found;
  const replayed = new ReplayedIds(ids);
  const state = await sealedRun(view, head, { ...p.ctx, ids: replayed }, (tx) => replayOrConflict(tx, p.state.ops, replayed, p.base, head.begin));
  return planOn(view, head, state, p.meta, time);
}

/**
 * Transactions planned one after another on one view, each as if the ones before it had landed: the last
 * one's snapshot and every table their states touched. Group commit plans its members so while it can (see plan), without laying their puts over the view
 * (docs/decisions/0004).
 */
export class PlannedPast {
  private head: q.Version<SnapshotRow>;
  private readonly tables = new Set<CatalogId>();

  private constructor(head: q.Version<SnapshotRow>) {
    this.head = head;
  }

  /** Nothing planned yet on `view`: the next plan follows its newest snapshot. */
  static async on(view: ReadView): Promise<PlannedPast> {
    return new PlannedPast(await q.headSnapshot(view));
  }

  /**
   * The plan of `p`, whose function ran on `view`'s state, on `view` past the transactions planned before
   * it; undefined when it cannot be made there, and must be rebased on their puts instead. It can when `p`
   * only adds and removes files and shares no table with them: then everything its plan reads (its tables'
   * rows and stats) reads the same on `view`, and its state is carried past them without reading their
   * changes back (carriedPast). Object paths they share do not meet: each file's path is a key of its own,
   * written blind (decision 0067).
   */
  async plan(view: ReadView, p: Prepared, time: number): Promise<Plan | undefined> {
    // A transaction planned where it ran is not a file-only one (or was worked out at an older snapshot).
    if (p.plan !== undefined) return undefined;
    const carried = carriedPast(p.state, this.head, this.tables);
    if (carried === undefined) return undefined;
    const plan = await planOn(view, this.head, carried.state, p.meta, time);
    if (plan.snapshot !== null) {
      this.head = { begin: plan.snapshot.id, row: plan.snapshot.row };
      for (const t of carried.tables) this.tables.add(t);
    }
    return plan;
  }
}

/**
 * Runs `body` on a transaction built on `head` and returns its sealed state; the tx is sealed even if
 * `body` throws, and then `body`'s error is the one that counts.
 */
async function sealedRun(view: ReadView, head: q.Version<SnapshotRow>, ctx: TxnContext, body: TransactionFn): Promise<PendingState> {
  const tx = new Transaction(view, head.begin, head.row, ctx);
  try {
    await body(tx);
  } catch (e) {
    await tx.seal().catch(() => undefined);
    throw e;
  }
  return tx.seal();
}

async function planOn(view: ReadView, head: q.Version<SnapshotRow>, state: PendingState, meta: CommitMeta, time: number): Promise<Plan> {
  await verifyReadSources(view, meta.readSources ?? []);
  return planCommit(view, state, head.row, meta, time);
}
