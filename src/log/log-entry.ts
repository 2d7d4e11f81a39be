// One log entry = one atomic batch in the index. An entry carries the physical key/value mutations it makes,
// so replay is a plain batch: idempotent given the applied-sequence check, and independent of the code
// version that planned it. On the wire an entry is a checksummed frame (keys/framing.ts, format 2) that names
// its own sequence number and its predecessor's `txn`, so a damaged entry, an entry stored under another
// number, and an entry that does not follow the one before it (written into a gap, or a log put together
// from two histories) are all told apart from a good one.
import { checkedFrameEndingIn, FrameError, isRecord, unframe } from '../../keys/framing.js';
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
   * What log compaction leaves of an entry a checkpoint covers: no mutations, only the taken slot and its
   * place in the chain (docs/decisions/0006). An index that meets one is older than what the log still
   * holds, and starts again from the newest checkpoint. (Stored as "compacted", its name before data-file
   * compaction existed.)
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
  /**
   * The `txn` of entry `seq - 1`, as the writer applied it ('' for entry 1, for entries written before
   * entries named their predecessor, and after an index restored from such a checkpoint): replay refuses an
   * entry that does not follow the one it applied before.
   */
  prev: string;
  mutations: Mutation[];
}

type WireKind = Exclude<EntryKind, 'stub'> | 'compacted';
const WIRE_KINDS: ReadonlySet<string> = new Set<WireKind>(['init', 'commit', 'system', 'compacted']);

interface WireEntry {
  seq: number;
  kind: WireKind;
  epoch?: number;
  /** The one snapshot the entry creates, or null; `snapshots` instead when there are several. */
  snapshot: number | null;
  snapshots?: number[];
  txn?: string;
  prev?: string;
  /** [key, value] for a put, [key, null] for a delete. */
  mutations: [Uint8Array, Uint8Array | null][];
}

export function encodeEntry(entry: LogEntry): Uint8Array {
  const head: Omit<WireEntry, 'mutations'> = {
    seq: entry.seq,
    kind: entry.kind === 'stub' ? 'compacted' : entry.kind,
    ...(entry.epoch === 0 ? {} : { epoch: entry.epoch }),
    ...(entry.snapshots.length > 1 ? { snapshot: null, snapshots: [...entry.snapshots] } : { snapshot: entry.snapshots[0] ?? null }),
    txn: entry.txn,
    ...(entry.prev === '' ? {} : { prev: entry.prev }),
  };
  return checkedFrameEndingIn(head, 'mutations', entry.mutations.map((m) => [m.key, m.type === 'put' ? m.value : null]));
}

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
const isBytes = (b: unknown): b is Uint8Array => b instanceof Uint8Array;

/** What makes a decoded payload an entry; each failure says which field, so the message names the damage. */
function wireProblem(w: Record<string, unknown>): string | undefined {
  if (!isCount(w.seq)) return 'no sequence number';
  if (typeof w.kind !== 'string' || !WIRE_KINDS.has(w.kind)) return `unknown kind ${JSON.stringify(w.kind)}`;
  if (w.epoch !== undefined && !isCount(w.epoch)) return 'a bad epoch';
  if (w.snapshot !== null && !isCount(w.snapshot)) return 'a bad snapshot';
  if (w.snapshots !== undefined && (!Array.isArray(w.snapshots) || !w.snapshots.every(isCount))) return 'bad snapshots';
  if (w.txn !== undefined && typeof w.txn !== 'string') return 'a bad txn';
  if (w.prev !== undefined && typeof w.prev !== 'string') return 'a bad predecessor';
  if (!Array.isArray(w.mutations)) return 'no mutations';
  for (const m of w.mutations as unknown[]) {
    if (!Array.isArray(m) || m.length !== 2 || !isBytes(m[0]) || m[0].length === 0 || !(m[1] === null || isBytes(m[1]))) return 'a malformed mutation';
  }
  return undefined;
}

/**
 * The entry in `bytes`, stored where `where` says (a log object's key, or a segment and offset); CORRUPT
 * naming that place (and what to do) if the bytes are not a whole entry.
 */
export function decodeEntry(where: string, bytes: Uint8Array): LogEntry {
  const corrupt = (why: string) =>
    new StrataError(
      'CORRUPT',
      `${where} cannot be read: ${why}. The store's log is damaged: restore it from a backup ` +
        '(strata verify lists what else is damaged)',
    );
  let decoded: unknown;
  try {
    decoded = unframe(bytes);
  } catch (e) {
    if (e instanceof FrameError) throw corrupt(e.message);
    throw e;
  }
  if (!isRecord(decoded)) throw corrupt('not an entry');
  const problem = wireProblem(decoded);
  if (problem !== undefined) throw corrupt(problem);
  const wire = decoded as unknown as WireEntry;
  return {
    seq: kvSeq(wire.seq),
    kind: wire.kind === 'compacted' ? 'stub' : wire.kind,
    epoch: wire.epoch ?? 0,
    snapshots: (wire.snapshots ?? (wire.snapshot === null ? [] : [wire.snapshot])) as SnapshotId[],
    txn: wire.txn ?? '',
    prev: wire.prev ?? '',
    mutations: wire.mutations.map(([key, value]) => (value === null ? { type: 'del', key } : { type: 'put', key, value })),
  };
}
