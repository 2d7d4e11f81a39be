// Re-runs a transaction's recorded operations on a newer state: how a commit that lost the race for its log
// entry is rebased. Each operation reserves again the ids it reserved on the first run (ReplayedIds), so the
// ids the caller was given — and passed to later operations — are the ids committed. Row ids are assigned
// afresh: they are the table's, and the caller never sees them before the commit.
import type { SnapshotId } from '../../keys/ids.js';
import { StrataError } from '../errors.js';
import type { ReplayedIds } from './ids.js';
import type { RecordedOp } from './pending.js';
import type { Transaction } from './transaction.js';

export async function replay(tx: Transaction, ops: readonly RecordedOp[], ids: ReplayedIds): Promise<void> {
  for (const op of ops) {
    ids.replaying(op.ids);
    await (tx[op.name] as (...a: unknown[]) => Promise<unknown>).apply(tx, op.args);
  }
}

/** Codes that mean "the newer state no longer allows this operation": on a replay, that is a conflict. */
const STATE_ERRORS = new Set(['NOT_FOUND', 'ALREADY_EXISTS', 'DEPENDENT_OBJECTS', 'INVALID_ARGUMENT', 'SNAPSHOT_NOT_FOUND']);

/**
 * Replays `ops` on a transaction built on `head`; an operation the commits in (base, head] made impossible
 * (its table is gone, its name is taken, …) is a CONFLICT naming them.
 */
export async function replayOrConflict(tx: Transaction, ops: readonly RecordedOp[], ids: ReplayedIds, base: SnapshotId, head: SnapshotId): Promise<void> {
  try {
    await replay(tx, ops, ids);
  } catch (e) {
    if (!(e instanceof StrataError) || !STATE_ERRORS.has(e.code)) throw e;
    const others = head === base + 1 ? `snapshot ${head}` : `snapshots ${base + 1}–${head}`;
    throw new StrataError(
      'CONFLICT',
      `other transactions committed ${others} while this one was being prepared, and on the new state this ` +
        `transaction fails: ${e.message}; nothing was written — read the new state and run the transaction again`,
      { snapshot: head, cause: e },
    );
  }
}
