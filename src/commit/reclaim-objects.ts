// Carrying out a reclamation plan: reads what gc/reclaim.ts decides by (when the log entry that scheduled each
// due object was written, and the object's own time) and deletes what it decides, so that one object the
// store will not delete (a symbolic link on the way, a permission) never stops the rest.
import { deletions, type DueObject, type ReclaimPlan } from '../../gc/reclaim.js';
import type { KvSeq } from '../../keys/ids.js';
import type { ObjectStore } from '../store/object-store.js';

/** Keys deleted per store call; a call that fails is retried key by key so one bad key fails alone. */
const DELETE_BATCH = 1000;

export interface Deletion {
  deleted: string[];
  skipped: string[];
  failed: { path: string; reason: string }[];
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
): Promise<Deletion> {
  const { go, skipped } = deletions(await dueObjects(store, dataPath, writtenAt, plan.due), plan.orphans);
  const out: Deletion = { deleted: [], skipped, failed: [] };
  if (dryRun) return { ...out, deleted: go };
  for (let i = 0; i < go.length; i += DELETE_BATCH) {
    const batch = go.slice(i, i + DELETE_BATCH);
    try {
      await store.delete(batch.map((p) => `${dataPath}${p}`));
      out.deleted.push(...batch);
    } catch {
      for (const p of batch) {
        try {
          await store.delete([`${dataPath}${p}`]);
          out.deleted.push(p);
        } catch (e) {
          out.failed.push({ path: p, reason: e instanceof Error ? e.message : String(e) });
        }
      }
    }
    onProgress?.(Math.min(go.length, i + DELETE_BATCH), go.length);
  }
  return out;
}

/** The due objects as the log and the store have them; an entry's time is read once for all it scheduled. */
async function dueObjects(store: ObjectStore, dataPath: string, writtenAt: (seq: KvSeq) => Promise<number | undefined>, due: ReclaimPlan['due']): Promise<DueObject[]> {
  const times = new Map<KvSeq, Promise<number | undefined>>();
  const out: DueObject[] = [];
  for (const { path, seq } of due) {
    if (seq !== undefined && !times.has(seq)) times.set(seq, writtenAt(seq));
    const [scheduledAt, object] = await Promise.all([seq === undefined ? undefined : times.get(seq)!, store.info(`${dataPath}${path}`)]);
    out.push({ path, scheduledAt, lastModified: object?.lastModified });
  }
  return out;
}
