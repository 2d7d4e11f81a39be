// Carrying out a reclamation plan: reads what gc/reclaim.ts decides by (when the log entry that scheduled each
// due object was written, and the object's own time) and deletes what it decides, in batches (store/delete-each.ts).
import { deletions, type DueObject, type ReclaimPlan } from '../../gc/reclaim.js';
import type { KvSeq } from '../../keys/ids.js';
import { inParallel } from '../in-parallel.js';
import { deleteEach, type Deletion } from '../store/delete-each.js';
import type { ObjectStore } from '../store/object-store.js';

/** Due objects looked up at once (a HEAD each on S3): a dropped table is thousands, each a round trip. */
const LOOKUPS_AT_ONCE = 32;

/** What a run did with its due objects and orphans (see ReclaimReport). */
export interface Reclaimed extends Deletion {
  skipped: string[];
  gone: string[];
}

/**
 * Deletes what gc/ decides of the due objects and the orphans (or, in a dry run, finds which would go).
 * `writtenAt` gives the time of a log entry (undefined when the log no longer has it).
 */
export async function deleteObjects(
  store: ObjectStore,
  dataPath: string,
  writtenAt: (seq: KvSeq) => Promise<number | undefined>,
  plan: Pick<ReclaimPlan, 'due' | 'orphans'>,
  dryRun: boolean,
  onProgress?: (done: number, total: number) => void,
): Promise<Reclaimed> {
  const { go, skipped, gone } = deletions(await dueObjects(store, dataPath, writtenAt, plan.due), plan.orphans);
  if (dryRun) return { deleted: go, skipped, gone, failed: [] };
  // What the store says is not there is deleted all the same: a directory store cannot look through a link
  // whose target is missing, and the delete is what refuses such a path (failed, so still scheduled).
  const done = await deleteEach(store, [...go, ...gone].map((p) => `${dataPath}${p}`), onProgress);
  const path = (key: string) => key.slice(dataPath.length);
  const wasGone = new Set(gone);
  const deleted = done.deleted.map(path);
  return {
    deleted: deleted.filter((p) => !wasGone.has(p)),
    skipped,
    gone: deleted.filter((p) => wasGone.has(p)),
    failed: done.failed.map((f) => ({ path: path(f.path), reason: f.reason })),
  };
}

/** The due objects as the log and the store have them; an entry's time is read once for all it scheduled. */
async function dueObjects(store: ObjectStore, dataPath: string, writtenAt: (seq: KvSeq) => Promise<number | undefined>, due: ReclaimPlan['due']): Promise<DueObject[]> {
  const times = new Map<KvSeq, Promise<number | undefined>>();
  const out: DueObject[] = [];
  await inParallel(due, LOOKUPS_AT_ONCE, async ({ path, seq }, i) => {
    if (seq !== undefined && !times.has(seq)) times.set(seq, writtenAt(seq));
    const [scheduledAt, object] = await Promise.all([seq === undefined ? undefined : times.get(seq)!, store.info(`${dataPath}${path}`)]);
    out[i] = { path, scheduledAt, lastModified: object?.lastModified };
  });
  return out;
}
