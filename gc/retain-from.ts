// Retain-from: the horizon below which untagged snapshots are out of retention. Advancing it deletes no
// bytes (excision does); it never moves backwards, never past the newest snapshot, and never past the
// snapshot of an unexpired lease.
import { type SnapshotId, snapshotId } from '../keys/ids.js';
import type { Mutation } from '../keys/mutation.js';
import { putRetainFrom } from '../keys/retention.js';
import { options } from '../src/arguments.js';
import { StrataError } from '../src/errors.js';
import type { ReadView } from '../src/kv/read-view.js';
import * as q from '../src/read/catalog-queries.js';
import { parseInstant } from '../src/snapshot-names.js';

/** `{ snapshot }` moves retain-from to that id; `{ olderThan }` retires the snapshots committed before a time. */
export type AdvanceTarget = { snapshot: number } | { olderThan: number | Date | string };

export interface AdvanceResult {
  retainFrom: SnapshotId;
  /** Set when an unexpired lease held retain-from below the target. */
  clampedBy?: { lease: string; holder: string; snapshot: SnapshotId; expiresAt: Date };
}

async function wanted(view: ReadView, given: AdvanceTarget, current: SnapshotId, head: SnapshotId): Promise<SnapshotId> {
  if (given === undefined) throw new StrataError('INVALID_ARGUMENT', 'advanceRetainFrom() needs { snapshot } or { olderThan }: where retain-from moves to');
  const target = options('advanceRetainFrom()', given as { snapshot?: number; olderThan?: number | Date | string }, ['snapshot', 'olderThan']);
  if ('snapshot' in target && 'olderThan' in target) throw new StrataError('INVALID_ARGUMENT', 'advanceRetainFrom() takes { snapshot } or { olderThan }, not both');
  if ('snapshot' in target) {
    const n = target.snapshot;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
      throw new StrataError('INVALID_ARGUMENT', `snapshot must be a snapshot id (an integer >= 0), got ${JSON.stringify(n)}`);
    }
    if (n < current) {
      throw new StrataError(
        'INVALID_ARGUMENT',
        `retain-from is already ${current} and never moves backwards; ${n} is below it (history below ${current} may be excised already)`,
        { snapshot: n },
      );
    }
    if (n > head) {
      throw new StrataError('INVALID_ARGUMENT', `snapshot ${n} is past the newest snapshot (${head}); retain-from can reach ${head} at most`, {
        snapshot: n,
      });
    }
    return snapshotId(n);
  }
  if ('olderThan' in target) {
    const time = parseInstant('olderThan', target.olderThan);
    // The first snapshot committed at or after `time` is the oldest to keep; the newest always stays.
    const older = time === 0 ? undefined : await q.snapshotAtOrBefore(view, time - 1);
    const first = older === undefined ? snapshotId(0) : snapshotId(older + 1);
    return snapshotId(Math.max(current, Math.min(first, head)));
  }
  throw new StrataError('INVALID_ARGUMENT', 'advanceRetainFrom takes { snapshot } or { olderThan }');
}

/** What advancing to `target` gives, and the mutation that records it (none when retain-from stays). */
export async function planAdvance(view: ReadView, target: AdvanceTarget, now: number): Promise<{ result: AdvanceResult; mutations: Mutation[] }> {
  const current = (await q.retainFrom(view)).snapshot;
  const head = (await q.headSnapshot(view)).begin;
  let to = await wanted(view, target, current, head);
  let clampedBy: AdvanceResult['clampedBy'];
  for await (const l of q.leases(view)) {
    if (l.expiresAt <= now || l.snapshot < current || l.snapshot >= to) continue;
    to = l.snapshot;
    clampedBy = { lease: l.id, holder: l.holder, snapshot: l.snapshot, expiresAt: new Date(l.expiresAt) };
  }
  const result: AdvanceResult = { retainFrom: to, ...(clampedBy ? { clampedBy } : {}) };
  if (to === current) return { result, mutations: [] };
  return { result, mutations: [putRetainFrom({ snapshot: to, since: now })] };
}
