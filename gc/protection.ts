// What GC may delete, in one place (docs/DESIGN.md §5). Every job decides through these rules and nothing else:
//   - a version may be excised when it ended at or before retain-from and no protected snapshot falls in
//     [begin, end); a snapshot record below retain-from when it is not protected itself;
//   - protected snapshots are the tagged ones and those of unexpired leases, read whole before anything is
//     planned (a value that cannot be read aborts the job, so nothing is deleted on a partial picture);
//   - a file excision left unnamed may be deleted once its grace period is over, unless a row names it again,
//     and only while its object is the one the catalog let go: one the store modified after the log entry that
//     scheduled it was written was written again by an engine, and is never deleted;
//   - an orphan (under the data path, named by no row, never scheduled) only once it is older than a minimum
//     age: an engine may be writing a file it has not registered yet; the store's own leftovers of writes a
//     crash cut short, by the same age.
//   - an Iceberg object Strata wrote to serve a table (src/iceberg/) once no retained snapshot's metadata names
//     it and it is older than the grace: a manifest, list or delete copy the plans of the retained snapshots
//     do not name, a metadata file of a snapshot no longer retained or made under an earlier horizon (it
//     names lists excision made obsolete). Objects under another location's prefix, of a table whose plan
//     cannot be made, or named in a way Strata does not write, are never touched.
// Which checkpoints and log entries may go is decided in checkpoints.ts and compact-log.ts: they hold no
// catalog state the log or the newest checkpoint does not.
import type { ReadView } from '../src/kv/read-view.js';
import * as q from '../src/read/catalog-queries.js';
import { prefixOf } from '../src/store/checksummed-names.js';

/** Snapshots that keep what they can see: tagged ones, and those of unexpired leases. Sorted. */
export async function protectedSnapshots(view: ReadView, now: number): Promise<number[]> {
  const out = new Set<number>();
  for await (const t of q.tags(view)) out.add(t.snapshot);
  for await (const l of q.leases(view)) if (l.expiresAt > now) out.add(l.snapshot);
  return [...out].sort((a, b) => a - b);
}

/** Whether a protected snapshot p (of `sorted`) has begin <= p < end: what keeps a version from excision. */
export function isProtected(sorted: readonly number[], begin: number, end: number): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < begin) lo = mid + 1;
    else hi = mid;
  }
  // Past the last protected snapshot there is none to keep the version.
  return (sorted[lo] ?? Infinity) < end;
}

export type ScheduledFate = 'named' | 'due' | 'waiting';

/** A scheduled path: named again (unschedule, never delete), past its grace (delete), or waiting. */
export function scheduledFate(named: boolean, scheduledAt: number, graceMs: number, now: number): ScheduledFate {
  if (named) return 'named';
  return scheduledAt + graceMs <= now ? 'due' : 'waiting';
}

/** Whether an unscheduled object no row names is old enough to be an orphan rather than a file being written. */
export function isOrphanAge(lastModified: number, minAgeMs: number, now: number): boolean {
  return now - lastModified >= minAgeMs;
}

/**
 * Whether a due object is still the one the catalog let go: not when the store last modified it after the log
 * entry that scheduled it was written (`scheduledAt`; both by the store's clock), for then an engine wrote a
 * new file at the old path. Either time unknown (a schedule older than the seq it records, an entry the log
 * no longer has; an object the store does not hold): nothing says it was written again, and it is.
 */
export function isObjectLetGo(scheduledAt: number | undefined, lastModified: number | undefined): boolean {
  return scheduledAt === undefined || lastModified === undefined || lastModified <= scheduledAt;
}

/** What keeps Iceberg objects: every object the retained snapshots' metadata names, under this store's location. */
export interface IcebergKeep {
  /** `iceberg/<hash of where the store is>/`: objects elsewhere were made for another location. */
  location: string;
  /** The prefixes of the manifests, lists and delete copies they name (an object is `<prefix>.<crc32>.<ext>`). */
  named: ReadonlySet<string>;
  /** Table prefixes (`<location><uuid>/`) whose plan could not be made: kept whole. */
  keepTables: ReadonlySet<string>;
  horizon: number;
  /** Tagged and leased snapshots, sorted. */
  protected: readonly number[];
}

const ICEBERG_OBJECT = /^([^/]+\/)(manifests|lists|deletes|metadata)\/([^/]+)$/;
const METADATA_FILE = /^(\d+)-(\d+)-[0-9a-f]+\.metadata\.json$/;

/** Whether the Iceberg object `key` (last written at `lastModified`) may be deleted. */
export function isIcebergObjectLetGo(key: string, lastModified: number, keep: IcebergKeep, now: number, minAgeMs: number): boolean {
  if (!key.startsWith(keep.location) || now - lastModified < minAgeMs) return false;
  const m = ICEBERG_OBJECT.exec(key.slice(keep.location.length));
  if (m === null || keep.keepTables.has(`${keep.location}${m[1]}`)) return false;
  if (m[2] !== 'metadata') {
    const prefix = prefixOf(key);
    return prefix !== undefined && !keep.named.has(prefix);
  }
  const file = METADATA_FILE.exec(m[3]!);
  if (file === null) return false;
  const [at, horizon] = [Number(file[1]), Number(file[2])];
  return horizon !== keep.horizon || (at < keep.horizon && !keep.protected.includes(at));
}
