// The GC entry points (docs/DESIGN.md §5): retain-from, leases, excision, file reclamation, checkpoint pruning and
// log compaction. What may go is decided in gc/; this module runs those plans — writes them as system
// entries through the committer, deletes the objects they name — and reports.
import { type AdvanceResult, type AdvanceTarget, planAdvance } from '../../gc/retain-from.js';
import { checkLeaseOptions, type LeaseInfo, listLeases, newLeaseId, planLease, planRenew, releaseLease } from '../../gc/leases.js';
import { checkExciseOptions, type ExciseOptions, type ExciseReport, type ExcisionJobRow, jobs, nextStep, planExcision } from '../../gc/excise.js';
import { checkReclaimOptions, planReclaim, type ReclaimOptions, type ReclaimReport, unschedule } from '../../gc/reclaim.js';
import { checkPruneOptions, type PruneCheckpointsOptions, type PruneCheckpointsReport } from '../../gc/checkpoints.js';
import { checkCompactOptions, type CompactLogOptions, type CompactLogReport, planLogCompaction } from '../../gc/compact-log.js';
import type { SnapshotId } from '../../keys/ids.js';
import { flag, options } from '../arguments.js';
import type { ReadView } from '../kv/read-view.js';
import type { CommitLog } from '../log/commit-log.js';
import * as q from '../read/catalog-queries.js';
import type { LeaseHandle } from '../read/reader.js';
import type { ObjectStore } from '../store/object-store.js';
import type { Background } from './background.js';
import { deleteObjects } from './reclaim-objects.js';
import type { Committer } from './committer.js';
import type { IndexSync } from './index-sync.js';
import type { FollowStatus } from './status.js';

export interface MaintenanceContext {
  sync: IndexSync;
  committer: Committer;
  background: Background;
  status: FollowStatus;
  log: CommitLog;
  store: ObjectStore;
  dataPath: string;
  clock: () => number;
  writerName: string;
  /** Throws unless the catalog is open, and (with `write`) writable. */
  assert(write: boolean): void;
}

export class Maintenance {
  constructor(private readonly c: MaintenanceContext) {}

  /** Runs `fn` over the newest state, after catching up with the store as a reader does. */
  private async viewLatest<T>(fn: (view: ReadView) => Promise<T>): Promise<T> {
    this.c.assert(false);
    await this.c.sync.refresh((e) => this.c.status.failed(e));
    return this.c.sync.view(fn);
  }

  async retainFrom(): Promise<SnapshotId> {
    return this.viewLatest(async (view) => (await q.retainFrom(view)).snapshot);
  }

  async advanceRetainFrom(target: AdvanceTarget, given: { dryRun?: boolean } | undefined): Promise<AdvanceResult> {
    const dryRun = flag('dryRun', options('advanceRetainFrom() options', given, ['dryRun']).dryRun);
    const now = this.c.clock();
    if (dryRun) return this.viewLatest(async (view) => (await planAdvance(view, target, now)).result);
    this.c.assert(true);
    return this.c.committer.writeSystem(async (view) => {
      const { result, mutations } = await planAdvance(view, target, now);
      return { mutations, value: result };
    });
  }

  async excise(given: ExciseOptions | undefined): Promise<ExciseReport> {
    this.c.assert(false);
    const opts = checkExciseOptions(given);
    const now = this.c.clock();
    if (opts.dryRun) {
      return this.viewLatest(async (view) => ({ dryRun: true, job: null, ...(await planExcision(view, now, opts.batchSize, opts.retainFrom)) }));
    }
    this.c.assert(true);
    let jobId: number | undefined;
    for (;;) {
      const id = jobId;
      const job = await this.c.committer.writeSystem(async (view) => {
        const step = await nextStep(view, id, this.c.writerName, now, opts.batchSize);
        return { mutations: step.mutations, value: step.job };
      });
      jobId = job.id;
      const { versions, snapshots, files, finishedAt, retainFrom } = job.row;
      opts.onProgress?.({ versions, snapshots, files });
      if (finishedAt !== null) return { dryRun: false, retainFrom, job: job.id, versions, snapshots, files };
    }
  }

  async excisionJobs(): Promise<({ id: number } & ExcisionJobRow)[]> {
    this.c.assert(false);
    return this.c.sync.view(async (view) => {
      const out = [];
      for await (const j of jobs(view)) out.push({ id: j.id, ...j.row });
      return out;
    });
  }

