// One log entry = one object in the store = one atomic batch in the index. An entry carries the physical
// key/value mutations it makes, so replay is a plain batch: idempotent given the applied-sequence check, and
// independent of the code version that planned it.
import { FrameError, frame, isRecord, unframe } from '../../keys/framing.js';
import { type KvSeq, kvSeq, type SnapshotId } from '../../keys/ids.js';
import type { Mutation } from '../../keys/mutation.js';
import { StrataError } from '../errors.js';

export type EntryKind =
  /** Creates the catalog: snapshot 0, schema `main`, the catalog's identity. */
  | 'init'
  /**
   * Catalog transactions: one new snapshot each (none for one that only set options). Transactions that
   * commit at once in one process share an entry (group commit), so an entry may create several.
   */
  | 'commit'
  /** Bookkeeping that creates no snapshot: tags, writer epochs, retain-from, leases, excision. */
  | 'system'
  /**
   * What log compaction leaves of an entry a checkpoint covers: no mutations, only the taken slot
   * (docs/decisions/0006). An index that meets one is older than what the log still holds, and starts again
   * from the newest checkpoint. (Stored as "compacted", its name before data-file compaction existed.)
   */
  | 'stub';

export interface LogEntry {
  seq: KvSeq;
  kind: EntryKind;
  /** The writer epoch the entry was written under (0: no exclusive writer). Replay skips stale epochs. */
  epoch: number;
  /** The catalog snapshots this entry creates, ascending; none for system entries. */
  snapshots: readonly SnapshotId[];
  /**
   * Unique per written entry: a writer whose create of the entry had no clear answer (timeout, dropped
   * response) reads the entry back and knows by this whether it is its own.
   */
  txn: string;
  mutations: Mutation[];
}

type WireKind = Exclude<EntryKind, 'stub'> | 'compacted';

interface WireEntry {
  seq: number;
  kind: WireKind;
  epoch?: number;
  /** The one snapshot the entry creates, or null; `snapshots` instead when there are several. */
  snapshot: number | null;
  snapshots?: number[];
  txn?: string;
  /** [key, value] for a put, [key, null] for a delete. */
  mutations: [Uint8Array, Uint8Array | null][];
}

export function encodeEntry(entry: LogEntry): Uint8Array {
  const wire: WireEntry = {
    seq: entry.seq,
    kind: entry.kind === 'stub' ? 'compacted' : entry.kind,
    ...(entry.epoch === 0 ? {} : { epoch: entry.epoch }),
    ...(entry.snapshots.length > 1 ? { snapshot: null, snapshots: [...entry.snapshots] } : { snapshot: entry.snapshots[0] ?? null }),
    txn: entry.txn,
    mutations: entry.mutations.map((m) => [m.key, m.type === 'put' ? m.value : null]),
  };
  return frame(wire);
}

export function decodeEntry(objectKey: string, bytes: Uint8Array): LogEntry {
  const corrupt = (why: string) =>
    new StrataError('CORRUPT', `log object ${objectKey} cannot be read: ${why}. The store's log is damaged; restore it from a backup.`);
  let wire: WireEntry;
  try {
    const decoded = unframe(bytes);
    if (!isRecord(decoded)) throw new FrameError('not a record');
    wire = decoded as unknown as WireEntry;
  } catch (e) {
    if (e instanceof FrameError) throw corrupt(e.message);
    throw e;
  }
  if (typeof wire.seq !== 'number' || !Array.isArray(wire.mutations)) throw corrupt('missing fields');
  return {
    seq: kvSeq(wire.seq),
    kind: wire.kind === 'compacted' ? 'stub' : wire.kind,
    epoch: wire.epoch ?? 0,
    snapshots: (wire.snapshots ?? (wire.snapshot === null ? [] : [wire.snapshot])) as SnapshotId[],
    txn: wire.txn ?? '',
    mutations: wire.mutations.map(([key, value]) =>
      value === null ? { type: 'del', key } : { type: 'put', key, value },
    ),
  };
}
