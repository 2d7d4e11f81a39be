// File reclamation: which objects to delete from the store — the data and delete files that excision left
// unnamed, once their grace period is over, and (on request) orphans under the data path — by the rules of
// protection.ts. The catalog reads what these decide by and deletes what they decide (src/commit/
// reclaim-objects.ts).
import type { Mutation } from '../keys/mutation.js';
import { ALL_SCHEDULED, decodeScheduled, type Scheduled, unschedule as unscheduled } from '../keys/retention.js';
import type { ReadView } from '../src/kv/read-view.js';
import * as q from '../src/read/catalog-queries.js';
import type { ObjectStore } from '../src/store/object-store.js';
import { durationMs, flag, options } from '../src/arguments.js';
import { StrataError } from '../src/errors.js';
import { isObjectLetGo, isOrphanAge, protectedSnapshots, scheduledFate } from './protection.js';

const DAY = 24 * 3600 * 1000;

export interface ReclaimOptions {
  /** How long a scheduled file waits before it is deleted (default 2 days). */
  graceMs?: number;
  /** List what would go, delete nothing (default false). */
  dryRun?: boolean;
  /**
   * Also sweep objects under the data path that no row names, and what writes cut short by a crash left in
   * the store (default false).
   */
  orphans?: boolean;
  /** With orphans: only objects at least this old (default 7 days). */
  minAgeMs?: number;
  /** Called as deletions go: how many of the objects due are deleted (or failed) so far, of how many. */
  onProgress?: (done: number, total: number) => void;
}

export interface ReclaimReport {
  dryRun: boolean;
  /** Paths still scheduled after this run (their grace period is not over). */
  scheduled: string[];
  /** Paths deleted (or, in a dry run, that would be). */
  deleted: string[];
  /**
   * Scheduled paths whose object was written after the excision scheduled it (an engine wrote a new file
   * at the old path): left in place and unscheduled, the object is not the one the catalog let go.
   */
  skipped: string[];
  /**
   * Scheduled paths whose object the store no longer holds (a run that stopped part-way, a delete by hand):
   * nothing to delete; off the schedule.
   */
  gone: string[];
  /** Objects the store would not delete, and why (a symbolic link on the way, a permission): still scheduled. */
  failed: { path: string; reason: string }[];
  /** Orphans deleted (or that would be); empty unless asked for. */
  orphans: string[];
  /**
   * With orphans: leftovers of writes a crash cut short, removed (or that would be): temporary files on the
   * directory store, probe objects on S3. Store-relative paths.
   */
  abandoned: string[];
  /**
   * Iceberg objects (manifests, lists, delete copies, metadata files) no retained snapshot's metadata names,
   * past the grace period: deleted (or that would be). Store keys.
   */
  iceberg: string[];
}

export interface ReclaimPlan {
  due: Scheduled[];
  waiting: string[];
  /** Scheduled paths a row names again: unscheduled, never deleted. */
  named: string[];
  orphans: string[];
  /**
   * With orphans: the store's leftovers of writes a crash cut short (`ObjectStore.sweep`) go when last
   * modified before this, as old as an orphan must be; undefined without orphans.
   */
  sweepBefore: number | undefined;
}

export function checkReclaimOptions(opts: ReclaimOptions | undefined): Required<Omit<ReclaimOptions, 'onProgress'>> & Pick<ReclaimOptions, 'onProgress'> {
  const o = options('reclaimFiles()', opts, ['graceMs', 'dryRun', 'orphans', 'minAgeMs', 'onProgress']);
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function') throw new StrataError('INVALID_ARGUMENT', 'onProgress must be a function');
  return {
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    graceMs: durationMs('graceMs', o.graceMs, 2 * DAY),
    dryRun: flag('dryRun', o.dryRun),
    orphans: flag('orphans', o.orphans),
    minAgeMs: durationMs('minAgeMs', o.minAgeMs, 7 * DAY),
  };
}

