// Excision: physically deletes what retain-from made unreadable, by the rules of protection.ts. Versions are
// found through the end index, so the cost follows what is removed; what each takes with it is its family's
// business (keys/excision.ts). Each batch is one logged entry (atomic, replayed by every index) that also
// carries the job's running record, so a crashed job is resumed by the next run and never counted twice.
import { excisedColumnIdFloor, raisedColumnIdFloor } from '../keys/columns.js';
import { baseParts, basesThrough, decodeBase, decodeManifest, deletedBase, idRangeKey, manifestParts, manifestTableOf, pathIndexEntry, pathRefGone, trimmedManifest } from '../keys/data-files.js';
import { endedThrough } from '../keys/end-index.js';
import { excise, readEnded } from '../keys/excision.js';
import { type CatalogId, type FileId, kvSeq, type SnapshotId, snapshotId } from '../keys/ids.js';
import type { Key } from '../keys/key-codec.js';
import { append, type Mutation } from '../keys/mutation.js';
import { ALL_JOBS, decodeJob, type ExciseCounts, type ExcisionJobRow, jobKey, putJob, schedule, scheduleKey } from '../keys/retention.js';
import { exciseSnapshot, snapshotOfKey, type SnapshotRow, snapshotsBelow } from '../keys/snapshots.js';
import { excisedTableStats, putTableStats, tableVersionsPrefix, withoutBase } from '../keys/stats.js';
import { decodeValue } from '../keys/value-codec.js';
import { StrataError } from '../src/errors.js';
import type { ReadView } from '../src/kv/read-view.js';
import * as q from '../src/read/catalog-queries.js';
import { flag, options, positiveCount } from '../src/arguments.js';
import { isProtected, protectedSnapshots } from './protection.js';

export type { ExciseCounts, ExcisionJobRow };

export interface ExciseOptions {
  /** Plan only: count what would go, change nothing (default false). */
  dryRun?: boolean;
  /** Versions and snapshots per logged batch (default 1,000). */
  batchSize?: number;
  /** Called after each batch with the job's running counts. */
  onProgress?: (counts: ExciseCounts) => void;
  /** With dryRun only: plan as if retain-from were already this (>= the current one, <= the newest snapshot). */
  retainFrom?: number;
}

export interface ExciseReport extends ExciseCounts {
  dryRun: boolean;
  retainFrom: SnapshotId;
  /** The job's id (its record under catalog.excisionJobs()); null for a dry run. */
  job: number | null;
}

const ZERO: ExciseCounts = { versions: 0, snapshots: 0, files: 0 };
const add = (a: ExciseCounts, b: ExciseCounts): ExciseCounts => ({
  versions: a.versions + b.versions,
  snapshots: a.snapshots + b.snapshots,
  files: a.files + b.files,
});
const hex = (k: Key) => Buffer.from(k).toString('hex');

interface Batch {
  mutations: Mutation[];
  counts: ExciseCounts;
}

/**
 * The excision of one view, as batches of at most `batchSize` removed versions and snapshots. A real run
 * writes the first batch and plans again on the newer state; a dry run walks them all on one view.
 */
