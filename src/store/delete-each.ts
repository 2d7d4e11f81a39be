// Deleting many objects and saying which went (GC's reclamations): a store call per batch of keys, several
// batches in flight; a call that fails is tried again key by key, so that one object the store will not
// delete (a symbolic link on the way, a permission) fails alone and never stops the rest.
import { inParallel } from '../in-parallel.js';
import type { ObjectStore } from './object-store.js';

/** Keys per store call: one S3 DeleteObjects request. */
const BATCH = 1000;

/** Store calls in flight at once. */
const AT_ONCE = 4;

/** Keys of a failed batch tried at once, one call each. */
const KEYS_AT_ONCE = 8;

export interface Deletion {
  /** The keys deleted, in the order given. */
  deleted: string[];
  /** The keys the store would not delete (`path`, as GC's reports name them), and why. */
  failed: { path: string; reason: string }[];
}

/** Deletes `keys`; `onProgress` hears how many are done (deleted or failed) as batches end. */
export async function deleteEach(store: ObjectStore, keys: readonly string[], onProgress?: (done: number, total: number) => void): Promise<Deletion> {
  const batches: { keys: readonly string[]; outcome: Deletion }[] = [];
  for (let i = 0; i < keys.length; i += BATCH) batches.push({ keys: keys.slice(i, i + BATCH), outcome: { deleted: [], failed: [] } });
  let done = 0;
  await inParallel(batches, AT_ONCE, async ({ keys: batch, outcome }) => {
    try {
      await store.delete(batch);
      outcome.deleted = batch.slice();
    } catch {
      const reasons: (string | undefined)[] = [];
      await inParallel(batch, KEYS_AT_ONCE, (key, i) => store.delete([key]).then(undefined, (e: unknown) => void (reasons[i] = e instanceof Error ? e.message : String(e))));
      batch.forEach((key, i) => (reasons[i] === undefined ? outcome.deleted.push(key) : outcome.failed.push({ path: key, reason: reasons[i]! })));
    }
    done += batch.length;
    onProgress?.(done, keys.length);
  });
  return { deleted: batches.flatMap((b) => b.outcome.deleted), failed: batches.flatMap((b) => b.outcome.failed) };
}
