// Checkpoint pruning. A checkpoint is written every `checkpointEvery` log entries, whole or holding what
// changed since another it is read over (decision 0059), so without pruning the store grows by a catalog's
// size every few of them; and a checkpoint taken before an excision still holds what was excised. Compaction stubs only entries the
// newest complete checkpoint covers, and pruning never removes that one, so an older checkpoint is only
// ever a shortcut: pruning it loses no state, it only lengthens the replay of a machine that would have
// started from it.
import type { KvSeq } from '../keys/ids.js';
import type { StoredCheckpoint } from '../src/log/checkpoint.js';
import { durationMs, flag, options, positiveCount } from '../src/arguments.js';

const HOUR = 3600 * 1000;

export interface PruneCheckpointsOptions {
  /** How many of the newest complete checkpoints stay (default 2, at least 1). */
  keep?: number;
  /**
   * How long a checkpoint stays after a newer complete one appeared, and how old an incomplete one must be
   * before it counts as abandoned (default 1 hour): a machine bootstrapping from a checkpoint, or a process
   * still writing one, must not lose it underneath.
   */
  minAgeMs?: number;
  /** List what would go, delete nothing (default false). */
  dryRun?: boolean;
}

export interface PruneCheckpointsReport {
  dryRun: boolean;
  /** The complete checkpoints left, oldest first. */
  kept: KvSeq[];
  /** Checkpoints deleted (or, in a dry run, that would be), complete or not. */
  deleted: KvSeq[];
  /** Their objects (chunks and manifests). */
  objects: number;
}

export function checkPruneOptions(opts: PruneCheckpointsOptions | undefined): Required<PruneCheckpointsOptions> {
  const o = options('pruneCheckpoints()', opts, ['keep', 'minAgeMs', 'dryRun']);
  return { keep: positiveCount('keep', o.keep, 2), minAgeMs: durationMs('minAgeMs', o.minAgeMs, HOUR), dryRun: flag('dryRun', o.dryRun) };
}

/**
 * Which checkpoints one run deletes (`stored` oldest first, `now` by the catalog's clock): a complete one
 * that is not among the newest `keep` once the next complete one has existed for minAgeMs, and an
 * incomplete one untouched for minAgeMs — but never one a checkpoint that stays is read over (decision 0059).
 */
export function planCheckpointPrune(stored: readonly StoredCheckpoint[], now: number, opts: Required<PruneCheckpointsOptions>): StoredCheckpoint[] {
  const complete = stored.filter((c) => c.complete);
  const old = (c: StoredCheckpoint) => c.lastModified <= now - opts.minAgeMs;
  const superseded = complete.slice(0, Math.max(0, complete.length - opts.keep)).filter((_, i) => old(complete[i + 1]!));
  const abandoned = stored.filter((c) => !c.complete && old(c));
  const doomed = new Set([...superseded, ...abandoned]);
  const bySeq = new Map(stored.map((c) => [c.seq, c]));
  // Newest first: a checkpoint spared here spares the one it is after in turn.
  for (const c of [...complete].reverse()) {
    if (doomed.has(c) || c.after === null) continue;
    doomed.delete(bySeq.get(c.after)!);
  }
  return [...doomed].sort((a, b) => a.seq - b.seq);
}
