// Carrying out a reclamation plan: deletes the objects it names so that one the store will not delete (a
// symbolic link on the way, a permission) never stops the rest, and one an engine wrote again at its path
// after it was scheduled is left alone.
import type { ReclaimPlan } from '../../gc/reclaim.js';
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
 * Deletes the due objects and the orphans (or, in a dry run, finds which would go). A due object last
 * modified after the log entry that scheduled it was written — both by the store's clock — is skipped.
 * `writtenAt` gives that time (undefined when the log no longer has it: then the object is deleted).
 */
export async function deleteObjects(
  store: ObjectStore,
  dataPath: string,
  writtenAt: (seq: KvSeq) => Promise<number | undefined>,
  plan: Pick<ReclaimPlan, 'due' | 'orphans'>,
  dryRun: boolean,
  onProgress?: (done: number, total: number) => void,
): Promise<Deletion> {
  const out: Deletion = { deleted: [], skipped: [], failed: [] };
  const times = new Map<KvSeq, Promise<number | undefined>>();
  const go: string[] = [];
  for (const { path, seq } of plan.due) {
    if (seq !== undefined) {
      if (!times.has(seq)) times.set(seq, writtenAt(seq));
      const [scheduledAt, object] = await Promise.all([times.get(seq)!, store.info(`${dataPath}${path}`)]);
      if (scheduledAt !== undefined && object !== undefined && object.lastModified > scheduledAt) {
        out.skipped.push(path);
        continue;
      }
    }
    go.push(path);
  }
  go.push(...plan.orphans);
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