export async function* excisionBatches(
  view: ReadView,
  now: number,
  batchSize: number,
  retainFrom: SnapshotId,
): AsyncGenerator<Batch> {
  if (retainFrom === 0) return;
  const protect = await protectedSnapshots(view, now);
  // Rows removed by earlier batches of this plan: a dry run's later batches must not count them.
  const removedTables = new Set<string>();
  const removedFiles = new Map<string, Set<number>>(); // path → file ids whose rows this plan removed
  // Manifest → the file ids this plan took out of it (cumulative, as removedFiles: a dry run's later
  // batches read the same view).
  const manifestCuts = new Map<string, { key: Key; ids: Set<number> }>();
  let manifestsTouched = new Set<string>();
  // Tables this plan took data files from: their bases before retain-from go (once per plan).
  const rebased = new Set<CatalogId>();
  let basesTouched = new Set<CatalogId>();
  let mutations: Mutation[] = [];
  let counts = { ...ZERO };
  let paths = new Set<string>();
  let tables = new Set<CatalogId>();
  let columnIds = new Map<CatalogId, number>(); // table → the highest column id whose version this batch took

  const finish = async (): Promise<Batch> => {
    // A path goes to reclamation when no row names it any more (and it is not scheduled already).
    const candidates = [...paths];
    const indexed = await q.indexedPathIds(view, candidates);
    const named = await q.pathsNamed(view, candidates, (path) => removedFiles.get(path), indexed);
    const scheduled = await view.getMany(candidates.map(scheduleKey));
    candidates.forEach((path, i) => {
      const gone = removedFiles.get(path)!;
      // A file registered before decision 0067 is in its path's value, any other by a reference of its own.
      const before = indexed[i] ?? [];
      for (const id of gone) if (!before.includes(id as FileId)) mutations.push(pathRefGone(path, id as FileId));
      if (before.some((id) => gone.has(id))) mutations.push(pathIndexEntry(path, before.filter((id) => !gone.has(id))));
      if (named[i] || scheduled[i] !== undefined) return;
      mutations.push(schedule(path, now, kvSeq(view.seq + 1)));
      counts.files++;
    });
    // A manifest keeps the files no excision took; one left empty goes. Its id ranges follow it, where the
    // commit wrote them (one starts at its first file).
    const touched = [...manifestsTouched].map((id) => manifestCuts.get(id)!);
    const values = await view.getMany(touched.map((m) => m.key));
    const heads = values.map((v, i) => (v === undefined ? undefined : decodeManifest(touched[i]!.key, v)));
    const ranged = await view.getMany(heads.map((h) => idRangeKey(h?.files[0]?.[0] ?? (0 as FileId))));
    for (const [i, m] of touched.entries()) {
      if (values[i] === undefined) continue;
      const parts: [Key, Uint8Array][] = [];
      if (heads[i]!.more) for await (const batch of view.scanBatches(manifestParts(m.key))) append(parts, batch);
      append(mutations, trimmedManifest([m.key, values[i]!], parts, m.ids, ranged[i] !== undefined));
    }
    // A base lists the files visible at its snapshot, and a listing from it leaves out those that ended
    // since by their ends, which excision takes with the files: one before retain-from may list a file
    // taken out here, and goes with it. Listings there read the manifests until a commit writes a new base,
    // which the table's stats, no longer counting from a base, make due at its next commit.
    const rebase: CatalogId[] = [];
    for (const t of basesTouched) {
      for await (const batch of view.scanBatches(basesThrough(t, snapshotId(retainFrom - 1)))) {
        for (const [key, bytes] of batch) {
          const parts: Key[] = [];
          if (decodeBase(key, bytes).more) for await (const more of view.scanBatches(baseParts(key))) for (const [k] of more) parts.push(k);
          append(mutations, deletedBase(key, parts));
          if (rebase.at(-1) !== t) rebase.push(t);
        }
      }
    }
    for (const [i, stats] of (await q.tableStatsOf(view, rebase)).entries()) if (stats !== undefined) mutations.push(putTableStats(rebase[i]!, withoutBase(stats)));    // A table whose last version is gone leaves nothing behind, its stats and column id floor included; one
    // that lives on keeps its floor past the column ids taken.
    const ids = [...new Set([...tables, ...columnIds.keys()])];
    const alive = await view.anyUnder(ids.map(tableVersionsPrefix), (k) => !removedTables.has(hex(k)));
    const floors = await q.columnIdFloors(view, ids);
    ids.forEach((t, i) => {
      if (!alive[i]) mutations.push(excisedTableStats(t), excisedColumnIdFloor(t));
      else if (columnIds.has(t)) {
        const raised = raisedColumnIdFloor(t, floors[i], columnIds.get(t)!);
        if (raised !== undefined) mutations.push(raised);
      }
    });
    const batch = { mutations, counts };
    mutations = [];
    counts = { ...ZERO };
    paths = new Set();
    tables = new Set();
    columnIds = new Map();
    manifestsTouched = new Set();
    basesTouched = new Set();
    return batch;
  };
  const full = () => counts.versions + counts.snapshots >= batchSize;

  // Versions that ended at or before retain-from, oldest end first.
  for await (const [indexKey, indexValue] of view.scan(endedThrough(retainFrom))) {
    const ended = readEnded(indexKey, indexValue);
    if (isProtected(protect, ended.begin, ended.end)) continue;
    const gone = excise(ended);
    mutations.push(...gone.mutations);
    counts.versions++;
    if (gone.file !== undefined) {
      const { path, id } = gone.file;
      let ids = removedFiles.get(path);
      if (!ids) removedFiles.set(path, (ids = new Set()));
      ids.add(id);
      paths.add(path);
    }
    if (gone.manifest !== undefined) {
      const id = hex(gone.manifest);
      let cut = manifestCuts.get(id);
      if (!cut) manifestCuts.set(id, (cut = { key: gone.manifest, ids: new Set() }));
      cut.ids.add(gone.file!.id);
      manifestsTouched.add(id);
      const table = manifestTableOf(gone.manifest);
      if (!rebased.has(table)) (rebased.add(table), basesTouched.add(table));
    }
    if (gone.table !== undefined) {
      removedTables.add(hex(ended.key));
      tables.add(gone.table);
    }
    if (gone.column !== undefined) columnIds.set(gone.column.table, Math.max(columnIds.get(gone.column.table) ?? 0, gone.column.id));
    if (full()) yield await finish();
  }

  // Snapshot records below retain-from, unless protected.
  for await (const [key, bytes] of view.scan(snapshotsBelow(retainFrom))) {
    const id = snapshotOfKey(key);
    if (isProtected(protect, id, id + 1)) continue;
    mutations.push(...exciseSnapshot(id, decodeValue<SnapshotRow>(key, bytes)));
    counts.snapshots++;
    if (full()) yield await finish();
  }
  if (mutations.length > 0) yield await finish();
}

