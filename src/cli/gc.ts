// The maintenance commands: retain, excise, reclaim, prune-checkpoints, compact-log, and gc (all of them as
// one policy). Each step prints its report; long steps show a progress bar on a terminal (cli-progress),
// never in --json output.
import type { Catalog } from '../catalog/catalog.js';
import { type Bar, newBar } from './bar.js';
import { StrataError } from '../errors.js';
import type { AdvanceResult } from '../../gc/retain-from.js';
import type { ExciseReport } from '../../gc/excise.js';
import type { ReclaimReport } from '../../gc/reclaim.js';
import type { PruneCheckpointsReport } from '../../gc/checkpoints.js';
import type { CompactLogReport } from '../../gc/compact-log.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** "30d", "12h", "90m", "45s", "500ms", "2w" → ms. */
export function parseDuration(what: string, text: string): number {
  const m = /^(\d+)(ms|s|m|h|d|w)$/.exec(text.trim());
  if (!m) throw new StrataError('INVALID_ARGUMENT', `${what} must be a duration such as 30d, 12h, 90m, 45s or 500ms; got ${JSON.stringify(text)}`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

export interface GcOptions {
  dryRun: boolean;
  /** Show progress bars (a terminal, and not --json). */
  progress: boolean;
  say: (line: string) => void;
  /** The part of a long list of paths to print, and a line saying what was left out. */
  list: (paths: string[]) => { items: string[]; note: string };
}

export function describeAdvance(r: AdvanceResult, dryRun = false): string {
  const clamp = r.clampedBy
    ? ` (held back by the lease of ${r.clampedBy.holder} on snapshot ${r.clampedBy.snapshot}, expiring ${r.clampedBy.expiresAt.toISOString()})`
    : '';
  return `retain-from ${dryRun ? 'would be' : 'is'} ${r.retainFrom}${clamp}`;
}

export async function excise(c: Catalog, batchSize: number | undefined, o: GcOptions, plannedRetainFrom?: number): Promise<ExciseReport> {
  const plan = await c.excise({ dryRun: true, ...(batchSize ? { batchSize } : {}), ...(plannedRetainFrom === undefined ? {} : { retainFrom: plannedRetainFrom }) });
  if (o.dryRun) {
    o.say(`excise (dry run): would remove ${plan.versions} versions and ${plan.snapshots} snapshots below ${plan.retainFrom}, scheduling ${plan.files} files`);
    return plan;
  }
  const total = plan.versions + plan.snapshots;
  const bar = o.progress && total > 0 ? newBar('excise [{bar}] {value}/{total} versions and snapshots') : undefined;
  bar?.start(total, 0);
  try {
    const report = await c.excise({
      ...(batchSize ? { batchSize } : {}),
      onProgress: (n) => bar?.update(Math.min(total, n.versions + n.snapshots)),
    });
    bar?.stop();
    o.say(`excise: removed ${report.versions} versions and ${report.snapshots} snapshots below ${report.retainFrom}, scheduled ${report.files} files (job ${report.job})`);
    return report;
  } finally {
    bar?.stop();
  }
}

/**
 * In a dry run of the whole policy, excision has not scheduled anything yet: what it would schedule, and
 * whether this run would delete it too (it would with no grace period: it is due as soon as it is scheduled).
 */
export interface AfterExcision {
  files: number;
  deletedThisRun: boolean;
}

export async function reclaim(
  c: Catalog,
  opts: { graceMs: number; orphans: boolean; minAgeMs: number },
  o: GcOptions,
  pending?: number,
): Promise<ReclaimReport & { afterExcision?: AfterExcision }> {
  let bar: Bar | undefined;
  const onProgress = (done: number, total: number) => {
    if (!o.progress) return;
    if (bar === undefined) {
      bar = newBar('reclaim [{bar}] {value}/{total} files');
      bar.start(total, 0);
    }
    bar.update(done);
  };
  const report = await c.reclaimFiles({ ...opts, dryRun: o.dryRun, onProgress }).finally(() => bar?.stop());
  const verb = o.dryRun ? 'would delete' : 'deleted';
  const after = pending === undefined || pending === 0 ? undefined : { files: pending, deletedThisRun: opts.graceMs === 0 };
  o.say(
    `reclaim${o.dryRun ? ' (dry run)' : ''}: ${verb} ${report.deleted.length} scheduled files` +
      (opts.orphans ? `, ${report.orphans.length} orphans and ${report.abandoned.length} leftovers of interrupted writes` : '') +
      (report.iceberg.length > 0 ? `, ${report.iceberg.length} Iceberg objects no retained snapshot names` : '') +
      `; ${report.scheduled.length} still within their grace period` +
      (report.skipped.length > 0 ? `; ${report.skipped.length} left in place (written again after they were scheduled)` : '') +
      (report.gone.length > 0 ? `; ${report.gone.length} already gone from the store` : '') +
      (report.failed.length > 0 ? `; ${report.failed.length} could not be deleted (still scheduled)` : ''),
  );
  if (after !== undefined) {
    o.say(
      after.deletedThisRun
        ? `  and the ${after.files} files excision would schedule first: with no grace period the real run deletes them too (which paths, only excision finds out)`
        : `  the ${after.files} files excision would schedule are not deleted by this run: they wait out their grace period first`,
    );
  }
  const listed = o.list([...report.deleted, ...report.orphans, ...report.abandoned, ...report.iceberg, ...report.skipped.map((p) => `left in place: ${p}`), ...report.gone.map((p) => `already gone: ${p}`), ...report.failed.map((f) => `not deleted: ${f.path}: ${f.reason}`)]);
  for (const p of listed.items) o.say(`  ${p}`);
  if (listed.note) o.say(`  ${listed.note}`);
  return after === undefined ? report : { ...report, afterExcision: after };
}

export interface PruneOptions {
  keep: number;
  minAgeMs: number;
}

export async function pruneCheckpoints(c: Catalog, opts: PruneOptions, o: GcOptions): Promise<PruneCheckpointsReport> {
  const report = await c.pruneCheckpoints({ ...opts, dryRun: o.dryRun });
  const list = (seqs: number[]) => (seqs.length === 0 ? 'none' : seqs.join(', '));
  o.say(
    `prune checkpoints${o.dryRun ? ' (dry run)' : ''}: ${o.dryRun ? 'would delete' : 'deleted'} ${list(report.deleted)} ` +
      `(${report.objects} objects); kept ${list(report.kept)}`,
  );
  return report;
}

export async function compactLog(c: Catalog, minAgeMs: number, o: GcOptions): Promise<CompactLogReport> {
  const report = await c.compactLog({ minAgeMs, dryRun: o.dryRun });
  o.say(
    report.through === null
      ? 'compact log: no checkpoint old enough to compact into'
      : `compact log${o.dryRun ? ' (dry run)' : ''}: ${o.dryRun ? 'would stub' : 'stubbed'} ${report.entries} entries, through ${report.through}`,
  );
  return report;
}

/**
 * The whole policy: retire what is older than `keepMs`, excise it, reclaim what is past its grace, then, if
 * excision removed anything, write a checkpoint without it; prune the checkpoints superseded long enough
 * and compact the log into the newest old-enough checkpoint, so excised rows leave checkpoints and log (the
 * run after the new checkpoint has aged, for the entries it covers).
 */
export async function gc(
  c: Catalog,
  opts: { keepMs: number; graceMs: number; orphans: boolean; minAgeMs: number; now: number; prune: PruneOptions },
  o: GcOptions,
): Promise<{
  retain: AdvanceResult;
  excise: ExciseReport;
  reclaim: ReclaimReport & { afterExcision?: AfterExcision };
  checkpoint: { seq: number } | null;
  prune: PruneCheckpointsReport;
  compact: CompactLogReport;
}> {
  const target = { olderThan: Math.max(0, opts.now - opts.keepMs) };
  const retain = await c.advanceRetainFrom(target, { dryRun: o.dryRun });
  o.say(`retain${o.dryRun ? ' (dry run)' : ''}: ${describeAdvance(retain, o.dryRun)}`);
  // A dry run plans excision at the retain-from the policy would set; reclamation then counts what that
  // excision would schedule, which the real run deletes at once when there is no grace period.
  const excised = await excise(c, undefined, o, o.dryRun ? retain.retainFrom : undefined);
  const reclaimed = await reclaim(c, { graceMs: opts.graceMs, orphans: opts.orphans, minAgeMs: opts.minAgeMs }, o, o.dryRun ? excised.files : undefined);
  let checkpoint: { seq: number } | null = null;
  if (!o.dryRun && excised.versions + excised.snapshots > 0) {
    const written = await c.checkpoint();
    o.say(`checkpoint: wrote one at log entry ${written.seq}, without what was excised`);
    checkpoint = { seq: written.seq };
  }
  const prune = await pruneCheckpoints(c, opts.prune, o);
  return { retain, excise: excised, reclaim: reclaimed, checkpoint, prune, compact: await compactLog(c, opts.prune.minAgeMs, o) };
}
