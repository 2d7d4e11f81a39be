// What decides how long history stays, and the bookkeeping of what GC removed (docs/DESIGN.md §5). All singletons,
// written by system entries (they advance the kv sequence, not the snapshot id):
//   [SnapshotTag][name]          a user's named, immutable pin on a snapshot
//   [Lease][lease id]            a snapshot-pinned reader's durable pin, honoured by GC in every process
//   [System][RetainFrom]         retain-from: untagged snapshots below it are out of retention
//   [ReclaimSchedule][path]      an object path whose last row was excised, and when: deleted after a grace
//   [ExcisionJob][job id]        an excision job's progress while it runs, its audit record after
import { type KvSeq, kvSeq, type SnapshotId } from './ids.js';
import { decodeKey, encodeKey, type Key, type KeyRange, keyPrefix, prefixRange } from './key-codec.js';
import { del, type Mutation, putRow } from './mutation.js';
import { Space } from './spaces.js';
import { SystemKey, systemKey } from './system.js';
import { decodeValue } from './value-codec.js';
import type { Violation } from './violation.js';

const nameField = (key: Key): string => decodeKey(key).fields[0] as string;

// ---- tags

export interface SnapshotTagRow {
  snapshot: SnapshotId;
  /** ms since epoch, from the catalog clock. */
  createdAt: number;
}

export const tagKey = (name: string): Key => encodeKey(Space.SnapshotTag, [name]);
export const ALL_TAGS: KeyRange = prefixRange(keyPrefix(Space.SnapshotTag));
export const putTag = (name: string, row: SnapshotTagRow): Mutation => putRow(tagKey(name), row);
export const dropTag = (name: string): Mutation => del(tagKey(name));
export const decodeTag = (key: Key, bytes: Uint8Array): { name: string } & SnapshotTagRow => ({
  name: nameField(key),
  ...decodeValue<SnapshotTagRow>(key, bytes),
});

// ---- leases

export interface LeaseRow {
  holder: string;
  snapshot: SnapshotId;
  expiresAt: number;
  createdAt: number;
}

export const leaseKey = (id: string): Key => encodeKey(Space.Lease, [id]);
export const ALL_LEASES: KeyRange = prefixRange(keyPrefix(Space.Lease));
export const putLease = (id: string, row: LeaseRow): Mutation => putRow(leaseKey(id), row);
export const dropLease = (id: string): Mutation => del(leaseKey(id));
export const decodeLease = (key: Key, bytes: Uint8Array): { id: string } & LeaseRow => ({ id: nameField(key), ...decodeValue<LeaseRow>(key, bytes) });

// ---- retain-from

export interface RetainFromRow {
  snapshot: SnapshotId;
  /** When it was last advanced (catalog clock). */
  since: number;
}

export const RETAIN_FROM_KEY = systemKey(SystemKey.RetainFrom);
export const putRetainFrom = (row: RetainFromRow): Mutation => putRow(RETAIN_FROM_KEY, row);

// ---- reclamation schedule

interface ReclaimScheduleRow {
  scheduledAt: number;
  /**
   * The log entry that scheduled it: its time in the store is when the object was last the one the catalog
   * named, so one modified after it (an engine rewrote the path) is not deleted. Absent in older schedules.
   */
  seq?: number;
}

export interface Scheduled {
  path: string;
  scheduledAt: number;
  seq: KvSeq | undefined;
}

export const scheduleKey = (path: string): Key => encodeKey(Space.ReclaimSchedule, [path]);
export const ALL_SCHEDULED: KeyRange = prefixRange(keyPrefix(Space.ReclaimSchedule));
export const schedule = (path: string, now: number, seq: KvSeq): Mutation =>
  putRow(scheduleKey(path), { scheduledAt: now, seq } satisfies ReclaimScheduleRow);
export const unschedule = (path: string): Mutation => del(scheduleKey(path));
export function decodeScheduled(key: Key, bytes: Uint8Array): Scheduled {
  const row = decodeValue<ReclaimScheduleRow>(key, bytes);
  return { path: nameField(key), scheduledAt: row.scheduledAt, seq: row.seq === undefined ? undefined : kvSeq(row.seq) };
}

// ---- excision jobs

export interface ExciseCounts {
  /** Versions of catalog rows (and index entries of names) removed. */
  versions: number;
  /** Snapshot records removed. */
  snapshots: number;
  /** Object paths no row names any more, scheduled for reclamation. */
  files: number;
}

export interface ExcisionJobRow extends ExciseCounts {
  startedAt: number;
  finishedAt: number | null;
  who: string;
  retainFrom: SnapshotId;
}

export const jobKey = (id: number): Key => encodeKey(Space.ExcisionJob, [id]);
export const ALL_JOBS: KeyRange = prefixRange(keyPrefix(Space.ExcisionJob));
export const putJob = (id: number, row: ExcisionJobRow): Mutation => putRow(jobKey(id), row);
export const decodeJob = (key: Key, bytes: Uint8Array): { id: number; row: ExcisionJobRow } => ({
  id: decodeKey(key).fields[0] as number,
  row: decodeValue<ExcisionJobRow>(key, bytes),
});

/** Every tag names a snapshot that still has its record: tags keep their snapshots through retain-from and excision. */
export function tagProblems(tags: readonly { name: string; snapshot: number; key: string }[], existing: ReadonlySet<number>): Violation[] {
  return tags
    .filter((t) => !existing.has(t.snapshot))
    .map((t) => ({ invariant: 'tagged-snapshots-exist', key: t.key, message: `tag ${JSON.stringify(t.name)} pins snapshot ${t.snapshot}, which has no record` }));
}