/**
 * What a dry run reports: every batch of one view, summed; at the current retain-from, or at a higher one
 * it would move to (what `strata gc --dry-run` plans).
 */
export async function planExcision(view: ReadView, now: number, batchSize: number, at?: number): Promise<ExciseCounts & { retainFrom: SnapshotId }> {
  const current = (await q.retainFrom(view)).snapshot;
  const head = (await q.headSnapshot(view)).begin;
  if (at !== undefined && (!Number.isSafeInteger(at) || at < current || at > head)) {
    throw new StrataError('INVALID_ARGUMENT', `a planned retain-from must lie between the current one (${current}) and the newest snapshot (${head}); got ${at}`);
  }
  const retainFrom = at === undefined ? current : (at as SnapshotId);
  let total = { ...ZERO };
  for await (const b of excisionBatches(view, now, batchSize, retainFrom)) total = add(total, b.counts);
  return { ...total, retainFrom };
}

/** The job a crashed run left unfinished, if any: the next run continues it. */
async function openJob(view: ReadView): Promise<{ id: number; row: ExcisionJobRow } | undefined> {
  for await (const job of jobs(view)) if (job.row.finishedAt === null) return job;
  return undefined;
}

async function jobById(view: ReadView, id: number): Promise<{ id: number; row: ExcisionJobRow } | undefined> {
  const key = jobKey(id);
  const bytes = await view.get(key);
  return bytes === undefined ? undefined : decodeJob(key, bytes);
}

export async function* jobs(view: ReadView): AsyncGenerator<{ id: number; row: ExcisionJobRow }> {
  for await (const [key, bytes] of view.scan(ALL_JOBS)) yield decodeJob(key, bytes);
}

export interface ExciseStep {
  mutations: Mutation[];
  /** The job's record after this step; finishedAt is set on the last. */
  job: { id: number; row: ExcisionJobRow };
}

/**
 * The next logged step of job `jobId` (or, without one, of the job a crashed or concurrent run left open, or
 * of a new job) over the newest state: one batch plus the job's updated record, or, when nothing is left,
 * the record marked finished. The record is read from the state, not carried by the caller, so two
 * processes working one job add their batches to it once each. A job already finished writes nothing.
 */
export async function nextStep(view: ReadView, jobId: number | undefined, who: string, now: number, batchSize: number): Promise<ExciseStep> {
  const retainFrom = (await q.retainFrom(view)).snapshot;
  const existing = jobId === undefined ? await openJob(view) : await jobById(view, jobId);
  if (existing?.row.finishedAt != null) return { mutations: [], job: existing };
  const current = existing ?? { id: view.seq + 1, row: { ...ZERO, startedAt: now, finishedAt: null, who, retainFrom } };
  const batches = excisionBatches(view, now, batchSize, retainFrom);
  const first = await batches.next();
  await batches.return(undefined);
  const row: ExcisionJobRow = first.done
    ? { ...current.row, retainFrom, finishedAt: now }
    : { ...current.row, ...add(current.row, first.value.counts), retainFrom };
  const record = putJob(current.id, row);
  return { mutations: [...(first.done ? [] : first.value.mutations), record], job: { id: current.id, row } };
}

export function checkExciseOptions(opts: ExciseOptions | undefined): Required<Pick<ExciseOptions, 'dryRun' | 'batchSize'>> & Pick<ExciseOptions, 'onProgress' | 'retainFrom'> {
  const o = options('excise()', opts, ['dryRun', 'batchSize', 'onProgress', 'retainFrom']);
  const batchSize = positiveCount('batchSize', o.batchSize, 1000);
  const dryRun = flag('dryRun', o.dryRun);
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function') throw new StrataError('INVALID_ARGUMENT', 'onProgress must be a function');
  if (o.retainFrom !== undefined && !dryRun) {
    throw new StrataError('INVALID_ARGUMENT', 'retainFrom plans a dry run only; move retain-from with advanceRetainFrom() first');
  }
  return {
    dryRun,
    batchSize,
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    ...(o.retainFrom === undefined ? {} : { retainFrom: o.retainFrom }),
  };
}