/** Orphan candidates checked against the path index per multi-get. */
const ORPHAN_BATCH = 1000;

/** Which of `paths` some file row still names. */
async function namedPaths(view: ReadView, paths: readonly string[]): Promise<Set<string>> {
  const named = await q.pathsNamed(view, paths);
  return new Set(paths.filter((_, i) => named[i]));
}

/**
 * What one run deletes, decided on one view. Tags and leases are read first, whole: if they cannot be read
 * (a damaged value), this throws and nothing is deleted.
 */
export async function planReclaim(
  view: ReadView,
  store: ObjectStore,
  dataPath: string,
  now: number,
  opts: Required<Omit<ReclaimOptions, 'onProgress'>>,
): Promise<ReclaimPlan> {
  await protectedSnapshots(view, now);
  const plan: ReclaimPlan = { due: [], waiting: [], named: [], orphans: [], sweepBefore: opts.orphans ? now - opts.minAgeMs : undefined };
  const scheduled = new Set<string>();
  for await (const batch of view.scanBatches(ALL_SCHEDULED)) {
    const entries = batch.map(([key, bytes]) => decodeScheduled(key, bytes));
    const named = await namedPaths(view, entries.map((e) => e.path));
    for (const entry of entries) {
      scheduled.add(entry.path);
      const fate = scheduledFate(named.has(entry.path), entry.scheduledAt, opts.graceMs, now);
      if (fate === 'due') plan.due.push(entry);
      else plan[fate].push(entry.path);
    }
  }
  if (opts.orphans) {
    let candidates: string[] = [];
    const check = async () => {
      const named = await namedPaths(view, candidates);
      plan.orphans.push(...candidates.filter((p) => !named.has(p)));
      candidates = [];
    };
    for await (const o of store.list(dataPath)) {
      const path = o.key.slice(dataPath.length);
      if (path === '' || scheduled.has(path) || !isOrphanAge(o.lastModified, opts.minAgeMs, now)) continue;
      candidates.push(path);
      // Stryker disable next-line ConditionalExpression,EqualityOperator: the batch only bounds one multi-get; checked in any split, the same orphans are found
      if (candidates.length >= ORPHAN_BATCH) await check();
    }
    await check();
  }
  return plan;
}

/** A due object as the log and the store have it when a run comes to delete it. */
export interface DueObject {
  path: string;
  /** When the log entry that scheduled it was written, by the store's clock; undefined when unknown. */
  scheduledAt: number | undefined;
  /** When the store last modified it; undefined when the store does not hold it. */
  lastModified: number | undefined;
}

export interface Deletions {
  /** Objects to delete: the due ones still the catalog's, then the orphans. */
  go: string[];
  /** Due paths whose object an engine wrote again after it was scheduled: left in place. */
  skipped: string[];
  /** Due paths the store holds no object under: nothing to delete. */
  gone: string[];
}

/** What a run deletes of its plan, given how the log and the store have each due object (isObjectLetGo). */
export function deletions(due: readonly DueObject[], orphans: readonly string[]): Deletions {
  const out: Deletions = { go: [], skipped: [], gone: [] };
  for (const d of due) {
    if (d.lastModified === undefined) out.gone.push(d.path);
    else (isObjectLetGo(d.scheduledAt, d.lastModified) ? out.go : out.skipped).push(d.path);
  }
  out.go.push(...orphans);
  return out;
}

/**
 * The mutations that settle a run: a path whose object is deleted or was gone already, one whose object is an
 * engine's now, and one a row names again leave the schedule; one the store would not delete stays on it, for
 * the next run.
 */
export function unschedule(plan: Pick<ReclaimPlan, 'named'>, report: Pick<ReclaimReport, 'deleted' | 'gone' | 'skipped'>): Mutation[] {
  return [...report.deleted, ...report.gone, ...report.skipped, ...plan.named].map(unscheduled);
}
