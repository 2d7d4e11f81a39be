// Which checkpoint a new one is written after, and what it then holds (decision 0059): the keys the log
// entries since that checkpoint wrote, with their values at the new one's sequence (none: deleted). The
// index changes only by entries' mutations, so those keys are every key whose value can differ; a key a
// fenced writer's entry names, which was never applied, reads as it is.
import type { KvSeq } from '../../keys/ids.js';
import { isStrataError } from '../errors.js';
import { type Key, keyId } from '../../keys/key-codec.js';
import { isIndexBookkeeping } from '../../keys/system.js';
import type { ReadView } from '../kv/read-view.js';
import type { CheckpointPair } from '../log/checkpoint.js';
import type { CommitLog } from '../log/commit-log.js';

/** Checkpoints in a stack at most, the whole one included: a read of the newest merges that many. */
const MAX_STACK = 8;
/**
 * Checkpoints over a whole one hold together at most this share of its keys: past it the next is whole, so
 * the checkpoint bytes a stack keeps are under 1.5 times a whole one.
 */
const MAX_SHARE = 0.5;
/** A whole checkpoint of fewer keys costs little to write again; none is written after it. */
const MIN_WHOLE_KEYS = 4096;
/** Keys read per getMany when the changed keys' values are gathered. */
const VALUES_PER_READ = 1024;

export interface Changes {
  /** The checkpoint the new one is read over. */
  after: KvSeq;
  /** The keys whose values may differ from it, in key order. */
  keys: Key[];
}

/**
 * What a checkpoint of `view` holds if written after the newest complete checkpoint below it; undefined
 * when it is to be whole: there is none, the whole one under it is small, the changes are past their share,
 * an entry since deleted keys, the log since it was compacted, the checkpoint is of another history than
 * the log's, or anything read on the way is damaged (a whole checkpoint, written from the index, needs none
 * of it: it is how a damaged checkpoint or entry stops mattering).
 */
export async function changesSince(log: CommitLog, view: ReadView): Promise<Changes | undefined> {
  try {
    return await changes(log, view);
  } catch (e) {
    if (isStrataError(e, 'CORRUPT')) return undefined;
    throw e;
  }
}

async function changes(log: CommitLog, view: ReadView): Promise<Changes | undefined> {
  const newest = await log.checkpoints.newestFirst(async (seq) => seq < view.seq).next();
  if (newest.done) return undefined;
  // The log's entry there must be the one the checkpoint was taken at: a log rewritten since (a relaxed
  // writer's crash lost its tail) goes on from another state. A stub keeps no txn: compaction wrote it into
  // a checkpoint of this log.
  const itsEntry = await log.read(newest.value.seq);
  if (newest.value.txn === '' || itsEntry === undefined || (itsEntry.kind !== 'stub' && itsEntry.txn !== newest.value.txn)) return undefined;
  const stack = await log.checkpoints.stack(newest.value);
  const whole = stack[0]!;
  if (whole.keys < MIN_WHOLE_KEYS) return undefined;
  // Key ids, not the keys: a key decoded from an entry or a chunk is a view that holds all of its bytes.
  const changed = new Set<string>();
  // A full stack starts again over its whole checkpoint, with every change since it: the keys the ones over
  // it hold (read from them, not from the log, which may be compacted since), and the entries' since.
  const full = stack.length >= MAX_STACK;
  const after = full ? whole : newest.value;
  const budget = whole.keys * MAX_SHARE - (full ? 0 : stack.slice(1).reduce((n, m) => n + m.keys, 0));
  if (full) {
    for (const m of stack.slice(1)) for await (const chunk of log.checkpoints.chunks(m)) for (const [k] of chunk) changed.add(keyId(k));
    if (changed.size > budget) return undefined;
  }
  for await (const entry of log.readAfter(newest.value.seq)) {
    if (entry.seq > view.seq) break;
    if (entry.kind === 'stub') return undefined;
    for (const m of entry.mutations) {
      // An entry that deletes keys (excision, reclamation, a dropped tag or lease) makes the next checkpoint
      // whole: one written over an older one would keep that one, and what was deleted with it, from pruning.
      if (m.type === 'del') return undefined;
      if (!isIndexBookkeeping(m.key)) changed.add(keyId(m.key));
    }
    if (changed.size > budget) return undefined;
  }
  // keyId is one character per byte, so its order is the keys' byte order.
  return { after: after.seq, keys: [...changed].sort().map((id) => Uint8Array.from(Buffer.from(id, 'latin1'))) };
}

/** The keys with their values in `view` (null: it holds none), in batches. */
export async function* valuesIn(view: ReadView, keys: readonly Key[]): AsyncGenerator<CheckpointPair[]> {
  for (let i = 0; i < keys.length; i += VALUES_PER_READ) {
    const batch = keys.slice(i, i + VALUES_PER_READ);
    const values = await view.getMany(batch);
    yield batch.map((k, j) => [k, values[j] ?? null]);
  }
}
