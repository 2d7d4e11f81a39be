// Carrying out a reclamation plan: reads what gc/reclaim.ts decides by (when the log entry that scheduled each
// due object was written, and the object's own time) and deletes what it decides, in batches (store/delete-each.ts).
import { deletions, type DueObject, type ReclaimPlan } from '../../gc/reclaim.js';
import type { KvSeq } from '../../keys/ids.js';
import { inParallel } from '../in-parallel.js';
import { deleteEach, type Deletion } from '../store/delete-each.js';
import type { ObjectInfo, ObjectStore } from '../store/object-store.js';

/** Due objects looked up at once (a HEAD each on S3): a dropped table is thousands, each a round trip. */
const LOOKUPS_AT_ONCE = 32;

/** Due objects in one folder from which listing the folder beats a lookup each (a listing page is 1,000). */
const LIST_AT_LEAST = 64;

/** Objects a folder's listing may meet per due object it looks for before the rest are looked up one by one. */
const LISTED_PER_KEY = 4;

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

/**
 * The due objects as the log and the store have them; an entry's time is read once for all it scheduled.
 * Where many share a folder (a dropped table's files), the store's listing of their range gives their times a
 * page at a time; the rest are looked up one by one.
 */
async function dueObjects(store: ObjectStore, dataPath: string, writtenAt: (seq: KvSeq) => Promise<number | undefined>, due: ReclaimPlan['due']): Promise<DueObject[]> {
  const times = new Map<KvSeq, Promise<number | undefined>>();
  const objects = await listedObjects(store, due.map(({ path }) => `${dataPath}${path}`));
  const out: DueObject[] = [];
  await inParallel(due, LOOKUPS_AT_ONCE, async ({ path, seq }, i) => {
    if (seq !== undefined && !times.has(seq)) times.set(seq, writtenAt(seq));
    const key = `${dataPath}${path}`;
    const object = objects.get(key) ?? store.info(key);
    const [scheduledAt, found] = await Promise.all([seq === undefined ? undefined : times.get(seq)!, object]);
    out[i] = { path, scheduledAt, lastModified: found?.lastModified };
  });
  return out;
}

/**
 * What listings say of `keys`, for the folders that hold at least LIST_AT_LEAST of them: the keys listed, with
 * their entries. A key a listing does not show is looked up all the same (a listing shows no symbolic link;
 * an object not there is rare). A listing that meets more than LISTED_PER_KEY objects per key it looks for
 * (live files among them) stops there.
 */
async function listedObjects(store: ObjectStore, keys: readonly string[]): Promise<Map<string, ObjectInfo>> {
  const folders = new Map<string, string[]>();
  for (const key of keys) {
    const folder = key.slice(0, key.lastIndexOf('/') + 1);
    (folders.get(folder) ?? folders.set(folder, []).get(folder)!).push(key);
  }
  const out = new Map<string, ObjectInfo>();
  for (const [folder, inFolder] of folders) {
    if (inFolder.length < LIST_AT_LEAST) continue;
    const wanted = new Set(inFolder);
    const bytes = inFolder.map((key) => Buffer.from(key)).sort(Buffer.compare);
    const last = bytes.at(-1)!;
    let budget = inFolder.length * LISTED_PER_KEY;
    for await (const o of store.list(folder, startBefore(bytes[0]!.toString(), folder))) {
      if (Buffer.compare(Buffer.from(o.key), last) > 0 || --budget < 0) break;
      if (wanted.has(o.key)) out.set(o.key, o);
    }
  }
  return out;
}

/**
 * Where a listing of `folder` starts so that `key` is the first or nearly: after the key less its last
 * character (a prefix of a key sorts before it in any order), when that is still a key the store takes.
 */
function startBefore(key: string, folder: string): { startAfter?: string } {
  const name = [...key.slice(folder.length)];
  return name.length < 2 ? {} : { startAfter: folder + name.slice(0, -1).join('') };
}