  async reclaimFiles(given: ReclaimOptions | undefined): Promise<ReclaimReport> {
    this.c.assert(false);
    const opts = checkReclaimOptions(given);
    if (!opts.dryRun) this.c.assert(true);
    const now = this.c.clock();
    // Strictly caught up (a store it cannot reach is an error here): deleting goes by the newest state.
    await this.c.sync.refresh();
    const { store, dataPath } = this.c;
    const plan = await this.c.sync.view((view) => planReclaim(view, store, dataPath, now, opts));
    const abandoned = plan.sweepBefore === undefined ? [] : await store.sweep(plan.sweepBefore, opts.dryRun);
    const done = await deleteObjects(store, dataPath, (seq) => this.c.log.writtenAt(seq), plan, opts.dryRun, opts.onProgress);
    const orphans = new Set(plan.orphans);
    const report: ReclaimReport = {
      dryRun: opts.dryRun,
      scheduled: plan.waiting,
      deleted: done.deleted.filter((p) => !orphans.has(p)),
      skipped: done.skipped,
      gone: done.gone,
      failed: done.failed,
      orphans: done.deleted.filter((p) => orphans.has(p)),
      abandoned,
      // The facade adds them (src/iceberg/reclaim-objects.ts): which objects Iceberg metadata names is the Iceberg layer's to say.
      iceberg: [],
    };
    if (opts.dryRun) return report;
    const settled = unschedule(plan, report);
    if (settled.length > 0) await this.c.committer.writeSystem(async () => ({ mutations: settled, value: undefined }));
    return report;
  }

  async pruneCheckpoints(given: PruneCheckpointsOptions | undefined): Promise<PruneCheckpointsReport> {
    this.c.assert(false);
    const opts = checkPruneOptions(given);
    if (!opts.dryRun) this.c.assert(true);
    return this.c.background.prune(opts);
  }

  async compactLog(given: CompactLogOptions | undefined): Promise<CompactLogReport> {
    this.c.assert(false);
    const opts = checkCompactOptions(given);
    if (!opts.dryRun) this.c.assert(true);
    const { log } = this.c;
    let stored = await log.checkpoints.list();
    const done = await log.compactedThrough();
    let plan = planLogCompaction(stored, done, this.c.clock(), opts);
    // Only into a checkpoint read whole, with every one it is read over: once compacted, the log can no
    // longer stand in for it (a checkpoint over another may be read over a whole one written long before).
    while (plan !== undefined && !(await log.checkpoints.readsWhole(plan.through))) {
      const damaged = plan.through;
      stored = stored.filter((c) => c.seq !== damaged);
      plan = planLogCompaction(stored, done, this.c.clock(), opts);
    }
    if (plan === undefined) return { dryRun: opts.dryRun, through: null, entries: 0 };
    const report = { dryRun: opts.dryRun, through: plan.through, entries: plan.through - plan.from + 1 };
    if (!opts.dryRun) await log.compact(plan.through);
    return report;
  }

  async leases(): Promise<LeaseInfo[]> {
    return this.viewLatest((view) => listLeases(view, this.c.clock()));
  }

  /** Writes a lease on `snapshot` and returns the handle its reader renews and releases it by. */
  async takeLease(snapshot: SnapshotId, holder: string, ttlMs: number): Promise<LeaseHandle> {
    const { committer, clock } = this.c;
    const id = newLeaseId();
    const now = clock();
    await committer.writeSystem(async (view) => ({ mutations: await planLease(view, id, snapshot, holder, now, ttlMs), value: undefined }));
    const handle: LeaseHandle = {
      id,
      holder,
      expiresAt: new Date(now + ttlMs),
      renew: async (ms: number) => {
        const { ttlMs: checked } = checkLeaseOptions({ ttlMs: ms });
        const at = clock();
        await committer.writeSystem(async (view) => ({ mutations: await planRenew(view, id, at, checked), value: undefined }));
        handle.expiresAt = new Date(at + checked);
        return handle.expiresAt;
      },
      release: () => committer.writeSystem(async (view) => ({ mutations: (await q.lease(view, id)) ? releaseLease(id) : [], value: undefined })),
    };
    return handle;
  }
}
