// Re-runs a transaction's recorded operations on a newer state: how a commit that lost the race for its log
// entry is rebased. The operations allocate fresh catalog ids, file ids and row ids as they run; file ids
// the caller got back from the first run and passed to later operations are mapped to the new ones.
import type { FileId, SnapshotId } from '../../keys/ids.js';
import { StrataError } from '../errors.js';
import type { RecordedOp } from './pending.js';
import type { DeleteFileSpec, Transaction } from './transaction.js';

export async function replay(tx: Transaction, ops: readonly RecordedOp[]): Promise<void> {
  const fileIds = new Map<unknown, FileId>();
  const remap = (id: unknown) => fileIds.get(id) ?? id;
  for (const op of ops) {
    let args = op.args;
    if (op.name === 'removeDataFile') args = [args[0], args[1], remap(args[2])];
    if (op.name === 'addDeleteFile') {
      const spec = args[2] as DeleteFileSpec;
      args = [args[0], args[1], { ...spec, dataFileId: remap(spec.dataFileId) }];
    }
    const result = await (tx[op.name] as (...a: unknown[]) => Promise<unknown>).apply(tx, args);
    if (op.name === 'addDataFile' || op.name === 'addDeleteFile') fileIds.set(op.result, result as FileId);
  }
}

/** Codes that mean "the newer state no longer allows this operation": on a replay, that is a conflict. */
const STATE_ERRORS = new Set(['NOT_FOUND', 'ALREADY_EXISTS', 'DEPENDENT_OBJECTS', 'INVALID_ARGUMENT', 'SNAPSHOT_NOT_FOUND']);

/**
 * Replays `ops` on a transaction built on `head`; an operation the commits in (base, head] made impossible
 * (its table is gone, its name is taken, …) is a CONFLICT naming them.
 */
export async function replayOrConflict(tx: Transaction, ops: readonly RecordedOp[], base: SnapshotId, head: SnapshotId): Promise<void> {
  try {
    await replay(tx, ops);
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
